// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer: an RCU reader that runs while a spanning store (or a
 * rebalance) replaces the root follows a new leaf's stale parent slot to the
 * wrong sibling: mas_find() walks backwards, mas_prev() skips entries,
 * returns NULL or a node's metadata, and 6.12 fires
 * WARN_ON_ONCE(mas_is_underflow(mas)) in mas_prev_slot().
 *
 * Found by stress/maple_stress under deterministic scheduling (--sched) with
 * one reader and one writer: `maple_stress -s 106 -r 1 -w 1 --sched 0.1`
 * (6.12: mas_find() walks [66242, 66264], then [66265, 65676], then [65678,
 * 65691]), `-s 112` (the WARN in mas_prev_slot()), `-s 32` (mas_prev()
 * returns 0xe, not a value anyone stored), then reduced with the program's
 * trace (KSIM_MAPLE_TRACE=A-B+dump) to the single-threaded sequences below.
 * The reader runs from a yield point of the writer (ksim_set_yield_hook()),
 * the first one after the new root was published, which is where --sched
 * switched threads in those runs: mas_topiary_replace() -> mas_find_child()
 * -> mas_descend(), before mas_adopt_children().  That is legal for a
 * reader: it holds rcu_read_lock(), the writer holds the tree lock, and
 * nothing the reader uses is freed.
 *
 * The state: an RCU tree of two levels, eight leaves ([i * 10, i * 10 + 5] =
 * i for i < 60).  The writer stores one range over four leaves, which merges
 * them into one or two new leaves and leaves the root with five or six
 * children.
 *
 * Mechanism (lib/maple_tree.c, 6.12.117; 6.1.192 has the same code):
 * mas_spanning_rebalance() copies the untouched leaves left of the new ones
 * into the new root (mast_combine_cp_left(); l_mas.offset = their count).
 * When the root is then not "sufficient" (six children or fewer) the loop
 * ends with `break`, and the root is built after the loop:
 *	mas_set_parent(mas, left, l_mas.node, slot);	(slot = 0)
 *	if (middle) mas_set_parent(mas, middle, l_mas.node, ++slot);
 *	if (right) mas_set_parent(mas, right, l_mas.node, ++slot);
 * so the new leaves say they sit at offsets 0, 1, 2 although they sit at
 * l_mas.offset and on.  mas_wmb_replace() publishes the root first
 * (mas_topiary_replace() -> mas_put_in_tree(); 6.1: mas_replace()) and
 * repairs the parent slots only afterwards (mas_adopt_children(); 6.1:
 * mas_descend_adopt()).  A reader in between that leaves a new leaf upwards
 * (mas_ascend() takes the offset from the parent pointer) lands off by
 * l_mas.offset:
 *   - mas_find() past the end of the left new leaf: mas_next_node() steps
 *     from "offset 0" to offset 1, an older leaf, and returns its ranges
 *     with mas->index = the old max + 1: [421, 79], then [80, 85];
 *   - mas_prev() before the start of a new leaf at offset 1: mas_prev_node()
 *     finds "offset 0", concludes there is nothing to the left and sets
 *     underflow although mas->index is above min; 6.12 fires the WARN and
 *     returns NULL, 6.1 returns NULL at [0, 0]; the entry in leaf 0 exists
 *     throughout;
 *   - mas_prev() before the start of the right new leaf (offset 2, "offset
 *     1"): mas_prev_node() descends into leaf 0 with the new leaf's min - 1
 *     as max; 6.12's ma_data_end() does not find that max in leaf 0's pivots
 *     and answers 15, so mas_prev() returns slot 15, leaf 0's metadata (0xe),
 *     as the entry of [76, 340]; 6.1 returns leaf 0's last entry, skipping
 *     everything in between.
 * After the writer's adoption walk the tree is correct again: the window is
 * the writer's, and a single-threaded caller never sees it.
 *
 * Reach: lockless iteration of an RCU-mode tree (mas_find(), mas_for_each(),
 * mas_next(), mas_prev(), and mt_find() when its walk starts in an empty
 * range at a leaf's end) while a writer's store over several leaves shrinks
 * the level below the root to six nodes or fewer.  By reading, not
 * reproduced here: an erase that leaves a leaf underfull gets there too
 * (mas_rebalance() ends in mas_spanning_rebalance()).  The top-down walks
 * (mas_walk(), mtree_load(), lock_vma_under_rcu()) do not ascend and are not
 * affected.
 *
 * Expected (what a tree with correct slots does; 7.2.13 and 7.3.4 pass, their
 * rewritten spanning store sets each child's parent slot when it copies it):
 * the walk continues into the right new leaf, mas_prev() returns the entry
 * to the left.  The control stores a range that leaves the root with seven
 * children, where the rebalance loop sets the slots itself.
 *
 * Finding maple-find-backwards in docs/findings.toml (the mas_prev()
 * symptoms were listed as maple-prev-underflow-warn): fails on 6.1.192 and
 * 6.12.117.  With `slot = l_mas.offset;` before the first mas_set_parent()
 * above (a scratch 6.12.117 tree), every test here passes.
 *
 * Test code is ours; the tree is lib/maple_tree.c from KSRC (ksim_maple).
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

/*
 * [220, 420] merges leaves 2-5 into [156, 420] (offset 2, stale slot 0) and
 * [421, 475] (offset 3, stale slot 1).  From the left one's last range,
 * [220, 420], the next is [421, 425]; the stale slot sends the walk to offset
 * 1, leaf 1: [421, 79] (empty, skipped), then [80, 85].
 */
static void reader_find(struct maple_tree *mt)
{
	find_walk(mt, 400, 460);
}

KSIM_TEST(rcu_find_during_spanning_store)
{
	struct maple_tree mt;

	fill(&mt);
	store_with_reader(&mt, 220, 420, reader_find);
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
 * [140, 340] merges leaves 1-4 into two new leaves, [76, 340] and [341, 395]:
 * both stale (slot 0 and 1, at offsets 1 and 2).  mas_prev() from the start
 * of the right one steps to offset 0, leaf 0, with the right leaf's min - 1
 * as its max; ma_data_end() does not find that max in leaf 0's pivots and
 * answers 15, so mas_prev() returns slot 15, which holds leaf 0's metadata
 * (0xe: end 14), as the entry of [76, 340].
 */
static void reader_prev_right(struct maple_tree *mt)
{
	MA_STATE(rd, mt, 341, 341);
	void *entry;

	rcu_read_lock();
	entry = mas_walk(&rd);
	KSIM_EXPECT(entry == xa_mk_value(34) && rd.index == 341 && rd.last == 345,
		    "mas_walk(341): [%lu, %lu] = %p", rd.index, rd.last, entry);
	entry = mas_prev(&rd, 0);
	KSIM_EXPECT(entry == xa_mk_value(1000) && rd.index == 140 && rd.last == 340,
		    "mas_prev from [341, 345]: [%lu, %lu] = %p, expected [140, 340] = %p",
		    rd.index, rd.last, entry, xa_mk_value(1000));
	rcu_read_unlock();
}

KSIM_TEST(rcu_prev_during_spanning_store_right_leaf)
{
	struct maple_tree mt;

	fill(&mt);
	store_with_reader(&mt, 140, 340, reader_prev_right);
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
