/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The little of include/linux/mm.h that the shim's kernel files ask for
 * (lib/rhashtable.c: the allocators; PAGE_SIZE).  mm-sim has its own
 * (mm-sim/include/linux/mm.h), found first on its include path.
 */
#ifndef _LINUX_MM_H
#define _LINUX_MM_H

#include <linux/slab.h>
#include <linux/vmalloc.h>

#ifndef PAGE_SHIFT
#define PAGE_SHIFT	CONFIG_PAGE_SHIFT
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#endif

#endif
