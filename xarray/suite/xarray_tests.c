// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's XArray test module, lib/test_xarray.c, through the kernel's
 * own userspace wrapper tools/testing/radix-tree/xarray.c (which #includes
 * it), unmodified.  Its main() is weak; the suite's runner replaces it.
 * Part `xarray`: xarray_checks(), the module's init, then its exit; where
 * the tree has check_multi_store_advanced(), its largest orders are part
 * `multi_store_adv` instead, run beside it (below).
 */
#include <ksim/test.h>
/*
 * lib/xarray.c in the same translation unit as the tests, as 6.1's
 * harness file itself includes it (later trees build it apart):
 * test_get_entry() is most of the module's run, one xas_load() per call,
 * and in one unit the compiler inlines the walk into it.  The checks are
 * the same: the XA_STATE stays on the stack (ASan's scope checks keep it
 * addressable), and every access to it and to the array's nodes is
 * instrumented as before.  The suite's binary takes every lib/xarray.c
 * symbol from here, so the library's copy (../xarray.c, included here as
 * it compiles it) is not linked into it.
 */
#if !KSIM_HAVE_XA_HARNESS_LIB_XARRAY
#include "../xarray.c"
#endif
#include <tools/testing/radix-tree/xarray.c>

#if KSIM_HAVE_XA_MULTI_STORE_ADVANCED
/*
 * check_multi_store_advanced() is over half of the module's run (57% on
 * 7.3.4, perf: xarray/MEASUREMENTS.md): check_xa_multi_store_adv() for
 * orders 0-19 at 14 positions, each call's loads in proportion to
 * 2^order.  xarray_checks() and check_multi_store_advanced() are compiled
 * once more from verbatim extracts (xarray/extract/xarray_checks.txt)
 * whose check_xa_multi_store_adv() calls go through ksim_xa_msa_step():
 * part `xarray` runs the orders below KSIM_XA_MSA_SPLIT_ORDER and the
 * first KSIM_XA_MSA_SPLIT_LOW_CALLS calls of that order, part
 * `multi_store_adv` the others.  Every call runs, in exactly one of the
 * two parts, on an empty array as in the kernel's order (each call ends
 * with XA_BUG_ON(xa, !xa_empty(xa))), so together the parts make the
 * module's checks, count for count.  The split only balances the parts'
 * time: orders 17-19 are 7/8 of the function, about half of the module,
 * and the later positions (indices up to 2^51: taller trees) cost more
 * than the first; 9 of order 17's 14 calls in `xarray` balance the
 * parts on 7.3.4 when they run side by side, as under `ctest -j2`, where
 * part `xarray`'s RCU worker takes its CPU from both
 * (xarray/MEASUREMENTS.md).  A tree whose orders stop below it runs every
 * call in `xarray` and reports `multi_store_adv` skipped (exit 77,
 * CTest's SKIP_RETURN_CODE through scripts/ksim-xfail), not passed.
 */
#define KSIM_XA_MSA_SPLIT_ORDER 17
#define KSIM_XA_MSA_SPLIT_LOW_CALLS 9
static bool ksim_xa_msa_high;
static unsigned int ksim_xa_msa_split_calls;	/* of order KSIM_XA_MSA_SPLIT_ORDER */

static void ksim_xa_msa_step(struct xarray *xa, unsigned long pos, unsigned int order)
{
	bool high = order > KSIM_XA_MSA_SPLIT_ORDER ||
		    (order == KSIM_XA_MSA_SPLIT_ORDER &&
		     ksim_xa_msa_split_calls++ >= KSIM_XA_MSA_SPLIT_LOW_CALLS);

	if (high == ksim_xa_msa_high)
		check_xa_multi_store_adv(xa, pos, order);
}

#define xarray_checks ksim_xarray_checks
#define check_multi_store_advanced ksim_check_multi_store_advanced
#define check_xa_multi_store_adv ksim_xa_msa_step
#include "xarray_checks_gen.c"
#undef check_xa_multi_store_adv
#undef check_multi_store_advanced
#undef xarray_checks
#endif

static void ksim_xarray_part_end(void)
{
	xarray_exit();
	radix_tree_cpu_dead(1);
	KSIM_EXPECT(tests_run > 0 && tests_passed == tests_run,
		    "XArray: %u of %u tests passed", tests_passed, tests_run);
}

/*
 * check_xa_shrink() reads a node under xa_lock after the store that
 * unlinked it queued its RCU free: valid because a held spinlock holds off
 * the grace period, in the kernel and in the shim (linux/preempt.h).
 */
KSIM_TEST(xarray)
{
#if KSIM_HAVE_XA_MULTI_STORE_ADVANCED
	ksim_xa_msa_high = false;
	ksim_xa_msa_split_calls = 0;
	ksim_xarray_checks();
#else
	xarray_checks();
#endif
	ksim_xarray_part_end();
}

#if KSIM_HAVE_XA_MULTI_STORE_ADVANCED
KSIM_TEST(multi_store_adv)
{
	ksim_xa_msa_high = true;
	ksim_xa_msa_split_calls = 0;
	ksim_check_multi_store_advanced(&array);
	if (!tests_run) {
		/* Not a pass: the tree's orders all ran in part xarray. */
		printf("multi_store_adv: SKIP: this tree's check_multi_store_advanced() has no order >= %d; part xarray ran all of its calls\n",
		       KSIM_XA_MSA_SPLIT_ORDER);
		fflush(stdout);
		exit(77);
	}
	ksim_xarray_part_end();
}
#endif

void ksim_xarray_suite_counts(unsigned int *run, unsigned int *passed)
{
	*run += tests_run;
	*passed += tests_passed;
}
