/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel tree's own xarray.h: entry encoding (xa_mk_value,
 * XA_ZERO_ENTRY, ...) must be bit-exact with the tree under test.  The
 * out-of-line xa_* functions are lib/xarray.c, built by xarray/
 * (ksim_xarray); code that calls them without linking it fails to link,
 * naming the symbol.
 */
#include <include/linux/xarray.h>
