// SPDX-License-Identifier: GPL-2.0
/*
 * Dynamic per-CPU allocations (linux/percpu.h): one zeroed block holding a
 * header with the stride, then KSIM_NR_CPUS copies.  The returned pointer
 * is CPU 0's copy.  The block is a kmalloc/kvmalloc allocation, so leak
 * checks, fault injection and the memory accounting see it.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/percpu.h>

__thread int ksim_cpu_pinned;
const struct cpumask ksim_cpu_possible_mask = { { (1UL << KSIM_NR_CPUS) - 1 } };

#define KSIM_PCPU_HDR	16	/* keeps CPU areas 16-byte aligned */

void *ksim_alloc_percpu(size_t size, size_t align, gfp_t gfp, KSIM_SITE_ARGS)
{
	size_t stride, total;
	char *blk;

	if (!size)
		return NULL;
	if (align < 8)
		align = 8;
	if (align > KSIM_PCPU_HDR)
		return NULL;
	stride = ALIGN(size, align);
	total = KSIM_PCPU_HDR + stride * KSIM_NR_CPUS;
	blk = ksim_kvmalloc(total, (gfp & ~__GFP_ZERO) | __GFP_ZERO, func, file, line);
	if (!blk)
		return NULL;
	*(size_t *)blk = stride;
	return blk + KSIM_PCPU_HDR;
}

size_t ksim_percpu_stride(const void __percpu *p)
{
	return *(const size_t *)((const char *)p - KSIM_PCPU_HDR);
}

void free_percpu(void __percpu *p)
{
	if (!p)
		return;
	kvfree((char *)p - KSIM_PCPU_HDR);
}
