// SPDX-License-Identifier: GPL-2.0
/*
 * Regression: the reverse gap search must find a free range that covers
 * the whole index space, [0, ULONG_MAX].
 *
 * Guards: mas_rev_awalk() in lib/maple_tree.c.  On a leaf (no gap array) it
 * measures a NULL slot as `max - min + 1`; for a slot spanning [0, ULONG_MAX]
 * that wraps to 0, "no gap", so mas_empty_area_rev() and mtree_alloc_rrange()
 * return -EBUSY for every request although the whole space is free.  The
 * forward search (mas_empty_area(), mtree_alloc_range()) finds it.
 *
 * The state: an MT_FLAGS_ALLOC_RANGE tree whose one entry spans [0, ULONG_MAX]
 * is erased with mas_erase(): the root stays a leaf with one NULL slot
 * [0, ULONG_MAX] (storing NULL over the range instead leaves an empty tree,
 * which the search handles).  RCU mode does not matter.
 *
 * Found by: a 60 s AFL++ maple campaign on 6.12.117 (signature maple.c:672,
 * mtree_alloc_rrange(size 48, min 48, max 198) = -EBUSY), reduced by hand.
 * It is not the known "max == ULONG_MAX" miss (fuzz/known/maple/
 * empty-area-rev-ulong-max, maple-rev-gap-ulong-max): making the wrapped gap
 * ULONG_MAX in a scratch copy of 6.12.117 fixes the requests below max
 * ULONG_MAX and leaves that input failing.  The requests up to ULONG_MAX
 * need both fixed: the slot's size and `mas->last - min + 1`, which wraps
 * the same way for a slot starting at 0 when the search ends at ULONG_MAX.
 *
 * Reach: in the whole 7.3.4 tree the only caller of the reverse search is
 * the mmap layout (vma_iter_area_highest() -> mas_empty_area_rev() on
 * mm->mm_mt), where no VMA spans [0, ULONG_MAX]; mtree_alloc_rrange() has no
 * in-tree caller.  An API corner, no in-tree caller.
 *
 * Upstream fix: none in the trees ksim supports (the function is the same
 * in 6.1.176, 6.12.95, 7.2.13 and 7.3.4); the candidate fix in
 * docs/findings.toml changes both lines.  On 6.1 mas_erase() of the entry
 * empties the tree instead, so this state does not arise: there
 * mas_empty_area_rev() finds the range and mtree_alloc_rrange() fails
 * through its old allocation method (maple-alloc-range-6.1).
 *
 * Symptom if it returns: "missed the free range" below.
 */
#include <linux/maple_tree.h>
#include <linux/xarray.h>
#include <ksim/test.h>

/* An ALLOC_RANGE tree whose leaf root holds one NULL slot, [0, ULONG_MAX]. */
static void full_range_erased(struct maple_tree *mt, unsigned int flags)
{
	MA_STATE(mas, mt, 48, 48);

	mt_init_flags(mt, MT_FLAGS_ALLOC_RANGE | flags);
	KSIM_EXPECT_EQ(mtree_store_range(mt, 0, ULONG_MAX, xa_mk_value(1), GFP_KERNEL), 0);
	mtree_lock(mt);
	mas_erase(&mas);
	mtree_unlock(mt);
	KSIM_EXPECT(mtree_load(mt, 48) == NULL, "index 48 still mapped after mas_erase()");
}

KSIM_TEST(alloc_rrange_full_range_after_erase)
{
	static const unsigned long req[][3] = {	/* size, min, max */
		{ 48, 48, 198 }, { 48, 0, 198 }, { 1, 0, 0 }, { 4096, 0, ULONG_MAX - 1 },
		{ 4096, 0, ULONG_MAX }, { 1, 0, ULONG_MAX },
	};
	DEFINE_MTREE(mt);

	/* each request on a fresh erased tree: after an allocation and its erase the tree is empty */
	for (int i = 0; i < ARRAY_SIZE(req); i++) {
		unsigned long size = req[i][0], min = req[i][1], max = req[i][2], start = 0;
		int ret;

		full_range_erased(&mt, MT_FLAGS_USE_RCU);
		mt_clear_in_rcu(&mt);
		ret = mtree_alloc_rrange(&mt, &start, xa_mk_value(2), size, min, max, GFP_KERNEL);
		KSIM_EXPECT(ret == 0, "mtree_alloc_rrange(size %lu, min %lu, max %lu) = %d: "
			    "missed the free range [0, ULONG_MAX]", size, min, max, ret);
		if (!ret)
			KSIM_EXPECT_EQ(start, max - size + 1);
		mtree_destroy(&mt);
	}
}

KSIM_TEST(empty_area_rev_full_range_after_erase)
{
	static const unsigned long req[][2] = { { 100, 1000 }, { 0, ULONG_MAX } };	/* min, max */
	DEFINE_MTREE(mt);
	MA_STATE(mas, &mt, 0, 0);
	int ret;

	full_range_erased(&mt, 0);
	for (int i = 0; i < ARRAY_SIZE(req); i++) {
		unsigned long min = req[i][0], max = req[i][1];

		mas_reset(&mas);
		mtree_lock(&mt);
		ret = mas_empty_area_rev(&mas, min, max, 10);
		mtree_unlock(&mt);
		KSIM_EXPECT(ret == 0, "mas_empty_area_rev(%lu, %lu, 10) = %d: missed the free range "
			    "[0, ULONG_MAX]", min, max, ret);
		if (!ret)
			KSIM_EXPECT(mas.index == max - 9 && mas.last == max,
				    "window [%lu, %lu], want [%lu, %lu]", mas.index, mas.last, max - 9, max);
	}
	mtree_destroy(&mt);
}

/* The forward search on the same state finds it: the control. */
KSIM_TEST(alloc_range_full_range_after_erase)
{
	DEFINE_MTREE(mt);
	unsigned long start = 0;

	full_range_erased(&mt, 0);
	KSIM_EXPECT_EQ(mtree_alloc_range(&mt, &start, xa_mk_value(2), 48, 48, 198, GFP_KERNEL), 0);
	KSIM_EXPECT_EQ(start, 48);
	mtree_destroy(&mt);
}
