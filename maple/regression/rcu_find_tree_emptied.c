// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer: an RCU reader between two mas_find() calls while a writer
 * empties the tree dereferences NULL.
 *
 * Found by stress/mm_stress under deterministic scheduling (--sched) as a
 * NULL maple_node in ma_dead_node() from a lockless walk of a process's VMA
 * tree, then reduced by hand to this single-threaded sequence (legal for a
 * reader: it holds rcu_read_lock() throughout, the writer holds the tree
 * lock, and the node the reader stands on stays allocated until the grace
 * period).
 *
 * Mechanism (lib/maple_tree.c, 6.12.117): the writer's store of NULL over
 * everything replaces the root node by an empty root and marks the old node
 * dead.  The reader's next mas_find() -> mas_next_slot() sees the dead node
 * and calls mas_rewalk(), which restarts at the root: mas_start() finds no
 * node and sets mas->node = NULL with status ma_none (it would do the same,
 * with ma_root, for a tree kept as a single root entry), and mas_rewalk()
 * only loops while the status is ma_start.  mas_next_slot() then jumps back to its retry label
 * and evaluates ma_dead_node(mas_mn(mas)) on the NULL node.  In the kernel
 * that is a NULL pointer dereference in a lockless reader (any RCU-mode
 * maple tree walked with mas_find()/mas_next()/mas_for_each() while a writer
 * can empty it, e.g. a process's VMA tree at munmap of everything or exit).
 *
 * Expected (what a fixed tree does): the second mas_find() returns NULL.
 * Finding maple-find-emptied-null in docs/findings.toml: fails on 6.1.192,
 * 6.12.117, 7.2.13 and 7.3.4.
 *
 * Test code is ours; the tree is lib/maple_tree.c from KSRC (ksim_maple).
 */
#include <linux/maple_tree.h>
#include <linux/xarray.h>
#include <ksim/test.h>

static void find_after_shrink(unsigned long keep_last)
{
	struct maple_tree mt;
	MA_STATE(rd, &mt, 0, 0);
	void *entry;

	mt_init_flags(&mt, MT_FLAGS_USE_RCU);
	/* [0, 0], [10, 15], [20, 25], [30, 35]: one leaf node. */
	for (unsigned long i = 0; i < 4; i++)
		KSIM_EXPECT(!mtree_store_range(&mt, i * 10, i ? i * 10 + 5 : 0, xa_mk_value(i),
					       GFP_KERNEL), "store %lu", i);

	rcu_read_lock();
	entry = mas_find(&rd, ULONG_MAX);
	KSIM_EXPECT(entry == xa_mk_value(0) && rd.index == 0 && rd.last == 0,
		    "first mas_find: [%lu, %lu] = %p", rd.index, rd.last, entry);

	/* The writer: everything after keep_last goes (keep_last = ULONG_MAX: all). */
	mtree_lock(&mt);
	{
		MA_STATE(wr, &mt, keep_last == ULONG_MAX ? 0 : keep_last + 1, ULONG_MAX);

		KSIM_EXPECT(!mas_store_gfp(&wr, NULL, GFP_NOWAIT), "writer store");
	}
	mtree_unlock(&mt);

	/* The reader's next step must not crash; the range past 0 is empty now. */
	entry = mas_find(&rd, ULONG_MAX);
	KSIM_EXPECT(entry == NULL, "second mas_find after the tree shrank: [%lu, %lu] = %p",
		    rd.index, rd.last, entry);
	rcu_read_unlock();

	mtree_destroy(&mt);
	rcu_barrier();
}

KSIM_TEST(rcu_find_after_tree_emptied)
{
	find_after_shrink(ULONG_MAX);
}

/* Shrinking to one entry that still needs a node is handled: the re-walk finds a node. */
KSIM_TEST(rcu_find_after_tree_shrank)
{
	find_after_shrink(0);
}
