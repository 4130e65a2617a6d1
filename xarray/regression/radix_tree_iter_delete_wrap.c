// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer: radix_tree_iter_delete() of an entry at the top of the index
 * space restarts a radix_tree_for_each_slot() walk at index 0, below the
 * start the caller asked for.
 *
 * lib/radix-tree.c, every supported tree (6.1 to 7.3.4):
 *
 *	void radix_tree_iter_delete(struct radix_tree_root *root,
 *				struct radix_tree_iter *iter, void __rcu **slot)
 *	{
 *		if (__radix_tree_delete(root, iter->node, slot))
 *			iter->index = iter->next_index;
 *	}
 *
 * When the delete frees the node whose chunk ends at ULONG_MAX,
 * iter->next_index has wrapped to 0, and so iter->index becomes 0.
 * radix_tree_next_chunk() detects the end of the index space by
 * `if (!index && iter->index) return NULL;`, "iter->index ... can be zero
 * only at the beginning": with iter->index 0 it takes the walk for a new
 * one and starts again at index 0.
 *
 * Reach, from a search of the whole 7.3.4 tree: three callers.
 * net/qrtr/af_qrtr.c qrtr_node_release() walks from 0 (a restart only
 * visits again what it kept: harmless); drivers/infiniband/core/
 * uverbs_uapi.c (u32 keys, and uapi_remove_range() stops past `last`) and
 * drivers/gpu/drm/i915/gem/i915_gem_context.c (u32 handles) never have an
 * entry in the chunk that ends at ULONG_MAX on 64-bit (on 32-bit a u32 key
 * can: not worked out).  An API corner, as for xa_store_range()
 * (store_range_ulong_max.c).
 *
 * Expected: walking from 10 and deleting what it visits deletes the entry
 * at ULONG_MAX and leaves the one at 5, which is below the start.
 *
 * Finding radix-tree-iter-delete-wrap in docs/findings.toml.
 * Test code is ours; the tree is lib/radix-tree.c from KSRC (ksim_xarray).
 */
#include <linux/radix-tree.h>
#include <ksim/test.h>

static u64 wrap_items[2];

KSIM_TEST(radix_tree_iter_delete_wrap)
{
	RADIX_TREE(root, GFP_KERNEL);
	struct radix_tree_iter iter;
	void __rcu **slot;
	unsigned long below = 0;

	KSIM_ASSERT(!radix_tree_insert(&root, 5, &wrap_items[0]));
	KSIM_ASSERT(!radix_tree_insert(&root, ULONG_MAX, &wrap_items[1]));
	radix_tree_for_each_slot(slot, &root, &iter, 10) {
		if (iter.index < 10)
			below++;
		radix_tree_iter_delete(&root, &iter, slot);
	}
	KSIM_EXPECT(!radix_tree_lookup(&root, ULONG_MAX), "the entry at ULONG_MAX is still there");
	KSIM_EXPECT(!below && radix_tree_lookup(&root, 5) == &wrap_items[0],
		    "a walk from index 10 came back to index 5 after deleting the entry at ULONG_MAX (%lu visit%s below the start), and deleted it",
		    below, below == 1 ? "" : "s");
	radix_tree_delete(&root, 5);
}
