/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __LINUX_GFP_H
#define __LINUX_GFP_H

#include <linux/types.h>
#include <linux/gfp_types.h>
#include <linux/sched.h>

static inline bool gfpflags_allow_blocking(const gfp_t gfp_flags)
{
	return !!(gfp_flags & __GFP_DIRECT_RECLAIM);
}

/* The kernel's might_alloc(): a blocking allocation may sleep. */
#define might_alloc(gfp)	might_sleep_if(gfpflags_allow_blocking(gfp))

static inline gfp_t current_gfp_context(gfp_t flags) { return flags; }
#define gfp_zone(gfp)		0
#define numa_node_id()		0
#define NUMA_NO_NODE		(-1)
#define cpu_to_node(cpu)	0

#endif
