// SPDX-License-Identifier: GPL-2.0
/*
 * Set-up for maple_regression (the files under regression/): the kernel
 * creates the maple node cache at boot, maple_tree_init(); do it once,
 * before the first test.  Our own tests keep the strict problem policy
 * (lockdep, RCU usage and WARNs fail a test).
 */
#include <linux/maple_tree.h>
#include <ksim/test.h>

static void ksim_maple_regression_setup(void)
{
	static bool done;

	if (!done) {
		done = true;
		maple_tree_init();
	}
}

__attribute__((constructor)) static void ksim_maple_regression_hooks(void)
{
	ksim_test_setup_hook = ksim_maple_regression_setup;
}
