// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer: xas_try_split() to an order below xas_try_split_min_order()
 * "succeeds" with entries of the wrong order instead of -EINVAL.
 *
 * lib/xarray.c (7.2.13, 7.3.4; 6.1 and 6.12 have no xas_try_split()):
 * xas_try_split() promises "If and only if one new xa_node is needed, the
 * function will use GFP_NOWAIT to get one ... If more new xa_node are
 * needed, the function gives EINVAL error", and xas_try_split_min_order()
 * names the smallest order it supports.  When the split needs a child
 * node, the only check is
 *
 *	unsigned int expected_sibs = (1 << ((order - 1) % XA_CHUNK_SHIFT)) - 1;
 *	if (sibs || xas->xa_sibs != expected_sibs) { ... -EINVAL ... }
 *
 * which compares the new order's sibling count, not its shift: from an
 * order o that is a multiple of XA_CHUNK_SHIFT (one slot) to any order
 * n = o - 1 - k * XA_CHUNK_SHIFT (k >= 1), the check passes, one child
 * node one level down is filled, and the entry becomes 2^1 entries of
 * order o - 1 where the caller asked for 2^(o-n) of order n.  Nothing is
 * allocated beyond that node; the array is sound, just not what was asked.
 *
 * Reach: no in-tree caller.  mm/filemap.c (__filemap_add_folio) splits to
 * max(new order, xas_try_split_min_order()), mm/shmem.c to
 * xas_try_split_min_order(), mm/huge_memory.c's non-uniform split one
 * order at a time; and page-cache entries stop at MAX_XAS_ORDER
 * (2 * XA_CHUNK_SHIFT - 1 = 11), below the first order (12) affected.
 * The function is exported (EXPORT_SYMBOL_GPL).
 *
 * Expected: splitting an order-12 entry at 0 to order 5 fails with -EINVAL
 * and leaves the entry as it was.
 *
 * Found by xarray/split_orders (every split of orders 1..15 against the
 * model, which no longer issues this one).  Finding
 * xarray-try-split-below-min in docs/findings.toml.  Test code is ours;
 * the tree is lib/xarray.c from KSRC (ksim_xarray).
 */
#include <linux/xarray.h>
#include <ksim/test.h>

KSIM_TEST(try_split_below_min)
{
#if KSIM_HAVE_XAS_TRY_SPLIT
	DEFINE_XARRAY(xa);
	void *entry = xa_mk_value(1);
	XA_STATE_ORDER(store, &xa, 0, 12);
	XA_STATE_ORDER(xas, &xa, 0, 5);
	int err, order;

	do {
		xas_lock(&store);
		xas_store(&store, entry);
		xas_unlock(&store);
	} while (xas_nomem(&store, GFP_KERNEL));
	KSIM_ASSERT(!xas_error(&store) && xa_get_order(&xa, 0) == 12);
	KSIM_ASSERT(xas_try_split_min_order(12) == 11);

	xas_lock(&xas);
	xas_try_split(&xas, entry, 12);
	xas_unlock(&xas);
	err = xas_error(&xas);
	order = xa_get_order(&xa, 0);
	KSIM_EXPECT(err == -EINVAL && order == 12,
		    "xas_try_split() of an order-12 entry to order 5 (below xas_try_split_min_order() = 11) "
		    "returned %d, and the entry at 0 is now of order %d (order 5 would need 65 new nodes)",
		    err, order);
	xa_destroy(&xa);
#else
	printf("# this tree has no xas_try_split()\n");
#endif
}
