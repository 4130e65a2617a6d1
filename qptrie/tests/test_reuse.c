// SPDX-License-Identifier: GPL-2.0
/*
 * Reuse hazards: what a reader that holds a map value pointer under
 * rcu_read_lock() sees while writers replace and delete elements, with
 * bpf_mem_alloc's immediate reuse (faithful mode) and with freed objects
 * poisoned (checking mode).
 *
 * - deterministic: a reader keeps a value pointer, the same thread then
 *   replaces the key and inserts others; the value must stay the old one
 *   (our qp-trie retires nodes through call_rcu); with the mutant that
 *   frees at once, the reader sees another key's data (faithful) or dies
 *   of use-after-poison under ASan (checking, in a child);
 * - the kernel hash map (BPF_F_NO_PREALLOC) documents immediate reuse: the
 *   reader sees the new key's data, as BPF programs can;
 * - stress: reader threads on CPUs 1..3 check that every value they find
 *   belongs to the key they looked up while a writer on CPU 0 updates and
 *   deletes.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <ksim/bpf.h>
#include <ksim/bpf_mem.h>
#include <ksim/rcu.h>
#include <ksim/asan.h>
#include <ksim/test.h>

#include <qptrie/qp_trie_ref.h>

struct val {
	u64 tag;	/* derived from the key */
	u64 seq;
};

static u64 key_tag(const u8 *key, u32 len)
{
	u64 h = 1469598103934665603ULL;

	for (u32 i = 0; i < len; i++)
		h = (h ^ key[i]) * 1099511628211ULL;
	return h;
}

static struct bpf_map *make_qp(int *err)
{
	struct ksim_bpf_map_attr a = {
		.key_size = sizeof(struct bpf_dynptr), .value_size = sizeof(struct val),
		.max_entries = 1024, .map_extra = 32,
	};

	return ksim_bpf_map_create(ksim_bpf_variant_find("qp_trie_ref"), &a, err);
}

static void put(struct bpf_map *m, const char *k, u64 seq)
{
	struct val v = { key_tag((const u8 *)k, strlen(k)), seq };

	/* as a BPF program would: inside the reader's RCU section */
	KSIM_EXPECT_EQ(ksim_bpf_prog_update(m, k, strlen(k), &v, BPF_ANY), 0);
}

/* Returns the tag the stale reader sees after replace + inserts. */
static u64 stale_reader_scenario(void)
{
	struct bpf_map *m;
	struct val *p;
	char k[16];
	u64 seen;
	int err;

	m = make_qp(&err);
	if (!m)
		return 0;
	ksim_set_cpu(0);
	put(m, "alpha", 1);
	put(m, "alpine", 1);
	rcu_read_lock();
	p = ksim_bpf_map_lookup_ptr(m, "alpha", 5);
	KSIM_EXPECT(p && p->tag == key_tag((const u8 *)"alpha", 5));
	/* writers: replace alpha, delete alpine, insert many keys */
	put(m, "alpha", 2);
	KSIM_EXPECT_EQ(ksim_bpf_prog_delete(m, "alpine", 6), 0);
	for (int i = 0; i < 64; i++) {
		snprintf(k, sizeof(k), "beta%d", i);
		put(m, k, 3);
	}
	seen = p ? p->tag : 0;	/* the reader, still inside its section */
	rcu_read_unlock();
	ksim_bpf_map_free(m);
	ksim_set_cpu(-1);
	return seen;
}

KSIM_TEST(qp_ref_reader_keeps_old_value)
{
	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);
	KSIM_EXPECT(stale_reader_scenario() == key_tag((const u8 *)"alpha", 5));
	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_CHECKING);
	KSIM_EXPECT(stale_reader_scenario() == key_tag((const u8 *)"alpha", 5));
	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);
}

KSIM_TEST(qp_ref_mutant_caught_faithful)
{
	u64 seen;

	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);
	ksim_qp_trie_ref_mutant_no_rcu = true;
	seen = stale_reader_scenario();
	ksim_qp_trie_ref_mutant_no_rcu = false;
	/* the check a reader makes: the value belongs to the key it looked up */
	KSIM_EXPECT(seen != key_tag((const u8 *)"alpha", 5),
		    "free without RCU went unnoticed: the stale reader still sees its key");
}

#if KSIM_ASAN
static void mutant_in_checking_mode(void *unused)
{
	(void)unused;
	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_CHECKING);
	ksim_qp_trie_ref_mutant_no_rcu = true;
	stale_reader_scenario();
}

KSIM_TEST(qp_ref_mutant_caught_checking)
{
	int status = ksim_test_run_in_child(mutant_in_checking_mode, NULL);

	KSIM_EXPECT(status != -1);
	KSIM_EXPECT(!(WIFEXITED(status) && WEXITSTATUS(status) == 0),
		    "checking mode did not catch the free without RCU (status %#x)", status);
}
#endif

KSIM_TEST(kernel_hash_immediate_reuse_is_visible)
{
	struct ksim_bpf_map_attr a = { .key_size = 8, .value_size = 16, .max_entries = 64 };
	struct bpf_map *m;
	u64 ka = 1, kb = 2;
	struct val va = { 111, 0 }, vb = { 222, 0 }, *p;
	int err;

	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);
	m = ksim_bpf_map_create(ksim_bpf_variant_find("hash_noprealloc"), &a, &err);
	KSIM_ASSERT(m);
	ksim_set_cpu(0);
	KSIM_EXPECT_EQ(ksim_bpf_map_update(m, &ka, 8, &va, BPF_ANY), 0);
	rcu_read_lock();
	p = ksim_bpf_map_lookup_ptr(m, &ka, 8);
	KSIM_EXPECT(p && p->tag == 111);
	KSIM_EXPECT_EQ(ksim_bpf_prog_delete(m, &ka, 8), 0);
	KSIM_EXPECT_EQ(ksim_bpf_prog_update(m, &kb, 8, &vb, BPF_ANY), 0);
	/* hashtab.c frees with bpf_mem_cache_free(): the element is reused
	 * at once and a program still holding the pointer sees key 2's value */
	KSIM_EXPECT(p && p->tag == 222, "expected the kernel's immediate reuse");
	rcu_read_unlock();
	ksim_bpf_map_free(m);
	ksim_set_cpu(-1);
}

/* ---- stress ---- */

static struct bpf_map *smap;
static volatile int stop;
static unsigned long bad, found;

static u32 skey(u64 r, u8 *k)
{
	u32 len = 1 + r % 8;

	for (u32 i = 0; i < len; i++)
		k[i] = "ab\x01\xff"[(r >> (3 + 2 * i)) & 3];
	return len;
}

static void *reader(void *arg)
{
	struct ksim_rng rng;
	unsigned long b = 0, f = 0;

	rcu_register_thread();
	ksim_set_cpu((int)(long)arg);
	ksim_rng_seed(&rng, ksim_test_seed() + (long)arg);
	while (!READ_ONCE(stop)) {
		u8 k[16];
		u32 len = skey(ksim_rng_next(&rng), k);
		struct val *p;

		rcu_read_lock();
		p = ksim_bpf_map_lookup_ptr(smap, k, len);
		if (p) {
			f++;
			if (READ_ONCE(p->tag) != key_tag(k, len))
				b++;
		}
		rcu_read_unlock();
	}
	__atomic_add_fetch(&bad, b, __ATOMIC_RELAXED);
	__atomic_add_fetch(&found, f, __ATOMIC_RELAXED);
	rcu_unregister_thread();
	return NULL;
}

static void stress(enum ksim_bpf_mem_mode mode)
{
	pthread_t th[3];
	struct ksim_rng *rng = ksim_test_rng();
	int err;

	ksim_bpf_mem_set_mode(mode);
	smap = make_qp(&err);
	KSIM_ASSERT(smap);
	stop = 0;
	bad = found = 0;
	for (long i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, reader, (void *)(i + 1));
	ksim_set_cpu(0);
	for (int i = 0; i < 60000; i++) {
		u8 k[16];
		u32 len = skey(ksim_rng_next(rng), k);
		struct val v = { key_tag(k, len), i };

		if (ksim_rng_below(rng, 3))
			ksim_bpf_map_update(smap, k, len, &v, BPF_ANY);
		else
			ksim_bpf_map_delete(smap, k, len);
	}
	WRITE_ONCE(stop, 1);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	ksim_set_cpu(-1);
	if (ksim_verbose > 1)
		printf("# readers found %lu values, %lu wrong\n", found, bad);
	KSIM_EXPECT_EQ(bad, 0);
	ksim_bpf_map_free(smap);
	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);
}

KSIM_TEST(qp_ref_stress_faithful)
{
	stress(KSIM_BPF_MEM_FAITHFUL);
}

KSIM_TEST(qp_ref_stress_checking)
{
	stress(KSIM_BPF_MEM_CHECKING);
}
