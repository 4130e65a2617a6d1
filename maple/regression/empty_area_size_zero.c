// SPDX-License-Identifier: GPL-2.0
/*
 * Regression: mas_empty_area() and mas_empty_area_rev() reject a request of
 * size 0 with -EINVAL.
 *
 * Guards: the argument checks at the top of both functions
 * (lib/maple_tree.c; 6.12 and later: `if (size == 0 || max - min < size - 1)
 * return -EINVAL;`, the commit could not be identified offline).  6.1.192 has
 * no size check and returns 0 with an inverted window: measured on 6.1.192,
 * mas_empty_area(0, 4095, 0) gives [0, ULONG_MAX] on an empty tree (the
 * whole index space, from mas_sparse_area()'s `index + size - 1`) and
 * [50, 49] on a tree of ranges; mas_empty_area_rev() gives [4096, 4095],
 * above max, on both.  Reach in 6.1: the only callers,
 * unmapped_area() and unmapped_area_topdown() (mm/mmap.c), pass
 * info->length + info->align_mask, never 0 (whole linux-source-6.1 tarball).
 * An API corner.
 *
 * Test code is ours; the tree is lib/maple_tree.c from KSRC (ksim_maple).
 */
#include <linux/maple_tree.h>
#include <linux/xarray.h>
#include <ksim/test.h>

static void check_size_zero(struct maple_tree *mt, const char *what)
{
	for (int rev = 0; rev < 2; rev++) {
		MA_STATE(mas, mt, 0, 0);
		int ret;

		mtree_lock(mt);
		ret = rev ? mas_empty_area_rev(&mas, 0, 4095, 0) : mas_empty_area(&mas, 0, 4095, 0);
		mtree_unlock(mt);
		KSIM_EXPECT(ret == -EINVAL, "%s: %s(0, 4095, size 0) = %d (window [%lu, %lu]), want -EINVAL",
			    what, rev ? "mas_empty_area_rev" : "mas_empty_area", ret,
			    mas.index, mas.last);
	}
}

KSIM_TEST(empty_area_size_zero)
{
	DEFINE_MTREE(mt);

	mt_init_flags(&mt, MT_FLAGS_ALLOC_RANGE);
	check_size_zero(&mt, "empty tree");
	for (unsigned long i = 0; i < 40; i++)
		KSIM_ASSERT(!mtree_store_range(&mt, 100 * i, 100 * i + 49, xa_mk_value(i), GFP_KERNEL),
			    "store %lu", i);
	check_size_zero(&mt, "tree of 40 ranges");
	mtree_destroy(&mt);
}
