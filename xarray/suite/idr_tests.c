// SPDX-License-Identifier: GPL-2.0
/*
 * tools/testing/radix-tree/idr-test.c (which #includes lib/test_ida.c),
 * unmodified.  Part `idr`: what its (weak, replaced) main() runs,
 * idr_checks() and ida_tests() (the IDA module's checks, the userspace
 * ones and 20 threads racing allocations for ~2 s).
 */
#include <ksim/test.h>
#include <tools/testing/radix-tree/idr-test.c>

/*
 * WARNs the tests trigger on purpose, between their "vvv Ignore these
 * warnings" and "^^^ ... over" lines: idr_u32_test()'s two WARN_ON_ONCE(id
 * > INT_MAX) (idr_alloc_u32, idr_get_next) and ida_check_bad_free()'s (lib/
 * test_ida.c) 4 x 32 "ida_free called for id=N which is not allocated".
 * Any other WARN fails the part.  A failed IDA_BUG_ON() aborts (the
 * harness's dump_stack() is assert(0)); the counters are not checked
 * here: ida_thread_tests()' 20 threads bump them without atomics.
 */
#define KSIM_IDR_EXPECTED_WARNS	130

KSIM_TEST(idr)
{
	ksim_expect_problems(KSIM_P_WARN, KSIM_IDR_EXPECTED_WARNS);
	idr_checks();
	ida_tests();
	radix_tree_cpu_dead(1);
}

void ksim_ida_suite_counts(unsigned int *run, unsigned int *passed)
{
	*run += tests_run;
	*passed += tests_passed;
}
