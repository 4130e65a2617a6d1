// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzz targets' copy of lib/maple_tree.c (ksim_maple_fuzz: the same
 * wrapper as ksim_maple, built single-threaded, fuzz/CMakeLists.txt), and
 * the harness's fast whole-tree walk, which needs the tree's static
 * accessors and so lives in the same translation unit.
 *
 * ksim_mt_for_each_range() reads the nodes directly: the node type, the
 * pivots and the data end as the kernel's own accessors (mte_node_type,
 * ma_pivots, ma_slots, ma_data_end, mt_slot_locked) decode them.  The fuzz
 * target compares the whole tree with its model after every op; through
 * mas_find() that comparison cost ~20% of an AFL++ run, most of it in the
 * iterator's per-step checks and coverage counters.  The kernel's iterator
 * is still what walks the tree at the end of each input and in the find
 * and prev ops, and structure (limits, gaps, parents, metadata) is
 * mt_validate()'s job, which runs before every walk.
 */
#include "../maple/maple_tree.c"
#include <ksim/maple_fuzz.h>

static void walk_node(struct maple_tree *mt, struct maple_enode *enode, unsigned long min,
		      unsigned long max, ksim_mt_range_fn fn, void *arg)
{
	enum maple_type type = mte_node_type(enode);
	struct maple_node *node = mte_to_node(enode);
	unsigned long *pivots = ma_pivots(node, type);
	void __rcu **slots = ma_slots(node, type);
	unsigned char end = ma_data_end(node, type, pivots, max);
	unsigned long first = min;

	for (unsigned char i = 0; i <= end; i++) {
		/*
		 * A slot's range ends at its pivot; the last slot has none and
		 * ends at the node's limit (mas_safe_pivot), as does a zero
		 * pivot past slot 0 (6.1's mas_logical_pivot).  Past the data
		 * end nothing is stored up to the limit: a last pivot below it
		 * is what the kernel's iterators read too.
		 */
		unsigned long last = i < mt_pivots[type] ? pivots[i] : max;
		void *entry = mt_slot_locked(mt, slots, i);

		if (!last && i)
			last = max;

		if (!ma_is_leaf(type))
			walk_node(mt, entry, first, last, fn, arg);
		else if (entry)
			fn(arg, first, last, entry);
		if (last >= max)
			break;
		first = last + 1;
	}
}

void ksim_mt_for_each_range(struct maple_tree *mt, ksim_mt_range_fn fn, void *arg)
{
	void *root = mt_root_locked(mt);

	if (!root)
		return;
	/* A lone entry at the root covers index 0 (mas_start()). */
	if (!xa_is_node(root)) {
		fn(arg, 0, 0, root);
		return;
	}
	walk_node(mt, root, 0, ULONG_MAX, fn, arg);
}
