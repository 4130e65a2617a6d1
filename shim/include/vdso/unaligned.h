/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel tree's own (linux/unaligned.h includes it). */
#include <include/vdso/unaligned.h>
