// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's XArray test module, lib/test_xarray.c, through the kernel's
 * own userspace wrapper tools/testing/radix-tree/xarray.c (which #includes
 * it), unmodified.  Its main() is weak; the suite's runner replaces it.
 * Part `xarray`: xarray_checks(), the module's init, then its exit.
 */
#include <ksim/rcu.h>
#include <ksim/test.h>
#include <tools/testing/radix-tree/xarray.c>

/*
 * check_xa_shrink() reads a node under xa_lock after the store that
 * unlinked it queued its RCU free: valid in the kernel, where a held
 * spinlock holds off the grace period; the shim's grace periods wait only
 * for rcu_read_lock() sections, so its callback worker can free the node
 * under the reader (seen under load).  The part is single-threaded: its
 * callbacks run at the runner's rcu_barrier() after it instead.
 */
KSIM_TEST(xarray)
{
	ksim_rcu_set_inline_callbacks(true);
	xarray_tests();
	ksim_rcu_set_inline_callbacks(false);
	radix_tree_cpu_dead(1);
	KSIM_EXPECT(tests_run > 0 && tests_passed == tests_run,
		    "XArray: %u of %u tests passed", tests_passed, tests_run);
}

void ksim_xarray_suite_counts(unsigned int *run, unsigned int *passed)
{
	*run += tests_run;
	*passed += tests_passed;
}
