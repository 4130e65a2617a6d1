// SPDX-License-Identifier: GPL-2.0
/*
 * lib/xarray.c from KSRC, unmodified, as part of the ksim_xarray library
 * (with lib/radix-tree.c and lib/idr.c, radix_tree.c and idr.c here).
 *
 * XA_DEBUG is on, as in the kernel's harness (tools/testing/shared/
 * xarray-shared.h): XA_NODE_BUG_ON() checks inside the xarray are live
 * (they BUG(), which aborts with a stack) and xa_dump() exists for the
 * tests and the model checks.
 */
#define XA_DEBUG
#include <lib/xarray.c>
