// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer: __xa_alloc_cyclic() turns a failed allocation above the
 * cursor into a "wrap": it allocates a low, recently freed ID and returns 1
 * instead of -ENOMEM.  Intended behaviour, not a bug; what this test checks
 * is the kernel-doc's contract, which does not say so (a doc gap).
 *
 * lib/xarray.c, every supported tree (6.1 to 7.3.4):
 *
 *	limit.min = max(min, *next);
 *	ret = __xa_alloc(xa, id, entry, limit, gfp);
 *	...
 *	if (ret < 0 && limit.min > min) {
 *		limit.min = min;
 *		ret = __xa_alloc(xa, id, entry, limit, gfp);
 *		if (ret == 0)
 *			ret = 1;
 *	}
 *
 * "ret < 0" takes -ENOMEM as well as -EBUSY: when the free index at the
 * cursor needs a new node and the node cannot be allocated, the search
 * starts again at limit.min, and a free index in a node that already
 * exists is taken without any allocation.  The commit that added cyclic
 * allocation ("XArray: Add cyclic allocation") says, as issue 35 quotes
 * it, that the function "will attempt to wrap back to the minimum value on
 * memory allocation failure as well as on an -EBUSY error" (that text could
 * not be read offline).  The trees' kernel-doc says only "The search for an
 * empty entry will start at @next and will wrap around if necessary" and
 * "-ENOMEM if memory could not be allocated" (__xa_alloc_cyclic(),
 * xa_alloc_cyclic*()); Documentation/core-api/xarray.rst says nothing of
 * it.  lib/idr.c's idr_alloc_cyclic() retries on -ENOSPC only.
 *
 * Callers that can see it: xa_alloc_cyclic() with GFP_NOWAIT/GFP_ATOMIC
 * (with GFP_KERNEL a node allocation does not fail in practice): in 7.3.4
 * drivers/gpu/drm/xe/xe_vm.c (ASIDs, GFP_NOWAIT),
 * drivers/accel/amdxdna/amdxdna_mailbox.c (mailbox message IDs,
 * GFP_NOWAIT), drivers/gpu/drm/i915/gt/uc/intel_guc_submission.c (TLB
 * invalidation seqnos, GFP_ATOMIC): under memory pressure they get the
 * lowest freed ID at once.
 *
 * Expected by the kernel-doc: IDs 0..99 allocated, ID 10 freed again,
 * cursor at 200; with every non-blocking allocation failing,
 * __xa_alloc_cyclic(GFP_NOWAIT) over [0, 255] returns -ENOMEM (index 200
 * needs a new node).
 *
 * Found by xarray/random_ops_alloc --fault p=0.02 (seed 18; the model
 * checks __xa_alloc_cyclic() and takes such a result only after an
 * injected failure).  Finding xarray-alloc-cyclic-nomem-wraps (kind doc) in
 * docs/findings.toml.  Test code is ours; the tree is lib/xarray.c from
 * KSRC (ksim_xarray).
 */
#include <linux/xarray.h>
#include <ksim/fault.h>
#include <ksim/test.h>

KSIM_TEST(alloc_cyclic_nomem_wraps)
{
	DEFINE_XARRAY_ALLOC(xa);
	struct ksim_fault_config cfg = { .probability = 1.0, .times = -1, .nowait_only = true };
	u32 id, next = 0;
	int ret;

	for (u32 i = 0; i < 100; i++) {
		KSIM_ASSERT(!xa_alloc(&xa, &id, xa_mk_value(i), XA_LIMIT(0, 255), GFP_KERNEL));
		KSIM_ASSERT(id == i);
	}
	xa_erase(&xa, 10);
	next = 200;

	ksim_fault_set(&cfg);
	xa_lock(&xa);
	ret = __xa_alloc_cyclic(&xa, &id, xa_mk_value(1000), XA_LIMIT(0, 255), &next, GFP_NOWAIT);
	xa_unlock(&xa);
	KSIM_EXPECT(ksim_fault_failures() > 0, "no allocation was failed");
	ksim_fault_reset();
	KSIM_EXPECT(ret == -ENOMEM,
		    "__xa_alloc_cyclic(GFP_NOWAIT) from cursor 200 in [0, 255], with index 200 free "
		    "and its node not allocatable, returned %d and ID %u (a wrap to the freed ID 10), "
		    "not -ENOMEM", ret, ret >= 0 ? id : 0);
	xa_destroy(&xa);
}
