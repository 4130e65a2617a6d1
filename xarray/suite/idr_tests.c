// SPDX-License-Identifier: GPL-2.0
/*
 * tools/testing/radix-tree/idr-test.c (which #includes lib/test_ida.c),
 * unmodified.  Part `idr`: what its (weak, replaced) main() runs,
 * idr_checks() and ida_tests() (the IDA module's checks, the userspace
 * ones and 20 threads racing allocations for ~2 s).
 */
#include <ksim/test.h>
#include <tools/testing/radix-tree/idr-test.c>

KSIM_TEST(idr)
{
	idr_checks();
	ida_tests();
	radix_tree_cpu_dead(1);
	KSIM_EXPECT(tests_run > 0 && tests_passed == tests_run,
		    "IDA: %u of %u tests passed", tests_passed, tests_run);
}

void ksim_ida_suite_counts(unsigned int *run, unsigned int *passed)
{
	*run += tests_run;
	*passed += tests_passed;
}
