/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shim's allocator accounting and the kernel-harness knobs
 * (shim/mm/slab.c).  Kernel code never includes this; tests do.
 */
#ifndef _KSIM_SLAB_H
#define _KSIM_SLAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct kmem_cache;

struct ksim_slab_stats {
	const char *name;
	unsigned long live;		/* objects allocated and not freed */
	unsigned long total;		/* allocations since creation/zeroing */
	unsigned long bytes_requested;	/* live bytes as asked for */
	unsigned long bytes_rounded;	/* live bytes as the kernel would use them */
	unsigned long failed;		/* allocations that returned NULL */
	unsigned long sheaved;		/* of live: held in sheaves, not handed out */
};

/*
 * ASan builds: a freed kmem_cache object is reused only once this many
 * later frees of its cache stand behind it (shim/mm/slab.c, "the pool").
 */
#define KSIM_SLAB_POOL_DELAY	4096

/* The pseudo-caches for kmalloc and vmalloc allocations. */
#define KSIM_CACHE_KMALLOC	((struct kmem_cache *)1)
#define KSIM_CACHE_VMALLOC	((struct kmem_cache *)2)

void ksim_slab_stats(struct kmem_cache *s, struct ksim_slab_stats *out);
/* Totals over every cache (including kmalloc/vmalloc). */
void ksim_slab_totals(struct ksim_slab_stats *out);
/* Size the kernel's allocator would really use for a kmalloc of @size. */
size_t ksim_kmalloc_rounded(size_t size);

/*
 * Leak check: prints every live object (cache, size, allocation site) and
 * reports a KSIM_P_LEAK problem per leaking cache.  Returns the number of
 * live objects.  Caches and objects allocated before ksim_slab_mark() are
 * not counted (global, long-lived state such as the maple node cache).
 */
unsigned long ksim_slab_leak_check(FILE *out);
void ksim_slab_mark(void);
void ksim_slab_report(FILE *out);

/*
 * The kernel harness's "non-kernel" budget (tools/testing/shared/linux.c):
 * when strict mode is on, a kmem_cache allocation that may not sleep
 * (no __GFP_DIRECT_RECLAIM) fails unless the cache's budget, set with
 * kmem_cache_set_non_kernel(), allows it, and a non-blocking kmalloc()
 * always fails (tools/lib/slab.c).  Off by default: then non-blocking
 * allocations succeed unless fault injection says otherwise.
 */
void ksim_slab_set_strict_nowait(bool on);
/*
 * For processes that run kernel code on one thread only (the fuzz targets):
 * the allocator skips its locks; a slab call from another thread is a BUG.
 */
void ksim_slab_set_single_threaded(bool on);
/*
 * Sheaf filling (see shim/mm/slab.c).  Off (the default, as the kernel's
 * own harness tools/testing/shared does): prefill and refill add exactly
 * the objects asked for, and a returned sheaf is emptied and freed.  On, as
 * mm/slub.c does: a sheaf of the cache's capacity is filled to capacity, a
 * returned one becomes the current CPU's spare (ksim_cpu()) if that CPU has
 * none, and the next prefill on that CPU takes it, objects and all.
 */
void ksim_slab_set_sheaf_fill_capacity(bool on);
/* Sheaves handed out by prefill and not returned (spares not counted). */
unsigned long ksim_kmem_cache_nr_sheaves(struct kmem_cache *s);
void kmem_cache_set_non_kernel(struct kmem_cache *s, unsigned int val);
void kmem_cache_set_callback(struct kmem_cache *s, void (*callback)(void *));
void kmem_cache_set_private(struct kmem_cache *s, void *private);
unsigned long kmem_cache_get_alloc(struct kmem_cache *s);
unsigned long kmem_cache_nr_allocated(struct kmem_cache *s);
unsigned long kmem_cache_nr_tallocated(struct kmem_cache *s);
void kmem_cache_zero_nr_tallocated(struct kmem_cache *s);
/* Objects kept by a SLAB_TYPESAFE_BY_RCU cache for reuse. */
unsigned long ksim_kmem_cache_nr_free(struct kmem_cache *s);

#endif
