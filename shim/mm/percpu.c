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

const struct cpumask ksim_cpu_possible_mask = { { (1UL << KSIM_NR_CPUS) - 1 } };

/* Two words before CPU 0's copy: the stride and the offset from the block. */
#define KSIM_PCPU_HDR	16

void *ksim_alloc_percpu(size_t size, size_t align, gfp_t gfp, KSIM_SITE_ARGS)
{
	size_t stride, total;
	char *blk, *p;

	if (!size || (align & (align - 1)) || align > 4096)
		return NULL;
	if (align < 16)
		align = 16;
	stride = ALIGN(size, align);
	total = KSIM_PCPU_HDR + (align - 16) + stride * KSIM_NR_CPUS;
	blk = ksim_kvmalloc(total, gfp | __GFP_ZERO, func, file, line);
	if (!blk)
		return NULL;
	p = (char *)ALIGN((unsigned long)blk + KSIM_PCPU_HDR, align);
	((size_t *)p)[-2] = stride;
	((size_t *)p)[-1] = p - blk;
	return p;
}

size_t ksim_percpu_stride(const void __percpu *p)
{
	return ((const size_t *)p)[-2];
}

void free_percpu(void __percpu *p)
{
	if (!p)
		return;
	kvfree((char *)p - ((size_t *)p)[-1]);
}
