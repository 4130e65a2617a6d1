// SPDX-License-Identifier: GPL-2.0
/*
 * Regression: mas_find_rev() resumed after mas_pause() continues below the
 * range it paused on, down to min, at both ends of the index space.
 *
 * Guards: the ma_pause case of mas_find_rev() (lib/maple_tree.c).  6.1.192
 * tests `mas->last == ULONG_MAX` there (the forward walk's end check) and
 * then does `mas->last = --mas->index`: paused on a range starting at 0, the
 * index wraps and the walk restarts from ULONG_MAX, returning entries above
 * the pause point; paused on a range ending at ULONG_MAX it returns NULL
 * without looking below.  6.12's mas_find_rev_setup() checks
 * `mas->index <= min` instead (the commit could not be identified offline).
 * No in-tree caller of mas_find_rev() in 6.1 (grep of the whole
 * linux-source-6.1 tarball): an API corner.
 *
 * Test code is ours; the tree is lib/maple_tree.c from KSRC (ksim_maple).
 */
#include <linux/maple_tree.h>
#include <linux/xarray.h>
#include <ksim/test.h>

static void store(struct maple_tree *mt, unsigned long first, unsigned long last, unsigned long v)
{
	KSIM_ASSERT(!mtree_store_range(mt, first, last, xa_mk_value(v), GFP_KERNEL),
		    "store [%lu, %lu]", first, last);
}

/* Walk to @index, pause, then mas_find_rev(min 0): returns what it found. */
static void *find_rev_after_pause(struct maple_tree *mt, unsigned long index,
				  unsigned long *first, unsigned long *last)
{
	MA_STATE(mas, mt, index, index);
	void *e;

	rcu_read_lock();
	mas_walk(&mas);
	mas_pause(&mas);
	e = mas_find_rev(&mas, 0);
	rcu_read_unlock();
	*first = mas.index;
	*last = mas.last;
	return e;
}

KSIM_TEST(find_rev_after_pause_at_zero)
{
	unsigned long first, last;
	DEFINE_MTREE(mt);
	void *e;

	for (unsigned long i = 0; i < 10; i++)
		store(&mt, i, i, i + 1);
	store(&mt, 1000, 1000, 1001);
	/* Paused on [0, 0]: nothing lies below it. */
	e = find_rev_after_pause(&mt, 0, &first, &last);
	KSIM_EXPECT(!e, "mas_find_rev(min 0) after mas_pause() on [0, 0] = %lu at [%lu, %lu]: "
		    "an entry above the pause point (the index wrapped past 0)",
		    xa_to_value(e), first, last);
	mtree_destroy(&mt);
}

KSIM_TEST(find_rev_after_pause_at_top)
{
	unsigned long first, last;
	DEFINE_MTREE(mt);
	void *e;

	store(&mt, 10, 19, 1);
	store(&mt, ULONG_MAX - 9, ULONG_MAX, 2);
	/* Paused on [ULONG_MAX - 9, ULONG_MAX]: the entry below is [10, 19]. */
	e = find_rev_after_pause(&mt, ULONG_MAX, &first, &last);
	KSIM_EXPECT(e == xa_mk_value(1) && first == 10 && last == 19,
		    "mas_find_rev(min 0) after mas_pause() on [%lu, %lu] = %lu at [%lu, %lu], want 1 at [10, 19]",
		    ULONG_MAX - 9, ULONG_MAX, e ? xa_to_value(e) : 0, first, last);
	mtree_destroy(&mt);
}
