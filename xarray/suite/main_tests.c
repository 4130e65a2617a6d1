// SPDX-License-Identifier: GPL-2.0
/*
 * tools/testing/radix-tree/main.c, unmodified, with its main() renamed
 * (it is not weak): the parts below call what it runs, in its order.
 * Its random choices come from rand(), seeded here from the run's seed
 * (main() seeds from time() or -s).  The benchmark() it ends with is a
 * timing loop, not a check: not run.
 *
 *   regression   regression1_test() .. regression4_test()
 *   iteration    iteration_test(0, S), iteration_test(7, S),
 *                iteration_test2(S): threads for S s each (main's default
 *                is 10; S = KSIM_ITERATION_SECONDS, 3 unless CMake's
 *                KSIM_XARRAY_ITERATION_SECONDS says otherwise)
 *   single       single_thread_tests(false): multiorder, tags, gang
 *                lookups, heights, IDR/IDA, big_gang_check, copy_tag_check;
 *                idr-test.c's time(NULL) loops see a clock 10/S times as
 *                fast (harness.h)
 */
#include <ksim/test.h>
#define main ksim_radix_tree_main
#include <tools/testing/radix-tree/main.c>
#undef main

KSIM_TEST(regression)
{
	regression1_test();
	regression2_test();
	regression3_test();
	regression4_test();
	radix_tree_cpu_dead(0);
}

KSIM_TEST(iteration)
{
	iteration_test(0, KSIM_ITERATION_SECONDS);
	iteration_test(7, KSIM_ITERATION_SECONDS);
	iteration_test2(KSIM_ITERATION_SECONDS);
	radix_tree_cpu_dead(0);
}

KSIM_TEST(single)
{
	/* It runs idr_checks() and ida_tests() too (idr_tests.c). */
	ksim_expect_problems(KSIM_P_WARN, 130);
	srand((unsigned int)ksim_test_seed());
	single_thread_tests(false);
	radix_tree_cpu_dead(0);
}
