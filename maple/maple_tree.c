// SPDX-License-Identifier: GPL-2.0
/*
 * lib/maple_tree.c from KSRC, unmodified, as a library (ksim_maple) for
 * everything that uses the tree rather than the kernel's test suite:
 * stress programs, fuzz harnesses and mm-sim's VMA trees.
 *
 * CONFIG_DEBUG_MAPLE_TREE is on so mt_validate() and the MAS_WARN_ON /
 * MT_BUG_ON checks inside the tree are live, as in the kernel's harness.
 * In that configuration the kernel only prints and dump_stack()s when one
 * fires, and carries on; here a failed check fails the test, stress run or
 * fuzz iteration that caused it (KSIM_DUMP_STACK_FAILS: linux/printk.h).
 * The kernel's own suite (kernel_suite.c) compiles its own copy, because it
 * needs the tree's static functions in the same translation unit.
 */
#define CONFIG_DEBUG_MAPLE_TREE
#define CONFIG_MAPLE_SEARCH
#define KSIM_DUMP_STACK_FAILS	"maple tree debug check failed"
#include <linux/init.h>
#include <lib/maple_tree.c>

/* start_kernel() calls maple_tree_init(); users of the library get it at load. */
__attribute__((constructor)) static void ksim_maple_init(void)
{
	maple_tree_init();
}
