// SPDX-License-Identifier: GPL-2.0
/*
 * Runner for the kernel's maple suite (kernel_suite.c): the ksim test
 * runner plus the kernel harness's environment, and the kernel's closing
 * line "maple_tree: N of N tests passed" for the parts this process ran.
 * With KSIM_MAPLE_COUNTS=FILE the counts are also written there, so the
 * summary test can add them up over parts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <ksim/ksim.h>
#include <ksim/slab.h>
#include <ksim/test.h>

void ksim_maple_suite_init(void);
unsigned int ksim_maple_tests_run(void);
unsigned int ksim_maple_tests_passed(void);

static void once_setup(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	/* The kernel harness fails non-blocking node allocations unless
	 * mt_set_non_kernel() allowed them; the suite relies on that. */
	ksim_slab_set_strict_nowait(true);
	/*
	 * The kernel's test code takes locking shortcuts the kernel harness
	 * never notices (test_spanning_store_regression() stores without the
	 * tree lock; many checks walk trees outside RCU).  List them once per
	 * site instead of failing: the suite's own checks, ASan, leaks and
	 * WARNs still fail it.  Our own maple tests keep the strict policy.
	 */
	ksim_problem_set_policy(KSIM_P_LOCKDEP, KSIM_POLICY_REPORT_ONCE);
	ksim_problem_set_policy(KSIM_P_RCU, KSIM_POLICY_REPORT_ONCE);
	ksim_problem_set_policy(KSIM_P_SLEEP, KSIM_POLICY_REPORT_ONCE);
	ksim_maple_suite_init();
}

static void summary(void)
{
	const char *f = getenv("KSIM_MAPLE_COUNTS");
	unsigned int run = ksim_maple_tests_run(), passed = ksim_maple_tests_passed();

	printf("maple_tree: %u of %u tests passed\n", passed, run);
	if (f) {
		FILE *out = fopen(f, "w");

		if (out) {
			fprintf(out, "%u %u\n", passed, run);
			fclose(out);
		}
	}
}

int main(int argc, char **argv)
{
	ksim_test_setup_hook = once_setup;
	ksim_test_summary_hook = summary;
	return ksim_test_main(argc, argv);
}
