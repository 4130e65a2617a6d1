/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GFP flags: the kernel tree's own definitions, so flag values and their
 * meanings are exactly those of the tree under test (pure macros, no
 * dependencies beyond linux/bits.h).  Trees older than 6.0 kept these in
 * gfp.h; the shim supports 6.1 and later.
 */
#include <include/linux/gfp_types.h>
