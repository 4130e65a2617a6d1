/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel tree's own (hashtab.c's rhtab map, 7.x; lib/rhashtable.c is not in the shim). */
#include <include/linux/rhashtable-types.h>
