// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer: an RCU reader that runs while a spanning store replaces the
 * root steps from a new leaf to the wrong sibling: mas_find() walks
 * backwards, mas_prev() hits WARN_ON_ONCE(mas_is_underflow(mas)).
 *
 * Found by stress/maple_stress under deterministic scheduling (--sched), one
 * reader and one writer: `maple_stress -s 106 -r 1 -w 1 --sched 0.1` (6.12:
 * mas_find() walks [66242, 66264], then [66265, 65676], then [65678,
 * 65691]) and `maple_stress -s 112 -r 1 -w 1 --sched 0.1` (the WARN in
 * mas_prev_slot()), then reduced with the program's KSIM_MAPLE_TRACE to this
 * single-threaded sequence.  The reader runs from a yield point of the
 * writer (ksim_set_yield_hook()): where --sched switched threads, right after
 * the writer published its new subtree.  That is legal for a reader: it
 * holds rcu_read_lock(), the writer holds the tree lock, nothing is freed.
 *
 * The state: an RCU tree of two levels, eight leaves.  The writer stores one
 * range over leaves 1-4, which merges them into one new leaf; the root is
 * left with five children, too few to stop the rebalance below the root.
 *
 * Mechanism (lib/maple_tree.c, 6.12.117): mas_spanning_rebalance() copies
 * the untouched leaf 0 into the new root before the new leaf
 * (mast_combine_cp_left(), l_mas.offset = 1), and when the root is not
 * "sufficient" it leaves its loop with `break` and builds the root after it:
 * mas_set_parent(mas, left, l_mas.node, slot) with slot still 0, so the new
 * leaf at offset 1 says it is at offset 0.  mas_wmb_replace() ->
 * mas_topiary_replace() publishes the root (mas_put_in_tree()) and only then
 * repairs the parent pointers (mas_adopt_children()).  A reader in between
 * that leaves the new leaf by its parent pointer (mas_ascend() reads the slot
 * from it) lands one slot off:
 *   - mas_find() past the leaf's end: mas_next_node() ascends to "offset 0",
 *     steps to offset 1, which is the same leaf, and returns its first range
 *     with mas->index = the old max + 1: [396, 79], then [80, 85], ... a walk
 *     that goes backwards and loops over the leaf;
 *   - mas_prev() before the leaf's start: mas_prev_node() ascends to
 *     "offset 0", concludes there is nothing to the left and sets underflow
 *     although mas->index is above min, and mas_prev_slot() fires
 *     WARN_ON_ONCE(mas_is_underflow(mas)) and returns NULL instead of the
 *     entry in leaf 0.
 * The window is the writer's, from rcu_assign_pointer() of the root to the
 * end of its adoption walk; in the kernel any lockless iterator can be in it
 * on another CPU: mas_find()/mas_for_each()/mas_prev() under rcu_read_lock()
 * on an RCU-mode tree (the VMA tree walks of /proc/pid/maps and
 * lock_vma_under_rcu() users are such readers; the mm's tree is an
 * ALLOC_RANGE tree, which takes the same spanning-store path).
 *
 * Expected (what a tree without the stale slot does): the walk continues
 * into the next leaf, [396, 399] is not returned, and mas_prev() returns the
 * last entry of leaf 0.  The control stores a range that leaves the root
 * with seven children, where the rebalance loop sets the slots itself.
 *
 * Findings maple-find-backwards and maple-prev-underflow-warn in
 * docs/findings.toml.  Test code is ours; the tree is lib/maple_tree.c from
 * KSRC (ksim_maple).
 */
#include <linux/maple_tree.h>
#include <linux/xarray.h>
#include <ksim/test.h>

/*
 * The reader's steps, run once at the first yield point of the writer after
 * the root pointer changed.  A reader that would have to wait for the writer
 * (a rewalk loop on a dead node) cannot finish here: that is reported, not
 * waited for.
 */
static struct maple_tree *hook_mt;
static void *hook_old_root;
static void (*hook_reader)(struct maple_tree *mt);
static bool hook_ran, hook_busy;
static unsigned long hook_nested;

static void writer_yield_point(void)
{
	if (hook_busy) {
		if (++hook_nested > 1000000) {
			fprintf(stderr, "reader spins inside the writer's window: it waits for the writer\n");
			abort();
		}
		return;
	}
	if (hook_ran || READ_ONCE(hook_mt->ma_root) == hook_old_root)
		return;
	hook_busy = true;
	hook_reader(hook_mt);
	hook_busy = false;
	hook_ran = true;
}

/* Store [first, last] with the reader run inside the store, after publication. */
static void store_with_reader(struct maple_tree *mt, unsigned long first, unsigned long last,
			      void (*reader)(struct maple_tree *mt))
{
	hook_mt = mt;
	hook_old_root = READ_ONCE(mt->ma_root);
	hook_reader = reader;
	hook_ran = hook_busy = false;
	hook_nested = 0;
	ksim_set_yield_hook(writer_yield_point);
	KSIM_EXPECT(!mtree_store_range(mt, first, last, xa_mk_value(1000), GFP_KERNEL),
		    "store [%lu, %lu]", first, last);
	ksim_set_yield_hook(NULL);
	KSIM_EXPECT(hook_ran, "the writer published a new root");
}

/* [i * 10, i * 10 + 5] = i for i < 60: eight leaves under one root. */
static void fill(struct maple_tree *mt)
{
	mt_init_flags(mt, MT_FLAGS_USE_RCU);
	for (unsigned long i = 0; i < 60; i++)
		KSIM_EXPECT(!mtree_store_range(mt, i * 10, i * 10 + 5, xa_mk_value(i), GFP_KERNEL),
			    "store %lu", i);
}

static void finish(struct maple_tree *mt)
{
	mtree_lock(mt);
	mt_validate(mt);
	mtree_unlock(mt);
	mtree_destroy(mt);
	rcu_barrier();
}

/* From @from up to @max, at most 8 steps: every range starts after the previous one. */
static void find_walk(struct maple_tree *mt, unsigned long from, unsigned long max)
{
	MA_STATE(rd, mt, from, from);
	unsigned long prev_last = 0;
	void *entry;
	int n = 0;

	rcu_read_lock();
	while (n < 8 && (entry = mas_find(&rd, max)) != NULL) {
		KSIM_EXPECT(rd.index <= rd.last, "mas_find from %lu: range [%lu, %lu] = %p", from,
			    rd.index, rd.last, entry);
		KSIM_EXPECT(!n || rd.index > prev_last,
			    "mas_find from %lu went backwards: [%lu, %lu] = %p after one ending at %lu",
			    from, rd.index, rd.last, entry, prev_last);
		if (rd.index > rd.last || (n && rd.index <= prev_last))
			break;
		prev_last = rd.last;
		n++;
	}
	rcu_read_unlock();
}

/* The new leaf is [76, 395]; its last range is [390, 395], the next leaf starts at 396. */
static void reader_find(struct maple_tree *mt)
{
	find_walk(mt, 390, 420);
}

KSIM_TEST(rcu_find_during_spanning_store)
{
	struct maple_tree mt;

	fill(&mt);
	store_with_reader(&mt, 100, 380, reader_find);
	finish(&mt);
}

/* From [80, 85] (offset 1 of the new leaf) back over the empty [76, 79] into leaf 0. */
static void reader_prev(struct maple_tree *mt)
{
	MA_STATE(rd, mt, 80, 80);
	void *entry;

	rcu_read_lock();
	entry = mas_walk(&rd);
	KSIM_EXPECT(entry == xa_mk_value(8) && rd.index == 80 && rd.last == 85,
		    "mas_walk(80): [%lu, %lu] = %p", rd.index, rd.last, entry);
	entry = mas_prev(&rd, 0);
	KSIM_EXPECT(entry == xa_mk_value(7) && rd.index == 70,
		    "mas_prev from [80, 85]: [%lu, %lu] = %p, expected [70, 75] = %p",
		    rd.index, rd.last, entry, xa_mk_value(7));
	rcu_read_unlock();
}

KSIM_TEST(rcu_prev_during_spanning_store)
{
	struct maple_tree mt;

	fill(&mt);
	store_with_reader(&mt, 100, 380, reader_prev);
	finish(&mt);
}

/*
 * The control: [200, 320] merges leaves 2-4 into two new leaves and the root
 * keeps seven children, so the rebalance loop sets the new leaves' slots
 * before publication; the same kind of walk, from the first new leaf into the
 * second, is monotonic.
 */
static void reader_find_control(struct maple_tree *mt)
{
	find_walk(mt, 330, 380);
}

KSIM_TEST(rcu_find_during_spanning_store_full_root)
{
	struct maple_tree mt;

	fill(&mt);
	store_with_reader(&mt, 200, 320, reader_find_control);
	finish(&mt);
}
