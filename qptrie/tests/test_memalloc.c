// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_mem_alloc emulation (shim/kernel/bpf/memalloc.c), both modes:
 * faithful: a freed object is handed out again at once on the same CPU
 * (a stale reader sees another key's data), *_free_rcu objects only after
 * a grace period, the size classes, per-CPU lists; checking: a freed object
 * is poisoned and quarantined, a stale read is an ASan use-after-poison
 * (shown in a forked child) and a stale write is found by the poison check.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/bpf_mem_alloc.h>
#include <linux/rcupdate.h>
#include <linux/percpu.h>
#include <ksim/bpf_mem.h>
#include <ksim/rcu.h>
#include <ksim/test.h>
#include <ksim/asan.h>

struct elem {
	u64 key;
	u64 val;
};

KSIM_TEST(faithful_immediate_reuse)
{
	struct bpf_mem_alloc ma;
	struct elem *a, *b, *stale;
	struct ksim_bpf_mem_stats st;

	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);
	KSIM_ASSERT(bpf_mem_alloc_init(&ma, sizeof(struct elem), false) == 0);
	ksim_set_cpu(1);
	a = bpf_mem_cache_alloc(&ma);
	KSIM_ASSERT(a);
	a->key = 1;
	a->val = 100;
	stale = a;			/* a reader found the element ... */
	bpf_mem_cache_free(&ma, a);	/* ... a deleter frees it ... */
	KSIM_EXPECT(ksim_bpf_mem_is_free(&ma, stale));
	b = bpf_mem_cache_alloc(&ma);	/* ... and an updater gets it back */
	KSIM_EXPECT(b == stale, "LIFO reuse on the same CPU: %p vs %p", b, stale);
	b->key = 2;
	b->val = 200;
	/* what the stale reader now sees: the other key's data */
	KSIM_EXPECT_EQ(stale->key, 2);
	KSIM_EXPECT_EQ(stale->val, 200);
	ksim_bpf_mem_stats(&ma, &st);
	KSIM_EXPECT(st.reused >= 1);
	KSIM_EXPECT_EQ(st.live, 1);
	bpf_mem_cache_free(&ma, b);
	ksim_set_cpu(-1);
	bpf_mem_alloc_destroy(&ma);
}

KSIM_TEST(faithful_free_rcu_waits_for_grace_period)
{
	struct bpf_mem_alloc ma;
	struct elem *a, *b;
	int i;

	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);
	KSIM_ASSERT(bpf_mem_alloc_init(&ma, sizeof(struct elem), false) == 0);
	ksim_set_cpu(2);
	a = bpf_mem_cache_alloc(&ma);
	KSIM_ASSERT(a);
	rcu_read_lock();	/* a reader holds the grace period open */
	bpf_mem_cache_free_rcu(&ma, a);
	/* drain the list: none of these may be @a while the reader is inside */
	for (i = 0; i < 8; i++) {
		b = bpf_mem_cache_alloc(&ma);
		KSIM_EXPECT(b != a, "free_rcu object reused inside a grace period");
		bpf_mem_cache_free(&ma, b);
	}
	KSIM_EXPECT(!ksim_bpf_mem_is_free(&ma, a));
	rcu_read_unlock();
	rcu_barrier();
	KSIM_EXPECT(ksim_bpf_mem_is_free(&ma, a), "after the grace period it is reusable");
	ksim_set_cpu(-1);
	bpf_mem_alloc_destroy(&ma);
}

KSIM_TEST(size_classes_and_cpus)
{
	static const size_t sz[] = { 1, 8, 9, 24, 88, 100, 184, 200, 500, 1000, 4088 };
	struct bpf_mem_alloc ma;
	void *p[ARRAY_SIZE(sz)];
	struct ksim_bpf_mem_stats st;
	unsigned long unit = 0;
	size_t i;

	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);
	KSIM_ASSERT(bpf_mem_alloc_init(&ma, 0, false) == 0);
	for (i = 0; i < ARRAY_SIZE(sz); i++) {
		static const unsigned int cls[] = { 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096 };
		size_t want = sz[i] + 8;
		unsigned int c = 0;

		for (size_t j = 0; j < ARRAY_SIZE(cls); j++)
			if (want <= cls[j]) {
				c = cls[j];
				break;
			}
		ksim_set_cpu(i % 4);
		p[i] = bpf_mem_alloc(&ma, sz[i]);
		KSIM_ASSERT(p[i]);
		memset(p[i], 0xa5, sz[i]);	/* ASan: the whole request is usable */
		unit += c;
	}
	KSIM_EXPECT(bpf_mem_alloc(&ma, 4089) == NULL, "beyond the largest class");
	KSIM_EXPECT(bpf_mem_alloc(&ma, 0) == NULL);
	ksim_bpf_mem_stats(&ma, &st);
	KSIM_EXPECT_EQ(st.bytes_unit, unit);
	/* freed on another CPU: goes to that CPU's list */
	ksim_set_cpu(3);
	for (i = 0; i < ARRAY_SIZE(sz); i++)
		bpf_mem_free(&ma, p[i]);
	/* the next 24-byte allocation on CPU 3 reuses the one freed there */
	KSIM_EXPECT(bpf_mem_alloc(&ma, 24) == p[3]);
	bpf_mem_free(&ma, p[3]);
	ksim_bpf_mem_stats(&ma, &st);
	KSIM_EXPECT_EQ(st.live, 0);
	ksim_set_cpu(-1);
	bpf_mem_alloc_destroy(&ma);
	KSIM_EXPECT_EQ(bpf_mem_alloc_check_size(false, 4088), 0);
	KSIM_EXPECT_EQ(bpf_mem_alloc_check_size(false, 4089), -E2BIG);
}

KSIM_TEST(faithful_high_watermark_returns_memory)
{
	struct bpf_mem_alloc ma;
	void *p[300];
	struct ksim_bpf_mem_stats st;
	int i;

	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);
	KSIM_ASSERT(bpf_mem_alloc_init(&ma, 48, false) == 0);
	ksim_set_cpu(0);
	for (i = 0; i < 300; i++)
		KSIM_ASSERT((p[i] = bpf_mem_cache_alloc(&ma)));
	for (i = 0; i < 300; i++)
		bpf_mem_cache_free(&ma, p[i]);
	rcu_barrier();
	ksim_bpf_mem_stats(&ma, &st);
	/* the list keeps at most high_watermark (96) units per CPU */
	KSIM_EXPECT(st.kfreed > 0);
	KSIM_EXPECT(st.bytes_cached <= 4UL * 96 * 56, "cached %lu", st.bytes_cached);
	ksim_set_cpu(-1);
	bpf_mem_alloc_destroy(&ma);
}

static void stale_read(void *obj)
{
	volatile u64 sink = ((struct elem *)obj)->key;	/* the unprotected reader */

	(void)sink;
}

/* Checking mode: a stale read in a child process must die under ASan. */
static int __maybe_unused stale_read_in_child(void)
{
	struct bpf_mem_alloc ma;
	struct elem *a;
	int status;

	KSIM_EXPECT(bpf_mem_alloc_init(&ma, sizeof(struct elem), false) == 0);
	a = bpf_mem_cache_alloc(&ma);
	a->key = 7;
	bpf_mem_cache_free(&ma, a);
	status = ksim_test_run_in_child(stale_read, a);
	bpf_mem_alloc_destroy(&ma);
	return status;
}

KSIM_TEST(checking_poisons_and_quarantines)
{
	struct bpf_mem_alloc ma;
	struct elem *a, *b;
	struct ksim_bpf_mem_stats st;
	int i;

	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_CHECKING);
	KSIM_ASSERT(bpf_mem_alloc_init(&ma, sizeof(struct elem), false) == 0);
	ksim_set_cpu(1);
	a = bpf_mem_cache_alloc(&ma);
	bpf_mem_cache_free(&ma, a);
	KSIM_EXPECT(ksim_bpf_mem_is_free(&ma, a));
	for (i = 0; i < 200; i++) {
		b = bpf_mem_cache_alloc(&ma);
		KSIM_EXPECT(b != a, "checking mode never hands a freed object out again");
		bpf_mem_cache_free(&ma, b);
	}
	ksim_bpf_mem_stats(&ma, &st);
	KSIM_EXPECT_EQ(st.reused, 0);
	KSIM_EXPECT(st.quarantined >= 201);
#if KSIM_ASAN
	KSIM_EXPECT(__asan_address_is_poisoned(&a->key));
#endif
	ksim_set_cpu(-1);
	bpf_mem_alloc_destroy(&ma);
	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);
}

#if KSIM_ASAN
KSIM_TEST(checking_stale_read_caught_by_asan)
{
	int status;

	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_CHECKING);
	status = stale_read_in_child();
	KSIM_EXPECT(!(WIFEXITED(status) && WEXITSTATUS(status) == 0),
		    "the stale read went unnoticed (status %#x)", status);
	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);
	status = stale_read_in_child();
	KSIM_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		    "faithful mode: the stale read is legal memory (status %#x)", status);
}
#endif

KSIM_TEST(checking_stale_write_caught_by_poison)
{
	struct bpf_mem_alloc ma;
	struct elem *a;

	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_CHECKING);
	KSIM_ASSERT(bpf_mem_alloc_init(&ma, sizeof(struct elem), false) == 0);
	a = bpf_mem_cache_alloc(&ma);
	bpf_mem_cache_free(&ma, a);
	/* a stale writer (ASan would stop a plain store; bypass it as a
	 * non-instrumented writer such as a device or asm would) */
	ASAN_UNPOISON_MEMORY_REGION(a, sizeof(*a));
	a->val = 0x1234;
	ASAN_POISON_MEMORY_REGION(a, sizeof(*a));
	ksim_expect_problems(KSIM_P_WARN, 1);
	bpf_mem_alloc_destroy(&ma);	/* leaves quarantine: poison checked */
	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);
}

/* An object its user never frees is reported when the allocator is destroyed. */
KSIM_TEST(destroy_reports_objects_never_freed)
{
	struct bpf_mem_alloc ma;
	struct elem *a, *b;

	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);
	KSIM_ASSERT(bpf_mem_alloc_init(&ma, sizeof(struct elem), false) == 0);
	a = bpf_mem_cache_alloc(&ma);
	b = bpf_mem_cache_alloc(&ma);
	KSIM_ASSERT(a && b);
	bpf_mem_cache_free(&ma, a);	/* b is lost */
	KSIM_EXPECT(ksim_problem_count(KSIM_P_LEAK) == 0);
	bpf_mem_alloc_destroy(&ma);
	KSIM_EXPECT(ksim_problem_count(KSIM_P_LEAK) == 1, "%lu", ksim_problem_count(KSIM_P_LEAK));
	ksim_expect_problems(KSIM_P_LEAK, 1);
	kfree((char *)b - sizeof(void *));	/* the unit (its header in front), or the slab check reports it too */
}
