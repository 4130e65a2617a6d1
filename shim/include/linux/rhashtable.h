/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel tree's own (hashtab.c's rhtab map, 7.x; lib/rhashtable.c is not in the shim). */
/* Its spinlock_t comes through the kernel's mutex.h; ours does not include it. */
#include <linux/spinlock_types.h>
#include <include/linux/rhashtable.h>
