/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_SCHED_MM_H
#define _LINUX_SCHED_MM_H
#include <linux/kernel.h>	/* as the kernel's; lib/xarray.c relies on it */
#include <linux/gfp.h>
/* Allocation-scope APIs: scopes are not emulated; flags pass through. */
static inline unsigned int memalloc_nofs_save(void) { return 0; }
static inline void memalloc_nofs_restore(unsigned int flags) { (void)flags; }
static inline unsigned int memalloc_noio_save(void) { return 0; }
static inline void memalloc_noio_restore(unsigned int flags) { (void)flags; }
static inline unsigned int memalloc_noreclaim_save(void) { return 0; }
static inline void memalloc_noreclaim_restore(unsigned int flags) { (void)flags; }
static inline void fs_reclaim_acquire(gfp_t gfp_mask) { (void)gfp_mask; }
static inline void fs_reclaim_release(gfp_t gfp_mask) { (void)gfp_mask; }
#endif
