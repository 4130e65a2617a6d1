// SPDX-License-Identifier: GPL-2.0
/*
 * tools/testing/radix-tree/multiorder.c, unmodified: multi-index entries
 * (iteration, marks, and two threaded races against RCU readers).
 * Part `multiorder`: multiorder_checks(), what its weak main() runs.
 */
#include <ksim/test.h>
#include <tools/testing/radix-tree/multiorder.c>

KSIM_TEST(multiorder)
{
	multiorder_checks();
}
