// SPDX-License-Identifier: GPL-2.0
/*
 * The maple findings of docs/findings.toml written as kernel test code: each
 * check_*() below is in the style of lib/test_maple_tree.c (MT_BUG_ON() on a
 * caller's tree, only the kernel's API), so a maintainer can paste it into
 * that file and call it from maple_tree_seed():
 *
 *	mt_init_flags(&tree, 0);
 *	check_rev_awalk_full_range(&tree);
 *	mtree_destroy(&tree);
 *
 * `scripts/ksim report ID` prints the one for a finding.  Here each runs as
 * a ksim test against the tree's lib/maple_tree.c (built with
 * CONFIG_DEBUG_MAPLE_TREE, so MT_BUG_ON() counts and reports as in the
 * kernel's test module and does not stop); the wrapper fails the test when
 * one of its MT_BUG_ON()s fired.  Where a finding is present, the test is
 * listed in docs/findings.toml and XFAILs with "BUG at check_...".
 *
 * Test code is ours; the tree is lib/maple_tree.c from KSRC (ksim_maple).
 */
#include <linux/maple_tree.h>
#include <linux/xarray.h>
#include <linux/init.h>
#include <ksim/slab.h>
#include <ksim/test.h>

/*
 * maple-rev-awalk-full-range: a NULL slot spanning [0, ULONG_MAX] is a gap,
 * also when the search reaches up to ULONG_MAX (maple-rev-gap-ulong-max).
 */
static noinline void __init check_rev_awalk_full_range(struct maple_tree *mt)
{
	unsigned long start = 0;
	int i;

	for (i = 0; i < 2; i++) {
		MA_STATE(mas, mt, 48, 48);
		unsigned long max = i ? ULONG_MAX : 198;

		mt_init_flags(mt, MT_FLAGS_ALLOC_RANGE);
		MT_BUG_ON(mt, mtree_store_range(mt, 0, ULONG_MAX, xa_mk_value(1),
						GFP_KERNEL) != 0);
		mtree_lock(mt);
		mas_erase(&mas);	/* leaves a leaf root with one NULL slot [0, ULONG_MAX] */
		mtree_unlock(mt);
		MT_BUG_ON(mt, mtree_load(mt, 48) != NULL);
		/* The whole index space is free: the highest fit ends at max. */
		MT_BUG_ON(mt, mtree_alloc_rrange(mt, &start, xa_mk_value(2), 48, 0, max,
						 GFP_KERNEL) != 0);
		MT_BUG_ON(mt, start != max - 47);
		mtree_destroy(mt);
	}
}

/*
 * maple-rev-gap-ulong-max: a reverse search up to ULONG_MAX finds what one
 * to ULONG_MAX - 1 does.
 */
static noinline void __init check_rev_gap_ulong_max(struct maple_tree *mt)
{
	MA_STATE(mas, mt, 0, 0);
	unsigned long base = ULONG_MAX - 12800;
	int i, ret;

	mt_init_flags(mt, MT_FLAGS_ALLOC_RANGE | MT_FLAGS_USE_RCU);
	for (i = 0; i < 25; i++)
		MT_BUG_ON(mt, mtree_store_range(mt, base + i * 2, base + i * 2,
						xa_mk_value(i), GFP_KERNEL) != 0);
	mtree_lock(mt);
	ret = mas_empty_area_rev(&mas, 518, ULONG_MAX - 1, 16384);
	MT_BUG_ON(mt, ret != 0);		/* the control: found */
	mas_reset(&mas);
	ret = mas_empty_area_rev(&mas, 518, ULONG_MAX, 16384);
	MT_BUG_ON(mt, ret != 0);		/* the same free range must be found */
	MT_BUG_ON(mt, !ret && mas.last != base - 1);
	mtree_unlock(mt);
}

/* maple-insert-range-full: inserting over an existing entry fails with -EEXIST. */
static noinline void __init check_insert_range_full(struct maple_tree *mt)
{
	mt_init_flags(mt, 0);
	MT_BUG_ON(mt, mtree_insert_range(mt, 5, 5, xa_mk_value(1), GFP_KERNEL) != 0);
	MT_BUG_ON(mt, mtree_insert_range(mt, 0, ULONG_MAX, xa_mk_value(2), GFP_KERNEL) != -EEXIST);
	MT_BUG_ON(mt, mtree_load(mt, 5) != xa_mk_value(1));
}

/*
 * maple-find-emptied-null: an RCU reader's next mas_find() after a writer
 * emptied the tree returns NULL (the writer runs between the reader's two
 * calls, as check_rcu_simulated() interleaves them).
 */
static noinline void __init check_find_after_tree_emptied(struct maple_tree *mt)
{
	MA_STATE(mas_reader, mt, 0, 0);
	MA_STATE(mas_writer, mt, 0, ULONG_MAX);
	unsigned long i;

	mt_init_flags(mt, MT_FLAGS_USE_RCU);
	for (i = 0; i < 4; i++)
		MT_BUG_ON(mt, mtree_store_range(mt, i * 10, i ? i * 10 + 5 : 0,
						xa_mk_value(i), GFP_KERNEL) != 0);
	rcu_read_lock();
	MT_BUG_ON(mt, mas_find(&mas_reader, ULONG_MAX) != xa_mk_value(0));

	mtree_lock(mt);
	MT_BUG_ON(mt, mas_store_gfp(&mas_writer, NULL, GFP_KERNEL) != 0);
	mtree_unlock(mt);

	MT_BUG_ON(mt, mas_find(&mas_reader, ULONG_MAX) != NULL);
	rcu_read_unlock();
}

/*
 * maple-rcu-destroy-meta: destroying an RCU-mode tree with a full leaf level
 * under the root frees only what it allocated (the failure is the allocator's:
 * a wrong pointer freed after the grace period; it depends on addresses, so a
 * run may pass).
 */
static noinline void __init check_rcu_destroy_full_node(struct maple_tree *mt)
{
	unsigned long i;

	mt_init_flags(mt, MT_FLAGS_USE_RCU);
	for (i = 0; i < 120; i++)
		MT_BUG_ON(mt, mtree_store_range(mt, 65536 + i * 5, 65536 + i * 5 + 1,
						xa_mk_value(i), GFP_KERNEL) != 0);
	mtree_destroy(mt);
	rcu_barrier();
}

#if KSIM_HAVE_MT_SET_CALLBACK
/*
 * The kernel harness's allocation hooks, defined in lib/maple_tree.c outside
 * __KERNEL__ (tools/testing/radix-tree/maple.c sees them by #include).
 */
void mt_set_non_kernel(unsigned int val);
void mt_set_callback(void (*callback)(void *));
void mt_set_private(void *private);

/*
 * The other writer of check_nomem_retry_stale_height(): it runs in
 * mas_nomem()'s allocation, with the tree lock dropped, and leaves the tree
 * two levels high with a full root.
 */
static void check_nomem_retry_stale_height_writer(void *maple_tree)
{
	struct maple_tree *mt = maple_tree;
	unsigned long i;

	mt_set_callback(NULL);
	mtree_store_range(mt, 0, ULONG_MAX, NULL, GFP_KERNEL);
	for (i = 0; i < 127; i++)
		mtree_store_range(mt, i * 10, i * 10 + 5, xa_mk_value(i),
				  GFP_KERNEL);
	MT_BUG_ON(mt, mt_height(mt) != 2);
}

/*
 * maple-nomem-retry-stale-height: a store retried after mas_nomem() counts
 * the nodes it needs again: another writer may have changed the tree while
 * the lock was dropped.  Here the first walk needs one node (a node store
 * in an RCU tree), the retry a split of a full root.
 */
static noinline void __init check_nomem_retry_stale_height(struct maple_tree *mt)
{
	unsigned long i;

	mt_set_non_kernel(0);
	for (i = 0; i < 200; i++)
		mtree_store_range(mt, i * 10, i * 10 + 5, xa_mk_value(i),
				  GFP_KERNEL);
	MT_BUG_ON(mt, mt_height(mt) != 3);

	/* The GFP_NOWAIT node fails and the writer runs in mas_nomem(). */
	mt_set_private(mt);
	mt_set_callback(check_nomem_retry_stale_height_writer);
	MT_BUG_ON(mt, mtree_store_range(mt, 1991, 1992, xa_mk_value(1000),
					GFP_KERNEL) != 0);
	mt_set_callback(NULL);
	mt_set_private(NULL);
	MT_BUG_ON(mt, mtree_load(mt, 1991) != xa_mk_value(1000));
	mtree_lock(mt);
	mt_validate(mt);
	mtree_unlock(mt);
}
#endif

/* One ksim test per check: fail when an MT_BUG_ON() fired. */
static void run_check_flags(void (*check)(struct maple_tree *), const char *name,
			    unsigned int flags)
{
	struct maple_tree tree;
	int run = atomic_read(&maple_tree_tests_run);
	int passed = atomic_read(&maple_tree_tests_passed);

	mt_init_flags(&tree, flags);
	check(&tree);
	mtree_destroy(&tree);
	rcu_barrier();
	run = atomic_read(&maple_tree_tests_run) - run;
	passed = atomic_read(&maple_tree_tests_passed) - passed;
	KSIM_EXPECT(passed == run, "%s: %d of %d MT_BUG_ON checks failed", name, run - passed, run);
}

static void run_check(void (*check)(struct maple_tree *), const char *name)
{
	run_check_flags(check, name, 0);
}

KSIM_TEST(kernel_style_rev_awalk_full_range)
{
	run_check(check_rev_awalk_full_range, "check_rev_awalk_full_range");
}

KSIM_TEST(kernel_style_rev_gap_ulong_max)
{
	run_check(check_rev_gap_ulong_max, "check_rev_gap_ulong_max");
}

KSIM_TEST(kernel_style_insert_range_full)
{
	run_check(check_insert_range_full, "check_insert_range_full");
}

KSIM_TEST(kernel_style_find_after_tree_emptied)
{
	run_check(check_find_after_tree_emptied, "check_find_after_tree_emptied");
}

KSIM_TEST(kernel_style_rcu_destroy_full_node)
{
	run_check(check_rcu_destroy_full_node, "check_rcu_destroy_full_node");
}

KSIM_TEST(kernel_style_nomem_retry_stale_height)
{
#if KSIM_HAVE_MT_SET_CALLBACK
	/* tools/testing/radix-tree's allocator: every GFP_NOWAIT allocation fails */
	ksim_slab_set_strict_nowait(true);
	run_check_flags(check_nomem_retry_stale_height, "check_nomem_retry_stale_height",
			MT_FLAGS_USE_RCU);
	ksim_slab_set_strict_nowait(false);
#else
	printf("# this tree has no mt_set_callback()\n");
#endif
}
