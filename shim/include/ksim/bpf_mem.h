/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Modes and statistics of the bpf_mem_alloc emulation
 * (shim/kernel/bpf/memalloc.c).  Kernel code never includes this.
 *
 * KSIM_BPF_MEM_FAITHFUL (default): as kernel/bpf/memalloc.c.  Objects
 *   freed with bpf_mem_free()/bpf_mem_cache_free() go on the freeing CPU's
 *   free list at once and the next allocation on that CPU gets them back
 *   (LIFO): a reader still holding the pointer sees another element's data.
 *   Only the surplus above the high watermark goes back to kmalloc, after an
 *   RCU grace period.  *_free_rcu() objects become reusable after a grace
 *   period.
 * KSIM_BPF_MEM_CHECKING: a freed object is filled with POISON_FREE (0x6b),
 *   ASan-poisoned and quarantined (FIFO of KSIM_BPF_MEM_QUARANTINE objects
 *   per allocator) instead of being reused; *_free_rcu() objects enter the
 *   quarantine only after a grace period.  Any access to a quarantined
 *   object is an ASan use-after-poison; without ASan, a changed poison byte
 *   is reported when the object leaves the quarantine (write after free).
 *   Code that is only safe because RCU delays reuse, but frees with the
 *   immediate-reuse calls, is caught here.
 */
#ifndef _KSIM_BPF_MEM_H
#define _KSIM_BPF_MEM_H

#include <stdbool.h>
#include <stddef.h>

struct bpf_mem_alloc;

enum ksim_bpf_mem_mode {
	KSIM_BPF_MEM_FAITHFUL,
	KSIM_BPF_MEM_CHECKING,
};

#define KSIM_BPF_MEM_QUARANTINE	4096

/* Mode for allocators initialised from now on (env KSIM_BPF_MEM=checking). */
void ksim_bpf_mem_set_mode(enum ksim_bpf_mem_mode mode);
enum ksim_bpf_mem_mode ksim_bpf_mem_get_mode(void);

struct ksim_bpf_mem_stats {
	unsigned long allocs;		/* objects handed out */
	unsigned long frees;		/* objects given back (any free call) */
	unsigned long reused;		/* allocations served by a freed object */
	unsigned long kmalloced;	/* objects taken from kmalloc */
	unsigned long kfreed;		/* objects returned to kmalloc */
	unsigned long failed;		/* allocations that returned NULL */
	unsigned long quarantined;	/* objects now in quarantine */
	unsigned long poison_bad;	/* poison found changed (checking mode) */
	unsigned long live;		/* allocated and not freed */
	unsigned long bytes_unit;	/* live objects' units (size class incl. 8-byte header) */
	unsigned long bytes_cached;	/* units on free lists and in quarantine */
};
void ksim_bpf_mem_stats(struct bpf_mem_alloc *ma, struct ksim_bpf_mem_stats *st);
/*
 * Totals over all allocators (benchmarks): bytes of units taken from
 * kmalloc (live and cached), and bytes callers asked for in live objects
 * (bpf_mem_alloc(): size + 8-byte header, before size-class rounding;
 * fixed-size caches: the unit size).
 */
void ksim_bpf_mem_totals(unsigned long *units_kmalloced, unsigned long *requested_live);
/* Is @ptr (returned by this allocator) freed and not yet handed out again? */
bool ksim_bpf_mem_is_free(struct bpf_mem_alloc *ma, const void *ptr);

#endif
