// SPDX-License-Identifier: GPL-2.0
/*
 * Regression: mas_empty_area_rev() must not return a window that starts
 * below the requested lower limit.
 *
 * Guards: the reverse gap search (mas_rev_awalk() in lib/maple_tree.c),
 * used by the kernel's top-down mmap layout (unmapped_area_topdown() via
 * vma_iter_area_highest()) to place new mappings.  When the highest gap that
 * is big enough overall straddles the lower limit, only its part above the
 * limit is usable; if that part is too small the search must fail (or keep
 * looking) instead of returning the gap's top clipped to size.
 *
 * Upstream fix: "maple_tree: fix mas_empty_area_rev() lower bound
 * validation" (Liam R. Howlett, 2023, merged for v6.3 and backported to
 * 6.1 stable).  The commit id could not be verified offline, so it is not
 * given here.  The fix made the leaf check in mas_rev_awalk() also reject a
 * gap whose part above mas->index is shorter than the request:
 *     if (unlikely((mas->index > max) || (size - 1 > max - mas->index)))
 *
 * Symptom if it returns: mas_empty_area_rev() returns 0 with mas.index below
 * `min` (here 40 for a request of min 50); in the kernel, a top-down mmap()
 * with a low limit (e.g. vm_unmapped_area() with low_limit) could be placed
 * below that limit.  These tests report "window starts below min".
 *
 * Test code is ours; the tree is lib/maple_tree.c from KSRC (ksim_maple).
 */
#include <linux/maple_tree.h>
#include <linux/xarray.h>
#include <ksim/test.h>

#define RANDOM_ROUNDS	200

/* mt_validate() walks the tree with rcu_dereference(): inside a read section. */
static void validate(struct maple_tree *mt)
{
	rcu_read_lock();
	mt_validate(mt);
	rcu_read_unlock();
}

/* One occupied range [first, last] per element; the rest of the tree is empty. */
struct range {
	unsigned long first, last;
};

static void fill(struct maple_tree *mt, const struct range *r, int n)
{
	for (int i = 0; i < n; i++)
		KSIM_EXPECT(!mtree_store_range(mt, r[i].first, r[i].last,
					       xa_mk_value(i & LONG_MAX), GFP_KERNEL),
			    "store [%lu, %lu]", r[i].first, r[i].last);
}

/* What every caller relies on: the window is `size` long, inside [min, max], empty. */
static void check_window(struct maple_tree *mt, const char *fn, unsigned long index,
			 unsigned long last, unsigned long min, unsigned long max,
			 unsigned long size)
{
	MA_STATE(mas, mt, index, index);
	void *entry;

	KSIM_EXPECT(index >= min, "%s: window starts below min: [%lu, %lu] for min %lu max %lu size %lu",
		    fn, index, last, min, max, size);
	KSIM_EXPECT(last <= max, "%s: window ends above max: [%lu, %lu] for min %lu max %lu size %lu",
		    fn, index, last, min, max, size);
	KSIM_EXPECT(last - index + 1 == size, "%s: window [%lu, %lu] is not %lu long",
		    fn, index, last, size);
	rcu_read_lock();
	entry = mas_find(&mas, last);
	rcu_read_unlock();
	KSIM_EXPECT(entry == NULL, "%s: window [%lu, %lu] is not empty: entry at [%lu, %lu]",
		    fn, index, last, mas.index, mas.last);
}

/* mas_empty_area_rev(min, max, size), its result checked; returns its return value. */
static int check_rev(struct maple_tree *mt, unsigned long min, unsigned long max,
		     unsigned long size)
{
	MA_STATE(mas, mt, 0, 0);
	int ret;

	mtree_lock(mt);
	ret = mas_empty_area_rev(&mas, min, max, size);
	mtree_unlock(mt);
	if (!ret)
		check_window(mt, "mas_empty_area_rev", mas.index, mas.last, min, max, size);
	return ret;
}

/* The same for the forward search, mas_empty_area(). */
static int check_fwd(struct maple_tree *mt, unsigned long min, unsigned long max,
		     unsigned long size)
{
	MA_STATE(mas, mt, 0, 0);
	int ret;

	mtree_lock(mt);
	ret = mas_empty_area(&mas, min, max, size);
	mtree_unlock(mt);
	if (!ret)
		check_window(mt, "mas_empty_area", mas.index, mas.last, min, max, size);
	return ret;
}

/* The smallest case: one leaf, the only big gap straddles min. */
KSIM_TEST(empty_area_rev_gap_straddles_min)
{
	static const struct range r[] = { { 100, 200 } };
	DEFINE_MTREE(mt);

	mt_init_flags(&mt, MT_FLAGS_ALLOC_RANGE);
	fill(&mt, r, 1);
	/* [50, 99] is free but only 50 long: nothing fits. */
	KSIM_EXPECT_EQ(check_rev(&mt, 50, 150, 60), -EBUSY);
	/* 50 does fit, at the top of that part: [50, 99]. */
	KSIM_EXPECT_EQ(check_rev(&mt, 50, 150, 50), 0);
	validate(&mt);
	mtree_destroy(&mt);
}

/* The same shape deep in a tree of several levels (internal gap tracking). */
KSIM_TEST(empty_area_rev_gap_straddles_min_deep)
{
	struct range r[400];
	DEFINE_MTREE(mt);
	int n = 0;

	mt_init_flags(&mt, MT_FLAGS_ALLOC_RANGE);
	/* Occupied [10i, 10i+5], free [10i+6, 10i+9]: 4-wide gaps everywhere ... */
	for (int i = 0; i < 400; i++, n++)
		r[n] = (struct range){ 10 * i, 10 * i + 5 };
	fill(&mt, r, n);
	/* ... except one 44-wide gap, [2006, 2049]. */
	mtree_store_range(&mt, 2010, 2045, NULL, GFP_KERNEL);
	validate(&mt);
	KSIM_EXPECT(mt_height(&mt) >= 2, "tree too shallow to test internal gaps");

	/* The big gap's part at or above 2034 is only 16 long. */
	KSIM_EXPECT_EQ(check_rev(&mt, 2034, 2100, 20), -EBUSY);
	KSIM_EXPECT_EQ(check_rev(&mt, 2030, 2100, 20), 0);
	KSIM_EXPECT_EQ(check_rev(&mt, 2034, 2100, 16), 0);
	mtree_destroy(&mt);
}

/*
 * Random trees and requests: every window found must satisfy
 * check_window(), for the reverse search and for mas_empty_area(), the
 * forward search, whose bounds handling was fixed in the same period.
 */
KSIM_TEST(empty_area_random_bounds)
{
	struct ksim_rng *rng = ksim_test_rng();

	for (int round = 0; round < RANDOM_ROUNDS; round++) {
		struct range r[64];
		int n = 1 + ksim_rng_below(rng, 64);
		unsigned long span = 64 + ksim_rng_below(rng, 4096);
		DEFINE_MTREE(mt);

		mt_init_flags(&mt, MT_FLAGS_ALLOC_RANGE);
		for (int i = 0; i < n; i++) {
			unsigned long a = ksim_rng_below(rng, span);

			r[i] = (struct range){ a, a + ksim_rng_below(rng, 32) };
		}
		fill(&mt, r, n);
		for (int q = 0; q < 32; q++) {
			unsigned long min = ksim_rng_below(rng, span);
			unsigned long max = min + ksim_rng_below(rng, span);
			unsigned long size = 1 + ksim_rng_below(rng, 48);

			if (max - min < size - 1)
				continue;
			check_rev(&mt, min, max, size);
			check_fwd(&mt, min, max, size);
		}
		validate(&mt);
		mtree_destroy(&mt);
	}
}
