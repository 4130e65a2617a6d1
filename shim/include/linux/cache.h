/* SPDX-License-Identifier: GPL-2.0 */
/* Cache-line alignment: the attributes live in compiler_types.h. */
#ifndef __LINUX_CACHE_H
#define __LINUX_CACHE_H
#include <linux/compiler_types.h>
#define L1_CACHE_BYTES	64
#define SMP_CACHE_BYTES	64
#define L1_CACHE_ALIGN(x)	(((x) + 63) & ~63UL)
#endif
