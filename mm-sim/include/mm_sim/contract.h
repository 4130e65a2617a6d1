/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The documented argument contract of the simulated system calls: which
 * arguments matter under which flags, which values are refused before
 * anything is looked up.  A model of the contract, not of the kernel:
 * mm-sim/mremap_argument_contract calls the kernel with the arguments as drawn,
 * garbage in the ignored ones included, and compare with the same call
 * on an identical process given the canonical arguments this returns;
 * the two must not differ in anything (result, VMAs, pages).  The mm fuzz
 * target (fuzz/mm.c) passes garbage the contract maps back to the call
 * its model judges.
 *
 * Only calls whose argument handling is the kernel's own code are here:
 * mremap(2) (SYSCALL_DEFINE5(mremap), both mm/mremap.c generations).
 * mm-sim's mmap, munmap, mprotect, mlock, madvise, brk, mbind and the
 * uffd calls take tidy arguments from ksim code (sim.c): a contract check
 * there would test ksim, so they are not covered (mm-sim/README.md).
 */
#ifndef _MM_SIM_CONTRACT_H
#define _MM_SIM_CONTRACT_H

#include <errno.h>
#include <mm_sim/sim.h>

struct ksim_mremap_args {
	unsigned long addr, old_len, new_len, flags, new_addr;
};

/*
 * mremap(2): -EINVAL for flags outside MAYMOVE|FIXED|DONTUNMAP, FIXED or
 * DONTUNMAP without MAYMOVE, an unaligned @addr, a @new_len that rounds
 * to 0, DONTUNMAP with lengths that differ once rounded; else 0, and @a
 * is the canonical call: lengths rounded up to pages ("old_size ... are
 * page aligned" in the kernel's checks, both trees PAGE_ALIGN them), and
 * @new_addr 0 unless FIXED or DONTUNMAP use it (the man page: "If
 * MREMAP_FIXED is specified, then new_address ..."; without either flag
 * the syscall never reads it).  Lengths are expected below TASK_SIZE (7.x
 * refuses larger ones with -EINVAL, 6.x fails later with -ENOMEM).
 * 6.x compares DONTUNMAP's lengths before rounding, 7.x after: callers
 * pass DONTUNMAP page-aligned lengths.
 */
static inline long ksim_mremap_contract(struct ksim_mremap_args *a)
{
	const unsigned long pg = KSIM_PAGE_SIZE;

	if (a->flags & ~(KSIM_MREMAP_MAYMOVE | KSIM_MREMAP_FIXED | KSIM_MREMAP_DONTUNMAP))
		return -EINVAL;
	if ((a->flags & (KSIM_MREMAP_FIXED | KSIM_MREMAP_DONTUNMAP)) && !(a->flags & KSIM_MREMAP_MAYMOVE))
		return -EINVAL;
	if (a->addr & (pg - 1))
		return -EINVAL;
	a->old_len = (a->old_len + pg - 1) & ~(pg - 1);
	a->new_len = (a->new_len + pg - 1) & ~(pg - 1);
	if (!a->new_len)
		return -EINVAL;
	if ((a->flags & KSIM_MREMAP_DONTUNMAP) && a->old_len != a->new_len)
		return -EINVAL;
	if (!(a->flags & (KSIM_MREMAP_FIXED | KSIM_MREMAP_DONTUNMAP)))
		a->new_addr = 0;
	return 0;
}

#endif
