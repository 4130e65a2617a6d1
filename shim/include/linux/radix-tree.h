/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Only the names the kernel's harness header (tools/testing/radix-tree/test.h)
 * declares with: the radix tree itself (lib/radix-tree.c) is not built.
 */
#ifndef _LINUX_RADIX_TREE_H
#define _LINUX_RADIX_TREE_H
#include <linux/xarray.h>
#define radix_tree_root		xarray
#define radix_tree_node		xa_node
struct radix_tree_preload {
	int nr;
	struct radix_tree_node *nodes;
};
#endif
