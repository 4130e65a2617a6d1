// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's XArray test module, lib/test_xarray.c, through the kernel's
 * own userspace wrapper tools/testing/radix-tree/xarray.c (which #includes
 * it), unmodified.  Its main() is weak; the suite's runner replaces it.
 * Part `xarray`: xarray_checks(), the module's init, then its exit.
 */
#include <ksim/test.h>
#include <tools/testing/radix-tree/xarray.c>

/*
 * check_xa_shrink() reads a node under xa_lock after the store that
 * unlinked it queued its RCU free: valid because a held spinlock holds off
 * the grace period, in the kernel and in the shim (linux/preempt.h).
 */
KSIM_TEST(xarray)
{
	xarray_tests();
	radix_tree_cpu_dead(1);
	KSIM_EXPECT(tests_run > 0 && tests_passed == tests_run,
		    "XArray: %u of %u tests passed", tests_passed, tests_run);
}

void ksim_xarray_suite_counts(unsigned int *run, unsigned int *passed)
{
	*run += tests_run;
	*passed += tests_passed;
}
