// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the shim's slab allocator (shim/mm/slab.c): the kmalloc
 * family (kzalloc, kcalloc overflow, krealloc, kmemdup, kstrdup, ZERO_SIZE_PTR),
 * kvmalloc/vmalloc, kmem_cache_create with ctor, alignment and the 6.12
 * kmem_cache_args form, bulk allocation, SLAB_TYPESAFE_BY_RCU reuse, the
 * per-cache accounting (kmalloc size classes, cache rounding), the kernel
 * harness's strict GFP_NOWAIT budget, might_alloc() checks in atomic
 * context, and the leak check.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include <ksim/fault.h>
#include <ksim/rcu.h>
#include <ksim/slab.h>
#include <ksim/test.h>
#include <ksim/asan.h>

static struct ksim_slab_stats kstats(struct kmem_cache *c)
{
	struct ksim_slab_stats st;

	ksim_slab_stats(c, &st);
	return st;
}

static bool all_bytes(const void *p, int val, size_t len)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < len; i++)
		if (c[i] != (unsigned char)val)
			return false;
	return true;
}

KSIM_TEST(kmalloc_size_classes)
{
	static const struct { size_t size, rounded; } cls[] = {
		{ 1, 8 }, { 8, 8 }, { 9, 16 }, { 16, 16 }, { 17, 32 },
		{ 33, 64 }, { 64, 64 }, { 65, 96 }, { 96, 96 }, { 97, 128 },
		{ 100, 128 }, { 128, 128 }, { 129, 192 }, { 192, 192 },
		{ 193, 256 }, { 1000, 1024 }, { 4096, 4096 }, { 8192, 8192 },
		{ 8193, 16384 }, { 9000, 16384 }, { 100000, 131072 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cls); i++) {
		struct ksim_slab_stats before = kstats(KSIM_CACHE_KMALLOC), after;
		void *p;

		KSIM_EXPECT_EQ(ksim_kmalloc_rounded(cls[i].size), cls[i].rounded);
		KSIM_EXPECT_EQ(kmalloc_size_roundup(cls[i].size), cls[i].rounded);
		p = kmalloc(cls[i].size, GFP_KERNEL);
		KSIM_ASSERT(p);
		memset(p, 0x5a, cls[i].size);	/* the whole request is usable */
		after = kstats(KSIM_CACHE_KMALLOC);
		KSIM_EXPECT_EQ(after.live, before.live + 1);
		KSIM_EXPECT_EQ(after.total, before.total + 1);
		KSIM_EXPECT_EQ(after.bytes_requested, before.bytes_requested + cls[i].size);
		KSIM_EXPECT_EQ(after.bytes_rounded, before.bytes_rounded + cls[i].rounded);
		/* documented deliberate difference: ksize() is the request */
		KSIM_EXPECT_EQ(ksize(p), cls[i].size);
		kfree(p);
		after = kstats(KSIM_CACHE_KMALLOC);
		KSIM_EXPECT_EQ(after.live, before.live);
		KSIM_EXPECT_EQ(after.bytes_requested, before.bytes_requested);
		KSIM_EXPECT_EQ(after.bytes_rounded, before.bytes_rounded);
	}
	KSIM_EXPECT_EQ(kmalloc_size_roundup(0), 0);
}

KSIM_TEST(kzalloc_kcalloc)
{
	struct ksim_slab_stats before = kstats(KSIM_CACHE_KMALLOC), after;
	unsigned int *a;
	char *z;

	z = kzalloc(257, GFP_KERNEL);
	KSIM_ASSERT(z);
	KSIM_EXPECT(all_bytes(z, 0, 257));
	kfree(z);

	a = kcalloc(100, sizeof(*a), GFP_KERNEL);
	KSIM_ASSERT(a);
	KSIM_EXPECT(all_bytes(a, 0, 100 * sizeof(*a)));
	KSIM_EXPECT_EQ(ksize(a), 100 * sizeof(*a));
	kfree(a);

	a = kmalloc_array(10, sizeof(*a), GFP_KERNEL);
	KSIM_ASSERT(a);
	KSIM_EXPECT_EQ(ksize(a), 10 * sizeof(*a));
	kfree(a);

	/* n * size overflows: NULL, and nothing was allocated or counted */
	KSIM_EXPECT(kcalloc(SIZE_MAX / 2, 4, GFP_KERNEL) == NULL);
	KSIM_EXPECT(kmalloc_array(SIZE_MAX, 2, GFP_KERNEL) == NULL);
	after = kstats(KSIM_CACHE_KMALLOC);
	KSIM_EXPECT_EQ(after.live, before.live);
	KSIM_EXPECT_EQ(after.total, before.total + 3);
	KSIM_EXPECT_EQ(after.failed, before.failed);
}

KSIM_TEST(krealloc_keeps_content)
{
	struct ksim_slab_stats before = kstats(KSIM_CACHE_KMALLOC), after;
	unsigned char *p, *q;
	int i;

	p = kmalloc(16, GFP_KERNEL);
	KSIM_ASSERT(p);
	for (i = 0; i < 16; i++)
		p[i] = i;

	/* grow */
	q = krealloc(p, 200, GFP_KERNEL);
	KSIM_ASSERT(q);
	for (i = 0; i < 16; i++)
		KSIM_EXPECT_EQ(q[i], i);
	memset(q + 16, 0xee, 200 - 16);
	after = kstats(KSIM_CACHE_KMALLOC);
	KSIM_EXPECT_EQ(after.live, before.live + 1);
	KSIM_EXPECT_EQ(after.bytes_requested, before.bytes_requested + 200);
	KSIM_EXPECT_EQ(after.bytes_rounded, before.bytes_rounded + 256);

	/* shrink */
	p = krealloc(q, 8, GFP_KERNEL);
	KSIM_ASSERT(p);
	for (i = 0; i < 8; i++)
		KSIM_EXPECT_EQ(p[i], i);
	KSIM_EXPECT_EQ(ksize(p), 8);
	after = kstats(KSIM_CACHE_KMALLOC);
	KSIM_EXPECT_EQ(after.live, before.live + 1);
	KSIM_EXPECT_EQ(after.bytes_requested, before.bytes_requested + 8);

	/* grow with __GFP_ZERO: the new tail is zeroed */
	q = krealloc(p, 64, GFP_KERNEL | __GFP_ZERO);
	KSIM_ASSERT(q);
	for (i = 0; i < 8; i++)
		KSIM_EXPECT_EQ(q[i], i);
	KSIM_EXPECT(all_bytes(q + 8, 0, 56));

	/* size 0 frees and returns ZERO_SIZE_PTR */
	p = krealloc(q, 0, GFP_KERNEL);
	KSIM_EXPECT(p == ZERO_SIZE_PTR);
	after = kstats(KSIM_CACHE_KMALLOC);
	KSIM_EXPECT_EQ(after.live, before.live);
	KSIM_EXPECT_EQ(after.bytes_requested, before.bytes_requested);

	/* krealloc(NULL) is kmalloc */
	p = krealloc(NULL, 32, GFP_KERNEL);
	KSIM_ASSERT(p);
	KSIM_EXPECT_EQ(ksize(p), 32);
	kfree(p);
}

KSIM_TEST(zero_size_and_null)
{
	struct ksim_slab_stats before = kstats(KSIM_CACHE_KMALLOC), after;
	void *p;

	kfree(NULL);
	kvfree(NULL);
	vfree(NULL);
	kfree(ZERO_SIZE_PTR);
	p = kmalloc(0, GFP_KERNEL);
	KSIM_EXPECT(p == ZERO_SIZE_PTR);
	KSIM_EXPECT(ZERO_OR_NULL_PTR(p));
	KSIM_EXPECT_EQ(ksize(p), 0);
	kfree(p);
	p = kzalloc(0, GFP_KERNEL);
	KSIM_EXPECT(p == ZERO_SIZE_PTR);
	kfree(p);
	KSIM_EXPECT(ZERO_OR_NULL_PTR(NULL));
	after = kstats(KSIM_CACHE_KMALLOC);
	KSIM_EXPECT_EQ(after.live, before.live);
	KSIM_EXPECT_EQ(after.total, before.total);
}

KSIM_TEST(kmemdup_kstrdup)
{
	static const char src[] = "the quick brown fox";
	const int nums[5] = { 1, 2, 3, 4, 5 };
	int *n;
	char *s;

	n = kmemdup(nums, sizeof(nums), GFP_KERNEL);
	KSIM_ASSERT(n);
	KSIM_EXPECT(n != nums);
	KSIM_EXPECT(!memcmp(n, nums, sizeof(nums)));
	KSIM_EXPECT_EQ(ksize(n), sizeof(nums));
	kfree(n);

	s = kstrdup(src, GFP_KERNEL);
	KSIM_ASSERT(s);
	KSIM_EXPECT(s != src);
	KSIM_EXPECT(!strcmp(s, src));
	KSIM_EXPECT_EQ(ksize(s), sizeof(src));
	kfree(s);

	s = kstrndup(src, 3, GFP_KERNEL);
	KSIM_ASSERT(s);
	KSIM_EXPECT(!strcmp(s, "the"));
	KSIM_EXPECT_EQ(ksize(s), 4);
	kfree(s);

	KSIM_EXPECT(kstrdup(NULL, GFP_KERNEL) == NULL);
}

KSIM_TEST(kvmalloc_and_vmalloc)
{
	struct ksim_slab_stats kb = kstats(KSIM_CACHE_KMALLOC);
	struct ksim_slab_stats vb = kstats(KSIM_CACHE_VMALLOC);
	struct ksim_slab_stats ka, va;
	size_t big = 1 << 20;
	void *small, *large, *v;
	int local;

	small = kvmalloc(100, GFP_KERNEL);
	KSIM_ASSERT(small);
	KSIM_EXPECT(!is_vmalloc_addr(small));
	large = kvzalloc(big + 10, GFP_KERNEL);
	KSIM_ASSERT(large);
	KSIM_EXPECT(is_vmalloc_addr(large));
	KSIM_EXPECT(all_bytes(large, 0, big + 10));
	v = vmalloc(5000);
	KSIM_ASSERT(v);
	KSIM_EXPECT(is_vmalloc_addr(v));
	memset(v, 1, 5000);

	ka = kstats(KSIM_CACHE_KMALLOC);
	va = kstats(KSIM_CACHE_VMALLOC);
	KSIM_EXPECT_EQ(ka.live, kb.live + 1);
	KSIM_EXPECT_EQ(ka.bytes_rounded, kb.bytes_rounded + 128);
	KSIM_EXPECT_EQ(va.live, vb.live + 2);
	KSIM_EXPECT_EQ(va.bytes_requested, vb.bytes_requested + big + 10 + 5000);
	/* vmalloc uses whole pages */
	KSIM_EXPECT_EQ(va.bytes_rounded, vb.bytes_rounded + big + 4096 + 8192);

	KSIM_EXPECT(!is_vmalloc_addr(NULL));
	KSIM_EXPECT(!is_vmalloc_addr(&local));

	kvfree(small);
	kvfree(large);
	vfree(v);
	ka = kstats(KSIM_CACHE_KMALLOC);
	va = kstats(KSIM_CACHE_VMALLOC);
	KSIM_EXPECT_EQ(ka.live, kb.live);
	KSIM_EXPECT_EQ(va.live, vb.live);
	KSIM_EXPECT_EQ(va.bytes_rounded, vb.bytes_rounded);
}

struct ctor_obj {
	unsigned long magic;
	int refs;
	char payload[28];
};

static int ctor_calls;

static void ctor_obj_init(void *p)
{
	struct ctor_obj *o = p;

	ctor_calls++;
	o->magic = 0xc0ffee;
	o->refs = 0;
	memset(o->payload, 'x', sizeof(o->payload));
}

KSIM_TEST(kmem_cache_ctor)
{
	struct kmem_cache *c;
	struct ctor_obj *o[3];
	struct ksim_slab_stats st;

	ctor_calls = 0;
	c = kmem_cache_create("test_ctor", sizeof(struct ctor_obj), 0, 0, ctor_obj_init);
	KSIM_ASSERT(c);
	KSIM_EXPECT(!strcmp(kmem_cache_name(c), "test_ctor"));
	KSIM_EXPECT_EQ(kmem_cache_size(c), sizeof(struct ctor_obj));
	KSIM_EXPECT_EQ(ctor_calls, 0);
	for (int i = 0; i < 3; i++) {
		o[i] = kmem_cache_alloc(c, GFP_KERNEL);
		KSIM_EXPECT(o[i]);
		KSIM_EXPECT_EQ(ctor_calls, i + 1);
		if (o[i]) {
			KSIM_EXPECT_EQ(o[i]->magic, 0xc0ffee);
			KSIM_EXPECT_EQ(o[i]->payload[27], 'x');
		}
	}
	st = kstats(c);
	KSIM_EXPECT(!strcmp(st.name, "test_ctor"));
	KSIM_EXPECT_EQ(st.live, 3);
	KSIM_EXPECT_EQ(st.total, 3);
	KSIM_EXPECT_EQ(kmem_cache_nr_allocated(c), 3);
	KSIM_EXPECT_EQ(kmem_cache_nr_tallocated(c), 3);
	KSIM_EXPECT_EQ(kmem_cache_get_alloc(c), 3 * sizeof(struct ctor_obj));
	kmem_cache_free(c, o[0]);
	kmem_cache_free(c, o[1]);
	/* kfree() of a cache object goes back to its cache */
	kfree(o[2]);
	st = kstats(c);
	KSIM_EXPECT_EQ(st.live, 0);
	KSIM_EXPECT_EQ(st.bytes_requested, 0);
	KSIM_EXPECT_EQ(kmem_cache_nr_tallocated(c), 3);
	kmem_cache_zero_nr_tallocated(c);
	KSIM_EXPECT_EQ(kmem_cache_nr_tallocated(c), 0);
	kmem_cache_free(c, NULL);
	kmem_cache_destroy(c);
	kmem_cache_destroy(NULL);
}

KSIM_TEST(kmem_cache_alignment_and_rounding)
{
	static const unsigned int aligns[] = { 0, 8, 16, 32, 64, 256, 4096 };

	for (size_t i = 0; i < ARRAY_SIZE(aligns); i++) {
		unsigned int a = aligns[i], eff = a < 8 ? 8 : a;
		struct kmem_cache *c = kmem_cache_create("test_align", 100, a, 0, NULL);
		struct ksim_slab_stats st;
		void *o[8];

		KSIM_ASSERT(c);
		for (int j = 0; j < 8; j++) {
			o[j] = kmem_cache_alloc(c, GFP_KERNEL);
			KSIM_EXPECT(o[j]);
			KSIM_EXPECT_EQ((uintptr_t)o[j] % eff, 0);
		}
		st = kstats(c);
		KSIM_EXPECT_EQ(st.live, 8);
		KSIM_EXPECT_EQ(st.bytes_requested, 8 * 100);
		KSIM_EXPECT_EQ(st.bytes_rounded, 8 * ALIGN(100, eff));
		kmem_cache_free_bulk(c, 8, o);
		st = kstats(c);
		KSIM_EXPECT_EQ(st.live, 0);
		KSIM_EXPECT_EQ(st.bytes_rounded, 0);
		kmem_cache_destroy(c);
	}
}

KSIM_TEST(kmem_cache_hwcache_align_and_args)
{
	struct kmem_cache_args args = { .align = 128, .ctor = ctor_obj_init };
	struct ksim_slab_stats st;
	struct kmem_cache *c;
	struct ctor_obj *o;
	void *p;

	/* SLAB_HWCACHE_ALIGN on a 100-byte object: cache-line (64) aligned */
	c = kmem_cache_create("test_hwalign", 100, 0, SLAB_HWCACHE_ALIGN, NULL);
	KSIM_ASSERT(c);
	p = kmem_cache_alloc(c, GFP_KERNEL);
	KSIM_ASSERT(p);
	KSIM_EXPECT((uintptr_t)p % 64 == 0);
	st = kstats(c);
	KSIM_EXPECT_EQ(st.bytes_rounded, 128);
	kmem_cache_free(c, p);
	kmem_cache_destroy(c);

	/* 6.12 form: struct kmem_cache_args in the align slot */
	ctor_calls = 0;
	c = kmem_cache_create("test_args", sizeof(struct ctor_obj), &args, 0);
	KSIM_ASSERT(c);
	o = kmem_cache_alloc(c, GFP_KERNEL);
	KSIM_ASSERT(o);
	KSIM_EXPECT((uintptr_t)o % 128 == 0);
	KSIM_EXPECT_EQ(ctor_calls, 1);
	KSIM_EXPECT_EQ(o->magic, 0xc0ffee);
	st = kstats(c);
	KSIM_EXPECT_EQ(st.bytes_rounded, 128);
	kmem_cache_free(c, o);
	kmem_cache_destroy(c);
}

KSIM_TEST(kmem_cache_zalloc_zeroes)
{
	struct kmem_cache *c = kmem_cache_create("test_zalloc", 200, 0, 0, NULL);
	unsigned char *p;

	KSIM_ASSERT(c);
	p = kmem_cache_zalloc(c, GFP_KERNEL);
	KSIM_ASSERT(p);
	KSIM_EXPECT(all_bytes(p, 0, 200));
	kmem_cache_free(c, p);
	kmem_cache_destroy(c);
}

KSIM_TEST(kmem_cache_bulk)
{
	struct ksim_fault_config cfg = { .nth = 5 };
	struct kmem_cache *c = kmem_cache_create("test_bulk", 48, 0, 0, NULL);
	struct ksim_slab_stats st;
	void *p[16];
	int n;

	KSIM_ASSERT(c);
	n = kmem_cache_alloc_bulk(c, GFP_KERNEL, 16, p);
	KSIM_EXPECT_EQ(n, 16);
	for (int i = 0; i < n; i++) {
		KSIM_EXPECT(p[i]);
		for (int j = 0; j < i; j++)
			KSIM_EXPECT(p[i] != p[j]);
	}
	st = kstats(c);
	KSIM_EXPECT_EQ(st.live, 16);
	KSIM_EXPECT_EQ(st.bytes_rounded, 16 * 48);
	kmem_cache_free_bulk(c, n, p);
	KSIM_EXPECT_EQ(kstats(c).live, 0);

	/* the 5th object fails: the whole bulk fails, nothing stays allocated */
	ksim_fault_set(&cfg);
	memset(p, 0, sizeof(p));
	n = kmem_cache_alloc_bulk(c, GFP_KERNEL, 8, p);
	KSIM_EXPECT_EQ(n, 0);
	KSIM_EXPECT_EQ(ksim_fault_failures(), 1);
	st = kstats(c);
	KSIM_EXPECT_EQ(st.live, 0);
	KSIM_EXPECT_EQ(st.bytes_requested, 0);
	KSIM_EXPECT_EQ(st.failed, 1);
	/* times defaults to 1: the retry succeeds */
	n = kmem_cache_alloc_bulk(c, GFP_KERNEL, 8, p);
	KSIM_EXPECT_EQ(n, 8);
	ksim_fault_reset();
	if (n > 0)
		kmem_cache_free_bulk(c, n, p);
	KSIM_EXPECT_EQ(kstats(c).live, 0);
	kmem_cache_destroy(c);
}

KSIM_TEST(typesafe_by_rcu_reuse)
{
	struct kmem_cache *c, *z;
	struct ctor_obj *a, *b;
	unsigned char *p, *q;

	ctor_calls = 0;
	c = kmem_cache_create("test_typesafe", sizeof(struct ctor_obj), 0,
			      SLAB_TYPESAFE_BY_RCU, ctor_obj_init);
	KSIM_ASSERT(c);
	a = kmem_cache_alloc(c, GFP_KERNEL);
	KSIM_ASSERT(a);
	KSIM_EXPECT_EQ(ctor_calls, 1);
	a->refs = 7;
	KSIM_EXPECT_EQ(ksim_kmem_cache_nr_free(c), 0);
	kmem_cache_free(c, a);
	KSIM_EXPECT_EQ(ksim_kmem_cache_nr_free(c), 1);
	KSIM_EXPECT_EQ(kstats(c).live, 0);

	/* type-stable: the same object comes back, constructed state intact */
	b = kmem_cache_alloc(c, GFP_KERNEL);
	KSIM_EXPECT(b == a);
	KSIM_EXPECT_EQ(ctor_calls, 1);
	KSIM_EXPECT_EQ(ksim_kmem_cache_nr_free(c), 0);
	KSIM_EXPECT_EQ(kstats(c).live, 1);
	KSIM_EXPECT_EQ(kstats(c).total, 2);
	if (b) {
		KSIM_EXPECT_EQ(b->magic, 0xc0ffee);
		KSIM_EXPECT_EQ(b->refs, 7);
		kmem_cache_free(c, b);
	}
	KSIM_EXPECT_EQ(ksim_kmem_cache_nr_free(c), 1);
	kmem_cache_destroy(c);

	/* without a ctor, kmem_cache_zalloc() zeroes a reused object */
	z = kmem_cache_create("test_typesafe_z", 64, 0, SLAB_TYPESAFE_BY_RCU, NULL);
	KSIM_ASSERT(z);
	p = kmem_cache_alloc(z, GFP_KERNEL);
	KSIM_ASSERT(p);
	memset(p, 0xff, 64);
	kmem_cache_free(z, p);
	q = kmem_cache_zalloc(z, GFP_KERNEL);
	KSIM_EXPECT(q == p);
	if (q) {
		KSIM_EXPECT(all_bytes(q, 0, 64));
		kmem_cache_free(z, q);
	}
	kmem_cache_destroy(z);
}

static int nowait_cb_calls;
static void *nowait_cb_arg;

static void nowait_cb(void *arg)
{
	nowait_cb_calls++;
	nowait_cb_arg = arg;
}

KSIM_TEST(strict_nowait_budget)
{
	struct kmem_cache *c = kmem_cache_create("test_nowait", 32, 0, 0, NULL);
	void *p[8] = { NULL }, *k, *m;
	int priv, n;

	KSIM_ASSERT(c);
	ksim_slab_set_strict_nowait(true);
	nowait_cb_calls = 0;
	kmem_cache_set_callback(c, nowait_cb);
	kmem_cache_set_private(c, &priv);

	/*
	 * No budget: non-blocking allocations fail, blocking ones do not.
	 * Each failure arms the callback, which the next allocation runs
	 * (tools/testing/shared/linux.c).
	 */
	p[0] = kmem_cache_alloc(c, GFP_NOWAIT);
	KSIM_EXPECT(p[0] == NULL);
	KSIM_EXPECT_EQ(nowait_cb_calls, 0);
	p[1] = kmem_cache_alloc(c, GFP_ATOMIC);
	KSIM_EXPECT(p[1] == NULL);
	KSIM_EXPECT_EQ(nowait_cb_calls, 1);
	KSIM_EXPECT(nowait_cb_arg == &priv);
	KSIM_EXPECT_EQ(kstats(c).failed, 2);
	k = kmem_cache_alloc(c, GFP_KERNEL);
	KSIM_EXPECT(k != NULL);
	KSIM_EXPECT_EQ(nowait_cb_calls, 2);
	kmem_cache_free(c, kmem_cache_alloc(c, GFP_KERNEL));
	KSIM_EXPECT_EQ(nowait_cb_calls, 2);
	/* kmalloc has no budget: every non-blocking call fails, as the
	 * harness's tools/lib/slab.c; a blocking one succeeds */
	KSIM_EXPECT(kmalloc(16, GFP_NOWAIT) == NULL);
	m = kmalloc(16, GFP_KERNEL);
	KSIM_EXPECT(m != NULL);

	/* a budget of 2 allows exactly two */
	kmem_cache_set_non_kernel(c, 2);
	p[2] = kmem_cache_alloc(c, GFP_NOWAIT);
	p[3] = kmem_cache_alloc(c, GFP_NOWAIT);
	p[4] = kmem_cache_alloc(c, GFP_NOWAIT);
	KSIM_EXPECT(p[2] != NULL);
	KSIM_EXPECT(p[3] != NULL);
	KSIM_EXPECT(p[4] == NULL);

	/* bulk: all-or-nothing against the budget */
	kmem_cache_set_non_kernel(c, 3);
	n = kmem_cache_alloc_bulk(c, GFP_NOWAIT, 4, p + 4);
	KSIM_EXPECT_EQ(n, 0);
	n = kmem_cache_alloc_bulk(c, GFP_NOWAIT, 3, p + 4);
	KSIM_EXPECT_EQ(n, 3);
	if (n != 3)
		memset(p + 4, 0, 3 * sizeof(void *));

	/* strict off: non-blocking allocations succeed again */
	ksim_slab_set_strict_nowait(false);
	p[7] = kmem_cache_alloc(c, GFP_NOWAIT);
	KSIM_EXPECT(p[7] != NULL);

	for (int i = 0; i < 8; i++)
		kmem_cache_free(c, p[i]);
	kmem_cache_free(c, k);
	kfree(m);
	KSIM_EXPECT_EQ(kstats(c).live, 0);
	kmem_cache_destroy(c);
}

KSIM_TEST(gfp_kernel_in_atomic_context)
{
	struct kmem_cache *c = kmem_cache_create("test_atomic", 32, 0, 0, NULL);
	unsigned long base = ksim_problem_count(KSIM_P_SLEEP);
	DEFINE_SPINLOCK(lock);
	void *a, *b, *d, *e, *f;

	KSIM_ASSERT(c);
	ksim_expect_problems(KSIM_P_SLEEP, 3);

	spin_lock(&lock);
	a = kmalloc(32, GFP_KERNEL);		/* may sleep under a spinlock */
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_SLEEP), base + 1);
	b = kmalloc(32, GFP_ATOMIC);		/* fine */
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_SLEEP), base + 1);
	d = kmem_cache_alloc(c, GFP_KERNEL);	/* may sleep under a spinlock */
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_SLEEP), base + 2);
	spin_unlock(&lock);

	rcu_read_lock();
	e = kmalloc(32, GFP_KERNEL);		/* may sleep in an RCU reader */
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_SLEEP), base + 3);
	f = kmalloc(32, GFP_NOWAIT);		/* fine */
	rcu_read_unlock();
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_SLEEP), base + 3);

	/* outside atomic context GFP_KERNEL is fine */
	kfree(kmalloc(8, GFP_KERNEL));
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_SLEEP), base + 3);

	kfree(a);
	kfree(b);
	kmem_cache_free(c, d);
	kfree(e);
	kfree(f);
	kmem_cache_destroy(c);
}

KSIM_TEST(leak_check_counts_live_objects)
{
	unsigned long base = ksim_problem_count(KSIM_P_LEAK);
	FILE *devnull = fopen("/dev/null", "w");
	void *old, *p, *q;

	KSIM_ASSERT(devnull);
	KSIM_EXPECT_EQ(ksim_slab_leak_check(devnull), 0);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_LEAK), base);

	ksim_expect_problems(KSIM_P_LEAK, 1);
	p = kmalloc(24, GFP_KERNEL);
	q = kmalloc(48, GFP_KERNEL);
	/* two live kmalloc objects, one problem (one per leaking cache) */
	KSIM_EXPECT_EQ(ksim_slab_leak_check(stderr), 2);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_LEAK), base + 1);
	kfree(p);
	kfree(q);
	KSIM_EXPECT_EQ(ksim_slab_leak_check(devnull), 0);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_LEAK), base + 1);

	/* objects born before ksim_slab_mark() are long-lived state */
	old = kmalloc(16, GFP_KERNEL);
	ksim_slab_mark();
	KSIM_EXPECT_EQ(ksim_slab_leak_check(devnull), 0);
	kfree(old);
	fclose(devnull);
}

/*
 * kmem_cache_destroy() of a cache that still has objects reports the leak.
 * The kernel then keeps the cache (it WARNs and returns), so the shim must
 * not free it either: the leftover objects still point at it, and the next
 * leak check (the harness's own, at the end of the test) reads it.  Run in
 * a child so an AddressSanitizer report cannot take the whole binary down.
 */
static void destroy_with_live_objects(void *unused)
{
	FILE *devnull = fopen("/dev/null", "w");
	struct kmem_cache *c;
	void *obj;

	(void)unused;
	ksim_problems_reset();
	ksim_expect_problems(KSIM_P_LEAK, 2);
	c = kmem_cache_create("test_destroy_live", 40, 0, 0, NULL);
	obj = c ? kmem_cache_alloc(c, GFP_KERNEL) : NULL;
	if (!obj)
		_exit(3);
	kmem_cache_destroy(c);
	if (ksim_problem_count(KSIM_P_LEAK) != 1)
		_exit(4);
	/* the object is still live and must still be reported */
	if (ksim_slab_leak_check(devnull) != 1)
		_exit(5);
}

KSIM_TEST(destroy_with_live_objects_reports_leak)
{
	int status = ksim_test_run_in_child(destroy_with_live_objects, NULL);

	KSIM_ASSERT(status != -1);
	/* exit 1: AddressSanitizer report (use after free of the cache) */
	KSIM_EXPECT(WIFEXITED(status));
	KSIM_EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), 0);
}

/*
 * Freed objects may be recycled (builds without sanitizers, see
 * shim/mm/slab.c): a reused object is accounted, leak-reported and
 * fault-injected exactly like a new one.  Holds in every build.
 */
KSIM_TEST(reused_objects_accounted_and_fault_injected)
{
	struct kmem_cache *c = kmem_cache_create("test_reuse", 200, 256, 0, NULL);
	struct ksim_fault_config cfg = { .nth = 1, .times = 2 };
	FILE *devnull = fopen("/dev/null", "w");
	unsigned long base = ksim_problem_count(KSIM_P_LEAK);
	void *p, *q, *k;

	KSIM_ASSERT(c && devnull);
	p = kmem_cache_alloc(c, GFP_KERNEL);
	KSIM_ASSERT(p);
	kmem_cache_free(c, p);
	q = kmem_cache_alloc(c, GFP_KERNEL);
	KSIM_ASSERT(q);
	KSIM_EXPECT_EQ((uintptr_t)q % 256, 0);
	KSIM_EXPECT_EQ(kstats(c).live, 1);
	KSIM_EXPECT_EQ(kstats(c).total, 2);
	ksim_expect_problems(KSIM_P_LEAK, 1);
	KSIM_EXPECT_EQ(ksim_slab_leak_check(devnull), 1);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_LEAK), base + 1);
	kmem_cache_free(c, q);
	KSIM_EXPECT_EQ(ksim_slab_leak_check(devnull), 0);

	/* a freed object waiting for reuse does not make an allocation succeed */
	ksim_fault_set(&cfg);
	KSIM_EXPECT(kmem_cache_alloc(c, GFP_KERNEL) == NULL);
	KSIM_EXPECT(kmalloc(24, GFP_KERNEL) == NULL);
	KSIM_EXPECT_EQ(ksim_fault_failures(), 2);
	ksim_fault_reset();
	KSIM_EXPECT_EQ(kstats(c).live, 0);
	KSIM_EXPECT_EQ(kstats(c).failed, 1);

	/* kmalloc: another size of the same class, with its own size */
	k = kmalloc(40, GFP_KERNEL);
	KSIM_ASSERT(k);
	kfree(k);
	k = kmalloc(60, GFP_KERNEL);
	KSIM_ASSERT(k);
	memset(k, 0xa5, 60);
	KSIM_EXPECT_EQ(ksize(k), 60);
	kfree(k);
	k = kzalloc(64, GFP_KERNEL);
	KSIM_ASSERT(k);
	KSIM_EXPECT(all_bytes(k, 0, 64));
	kfree(k);
	kmem_cache_destroy(c);
	fclose(devnull);
}

/* A second free of an object, also after its memory was reused, is a BUG. */
static void double_free_after_reuse(void *arg)
{
	struct kmem_cache *c = kmem_cache_create("test_reuse_df", 64, 0, 0, NULL);
	void *p, *q;

	p = kmem_cache_alloc(c, GFP_KERNEL);
	kmem_cache_free(c, p);
	if (arg) {
		/* p's memory may be q now: q is freed, then p again */
		q = kmem_cache_alloc(c, GFP_KERNEL);
		kmem_cache_free(c, q);
	}
	kmem_cache_free(c, p);
	_exit(7);	/* not reached: the shim BUGs */
}

KSIM_TEST(double_free_after_reuse_is_a_bug)
{
	for (int reuse = 0; reuse < 2; reuse++) {
		int status = ksim_test_run_in_child(double_free_after_reuse,
						    reuse ? (void *)1 : NULL);

		KSIM_ASSERT(status != -1);
		KSIM_EXPECT(WIFSIGNALED(status));
		KSIM_EXPECT_EQ(WIFSIGNALED(status) ? WTERMSIG(status) : -1, SIGABRT);
	}
}

/* Single-threaded mode: the owner allocates as usual; any other thread BUGs. */
static void *alloc_from_other_thread(void *arg)
{
	kfree(kmalloc(32, GFP_KERNEL));
	return arg;
}

static void single_threaded_other_thread(void *arg)
{
	pthread_t th;
	void *p;

	ksim_slab_set_single_threaded(true);
	p = kmalloc(32, GFP_KERNEL);	/* the owner: fine */
	kfree(p);
	if (arg) {
		if (pthread_create(&th, NULL, alloc_from_other_thread, NULL))
			_exit(8);
		pthread_join(th, NULL);
	}
	ksim_slab_set_single_threaded(false);
	_exit(7);	/* with arg: not reached, the shim BUGs */
}

KSIM_TEST(single_threaded_mode_owner_only)
{
	for (int other = 0; other < 2; other++) {
		int status = ksim_test_run_in_child(single_threaded_other_thread,
						    other ? (void *)1 : NULL);

		KSIM_ASSERT(status != -1);
		if (other) {
			KSIM_EXPECT(WIFSIGNALED(status));
			KSIM_EXPECT_EQ(WIFSIGNALED(status) ? WTERMSIG(status) : -1, SIGABRT);
		} else {
			KSIM_EXPECT(WIFEXITED(status));
			KSIM_EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 7);
		}
	}
}

#if KSIM_ASAN
/*
 * ASan builds: a freed cache object waits, poisoned, in its cache's pool
 * until KSIM_SLAB_POOL_DELAY later frees of that cache stand behind it.
 */
KSIM_TEST(pool_delays_reuse)
{
	struct kmem_cache *c = kmem_cache_create("test_pool", 96, 0, 0, NULL);
	void *p, *q = NULL;
	int i;

	KSIM_ASSERT(c);
	p = kmem_cache_alloc(c, GFP_KERNEL);
	KSIM_ASSERT(p);
	kmem_cache_free(c, p);
	for (i = 0; i < KSIM_SLAB_POOL_DELAY; i++) {
		q = kmem_cache_alloc(c, GFP_KERNEL);
		KSIM_ASSERT(q);
		if (q == p)
			break;
		kmem_cache_free(c, q);
	}
	KSIM_EXPECT_EQ(i, KSIM_SLAB_POOL_DELAY);	/* p was not handed out again */
	/* now the oldest, p, comes back first, unpoisoned and accounted */
	q = kmem_cache_alloc(c, GFP_KERNEL);
	KSIM_EXPECT(q == p);
	KSIM_EXPECT(!__asan_address_is_poisoned(q) &&
		    !__asan_address_is_poisoned((char *)q + 95));
	KSIM_EXPECT(__asan_address_is_poisoned((char *)q + 96));	/* its redzone */
	KSIM_EXPECT_EQ(kstats(c).live, 1);
	kmem_cache_free(c, q);
	KSIM_EXPECT_EQ(kstats(c).live, 0);
	kmem_cache_destroy(c);
}

static noinline void pool_uaf_free_it(struct kmem_cache *c, void *p)
{
	kmem_cache_free(c, p);
	barrier();	/* not a tail call: this frame is in the free stack */
}

static void pool_uaf(void *arg)
{
	struct kmem_cache *c = kmem_cache_create("test_pool_uaf", 128, 0, 0, NULL);
	volatile char *p = kmem_cache_alloc(c, GFP_KERNEL);

	pool_uaf_free_it(c, (void *)p);
	(void)p[40];
	_exit(7);	/* not reached: ASan reports the read */
}

static void pool_double_free(void *arg)
{
	struct kmem_cache *c = kmem_cache_create("test_pool_df", 128, 0, 0, NULL);
	void *p = kmem_cache_alloc(c, GFP_KERNEL);

	pool_uaf_free_it(c, p);
	kmem_cache_free(c, p);
	_exit(7);	/* not reached: the shim BUGs */
}

/* A use of a pooled object: ASan's report, and the shim's account of the object. */
KSIM_TEST(pool_use_after_free_is_described)
{
	int status;
	char *out = ksim_test_capture_in_child(pool_uaf, NULL, &status);

	KSIM_EXPECT(!(WIFEXITED(status) && WEXITSTATUS(status) == 7));
	KSIM_EXPECT(strstr(out, "AddressSanitizer: use-after-poison") != NULL);
	KSIM_EXPECT(strstr(out, "ksim: use-after-free:") != NULL);
	KSIM_EXPECT(strstr(out, "40 bytes inside a freed object of cache test_pool_uaf (128 bytes)") != NULL);
	KSIM_EXPECT(strstr(out, "last allocated at pool_uaf (") != NULL);
	KSIM_EXPECT(strstr(out, "freed by task 1 at:\n    #0 ") != NULL);
	KSIM_EXPECT(strstr(out, "#0 ") && strstr(strstr(out, "#0 "), " in pool_uaf_free_it ") != NULL);
	KSIM_EXPECT(strstr(out, "in obj_free") == NULL);	/* the shim's own frames are skipped */
	if (ksim_verbose)
		fputs(out, stderr);
	free(out);
}

KSIM_TEST(pool_double_free_is_described)
{
	int status;
	char *out = ksim_test_capture_in_child(pool_double_free, NULL, &status);

	KSIM_EXPECT(WIFSIGNALED(status));
	KSIM_EXPECT(strstr(out, "not an allocated object (double free") != NULL);
	KSIM_EXPECT(strstr(out, "ksim: double free: ") != NULL);
	KSIM_EXPECT(strstr(out, "freed object of cache test_pool_df") != NULL);
	KSIM_EXPECT(strstr(out, "in pool_uaf_free_it") != NULL);
	free(out);
}
#endif
