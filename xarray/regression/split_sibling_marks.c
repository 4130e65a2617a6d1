// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer: xas_split() of a marked entry into entries with siblings sets
 * the marks on the sibling slots of the new node too (6.1).
 *
 * lib/xarray.c, 6.1.176:
 *
 *	static void node_set_marks(struct xa_node *node, unsigned int offset,
 *				struct xa_node *child, unsigned int marks)
 *	{
 *		...
 *			node_set_mark(node, offset, mark);
 *			if (child)
 *				node_mark_all(child, mark);
 *
 * xas_split() calls it for each new child node, so every one of the
 * child's 64 slots gets the split entry's marks, sibling slots included.
 * xa_clear_mark() of an entry clears its canonical slot only, so once
 * every new entry is unmarked the node still says "marked": xa_marked()
 * is true and xa_find(XA_MARK_x) returns the sibling entry itself (an
 * internal entry, xa_mk_sibling(0) = 0x2) as if it were the caller's
 * pointer.  6.12, 7.2 and 7.3 mark only the canonical slots
 * (node_mark_slots(child, sibs, mark)); the fix's commit is not
 * established here (no git history offline).
 *
 * Reach on 6.1: none found.  mm/huge_memory.c splits a folio's entry to
 * order 0 (every slot of a new child is canonical), and mm/filemap.c
 * splits large shadow entries, which carry no marks (page_cache_delete()
 * clears them).  The function is exported (EXPORT_SYMBOL_GPL).
 *
 * Expected: split an order-6 entry marked with XA_MARK_1 into order-3
 * entries, clear the mark on all eight: nothing is marked any more.
 *
 * Found by xarray/split_orders (which no longer issues such splits on
 * 6.1).  Finding xarray-split-sibling-marks in docs/findings.toml.  Test
 * code is ours; the tree is lib/xarray.c from KSRC (ksim_xarray).
 */
#include <linux/xarray.h>
#include <ksim/test.h>

KSIM_TEST(split_sibling_marks)
{
	DEFINE_XARRAY(xa);
	void *entry = xa_mk_value(1), *found;
	XA_STATE_ORDER(store, &xa, 0, 6);
	XA_STATE_ORDER(xas, &xa, 0, 3);
	unsigned long index = 0;

	do {
		xas_lock(&store);
		xas_store(&store, entry);
		xas_unlock(&store);
	} while (xas_nomem(&store, GFP_KERNEL));
	KSIM_ASSERT(!xas_error(&store));
	xa_set_mark(&xa, 0, XA_MARK_1);
	xas_split_alloc(&xas, entry, 6, GFP_KERNEL);
	KSIM_ASSERT(!xas_error(&xas));
	xas_lock(&xas);
	xas_split(&xas, entry, 6);
	xas_unlock(&xas);
	KSIM_ASSERT(xa_get_order(&xa, 0) == 3 && xa_get_mark(&xa, 56, XA_MARK_1));

	for (unsigned long i = 0; i < 64; i += 8)
		xa_clear_mark(&xa, i, XA_MARK_1);
	found = xa_find(&xa, &index, ULONG_MAX, XA_MARK_1);
	KSIM_EXPECT(!found && !xa_marked(&xa, XA_MARK_1),
		    "after clearing XA_MARK_1 on all 8 entries of a split, xa_find(XA_MARK_1) returns %p "
		    "at index %lu%s and xa_marked() says %d (the marks stayed on the sibling slots)",
		    found, index, found && xa_is_sibling(found) ? " (a sibling entry)" : "",
		    xa_marked(&xa, XA_MARK_1));
	xa_destroy(&xa);
}
