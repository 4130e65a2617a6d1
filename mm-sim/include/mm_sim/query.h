/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read-only views of a simulated process for model-based checkers (the mm
 * fuzz target, the mm stress program).  Test code includes this next to
 * sim.h; nothing here changes an mm.
 */
#ifndef _MM_SIM_QUERY_H
#define _MM_SIM_QUERY_H

#include <stdbool.h>

struct mm_struct;

/* What a checker compares of one VMA (a copy: valid after the lock is dropped). */
struct ksim_vma_info {
	unsigned long start, end, flags, pgoff;
	const void *file;		/* vm_file (identity only), NULL if anonymous */
	bool anon_vma;
	char name[80];			/* its anonymous VMA name (ANON_VMA_NAME_MAX_LEN), "" if none */
	bool named;			/* it has one: "" is a name too */
	const void *uffd_ctx;		/* its userfaultfd context (identity), NULL if not registered */
};

/*
 * Copy the VMAs of @mm in address order into @out (at most @max) under
 * mmap_read_lock (the VMA iterator, as /proc/PID/maps walks them).  Returns
 * the number of VMAs in the tree (may exceed @max).
 */
int ksim_mm_vmas(struct mm_struct *mm, struct ksim_vma_info *out, int max);

/*
 * find_vma() under mmap_read_lock: the first VMA ending above @addr.
 * Returns false if there is none.
 */
bool ksim_mm_find_vma(struct mm_struct *mm, unsigned long addr, struct ksim_vma_info *out);

/*
 * The anon_vma of the VMA that maps @addr (identity) and its chain
 * (vma->anon_vma_chain): the number of links and an order-independent hash
 * of the anon_vmas they link.  A failed call must leave both as they were.
 * For single-threaded checkers: a concurrent fault links a chain under
 * locks this does not take.  False (and zeroes) if @addr is unmapped.
 */
struct ksim_anon_chain {
	const void *anon_vma;
	unsigned int links;
	unsigned long hash;
};
bool ksim_mm_anon_chain(struct mm_struct *mm, unsigned long addr, struct ksim_anon_chain *out);

/*
 * A lockless walk of mm->mm_mt under rcu_read_lock() (mas_find), as the
 * kernel's RCU readers do before taking a per-VMA lock: the entries' ranges
 * and pointers only, never the VMA memory (ksim_mm_lock_vma() is the
 * lookup that may look at a VMA: it holds the per-VMA read lock).  Calls
 * @fn for every entry (the range as the walk reported it) and returns the
 * number of entries; judging the ranges is the caller's (stress/mm_stress.c).
 */
long ksim_mm_rcu_walk(struct mm_struct *mm, unsigned long start, unsigned long end,
		      void (*fn)(void *arg, unsigned long first, unsigned long last, const void *entry),
		      void *arg);

/*
 * A page fault's lockless lookup: lock_vma_under_rcu() (the tree's own
 * where extracted, mm-sim/README.md "Per-VMA locks"), copy the VMA while
 * its per-VMA read lock is held, vma_end_read().  Returns false where the
 * kernel would fall back to the mmap lock (no VMA at @addr, or the VMA is
 * being changed) and on trees without per-VMA locks; no mmap lock taken.
 */
bool ksim_mm_lock_vma(struct mm_struct *mm, unsigned long addr, struct ksim_vma_info *out);

/*
 * /proc/PID/maps as 7.x reads it under per-VMA locks: the tree's
 * lock_next_vma() from the end of each VMA, no mmap lock unless it falls
 * back.  Copies at most @max VMAs; returns the number seen, -ENOSYS where
 * the tree has no lock_next_vma().
 */
long ksim_mm_maps_walk(struct mm_struct *mm, struct ksim_vma_info *out, int max);
/* The same file on a tree without lock_next_vma(): under the mmap read lock. */
long ksim_mm_maps_walk_locked(struct mm_struct *mm, struct ksim_vma_info *out, int max);

/* The fake pfn mapped at @addr, 0 if no page is mapped there. */
unsigned long ksim_mm_pfn(struct mm_struct *mm, unsigned long addr);
/*
 * The page-table page covering @addr at @level: 0 the pud table, 1 the pmd
 * table, 2 the pte table; NULL if none.  Identity only (mremap tests: a
 * table moved by move_normal_pmd/pud is the same page at the new address).
 */
const void *ksim_mm_pt_table(struct mm_struct *mm, unsigned long addr, int level);

#endif
