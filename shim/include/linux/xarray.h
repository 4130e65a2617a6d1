/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel tree's own xarray.h: entry encoding (xa_mk_value,
 * XA_ZERO_ENTRY, ...) must be bit-exact with the tree under test.  The
 * out-of-line xa_* functions (lib/xarray.c) are not built; code that calls
 * them fails to link, naming the symbol.
 */
#include <include/linux/xarray.h>
