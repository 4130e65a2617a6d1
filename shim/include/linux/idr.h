/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel tree's own idr.h (lib/idr.c is built by xarray/). */
#include <linux/radix-tree.h>
#include <include/linux/idr.h>
