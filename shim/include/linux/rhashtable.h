/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel tree's own (7.x hashtab.c's rhtab map on lib/rhashtable.c: qptrie/kernel/rhashtable.c). */
/* Its spinlock_t comes through the kernel's mutex.h; ours does not include it. */
#include <linux/spinlock_types.h>
#include <include/linux/rhashtable.h>
