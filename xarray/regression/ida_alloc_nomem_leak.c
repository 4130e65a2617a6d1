// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer: ida_alloc_range() leaks the bitmap it allocated when storing
 * it needs an xarray node that the non-blocking attempt cannot get.
 *
 * lib/idr.c, every supported tree (6.1 to 7.3.4), ida_alloc_range(), the
 * branch for a chunk of IDA_BITMAP_BITS IDs with no entry yet, when the
 * first free bit is too high for a value entry (>= BITS_PER_XA_VALUE):
 *
 *		bitmap = alloc;
 *		if (!bitmap)
 *			bitmap = kzalloc(sizeof(*bitmap), GFP_NOWAIT);
 *		...
 *		__set_bit(bit, bitmap->bitmap);
 *	}
 *	xas_store(&xas, bitmap);
 *	...
 * out:
 *	xas_unlock_irqrestore(&xas, flags);
 *	if (xas_nomem(&xas, gfp)) {
 *		...
 *		goto retry;
 *	}
 *	if (bitmap != alloc)
 *		kfree(alloc);
 *
 * xas_store() of a chunk other than 0 into an array without a node for it
 * allocates one under the lock with GFP_NOWAIT; when that fails, the store
 * does nothing, xas_nomem() gets the node with the caller's gfp and the
 * function retries, allocating a second bitmap.  The first one (in
 * `bitmap`, never in `alloc`) is dropped: 128 bytes per occurrence.  (The
 * value-entry path and the `alloc:` path keep their memory in `alloc`.)
 *
 * Reach: any ida_alloc_range()/ida_alloc_min() whose range starts at or
 * beyond ID 1024 + 63 in a chunk with no ID yet (min % 1024 >= 63, no node
 * covering that chunk), when the GFP_NOWAIT node allocation under the
 * lock fails and the caller's gfp (GFP_KERNEL: it reclaims) succeeds:
 * memory pressure.  Ordinary ida_alloc() (min 0) takes a value entry for a
 * new chunk's first bits and does not get here.
 *
 * Expected: ida_alloc_range(ida, 1100, 2000, GFP_KERNEL) on an empty IDA,
 * with the one GFP_NOWAIT node allocation failing, returns 1100, and after
 * ida_free() and ida_destroy() no kmalloc object is left.
 *
 * Found by xarray/ida_api --fault p=0.02 (the test runner's leak check;
 * 6 of 30 seeds on 7.3.4).  Finding ida-alloc-nomem-leak in
 * docs/findings.toml.  Test code is ours; the tree is lib/idr.c from KSRC
 * (ksim_xarray).
 */
#include <linux/idr.h>
#include <ksim/fault.h>
#include <ksim/slab.h>
#include <ksim/test.h>

KSIM_TEST(ida_alloc_nomem_leak)
{
	struct ksim_fault_config cfg = { .nth = 1, .times = 1, .nowait_only = true, .nr_sites = 1,
					 .sites = { "xas_alloc" } };
	struct ksim_slab_stats before, after;
	DEFINE_IDA(ida);
	int id;

	ksim_slab_stats(KSIM_CACHE_KMALLOC, &before);
	ksim_fault_set(&cfg);
	id = ida_alloc_range(&ida, 1100, 2000, GFP_KERNEL);
	KSIM_EXPECT(ksim_fault_failures() == 1, "the GFP_NOWAIT node allocation failed (%lu failures)",
		    ksim_fault_failures());
	ksim_fault_reset();
	KSIM_ASSERT(id == 1100, "ida_alloc_range(1100, 2000) = %d", id);
	ida_free(&ida, id);
	ida_destroy(&ida);
	ksim_slab_stats(KSIM_CACHE_KMALLOC, &after);
	KSIM_EXPECT(after.live == before.live,
		    "%ld kmalloc object(s) left after ida_free() and ida_destroy(): the bitmap "
		    "allocated before the failed node allocation leaked",
		    (long)(after.live - before.live));
	/* the test runner's leak check then names the object's allocation site */
}
