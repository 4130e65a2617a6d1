// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the shim's slab sheaves (shim/mm/slab.c; mm/slub.c's
 * kmem_cache_prefill_sheaf() family, used by the 7.x maple tree): sizes and
 * oversize sheaves, refill and replacement, accounting of objects held in
 * sheaves, fault injection of prefill/refill but never of allocations from
 * a prefilled sheaf, the harness's GFP_NOWAIT budget, the kernel's fill to
 * capacity with per-CPU spares, and the misuse the shim reports with its
 * call site: allocating from an empty sheaf, returning a sheaf to another
 * cache or twice, leaking a sheaf.  The API exists on every tree, so these
 * run on all of them.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <ksim/fault.h>
#include <ksim/slab.h>
#include <ksim/test.h>

static struct ksim_slab_stats kstats(struct kmem_cache *c)
{
	struct ksim_slab_stats st;

	ksim_slab_stats(c, &st);
	return st;
}

static struct kmem_cache *sheaf_cache(const char *name, unsigned int capacity)
{
	struct kmem_cache_args args = { .sheaf_capacity = capacity };

	return kmem_cache_create(name, 64, &args, 0);
}

KSIM_TEST(sheaf_prefill_alloc_return)
{
	struct kmem_cache *c = sheaf_cache("test_sheaf", 8);
	struct slab_sheaf *sheaf;
	void *obj[5];

	KSIM_ASSERT(c);
	/* mm/slub.c: a prefill of nothing gives no sheaf */
	KSIM_EXPECT(kmem_cache_prefill_sheaf(c, GFP_KERNEL, 0) == NULL);

	sheaf = kmem_cache_prefill_sheaf(c, GFP_KERNEL, 5);
	KSIM_ASSERT(sheaf);
	KSIM_EXPECT_EQ(kmem_cache_sheaf_size(sheaf), 5);
	KSIM_EXPECT_EQ(kstats(c).live, 5);
	KSIM_EXPECT_EQ(kstats(c).sheaved, 5);
	KSIM_EXPECT_EQ(ksim_kmem_cache_nr_sheaves(c), 1);

	for (int i = 0; i < 3; i++) {
		obj[i] = kmem_cache_alloc_from_sheaf(c, GFP_KERNEL | __GFP_ZERO, sheaf);
		KSIM_ASSERT(obj[i]);
		for (int j = 0; j < 64; j++)
			KSIM_EXPECT_EQ(((unsigned char *)obj[i])[j], 0);
		for (int j = 0; j < i; j++)
			KSIM_EXPECT(obj[i] != obj[j]);
	}
	KSIM_EXPECT_EQ(kmem_cache_sheaf_size(sheaf), 2);
	KSIM_EXPECT_EQ(kstats(c).live, 5);
	KSIM_EXPECT_EQ(kstats(c).sheaved, 2);

	/* returning frees the two left; the three handed out stay the caller's */
	kmem_cache_return_sheaf(c, GFP_KERNEL, sheaf);
	KSIM_EXPECT_EQ(kstats(c).live, 3);
	KSIM_EXPECT_EQ(kstats(c).sheaved, 0);
	KSIM_EXPECT_EQ(ksim_kmem_cache_nr_sheaves(c), 0);
	for (int i = 0; i < 3; i++)
		kmem_cache_free(c, obj[i]);
	KSIM_EXPECT_EQ(kstats(c).live, 0);
	kmem_cache_destroy(c);
}

KSIM_TEST(sheaf_oversize_and_refill)
{
	struct kmem_cache *c = sheaf_cache("test_sheaf_refill", 8);
	struct slab_sheaf *sheaf, *old;
	void *obj[20];

	KSIM_ASSERT(c);
	/* more than the capacity: an oversize sheaf of exactly that many */
	sheaf = kmem_cache_prefill_sheaf(c, GFP_KERNEL, 20);
	KSIM_ASSERT(sheaf);
	KSIM_EXPECT_EQ(kmem_cache_sheaf_size(sheaf), 20);
	for (int i = 0; i < 20; i++) {
		obj[i] = kmem_cache_alloc_from_sheaf(c, GFP_KERNEL, sheaf);
		KSIM_ASSERT(obj[i]);
	}
	kmem_cache_return_sheaf(c, GFP_KERNEL, sheaf);
	kmem_cache_free_bulk(c, 20, obj);

	/* within capacity: the same sheaf grows */
	sheaf = kmem_cache_prefill_sheaf(c, GFP_KERNEL, 2);
	KSIM_ASSERT(sheaf);
	old = sheaf;
	KSIM_EXPECT_EQ(kmem_cache_refill_sheaf(c, GFP_KERNEL, &sheaf, 1), 0);
	KSIM_EXPECT(sheaf == old);
	KSIM_EXPECT_EQ(kmem_cache_sheaf_size(sheaf), 2);
	KSIM_EXPECT_EQ(kmem_cache_refill_sheaf(c, GFP_KERNEL, &sheaf, 6), 0);
	KSIM_EXPECT(sheaf == old);
	KSIM_EXPECT_EQ(kmem_cache_sheaf_size(sheaf), 6);
	/* beyond capacity: replaced by an oversize sheaf, the old one returned */
	KSIM_EXPECT_EQ(kmem_cache_refill_sheaf(c, GFP_KERNEL, &sheaf, 12), 0);
	KSIM_EXPECT_EQ(kmem_cache_sheaf_size(sheaf), 12);
	KSIM_EXPECT_EQ(kstats(c).live, 12);
	KSIM_EXPECT_EQ(ksim_kmem_cache_nr_sheaves(c), 1);
	kmem_cache_return_sheaf(c, GFP_KERNEL, sheaf);
	KSIM_EXPECT_EQ(kstats(c).live, 0);

	/* no sheaf to refill */
	sheaf = NULL;
	KSIM_EXPECT_EQ(kmem_cache_refill_sheaf(c, GFP_KERNEL, &sheaf, 1), -EINVAL);
	KSIM_EXPECT_EQ(kmem_cache_refill_sheaf(c, GFP_KERNEL, NULL, 1), -EINVAL);

	/* a cache without sheaves: every prefill is oversize */
	{
		struct kmem_cache *plain = kmem_cache_create("test_sheaf_plain", 32, 0, 0, NULL);

		sheaf = kmem_cache_prefill_sheaf(plain, GFP_KERNEL, 3);
		KSIM_ASSERT(sheaf);
		KSIM_EXPECT_EQ(kmem_cache_sheaf_size(sheaf), 3);
		kmem_cache_return_sheaf(plain, GFP_KERNEL, sheaf);
		kmem_cache_destroy(plain);
	}
	kmem_cache_destroy(c);
}

KSIM_TEST(sheaf_fault_injection)
{
	struct kmem_cache *c = sheaf_cache("test_sheaf_fault", 8);
	struct ksim_fault_config cfg = { .nth = 3, .times = 1 };
	struct ksim_fault_config always = { .probability = 1.0, .times = -1 };
	struct slab_sheaf *sheaf;
	void *obj[4];

	KSIM_ASSERT(c);
	/* the third object of a prefill fails: no sheaf, nothing left over */
	ksim_fault_set(&cfg);
	KSIM_EXPECT(kmem_cache_prefill_sheaf(c, GFP_KERNEL, 5) == NULL);
	KSIM_EXPECT_EQ(ksim_fault_failures(), 1);
	ksim_fault_reset();
	KSIM_EXPECT_EQ(kstats(c).live, 0);
	KSIM_EXPECT_EQ(kstats(c).failed, 1);
	KSIM_EXPECT_EQ(ksim_kmem_cache_nr_sheaves(c), 0);

	/* a refill fails with -ENOMEM; objects it added stay (as in mm/slub.c) */
	sheaf = kmem_cache_prefill_sheaf(c, GFP_KERNEL, 2);
	KSIM_ASSERT(sheaf);
	cfg.nth = 2;
	ksim_fault_set(&cfg);
	KSIM_EXPECT_EQ(kmem_cache_refill_sheaf(c, GFP_KERNEL, &sheaf, 6), -ENOMEM);
	KSIM_EXPECT_EQ(ksim_fault_failures(), 1);
	ksim_fault_reset();
	KSIM_EXPECT_EQ(kmem_cache_sheaf_size(sheaf), 3);
	KSIM_EXPECT_EQ(kmem_cache_refill_sheaf(c, GFP_KERNEL, &sheaf, 4), 0);

	/* a prefilled sheaf hands out its objects whatever the engine says */
	ksim_fault_set(&always);
	for (int i = 0; i < 4; i++) {
		obj[i] = kmem_cache_alloc_from_sheaf(c, GFP_NOWAIT, sheaf);
		KSIM_EXPECT(obj[i] != NULL);
	}
	KSIM_EXPECT_EQ(ksim_fault_failures(), 0);
	KSIM_EXPECT(kmem_cache_alloc(c, GFP_KERNEL) == NULL);	/* armed, though */
	ksim_fault_reset();
	kmem_cache_return_sheaf(c, GFP_KERNEL, sheaf);
	kmem_cache_free_bulk(c, 4, obj);
	KSIM_EXPECT_EQ(kstats(c).live, 0);

	/* sites are the prefill's caller, as for kmem_cache_alloc() */
	snprintf(cfg.sites[0], sizeof(cfg.sites[0]), "%s", __func__);
	cfg.nr_sites = 1;
	cfg.nth = 1;
	ksim_fault_set(&cfg);
	KSIM_EXPECT(kmem_cache_prefill_sheaf(c, GFP_KERNEL, 1) == NULL);
	KSIM_EXPECT_EQ(ksim_fault_failures(), 1);
	ksim_fault_reset();
	kmem_cache_destroy(c);
}

/* The kernel harness's budget for allocations that cannot sleep covers sheaves. */
KSIM_TEST(sheaf_nowait_budget)
{
	struct kmem_cache *c = sheaf_cache("test_sheaf_nowait", 8);
	struct slab_sheaf *sheaf;

	KSIM_ASSERT(c);
	ksim_slab_set_strict_nowait(true);
	kmem_cache_set_non_kernel(c, 2);
	KSIM_EXPECT(kmem_cache_prefill_sheaf(c, GFP_NOWAIT, 3) == NULL);
	kmem_cache_set_non_kernel(c, 3);
	sheaf = kmem_cache_prefill_sheaf(c, GFP_NOWAIT, 3);
	KSIM_EXPECT(sheaf != NULL);
	KSIM_EXPECT_EQ(kmem_cache_refill_sheaf(c, GFP_NOWAIT, &sheaf, 4), -ENOMEM);
	KSIM_EXPECT_EQ(kmem_cache_refill_sheaf(c, GFP_KERNEL, &sheaf, 4), 0);
	ksim_slab_set_strict_nowait(false);
	kmem_cache_return_sheaf(c, GFP_KERNEL, sheaf);
	kmem_cache_destroy(c);
}

/* mm/slub.c's filling: to capacity, and a returned sheaf kept per CPU. */
KSIM_TEST(sheaf_fill_capacity_per_cpu_spare)
{
	struct kmem_cache *c = sheaf_cache("test_sheaf_spare", 8);
	FILE *devnull = fopen("/dev/null", "w");
	struct slab_sheaf *a, *b, *o;

	KSIM_ASSERT(c && devnull);
	ksim_slab_set_sheaf_fill_capacity(true);
	ksim_set_cpu(0);
	a = kmem_cache_prefill_sheaf(c, GFP_KERNEL, 3);
	KSIM_ASSERT(a);
	KSIM_EXPECT_EQ(kmem_cache_sheaf_size(a), 8);
	kfree(kmem_cache_alloc_from_sheaf(c, GFP_KERNEL, a));
	kmem_cache_return_sheaf(c, GFP_KERNEL, a);
	/* CPU 0's spare now: the cache's, not a leak */
	KSIM_EXPECT_EQ(ksim_kmem_cache_nr_sheaves(c), 0);
	KSIM_EXPECT_EQ(kstats(c).sheaved, 7);
	KSIM_EXPECT_EQ(ksim_slab_leak_check(devnull), 0);

	/* the next prefill on CPU 0 takes it as it is (7 >= 2) */
	b = kmem_cache_prefill_sheaf(c, GFP_KERNEL, 2);
	KSIM_EXPECT(b == a);
	KSIM_EXPECT_EQ(kmem_cache_sheaf_size(b), 7);
	/* another CPU has no spare */
	ksim_set_cpu(1);
	a = kmem_cache_prefill_sheaf(c, GFP_KERNEL, 1);
	KSIM_EXPECT(a != b);
	KSIM_EXPECT_EQ(kmem_cache_sheaf_size(a), 8);
	kmem_cache_return_sheaf(c, GFP_KERNEL, a);	/* CPU 1's spare */
	ksim_set_cpu(0);
	/* oversize sheaves are never kept; nor a second one for a CPU */
	o = kmem_cache_prefill_sheaf(c, GFP_KERNEL, 9);
	KSIM_EXPECT_EQ(kmem_cache_sheaf_size(o), 9);
	kmem_cache_return_sheaf(c, GFP_KERNEL, o);
	KSIM_EXPECT_EQ(kstats(c).live, 8 + 7);
	KSIM_EXPECT_EQ(kmem_cache_refill_sheaf(c, GFP_KERNEL, &b, 8), 0);
	KSIM_EXPECT_EQ(kmem_cache_sheaf_size(b), 8);
	kmem_cache_return_sheaf(c, GFP_KERNEL, b);	/* CPU 0's spare again */
	KSIM_EXPECT_EQ(kstats(c).sheaved, 16);
	ksim_set_cpu(-1);
	ksim_slab_set_sheaf_fill_capacity(false);
	/* destroy flushes the spares: no leak report */
	kmem_cache_destroy(c);
	fclose(devnull);
}

static void empty_sheaf(void *arg)
{
	struct kmem_cache *c = sheaf_cache("test_sheaf_empty", 4);
	struct slab_sheaf *sheaf;
	void *p, *q;

	ksim_problems_reset();
	ksim_expect_problems(KSIM_P_WARN, 1);
	sheaf = kmem_cache_prefill_sheaf(c, GFP_KERNEL, 1);
	p = kmem_cache_alloc_from_sheaf(c, GFP_KERNEL, sheaf);
	q = kmem_cache_alloc_from_sheaf(c, GFP_KERNEL, sheaf);
	if (!p || q || ksim_problem_count(KSIM_P_WARN) != 1)
		_exit(3);
	kmem_cache_free(c, p);
	kmem_cache_return_sheaf(c, GFP_KERNEL, sheaf);
	kmem_cache_destroy(c);
}

/* mm/slub.c returns NULL from an empty sheaf; the shim also reports where. */
KSIM_TEST(sheaf_alloc_from_empty_is_reported)
{
	int status;
	char *out = ksim_test_capture_in_child(empty_sheaf, NULL, &status);

	KSIM_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	KSIM_EXPECT(strstr(out, "empty sheaf") != NULL);
	KSIM_EXPECT(strstr(out, "test_sheaf.c:") != NULL);
	KSIM_EXPECT(strstr(out, "empty_sheaf()") != NULL);
	free(out);
}

static void wrong_cache(void *arg)
{
	struct kmem_cache *a = sheaf_cache("test_sheaf_a", 4);
	struct kmem_cache *b = sheaf_cache("test_sheaf_b", 4);
	struct slab_sheaf *sheaf;

	sheaf = kmem_cache_prefill_sheaf(a, GFP_KERNEL, 2);
	kmem_cache_return_sheaf(b, GFP_KERNEL, sheaf);
	_exit(7);	/* not reached: the shim BUGs */
}

KSIM_TEST(sheaf_return_to_wrong_cache_is_a_bug)
{
	int status;
	char *out = ksim_test_capture_in_child(wrong_cache, NULL, &status);

	KSIM_EXPECT(WIFSIGNALED(status));
	KSIM_EXPECT_EQ(WIFSIGNALED(status) ? WTERMSIG(status) : -1, SIGABRT);
	KSIM_EXPECT(strstr(out, "belongs to cache test_sheaf_a") != NULL);
	KSIM_EXPECT(strstr(out, "kmem_cache_return_sheaf(test_sheaf_b") != NULL);
	KSIM_EXPECT(strstr(out, "from wrong_cache()") != NULL);
	free(out);
}

static void returned_twice(void *arg)
{
	struct kmem_cache *c = sheaf_cache("test_sheaf_twice", 4);
	struct slab_sheaf *sheaf;

	sheaf = kmem_cache_prefill_sheaf(c, GFP_KERNEL, 2);
	kmem_cache_return_sheaf(c, GFP_KERNEL, sheaf);
	kmem_cache_return_sheaf(c, GFP_KERNEL, sheaf);
	_exit(7);	/* not reached */
}

/* A BUG from the shim, or (ASan) a use after free of the sheaf. */
KSIM_TEST(sheaf_returned_twice_is_caught)
{
	int status;
	char *out = ksim_test_capture_in_child(returned_twice, NULL, &status);

	KSIM_EXPECT(!(WIFEXITED(status) && WEXITSTATUS(status) == 7));
	KSIM_EXPECT(strstr(out, "not a live sheaf") != NULL ||
		    strstr(out, "heap-use-after-free") != NULL);
	free(out);
}

static void leaked_sheaf(void *arg)
{
	struct kmem_cache *c = sheaf_cache("test_sheaf_leak", 4);
	struct slab_sheaf *sheaf;
	void *p;

	ksim_problems_reset();
	ksim_expect_problems(KSIM_P_LEAK, 2);
	fprintf(stderr, "prefill at line %d\n", __LINE__ + 1);
	sheaf = kmem_cache_prefill_sheaf(c, GFP_KERNEL, 3);
	p = kmem_cache_alloc_from_sheaf(c, GFP_KERNEL, sheaf);
	/* one object handed out and a sheaf holding two, both leaked */
	if (ksim_slab_leak_check(stderr) != 3 || ksim_problem_count(KSIM_P_LEAK) != 2)
		_exit(3);
	kmem_cache_free(c, p);
	kmem_cache_return_sheaf(c, GFP_KERNEL, sheaf);
	if (ksim_slab_leak_check(stderr) != 0)
		_exit(4);
	kmem_cache_destroy(c);
}

KSIM_TEST(sheaf_leak_reported_with_prefill_site)
{
	int status;
	char *out = ksim_test_capture_in_child(leaked_sheaf, NULL, &status);
	const char *at;
	char site[64];
	int line = 0;

	KSIM_EXPECT(WIFEXITED(status));
	KSIM_EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
	KSIM_EXPECT(strstr(out, "sheaf of cache test_sheaf_leak holding 2 objects not returned, prefilled by leaked_sheaf()") != NULL);
	/* the problem line itself is at the prefill site */
	at = strstr(out, "prefill at line ");
	KSIM_ASSERT(at && sscanf(at, "prefill at line %d", &line) == 1);
	snprintf(site, sizeof(site), "test_sheaf.c:%d: sheaf of cache", line);
	KSIM_EXPECT(strstr(out, site) != NULL);
	free(out);
}
