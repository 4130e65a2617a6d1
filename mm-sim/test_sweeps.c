// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation-failure sweeps of mprotect, mlock, madvise, anonymous VMA naming,
 * munmap, brk, mmap into a hole, mremap, mbind, userfaultfd (un)registration
 * and fork (mm/vma.c and the
 * paths above it, unmodified), each started from a state built to drive
 * one merge or split case of mm/vma.c: merge with prev, next or both; a
 * partial range that splits one or both ends; anon_vma on neither side, on
 * one, on both (different, or the same one after a split); file-backed
 * (private and shared) and anonymous.
 *
 * Per shape: one unfailed call (it must give the shape's VMA count: the
 * case is really the one named), then allocation N failed, N = 1 .. total,
 * then N..N+3.  After each call: the invariants (ksim_mm_check(), the hook
 * and per-VMA lock rules, which report through the problem sink), the
 * per-page model of a window around the range (mapped, flags, pgoff,
 * file, pfn) against the syscall's contract on failure (below), the exit,
 * and a leak check (live slab objects back to the count before the shape
 * was built).
 *
 * The contracts on failure, from the kernel code:
 *  - mprotect (do_mprotect_pkey() -> mprotect_fixup() -> vma_modify_flags()
 *    per VMA, in address order): the VMAs before the failing one are
 *    changed, the rest are not; vma_modify() splits at the start before it
 *    splits at the end, and a failed second split leaves the first in
 *    place, so VMA boundaries may have moved but every page has its old or
 *    its new protection, the new ones a prefix of the range.  Nothing else
 *    changes (pgoff, file, pages).
 *  - munmap (do_vmi_align_munmap(): vms_gather_munmap_vmas() splits, then
 *    the tree is cleared; on failure reattach_vmas()/vms_abort_munmap_vmas()
 *    put the gathered VMAs back, splits stay): every page as it was.
 *  - mlock/munlock (apply_vma_lock_flags() -> mlock_fixup() ->
 *    vma_modify_flags() per VMA, in address order, as mprotect): pages
 *    before the failing VMA have the new VM_LOCKED/VM_LOCKONFAULT, the rest
 *    the old, a prefix again; and mm->locked_vm equals the pages of the
 *    VM_LOCKED VMAs (ksim_mm_check()) whatever failed.
 *  - madvise's flag advice and PR_SET_VMA_ANON_NAME (madvise_walk_vmas() ->
 *    madvise_update_vma() -> vma_modify_flags()/vma_modify_name() per VMA,
 *    in address order): the changed pages a prefix of the range, as
 *    mprotect; -EAGAIN for a failed allocation inside the walk (and -ENOMEM
 *    when naming could not allocate the name: nothing changed).  Names are
 *    refcounted objects: ksim_mm_check_global() counts each one's references
 *    against the VMAs naming it, and the leak check finds a name never put.
 *  - brk (sys_brk(): do_brk_flags() to grow, do_vmi_align_munmap() to
 *    shrink; mm->brk is set only on success): every page as it was and
 *    the break unchanged.
 *  - mmap into a hole (mmap_region(): a merge through vma_expand(), or a
 *    new VMA): every page as it was.
 *  - mremap growing in place (vma_merge_extend() -> vma_expand()) or moving
 *    a whole VMA into a hole (MREMAP_FIXED: copy_vma(), move_page_tables(),
 *    move_vma()'s error path moving the tables back and unmapping the
 *    copy): every page as it was.  N..N+3 fail only mremap's own sites
 *    (mremap_own_sites(): a failed cleanup munmap leaves the copy mapped by
 *    design).
 * For munmap, brk, mmap and mremap, "as it was" includes whether the
 * page's VMA has an anon_vma: a merge that cloned a neighbour's chain must
 * undo it.
 * On success the range has the new protection / is unmapped / is mapped
 * fresh (no page), and every other page is unchanged.
 */
#include <ksim/test.h>
#include <ksim/fault.h>
#include <ksim/slab.h>
#include <mm_sim/sim.h>
#include <mm_sim/query.h>
#include <linux/rcupdate.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "test_mm_sim.h"

#define PG		KSIM_PAGE_SIZE
#define RW		(KSIM_VM_READ | KSIM_VM_WRITE)
#define MAY		(KSIM_VM_MAYREAD | KSIM_VM_MAYWRITE | KSIM_VM_MAYEXEC)
#define A_RW		(RW | MAY)
#define A_RO		(KSIM_VM_READ | MAY)
#define SH		(KSIM_VM_SHARED | KSIM_VM_MAYSHARE)
#define LK		KSIM_VM_LOCKED
#define LKMASK		(KSIM_VM_LOCKED | KSIM_VM_LOCKONFAULT)
#define DC		KSIM_VM_DONTCOPY
#define WO		KSIM_VM_WIPEONFORK
#define DD		KSIM_VM_DONTDUMP
#define CMP		(KSIM_VM_READ | KSIM_VM_WRITE | KSIM_VM_EXEC | MAY | SH | LKMASK | KSIM_MADV_VM_FLAGS)
/*
 * The window: pages [0, WIN) from its base; shapes live in [8, 56), a
 * mremap's source in [60, 76).  Pages from SRC on are 2 MiB further up: the
 * source has a page table of its own.  A mremap shape's window starts 32
 * pages below a 2 MiB boundary, so the hole [24, 40) it moves into spans
 * two page tables that exist only where a neighbour was faulted:
 * move_page_tables() can fail on the second after it moved pages into the
 * first, and move_vma()'s error path must move them back.
 */
#define BASE		0x50000000UL
#define BASE_MREMAP	(BASE + 2 * 1024 * 1024UL - 32 * PG)
#define WIN		80
#define SRC		60
static unsigned long base = BASE;	/* the shape being swept's (build() sets it) */
#define PA(p)		(base + (unsigned long)(p) * PG + ((p) >= SRC ? 2 * 1024 * 1024UL : 0))

enum op { MPROTECT, MUNMAP, BRK, MLOCK, MADVISE, NAME, MMAP, MREMAP, MBIND, UFFD_REG, UFFD_UNREG };

struct seg {
	int start, npages;
	unsigned long flags;
	int file;		/* 0 anonymous, 1 the shape's file */
	unsigned long pgoff;
	int touch;		/* touch every n-th page (anon_vma, pages) */
	const char *name;	/* then named (PR_SET_VMA_ANON_NAME) */
	unsigned long nodes;	/* then an MPOL_BIND policy of these nodes (0: none) */
	bool uffd_reg;		/* then registered with the shape's userfaultfd context */
};

struct shape {
	const char *name;
	enum op op;
	struct seg segs[4];	/* mapped in order (MAP_FIXED mmap); npages 0 ends */
	/* then mprotect [pre, pre + pre_n) to pre_access (0: none): splits sharing an anon_vma */
	int pre, pre_n;
	unsigned long pre_access;
	int start, npages;	/* the operation's range; BRK: start_brk and the change of the break;
				 * MREMAP: the new range */
	long access;		/* MPROTECT: the new protection; MLOCK: the new lock flags;
				 * MADVISE: the advice; BRK: the old break (< 0: touched);
				 * MMAP: the new anonymous mapping's vm_flags;
				 * MBIND: the nodes of the new MPOL_BIND policy */
	int vmas;		/* VMAs after the unfailed call: the merge/split case (-1: not checked) */
	int vmas_nodup;		/* the same where a faulted VMA cannot merge into an unfaulted one (0: same) */
	bool uffd;		/* the VMAs registered with a userfaultfd context taking unmap events */
	const char *newname;	/* NAME: the new name (NULL: clear it) */
	/* built in a parent, then forked: the call runs in the child, whose faulted
	 * VMAs have two-link anon_vma chains (a merge's clone can fail half way) */
	bool forked;
	bool policy;		/* each segment given an MPOL_BIND policy of its own (equal ones) */
	int src, old_n;		/* MREMAP: the old range (src == start: grow in place, else a
				 * MREMAP_FIXED move) */
};

static const struct shape shapes[] = {
	/* mprotect: prev RW, target RO, next RW; the target becomes RW */
	{ "mprotect merge both, no anon_vma", MPROTECT,
	  { { 8, 16, A_RW }, { 24, 16, A_RO }, { 40, 16, A_RW } }, 0, 0, 0, 24, 16, RW, 1 },
	{ "mprotect merge both, anon_vma on prev", MPROTECT,
	  { { 8, 16, A_RW, 0, 0, 3 }, { 24, 16, A_RO }, { 40, 16, A_RW } }, 0, 0, 0, 24, 16, RW, 1 },
	{ "mprotect merge both, anon_vma on the target", MPROTECT,
	  { { 8, 16, A_RW }, { 24, 16, A_RO, 0, 0, 5 }, { 40, 16, A_RW } }, 0, 0, 0, 24, 16, RW, 1, 3 },
	{ "mprotect merge both, anon_vma on next", MPROTECT,
	  { { 8, 16, A_RW }, { 24, 16, A_RO }, { 40, 16, A_RW, 0, 0, 4 } }, 0, 0, 0, 24, 16, RW, 1 },
	{ "mprotect prev and next with different anon_vmas: merge prev only", MPROTECT,
	  { { 8, 16, A_RW, 0, 0, 3 }, { 24, 16, A_RO }, { 40, 16, A_RW, 0, 0, 3 } }, 0, 0, 0, 24, 16, RW, 2 },
	{ "mprotect merge both, one anon_vma on all three (split before)", MPROTECT,
	  { { 8, 48, A_RW, 0, 0, 2 } }, 24, 16, KSIM_VM_READ, 24, 16, RW, 1 },
	{ "mprotect merge prev (next differs)", MPROTECT,
	  { { 8, 16, A_RW, 0, 0, 3 }, { 24, 16, A_RO }, { 40, 16, A_RO | KSIM_VM_EXEC } },
	  0, 0, 0, 24, 16, RW, 2 },
	{ "mprotect merge next (no prev)", MPROTECT,
	  { { 24, 16, A_RO, 0, 0, 7 }, { 40, 16, A_RW } }, 0, 0, 0, 24, 16, RW, 1, 2 },
	{ "mprotect start of the target, merge prev (target shrinks)", MPROTECT,
	  { { 8, 16, A_RW, 0, 0, 3 }, { 24, 16, A_RO } }, 0, 0, 0, 24, 8, RW, 2 },
	{ "mprotect end of the target, merge next (next grows down)", MPROTECT,
	  { { 24, 16, A_RO, 0, 0, 5 }, { 40, 16, A_RW } }, 0, 0, 0, 32, 8, RW, 2, 3 },
	{ "mprotect middle, split both ends, anon_vma", MPROTECT,
	  { { 16, 32, A_RO, 0, 0, 3 } }, 0, 0, 0, 24, 8, RW, 3 },
	{ "mprotect start, split one end, no anon_vma", MPROTECT,
	  { { 16, 32, A_RO } }, 0, 0, 0, 16, 8, RW, 2 },
	/* first and last split; the last's head merges into the middle, the first's cannot (anon_vmas) */
	{ "mprotect over three VMAs, partial first and last", MPROTECT,
	  { { 8, 16, A_RO, 0, 0, 3 }, { 24, 16, A_RW, 0, 0, 5 }, { 40, 16, A_RO | KSIM_VM_EXEC } },
	  0, 0, 0, 16, 32, RW, 4 },
	{ "mprotect private file, merge both", MPROTECT,
	  { { 8, 16, A_RW, 1, 0, 3 }, { 24, 16, A_RO, 1, 16 }, { 40, 16, A_RW, 1, 32 } },
	  0, 0, 0, 24, 16, RW, 1 },
	{ "mprotect private file, middle split", MPROTECT,
	  { { 16, 32, A_RO, 1, 4, 3 } }, 0, 0, 0, 24, 8, RW, 3 },
	{ "mprotect shared file, merge prev", MPROTECT,
	  { { 8, 16, A_RW | SH, 1, 0, 2 }, { 24, 16, A_RO | SH, 1, 16, 2 } }, 0, 0, 0, 24, 16, RW, 1 },

	/* mlock/munlock (segments mapped VM_LOCKED are MAP_LOCKED mappings) */
	{ "mlock merge both, no anon_vma", MLOCK,
	  { { 8, 16, A_RW | LK }, { 24, 16, A_RW }, { 40, 16, A_RW | LK } }, 0, 0, 0, 24, 16, LK, 1 },
	{ "munlock merge both, anon_vma on prev", MLOCK,
	  { { 8, 16, A_RW, 0, 0, 3 }, { 24, 16, A_RW | LK }, { 40, 16, A_RW } }, 0, 0, 0, 24, 16, 0, 1 },
	{ "mlock start of the target, merge prev (target shrinks)", MLOCK,
	  { { 8, 16, A_RW | LK, 0, 0, 3 }, { 24, 16, A_RW } }, 0, 0, 0, 24, 8, LK, 2 },
	{ "munlock middle, split both ends, anon_vma", MLOCK,
	  { { 16, 32, A_RW | LK, 0, 0, 3 } }, 0, 0, 0, 24, 8, 0, 3 },
	{ "mlock onfault over three VMAs, partial first and last", MLOCK,
	  { { 8, 16, A_RO, 0, 0, 3 }, { 24, 16, A_RW, 0, 0, 5 }, { 40, 16, A_RO | KSIM_VM_EXEC } },
	  0, 0, 0, 16, 32, LKMASK, 5 },
	{ "mlock private file, middle split", MLOCK,
	  { { 16, 32, A_RO, 1, 4, 3 } }, 0, 0, 0, 24, 8, LK, 3 },
	{ "munlock shared file, merge both", MLOCK,
	  { { 8, 16, A_RW | SH, 1, 0, 3 }, { 24, 16, A_RW | SH | LK, 1, 16 }, { 40, 16, A_RW | SH, 1, 32 } },
	  0, 0, 0, 24, 16, 0, 1 },

	/* madvise's VMA-flag advice (segments mapped with the flag stand for an earlier madvise) */
	{ "madvise DONTFORK middle, split both ends, anon_vma", MADVISE,
	  { { 16, 32, A_RW, 0, 0, 3 } }, 0, 0, 0, 24, 8, KSIM_MADV_DONTFORK, 3 },
	{ "madvise DONTFORK merge both, anon_vma on prev", MADVISE,
	  { { 8, 16, A_RW | DC, 0, 0, 3 }, { 24, 16, A_RW }, { 40, 16, A_RW | DC } }, 0, 0, 0, 24, 16,
	  KSIM_MADV_DONTFORK, 1 },
	{ "madvise WIPEONFORK over three VMAs, partial first and last", MADVISE,
	  { { 8, 16, A_RW, 0, 0, 3 }, { 24, 16, A_RO, 0, 0, 5 }, { 40, 16, A_RW | KSIM_VM_EXEC } },
	  0, 0, 0, 16, 32, KSIM_MADV_WIPEONFORK, 5 },
	{ "madvise DODUMP start of the target, merge prev (target shrinks)", MADVISE,
	  { { 8, 16, A_RW, 0, 0, 3 }, { 24, 16, A_RW | DD } }, 0, 0, 0, 24, 8, KSIM_MADV_DODUMP, 2 },
	{ "madvise KEEPONFORK end of the target, merge next (next grows down)", MADVISE,
	  { { 24, 16, A_RW | WO, 0, 0, 5 }, { 40, 16, A_RW } }, 0, 0, 0, 32, 8, KSIM_MADV_KEEPONFORK, 2, 3 },
	{ "madvise SEQUENTIAL private file, middle split", MADVISE,
	  { { 16, 32, A_RO, 1, 4, 3 } }, 0, 0, 0, 24, 8, KSIM_MADV_SEQUENTIAL, 3 },

	/* anonymous VMA names: the name is a merge criterion and a reference per VMA */
	{ "name the middle, split both ends, anon_vma", NAME,
	  { { 16, 32, A_RW, 0, 0, 3 } }, 0, 0, 0, 24, 8, 0, 3, 0, false, "b" },
	{ "name merge both, named neighbours", NAME,
	  { { 8, 16, A_RW, 0, 0, 0, "a" }, { 24, 16, A_RW, 0, 0, 0, "b" }, { 40, 16, A_RW, 0, 0, 0, "a" } },
	  0, 0, 0, 24, 16, 0, 1, 0, false, "a" },
	{ "name merge both, anon_vma on prev", NAME,
	  { { 8, 16, A_RW, 0, 0, 3, "a" }, { 24, 16, A_RW, 0, 0, 0, "b" }, { 40, 16, A_RW, 0, 0, 0, "a" } },
	  0, 0, 0, 24, 16, 0, 1, 0, false, "a" },
	{ "name prev and next with different anon_vmas: merge prev only", NAME,
	  { { 8, 16, A_RW, 0, 0, 3, "a" }, { 24, 16, A_RW, 0, 0, 0, "b" }, { 40, 16, A_RW, 0, 0, 3, "a" } },
	  0, 0, 0, 24, 16, 0, 2, 0, false, "a" },
	/* the middle was split off the faulted first segment (its anon_vma), next is unfaulted */
	{ "unname the middle, merge both unnamed neighbours", NAME,
	  { { 8, 16, A_RW, 0, 0, 3 }, { 24, 16, A_RW, 0, 0, 0, "b" }, { 40, 16, A_RW } },
	  0, 0, 0, 24, 16, 0, 1, 2, false, NULL },
	/* the second segment's first fault reused the first's anon_vma (same flags): all merge but the ends */
	{ "rename over three VMAs, partial first and last", NAME,
	  { { 8, 16, A_RW, 0, 0, 3, "a" }, { 24, 16, A_RW, 0, 0, 5, "b" }, { 40, 16, A_RW, 0, 0, 0, "c" } },
	  0, 0, 0, 16, 32, 0, 3, 0, false, "d" },
	{ "name shared anonymous memory, middle split", NAME,
	  { { 16, 32, A_RW | SH, 0, 0, 3 } }, 0, 0, 0, 24, 8, 0, 3, 0, false, "shm" },

	/* munmap */
	{ "munmap a whole VMA between two", MUNMAP,
	  { { 8, 16, A_RW, 0, 0, 3 }, { 24, 16, A_RO, 0, 0, 3 }, { 40, 16, A_RW } }, 0, 0, 0, 24, 16, 0, 2 },
	{ "munmap the start (split)", MUNMAP,
	  { { 16, 32, A_RW, 0, 0, 3 } }, 0, 0, 0, 16, 8, 0, 1 },
	{ "munmap the end (split)", MUNMAP,
	  { { 16, 32, A_RW, 0, 0, 3 } }, 0, 0, 0, 40, 8, 0, 1 },
	{ "munmap the middle (split both ends)", MUNMAP,
	  { { 16, 32, A_RW, 0, 0, 3 } }, 0, 0, 0, 24, 8, 0, 2 },
	{ "munmap over three VMAs, partial first and last", MUNMAP,
	  { { 8, 16, A_RW, 0, 0, 3 }, { 24, 16, A_RO, 0, 0, 5 }, { 40, 16, A_RW | KSIM_VM_EXEC } },
	  0, 0, 0, 16, 32, 0, 2 },
	{ "munmap the middle of a private file mapping", MUNMAP,
	  { { 16, 32, A_RW, 1, 8, 3 } }, 0, 0, 0, 24, 8, 0, 2 },
	{ "munmap the middle of a shared file mapping", MUNMAP,
	  { { 16, 32, A_RW | SH, 1, 8, 3 } }, 0, 0, 0, 24, 8, 0, 2 },
	{ "munmap splits that share one anon_vma", MUNMAP,
	  { { 8, 48, A_RW, 0, 0, 2 } }, 24, 16, KSIM_VM_READ, 20, 24, 0, 2 },
	/* userfaultfd_unmap_prep() allocates the event record: a failure site of its own */
	{ "munmap the middle, userfaultfd unmap events", MUNMAP,
	  { { 16, 32, A_RW, 0, 0, 3 } }, 0, 0, 0, 24, 8, 0, 2, 0, true },

	/* brk: segs are other mappings; start_brk, the change (pages), the old break (< 0: touched) */
	{ "brk grow, no brk VMA yet", BRK, { { 8, 8, A_RO } }, 0, 0, 0, 24, 8, 24, 2 },
	{ "brk grow, expand the brk VMA", BRK, { { 8, 8, A_RO } }, 0, 0, 0, 24, 16, 32, 2 },
	{ "brk grow, expand a faulted brk VMA", BRK, { { 8, 8, A_RO } }, 0, 0, 0, 24, 16, -32, 2 },
	{ "brk shrink, split the brk VMA", BRK, { { 8, 8, A_RO } }, 0, 0, 0, 24, -8, -40, 2 },
	{ "brk shrink to the start, remove it", BRK, { { 8, 8, A_RO } }, 0, 0, 0, 24, -16, -40, 1 },

	/*
	 * mmap into a hole (mmap_region(): vma_merge_new_range(), vma_expand()):
	 * a failure must leave every page as it was, its anon_vma too (as
	 * for munmap and brk).  The
	 * first shape expands the unfaulted prev over a faulted next:
	 * vma_expand() clones next's anon_vma chain into prev (dup_anon_vma())
	 * before commit_merge() preallocates, and must undo the clone when that
	 * fails.
	 */
	{ "mmap a hole, merge both: unfaulted prev, faulted next", MMAP,
	  { { 8, 16, A_RW }, { 40, 16, A_RW, 0, 0, 3 } }, 0, 0, 0, 24, 16, A_RW, 1 },
	{ "mmap a hole, merge both: faulted prev, unfaulted next", MMAP,
	  { { 8, 16, A_RW, 0, 0, 3 }, { 40, 16, A_RW } }, 0, 0, 0, 24, 16, A_RW, 1 },
	{ "mmap a hole, merge a faulted next only", MMAP,
	  { { 8, 16, A_RO }, { 40, 16, A_RW, 0, 0, 5 } }, 0, 0, 0, 24, 16, A_RW, 2 },
	{ "mmap a hole, merge an unfaulted prev only", MMAP,
	  { { 8, 16, A_RW }, { 40, 16, A_RO, 0, 0, 5 } }, 0, 0, 0, 24, 16, A_RW, 2 },
	{ "mmap a hole, no merge (flags differ)", MMAP,
	  { { 8, 16, A_RO, 0, 0, 3 }, { 40, 16, A_RO, 0, 0, 3 } }, 0, 0, 0, 24, 16, A_RW, 3 },
};

struct page_state {
	bool mapped;
	unsigned long flags, pgoff, pfn;
	const void *file;
	bool named;			/* its VMA has a name ("" is one) */
	char name[80];
	struct ksim_anon_chain chain;	/* its VMA's anon_vma and chain (kernel identity) */
	const void *uffd;		/* its VMA's userfaultfd context (identity) */
	unsigned short mode;		/* its VMA's NUMA policy (a split copies the object: by value) */
	unsigned long nodes;
};

static void page_states(struct mm_struct *mm, struct page_state *ps)
{
	for (int p = 0; p < WIN; p++) {
		struct ksim_vma_info vi;
		unsigned long a = PA(p);

		memset(&ps[p], 0, sizeof(ps[p]));
		if (ksim_mm_find_vma(mm, a, &vi) && vi.start <= a) {
			ps[p].mapped = true;
			ps[p].flags = vi.flags & CMP;
			ps[p].pgoff = vi.pgoff + (a - vi.start) / PG;
			ps[p].file = vi.file;
			ps[p].named = vi.named;
			memcpy(ps[p].name, vi.name, sizeof(ps[p].name));
			ksim_mm_anon_chain(mm, a, &ps[p].chain);
			ps[p].uffd = ksim_uffd_ctx_at(mm, a);
#if KSIM_HAVE_MM_VMA_C
			ksim_vma_policy_at(mm, a, &ps[p].mode, &ps[p].nodes);
#endif
		}
		ps[p].pfn = ksim_mm_pfn(mm, a);
	}
}

/* The userfaultfd registration and the NUMA policy of the page's VMA. */
static bool same_vma_refs(const struct page_state *a, const struct page_state *b)
{
	return a->uffd == b->uffd && a->mode == b->mode && a->nodes == b->nodes;
}

/* anon_vma_name_eq(): both unnamed, or both named alike ("" is a name, not none) */
static bool same_name(bool named_a, const char *a, bool named_b, const char *b)
{
	return named_a == named_b && !strcmp(a, b);
}

static bool same_page(const struct page_state *a, const struct page_state *b)
{
	return a->mapped == b->mapped && a->flags == b->flags && a->pgoff == b->pgoff &&
	       a->file == b->file && a->pfn == b->pfn && same_name(a->named, a->name, b->named, b->name) &&
	       same_vma_refs(a, b);
}

/*
 * After a failure that must have changed nothing at page @p (@when: how
 * the call failed): the same anon_vma (not only one or none) and the same
 * chain, link for link.  A merge that cloned a neighbour's chain and failed
 * must undo it, or the page gains an anon_vma it never faulted; an undo that
 * drops some links, or the wrong ones, shows too.
 */
static void same_chain(const struct shape *s, const char *when, int p, const struct page_state *a,
		       const struct page_state *b)
{
	const struct ksim_anon_chain *x = &a->chain, *y = &b->chain;

	KSIM_EXPECT(!x->anon_vma == !y->anon_vma, "%s, %s: page %d %s an anon_vma", s->name, when, p,
		    x->anon_vma ? "gained" : "lost");
	if (!x->anon_vma == !y->anon_vma)
		KSIM_EXPECT(x->anon_vma == y->anon_vma && x->links == y->links && x->hash == y->hash,
			    "%s, %s: page %d: anon_vma %p with %u chain links, was %p with %u%s", s->name,
			    when, p, x->anon_vma, x->links, y->anon_vma, y->links,
			    x->links == y->links && x->anon_vma == y->anon_vma ? " (other anon_vmas)" : "");
}

/* The VMA count the case gives on this tree (cmake/Features.cmake decides, not a version). */
static unsigned long case_vmas(const struct shape *s)
{
	return !KSIM_HAVE_MERGE_DUP_ANON_VMA_CASES && s->vmas_nodup ? s->vmas_nodup : s->vmas;
}

static unsigned long nsegs(const struct shape *s)
{
	unsigned long k = 0;

	while (k < 4 && s->segs[k].npages)
		k++;
	return k;
}

static int brk_pages(long v)
{
	return v < 0 ? (int)-v : (int)v;
}

static struct mm_struct *fork_parent;	/* a forked shape's parent, exited after the child */
static struct userfaultfd_ctx *shape_ctx;	/* the shape's userfaultfd context (s->uffd, UFFD_(UN)REG) */

static struct mm_struct *build(const struct shape *s, struct file *f)
{
	struct mm_struct *mm = ksim_mm_new();

	base = s->op == MREMAP ? BASE_MREMAP : BASE;

	for (int k = 0; k < 4 && s->segs[k].npages; k++) {
		const struct seg *g = &s->segs[k];

		KSIM_EXPECT(!ksim_mmap(mm, PA(g->start), g->npages * PG, g->flags, g->file ? f : NULL,
				       g->pgoff), "%s: segment %d", s->name, k);
		for (int p = 0; g->touch && p < g->npages; p += g->touch)
			KSIM_EXPECT(!ksim_touch(mm, PA(g->start + p), (g->flags & KSIM_VM_WRITE) != 0));
		if (g->name)
			KSIM_EXPECT(!ksim_set_anon_name(mm, PA(g->start), g->npages * PG, g->name),
				    "%s: naming segment %d", s->name, k);
	}
#if KSIM_HAVE_MM_VMA_C
	for (int k = 0; s->policy && k < 4 && s->segs[k].npages; k++)
		KSIM_EXPECT(!ksim_mbind(mm, PA(s->segs[k].start), s->segs[k].npages * PG, KSIM_MPOL_BIND, 1),
			    "%s: mbind of segment %d", s->name, k);
	for (int k = 0; k < 4 && s->segs[k].npages; k++)
		KSIM_EXPECT(!s->segs[k].nodes ||
			    !ksim_mbind(mm, PA(s->segs[k].start), s->segs[k].npages * PG, KSIM_MPOL_BIND,
					s->segs[k].nodes), "%s: mbind of segment %d", s->name, k);
#endif
	if (s->pre_n)
		KSIM_EXPECT(!ksim_mprotect(mm, PA(s->pre), s->pre_n * PG, s->pre_access));
	shape_ctx = NULL;
	if (s->uffd || s->op == UFFD_REG || s->op == UFFD_UNREG) {
		shape_ctx = ksim_uffd_open(mm, KSIM_UFFD_FEATURE_EVENT_UNMAP);
		KSIM_EXPECT(shape_ctx && (!s->uffd ||
			    !ksim_uffd_register(shape_ctx, PA(0), SRC * PG, KSIM_UFFDIO_REGISTER_MODE_MISSING)));
	}
	for (int k = 0; shape_ctx && k < 4 && s->segs[k].npages; k++)
		KSIM_EXPECT(!s->segs[k].uffd_reg ||
			    !ksim_uffd_register(shape_ctx, PA(s->segs[k].start), s->segs[k].npages * PG,
						KSIM_UFFDIO_REGISTER_MODE_MISSING),
			    "%s: registering segment %d", s->name, k);
	if (s->op == BRK) {
		long old = s->access;

		ksim_mm_set_brk(mm, PA(s->start));
		KSIM_EXPECT(!ksim_brk(mm, PA(brk_pages(old))), "%s: setting up the break", s->name);
		/* a negative old break: touch the brk VMA (anon_vma, pages) */
		for (int p = s->start; old < 0 && p < brk_pages(old); p += 3)
			KSIM_EXPECT(!ksim_touch(mm, PA(p), true));
	}
	if (s->forked) {
		struct mm_struct *child = NULL;

		KSIM_EXPECT(!ksim_fork(mm, &child) && child, "%s: fork", s->name);
		fork_parent = mm;
		return child;
	}
	return mm;
}

static long run_op(const struct shape *s, struct mm_struct *mm)
{
	switch (s->op) {
	case MPROTECT:
		return ksim_mprotect(mm, PA(s->start), s->npages * PG, s->access);
	case MUNMAP:
		return ksim_munmap(mm, PA(s->start), s->npages * PG);
	case MLOCK:
		return ksim_mlock(mm, PA(s->start), s->npages * PG, s->access);
	case MADVISE:
		return ksim_madvise(mm, PA(s->start), s->npages * PG, (int)s->access);
	case NAME:
		return ksim_set_anon_name(mm, PA(s->start), s->npages * PG, s->newname);
	case BRK:
		return ksim_brk(mm, PA(brk_pages(s->access) + s->npages));
	case MMAP:
		return ksim_mmap(mm, PA(s->start), s->npages * PG, s->access, NULL, 0);
	case UFFD_REG:
		return ksim_uffd_register(shape_ctx, PA(s->start), s->npages * PG,
					  KSIM_UFFDIO_REGISTER_MODE_MISSING);
	case UFFD_UNREG:
		return ksim_uffd_unregister(shape_ctx, PA(s->start), s->npages * PG);
	case MBIND:
#if KSIM_HAVE_MM_VMA_C
		return ksim_mbind(mm, PA(s->start), s->npages * PG, KSIM_MPOL_BIND, s->access);
#else
		return -ENOSYS;
#endif
	case MREMAP: {
		unsigned long flags = s->src == s->start ? 0 : KSIM_MREMAP_MAYMOVE | KSIM_MREMAP_FIXED;
		long r = ksim_mremap(mm, PA(s->src), s->old_n * PG, s->npages * PG, flags, PA(s->start));

		KSIM_EXPECT(r < 0 || r == (long)PA(s->start), "%s: mremap returned %#lx", s->name, r);
		return r < 0 ? r : 0;
	}
	}
	return -EINVAL;
}

static unsigned long map_count(struct mm_struct *mm)
{
	struct ksim_mm_info in;

	ksim_mm_info(mm, &in);
	return in.map_count;
}

/*
 * A call that goes VMA by VMA in address order and stops at a failure
 * changes a prefix of the range: page @p is new, old, or both (the call
 * changed nothing there).
 */
static void prefix_page(const struct shape *s, unsigned long n, int p, bool is_new, bool is_old,
			bool *changed, bool *old_seen)
{
	*changed |= is_new && !is_old;
	if (!is_new || is_old)
		*old_seen |= !is_new;
	else
		KSIM_EXPECT(!*old_seen, "%s, allocation %lu failed: page %d changed after an "
			    "unchanged one", s->name, n, p);
}

/*
 * The page model after the call, against @before and the syscall's
 * contract.  @alone: the call left its neighbours alone (an mmap whose
 * merge gave up on a failed allocation and made a VMA of its own), so
 * their anon_vmas are as they were too.
 */
/* The pages [*lo, *hi) the call works on (brk: between the old and the new break). */
static void op_range(const struct shape *s, int *lo, int *hi)
{
	*lo = s->start;
	*hi = s->start + s->npages;
	if (s->op == BRK) {
		int oldbrk = brk_pages(s->access);

		*lo = s->npages < 0 ? oldbrk + s->npages : oldbrk;
		*hi = s->npages < 0 ? oldbrk : oldbrk + s->npages;
	}
}

static void check_pages(const struct shape *s, const struct page_state *before,
			const struct page_state *after, long r, unsigned long n, bool alone)
{
	int lo, hi;
	bool old_seen = false, changed = false;
	char when[96];

	snprintf(when, sizeof(when), "allocation %lu failed (%ld)", n, r);
	op_range(s, &lo, &hi);
	for (int p = 0; p < WIN; p++) {
		const struct page_state *b = &before[p], *a = &after[p];
		bool in = (p >= lo && p < hi) || (s->op == MREMAP && p >= s->src && p < s->src + s->old_n);

		bool undone = r && s->op != MPROTECT && s->op != MLOCK && s->op != MADVISE && s->op != NAME &&
			      s->op != MBIND && s->op != UFFD_REG && s->op != UFFD_UNREG;

		if (!in || undone) {
			undone |= alone;
			KSIM_EXPECT(same_page(a, b), "%s, allocation %lu failed (%ld): page %d changed: "
				    "mapped %d flags %#lx pgoff %#lx pfn %#lx uffd %p policy %u/%#lx, was %d %#lx "
				    "%#lx %#lx %p %u/%#lx", s->name, n, r, p, a->mapped, a->flags, a->pgoff, a->pfn,
				    a->uffd, a->mode, a->nodes, b->mapped, b->flags, b->pgoff, b->pfn, b->uffd,
				    b->mode, b->nodes);
			/* a call that failed as a whole undid its anon_vma work too (a merge may give
			 * a neighbour one on success) */
			if (undone)
				same_chain(s, when, p, a, b);
			continue;
		}
		switch (s->op) {
		case MPROTECT:
		case MLOCK:
		case MADVISE:
		case NAME: {
			/* the new flags (and name) this page gets if the call reaches it */
			unsigned long nf = b->flags;
			const char *nn = b->name;
			bool nnamed = b->named, is_new, is_old;

			if (s->op == MPROTECT || s->op == MLOCK)
				nf = (b->flags & ~(s->op == MLOCK ? LKMASK :
					KSIM_VM_READ | KSIM_VM_WRITE | KSIM_VM_EXEC)) | s->access;
			else if (s->op == MADVISE)
				nf = ksim_madv_model_flags((int)s->access, b->flags);
			else {
				nn = s->newname ? s->newname : "";
				nnamed = s->newname != NULL;
			}
			is_new = a->flags == nf && same_name(a->named, a->name, nnamed, nn);
			is_old = a->flags == b->flags && same_name(a->named, a->name, b->named, b->name);
			KSIM_EXPECT(a->mapped && a->pgoff == b->pgoff && a->file == b->file &&
				    a->pfn == b->pfn && same_vma_refs(a, b) && (is_new || (r && is_old)),
				    "%s, allocation %lu failed (%ld): page %d flags %#lx name \"%s\" "
				    "(was %#lx \"%s\", new %#lx \"%s\")", s->name, n, r, p, a->flags, a->name,
				    b->flags, b->name, nf, nn);
			prefix_page(s, n, p, is_new, is_old, &changed, &old_seen);
			break;
		}
		case MBIND:
		case UFFD_REG:
		case UFFD_UNREG: {
			/* the new policy or context if the call reached the page (VMA by VMA) */
			bool is_new = s->op == UFFD_REG ? a->uffd == shape_ctx : s->op == UFFD_UNREG ? !a->uffd :
				      a->mode == KSIM_MPOL_BIND && a->nodes == (unsigned long)s->access;
			bool is_old = a->mode == b->mode && a->nodes == b->nodes && a->uffd == b->uffd &&
				      a->flags == b->flags;

			/* registering adds VM_UFFD_MISSING (not among the flags compared: CMP) */
			KSIM_EXPECT(a->mapped && a->flags == b->flags && a->pgoff == b->pgoff &&
				    a->file == b->file && a->pfn == b->pfn &&
				    (s->op != MBIND || a->uffd == b->uffd) &&
				    (s->op == MBIND || (a->mode == b->mode && a->nodes == b->nodes)) &&
				    !strcmp(a->name, b->name) && (is_new || (r && is_old)),
				    "%s, allocation %lu failed (%ld): page %d policy %u/%#lx flags %#lx "
				    "(was %u/%#lx %#lx, new %u/%#lx)", s->name, n, r, p, a->mode, a->nodes,
				    a->flags, b->mode, b->nodes, b->flags, KSIM_MPOL_BIND, s->access);
			prefix_page(s, n, p, is_new, is_old, &changed, &old_seen);
			break;
		}
		case MUNMAP:
			KSIM_EXPECT(!a->mapped && !a->pfn, "%s: page %d still mapped", s->name, p);
			break;
		case MREMAP: {
			/* moved: old page i; grown: a fresh page after old page 0's offset + i */
			int i = p - lo;
			const struct page_state *o = &before[s->src + (i < s->old_n ? i : 0)];
			/* copy_vma() gives an unfaulted anonymous VMA the offset of its new address */
			unsigned long pgoff = !o->file && !o->chain.anon_vma && s->src != s->start ?
					      PA(p) / PG : o->pgoff + (i < s->old_n ? 0 : i);

			if (p < lo || p >= hi)
				KSIM_EXPECT(!a->mapped && !a->pfn, "%s: old page %d still mapped", s->name, p);
			else
				KSIM_EXPECT(a->mapped && a->flags == o->flags && a->file == o->file &&
					    a->pgoff == pgoff && a->pfn == (i < s->old_n ? o->pfn : 0) &&
					    a->mode == o->mode && a->nodes == o->nodes && !a->uffd,
					    "%s, allocation %lu failed: page %d: mapped %d flags %#lx pgoff %#lx "
					    "pfn %#lx, the %s page wants flags %#lx pgoff %#lx pfn %#lx", s->name, n,
					    p, a->mapped, a->flags, a->pgoff, a->pfn,
					    i < s->old_n ? "moved" : "grown", o->flags, pgoff,
					    i < s->old_n ? o->pfn : 0);
			break;
		}
		case MMAP:
			KSIM_EXPECT(a->mapped && !a->pfn && !a->file && a->pgoff == PA(p) / PG &&
				    a->flags == (s->access & CMP) && !a->uffd && !a->mode,
				    "%s: page %d: mapped %d flags %#lx pgoff %#lx",
				    s->name, p, a->mapped, a->flags, a->pgoff);
			break;
		case BRK:
			if (s->npages < 0)
				KSIM_EXPECT(!a->mapped && !a->pfn, "%s: page %d still mapped", s->name, p);
			else
				KSIM_EXPECT(a->mapped && !a->pfn && a->pgoff == PA(p) / PG &&
					    (a->flags & RW) == RW && !a->file,
					    "%s: page %d: mapped %d flags %#lx pgoff %#lx", s->name, p,
					    a->mapped, a->flags, a->pgoff);
			break;
		}
	}
	/*
	 * A walk that failed before it changed any page did nothing: no VMA
	 * kept an anon_vma a failed merge cloned into it (prev expanded over
	 * the range, next grown down: both outside it).
	 */
	if (r && !changed && (s->op == MPROTECT || s->op == MLOCK || s->op == MADVISE || s->op == NAME ||
			      s->op == MBIND || s->op == UFFD_REG || s->op == UFFD_UNREG)) {
		snprintf(when, sizeof(when), "allocation %lu failed (%ld) before any page changed", n, r);
		for (int p = 0; p < WIN; p++)
			same_chain(s, when, p, &after[p], &before[p]);
	}
}


/*
 * The anon_vmas of two adjacent pages' VMAs allow their merge: the same one
 * (or none) on every tree; where one side has none and the other's chain is
 * a single link (not a fork child: is_mergeable_anon_vma()'s
 * vma_is_fork_child()), only on trees that merge a faulted VMA into an
 * unfaulted neighbour (dup_anon_vma() in every case; 6.12 refuses some,
 * which the listed shapes' vmas_nodup counts say).
 */
static bool anon_mergeable(const struct page_state *a, const struct page_state *b)
{
	if (a->chain.anon_vma == b->chain.anon_vma)
		return true;
	return KSIM_HAVE_MERGE_DUP_ANON_VMA_CASES && (!a->chain.anon_vma || !b->chain.anon_vma) &&
	       a->chain.links + b->chain.links == 1;
}

/*
 * The layout model after a call that succeeded: the kernel merges a VMA the
 * call changed (or made) with a neighbour wherever the two are alike, so no
 * VMA boundary inside the range or at its ends may separate two VMAs alike
 * in everything is_mergeable_vma() and is_mergeable_anon_vma() compare: all
 * flags, file and contiguous pgoff, anonymous name, userfaultfd context,
 * policy, and anon_vmas that merge (anon_mergeable()).  The page model
 * sees what each page became; this sees a merge the kernel missed (a
 * vma_merge_struct built without the context or policy, a wrong pgoff),
 * which leaves every page right.  Not for munmap (nothing is merged), and only after the
 * unfailed call: under a failed allocation a call may succeed without its
 * merge by design (mmap_region()'s give_up_on_oom, copy_vma() making a new
 * VMA when vma_merge_copied_range() could not allocate).
 */
static void check_layout(const struct shape *s, struct mm_struct *mm, const struct page_state *after)
{
	int lo, hi;

	if (s->op == MUNMAP)
		return;
	op_range(s, &lo, &hi);
	for (int p = lo > 0 ? lo : 1; p <= hi && p < SRC; p++) {
		/* do_brk_flags() expands only a VMA above start_brk (vma_prev_limit()) */
		if (s->op == BRK && p == s->start)
			continue;
		const struct page_state *a = &after[p - 1], *b = &after[p];
		struct ksim_vma_info l, r;

		if (!a->mapped || !b->mapped || !ksim_mm_find_vma(mm, PA(p - 1), &l) ||
		    !ksim_mm_find_vma(mm, PA(p), &r) || l.end != PA(p) || r.start != PA(p))
			continue;	/* a hole, or the same VMA */
		KSIM_EXPECT(l.flags != r.flags || l.file != r.file || b->pgoff != a->pgoff + 1 ||
			    !same_name(l.named, l.name, r.named, r.name) || a->uffd != b->uffd || a->mode != b->mode ||
			    a->nodes != b->nodes || !anon_mergeable(a, b),
			    "%s: VMAs [%#lx, %#lx) and [%#lx, %#lx) not merged, alike in flags %#lx, "
			    "file, pgoff %#lx/%#lx, name, context, policy and anon_vma %p",
			    s->name, l.start, l.end, r.start, r.end, l.flags, l.pgoff, r.pgoff,
			    a->chain.anon_vma);
	}
}

/*
 * Kernel debug checks (KSIM_P_WARN: a WARN, a CONFIG_DEBUG_MAPLE_TREE check)
 * do not stop a sweep: each is counted where it fires, and sweep_end() names
 * the first, so a known one (a findings signature) cannot hide another
 * failure of the same sweep.
 */
static unsigned long sweep_warns;
static char sweep_first_warn[192];

static void sweep_pass(const struct shape *s, long times, bool pressure, struct file *f)
{
	const char *mode = pressure ? "N, GFP_NOWAIT failing" : times == 1 ? "N" : "N..N+3";
	struct site_acc acc[64];
	unsigned int nacc = 0;
	unsigned long total = 0, n, failed = 0, done = 0;
	struct ksim_fault_config cfg;
	bool nowait = true;

	for (n = 0; ; n++) {
		static struct page_state before[WIN], after[WIN];
		unsigned long live0 = live_objects(), calls, warn0 = ksim_problem_count(KSIM_P_WARN);
		struct mm_struct *mm = build(s, f);
		bool alone = false;
		long r;

		check(mm, s->name);
		page_states(mm, before);
		memset(&cfg, 0, sizeof(cfg));
		cfg.nth = n ? n : ~0UL;	/* n = 0: count the allocations of an unfailed call */
		cfg.times = times;
		cfg.pressure = pressure;
		if (s->op == MREMAP && times > 1)
			mremap_own_sites(&cfg);
		ksim_fault_set(&cfg);
		r = run_op(s, mm);
		calls = ksim_fault_calls();
		if (n)
			acc_sites(acc, &nacc, 64);
		if (!n && pressure)
			nowait = ksim_fault_failures() > 0;
		ksim_fault_reset();
		check(mm, "the call with a failed allocation");
		page_states(mm, after);
		if (!n) {
			total = calls;
			KSIM_EXPECT(!r, "%s: unfailed call = %ld", s->name, r);
		}
		if (r) {
			bool nothing = true;

			failed++;
			for (int p = 0; p < WIN; p++)
				nothing &= same_page(&before[p], &after[p]);
			/* madvise: -EAGAIN from the walk; naming: -ENOMEM before it (the name), nothing done */
			if (s->op == MADVISE || s->op == NAME)
				KSIM_EXPECT(r == -EAGAIN || (s->op == NAME && r == -ENOMEM && nothing),
					    "%s: failing allocation %lu: %ld", s->name, n, r);
			else
				KSIM_EXPECT(r == -ENOMEM, "%s: failing allocation %lu: %ld", s->name, n, r);
		} else {
			done += n > 0;
			/* mmap_region(): a merge that cannot allocate gives up, the mapping is a VMA of its own */
			alone = s->op == MMAP && n && map_count(mm) == nsegs(s) + 1;
			KSIM_EXPECT(s->vmas < 0 || map_count(mm) == case_vmas(s) || alone,
				    "%s (allocation %lu failed): %lu VMAs after the call, the case needs %lu",
				    s->name, n, map_count(mm), case_vmas(s));
		}
		check_pages(s, before, after, r, n, alone);
		if (!n)
			check_layout(s, mm, after);
		if (ksim_problem_count(KSIM_P_WARN) > warn0 && !sweep_warns++)
			snprintf(sweep_first_warn, sizeof(sweep_first_warn), "\"%s\" (%s), allocation %lu failed",
				 s->name, mode, n);
		ksim_mm_exit(mm);
		if (fork_parent) {
			ksim_mm_exit(fork_parent);
			fork_parent = NULL;
		}
		ksim_uffd_close_all();	/* the monitor closes its context: it holds the mm */
		check(NULL, "exit after the sweep step");
		KSIM_EXPECT(live_objects() == live0, "%s, allocation %lu failed: %lu objects leaked",
			    s->name, n, live_objects() - live0);
		if (ksim_problem_count(KSIM_P_TEST)) {
			printf("# %s: first failure with allocation %lu failed (%s)\n", s->name, n, mode);
			break;
		}
		if (n >= total || !nowait)
			break;
	}
	if (nowait)
		printf("# %s, %s: %lu allocations, %lu failed in turn: %lu calls failed, %lu completed; "
		       "%u sites reached\n", s->name, mode, total, n, failed, done, nacc);
}

/*
 * Sweep one shape: allocation N, then N..N+3, then N again with every
 * GFP_NOWAIT allocation failing (reclaim pressure, no injection needed in
 * the kernel), each unless the one before failed; true when one failed.
 * The last pass reaches the fallbacks behind GFP_NOWAIT (6.12's
 * anon_vma_clone() retries with GFP_KERNEL, and a failure there is the
 * second in a row); it stops after the unfailed call when the shape's call
 * made no GFP_NOWAIT allocation.  Not for mremap: there the failures move
 * on to the munmap of the old range, whose failure the kernel answers by
 * keeping the old VMA ("OOM: unable to split vma, just get accounts
 * right"), a path the page model does not follow (the fuzzer's, with its
 * findings mm-mremap-oom-*).
 */
static bool sweep_shape(const struct shape *s, struct file *f)
{
	sweep_pass(s, 1, false, f);
	if (!ksim_problem_count(KSIM_P_TEST))
		sweep_pass(s, 4, false, f);
	if (!ksim_problem_count(KSIM_P_TEST) && s->op != MREMAP)
		sweep_pass(s, 1, true, f);
	return ksim_problem_count(KSIM_P_TEST) != 0;
}

/* After the last shape: the file closed, the global invariants, nothing left. */
static unsigned long sweep_end(struct file *f, unsigned long shapes)
{
	KSIM_EXPECT(!sweep_warns, "kernel debug checks failed in %lu sweep steps (the dumps above), the first in %s",
		    sweep_warns, sweep_first_warn);
	sweep_warns = 0;
	ksim_file_close(f);
	check(NULL, "end");
	check_all_freed();
	return shapes;
}

static void sweep(enum op op)
{
	struct file *f;

	if (!ksim_mm_has_vma_c()) {
		printf("# skipped: this tree has no mm/vma.c\n");
		return;
	}
	f = ksim_file_open("sweep.so");
	for (unsigned int i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		if (shapes[i].op != op)
			continue;
		if (sweep_shape(&shapes[i], f))
			break;
	}
	sweep_end(f, 0);
}

KSIM_TEST(mprotect_sweep)
{
	sweep(MPROTECT);
}

KSIM_TEST(munmap_sweep)
{
	sweep(MUNMAP);
}

KSIM_TEST(brk_sweep)
{
	sweep(BRK);
}

KSIM_TEST(mlock_sweep)
{
	sweep(MLOCK);
}

KSIM_TEST(madvise_sweep)
{
	sweep(MADVISE);
}

KSIM_TEST(anon_name_sweep)
{
	sweep(NAME);
}

KSIM_TEST(mmap_hole_sweep)
{
	sweep(MMAP);
}

/*
 * mmap() into a hole between an unfaulted prev and a faulted next merges
 * the three: vma_expand() first clones next's anon_vma chain into prev
 * (dup_anon_vma()).  When that clone cannot allocate, mmap_region() gives up
 * the merge and maps a VMA of its own through the same VMA iterator, which
 * vma_merge_new_range() moved to prev (vma_prev()).  The iterator must be
 * back at the hole before the new VMA's range is set: vma_iter_config()
 * checks that the range starts in the iterator's slot (MAS_WARN_ON() in
 * __mas_set_range(); a WARN_ON() without CONFIG_DEBUG_MAPLE_TREE).  Every
 * anon_vma_chain allocation fails here, so the clone fails on each tree:
 * 6.12's anon_vma_clone() tries GFP_NOWAIT and then GFP_KERNEL, 7.x only
 * GFP_KERNEL (the sweeps reach the 6.12 case in their reclaim-pressure pass).
 */
KSIM_TEST(mmap_merge_nomem_iterator)
{
	const struct shape *s = NULL;
	struct ksim_fault_config cfg = { .nth = 1, .times = -1, .nr_sites = 1,
					 .sites = { "anon_vma_chain_alloc" } };
	unsigned long live0, warn0;
	struct mm_struct *mm;
	struct file *f;
	long r;

	if (!ksim_mm_has_vma_c()) {
		printf("# skipped: this tree has no mm/vma.c\n");
		return;
	}
	for (unsigned int i = 0; i < sizeof(shapes) / sizeof(shapes[0]) && !s; i++)
		if (!strcmp(shapes[i].name, "mmap a hole, merge both: unfaulted prev, faulted next"))
			s = &shapes[i];
	KSIM_ASSERT(s, "the shape this test maps into is gone from shapes[]");
	f = ksim_file_open("sweep.so");
	live0 = live_objects();
	mm = build(s, f);
	check(mm, s->name);
	warn0 = ksim_problem_count(KSIM_P_WARN);
	ksim_fault_set(&cfg);
	r = run_op(s, mm);
	KSIM_EXPECT(ksim_fault_failures() > 0, "%s: no anon_vma_chain allocation was failed", s->name);
	ksim_fault_reset();
	KSIM_EXPECT(!r, "%s, every anon_vma_chain allocation failed: mmap = %ld", s->name, r);
	KSIM_EXPECT(ksim_problem_count(KSIM_P_WARN) == warn0,
		    "%s, every anon_vma_chain allocation failed: a kernel debug check failed "
		    "while mmap() mapped a VMA of its own after the failed merge", s->name);
	check(mm, "mmap after a failed merge");
	KSIM_EXPECT(r || map_count(mm) == nsegs(s) + 1,
		    "%s, every anon_vma_chain allocation failed: %lu VMAs, expected %lu (no merge)",
		    s->name, map_count(mm), nsegs(s) + 1);
	ksim_mm_exit(mm);
	KSIM_EXPECT(live_objects() == live0, "%s: %lu objects leaked", s->name, live_objects() - live0);
	sweep_end(f, 0);
}

/*
 * Shapes generated, not listed: every neighbourhood of a 16-page target
 * at pages [24, 40) (prev at [8, 24), next at [40, 56): absent, an
 * unfaulted anonymous mapping, a faulted one, a private file mapping,
 * one whose flags never merge, for mprotect a faulted one sharing the
 * target's anon_vma, an unfaulted one named otherwise, or one named alike
 * with the target), the target unfaulted or faulted (or
 * absent: mmap into the hole), times the ranges (whole, start, end,
 * middle, and spanning into both neighbours where both exist), times the
 * operations (mprotect, munmap, mlock, madvise, naming, mbind, userfaultfd
 * registration and unregistration, mmap).  Neighbours carry what the
 * operation gives the target (gen_neighbour(); unregistration: the target
 * starts registered, its neighbours not), so every merge the neighbourhood
 * allows happens, and the layout model (check_layout()) sees one missed.
 * Each shape is swept as the listed ones (allocation N, then N..N+3; the
 * contract on failure, the page model, invariants, leaks; the layout model
 * after the unfailed call).  The neighbourhoods of absent,
 * unfaulted and faulted neighbours run again in the child of a fork, where
 * a faulted VMA's anon_vma chain has two links: a merge that clones one
 * (dup_anon_vma()) can fail between them; again with every VMA registered
 * with one userfaultfd context (unmap events); and again with each VMA
 * given an MPOL_BIND policy object of its own (equal: they merge).  A page's
 * context and policy are part of the page model, so a failed call that
 * drops or swaps either, or a merge that takes a neighbour's, shows.
 */
/*
 * NB_SHARED: faulted, sharing the target's anon_vma (one mapping split by
 * mprotect; mprotect only).  NB_NAMED: unfaulted, named "nb" (no target is
 * ever named so: never mergeable).  NB_NAMED_ALIKE: unfaulted, named
 * GEN_NAME, which the target is named too (or, naming, gets from the call):
 * a name equal by string in another object (anon_vma_name_eq()), so the
 * merge happens.
 */
enum nb { NB_NONE, NB_ANON, NB_FAULTED, NB_FILE, NB_OTHER, NB_SHARED, NB_NAMED, NB_NAMED_ALIKE, NB_KINDS };

static const char *const nb_name[NB_KINDS] = {
	"none", "anon", "faulted", "file", "other", "faulted sharing the target's anon_vma",
	"named otherwise", "named alike",
};
#define GEN_NAME	"gen"

/* The flags a target gets from @op, and the flags it starts with. */
static void gen_flags(enum op op, unsigned long *before, unsigned long *after, long *access)
{
	*before = A_RW;
	switch (op) {
	case MPROTECT:
		*before = A_RO;
		*after = A_RW;
		*access = RW;
		break;
	case MLOCK:
		*after = A_RW | LK;
		*access = LK;
		break;
	case MADVISE:
		*after = A_RW | DC;
		*access = KSIM_MADV_DONTFORK;
		break;
	case MMAP:
		*after = A_RW;
		*access = A_RW;
		break;
	case MBIND:
		*after = A_RW;
		*access = 2;	/* the nodes: the policy extra's are 1 */
		break;
	case UFFD_REG:
	case UFFD_UNREG:
	case NAME:
		*after = A_RW;
		*access = 0;
		break;
	default:	/* MUNMAP */
		*before = A_RO;
		*after = A_RW;
		*access = 0;
		break;
	}
}

static void gen_seg(struct seg *g, int start, enum nb kind, unsigned long flags)
{
	memset(g, 0, sizeof(*g));
	g->start = start;
	g->npages = 16;
	g->flags = kind == NB_OTHER ? A_RO | KSIM_VM_EXEC : flags;
	g->file = kind == NB_FILE;
	g->pgoff = kind == NB_FILE ? 100 + start : 0;
	g->touch = kind == NB_FAULTED || kind == NB_FILE ? 3 : 0;
}

/*
 * A neighbour carries what @op gives the target (@flags; mbind: the policy
 * of nodes @access; registration: the shape's context, anonymous VMAs only),
 * so the merge happens, except in the policy pass (@old_policy), where it
 * keeps the target's old policy (or no context): a merge the kernel judged
 * by the old policy shows as a neighbour's page changed.
 */
static void gen_neighbour(struct seg *g, int start, enum nb kind, enum op op, unsigned long flags,
			  long access, bool old_policy)
{
	gen_seg(g, start, kind, flags);
	g->name = kind == NB_NAMED ? "nb" : kind == NB_NAMED_ALIKE ? GEN_NAME : NULL;
	g->nodes = op == MBIND && !old_policy ? access : 0;
	/* unregistration: a neighbour unregistered, as the target will be (the policy pass: registered) */
	g->uffd_reg = kind != NB_FILE && ((op == UFFD_REG && !old_policy) || (op == UFFD_UNREG && old_policy));
}

static unsigned long generated_sweep(enum op op)
{
	static const struct { const char *name; int start, npages; } ranges[] = {
		{ "whole", 24, 16 }, { "start", 24, 8 }, { "end", 32, 8 }, { "middle", 28, 8 },
		{ "spanning", 20, 24 },
	};
	static char names[112];
	unsigned long shapes_run = 0;
	struct file *f = ksim_file_open("gen.so");

	for (int extra = 0; extra < 4; extra++)
	for (int prev = 0; prev < NB_KINDS; prev++)
	for (int next = 0; next < NB_KINDS; next++)
	for (int target = 0; target < 2; target++)
	for (unsigned int r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
		bool forked = extra == 1;
		struct shape sh = { .name = names, .op = op, .vmas = -1, .forked = forked,
				    .uffd = extra == 2, .policy = extra == 3 };
		unsigned long before, after;
		int k = 0;

		/* A fork changes only what has an anon_vma; MADV_DONTFORK neighbours stay behind. */
		if (forked && (prev > NB_FAULTED || next > NB_FAULTED || op == MADVISE))
			continue;
		if (extra > 1 && (prev > NB_FAULTED || next > NB_FAULTED))
			continue;
		if (extra > 1 && op == MMAP && prev == NB_NONE && next == NB_NONE)
			continue;	/* nothing to register or bind */
		if (op == MMAP && (target || r))
			continue;	/* mmap fills the hole, whole */
		if (ranges[r].npages == 24 && (prev == NB_NONE || next == NB_NONE))
			continue;	/* a range over a hole is not the sweep's call */
		gen_flags(op, &before, &after, &sh.access);
		if ((prev == NB_SHARED || next == NB_SHARED) && (op != MPROTECT || !target))
			continue;
		if (op == MMAP && (prev >= NB_NAMED || next >= NB_NAMED))
			continue;	/* mmap(2) names nothing */
		/* a named neighbour beside nothing, an unnamed one or a named one: the name decides */
		if ((prev >= NB_NAMED && next != NB_NONE && next != NB_ANON && next < NB_NAMED) ||
		    (next >= NB_NAMED && prev != NB_NONE && prev != NB_ANON && prev < NB_NAMED))
			continue;
		if (op == NAME && ranges[r].npages == 24 && (prev == NB_FILE || next == NB_FILE))
			continue;	/* a file mapping cannot be named (-EBADF): not the sweep's call */
		/* a fork child is not the context's mm; every VMA is registered there already */
		if ((op == UFFD_REG || op == UFFD_UNREG) && (forked || extra == 2))
			continue;
		/* MODE_MISSING takes anonymous VMAs (and shmem, hugetlb): not our private file */
		if ((op == UFFD_REG || op == UFFD_UNREG) && ranges[r].npages == 24 &&
		    (prev == NB_FILE || next == NB_FILE))
			continue;
		if (prev == NB_SHARED || next == NB_SHARED) {
			/*
			 * One faulted mapping over the target and the sharing
			 * neighbours, the target then mprotect()ed apart (shape
			 * ->pre): they share one anon_vma (is_mergeable_anon_vma()'s
			 * third case), and the call makes them alike again.
			 */
			int lo = prev == NB_SHARED ? 8 : 24, hi = next == NB_SHARED ? 56 : 40;

			if (prev != NB_NONE && prev != NB_SHARED)
				gen_neighbour(&sh.segs[k++], 8, prev, op, after, sh.access, false);
			gen_seg(&sh.segs[k], lo, NB_FAULTED, after);
			sh.segs[k++].npages = hi - lo;
			if (next != NB_NONE && next != NB_SHARED)
				gen_neighbour(&sh.segs[k++], 40, next, op, after, sh.access, false);
			sh.pre = 24;
			sh.pre_n = 16;
			sh.pre_access = KSIM_VM_READ;	/* the target's protection before the call */
		} else {
			if (prev != NB_NONE)
				gen_neighbour(&sh.segs[k++], 8, prev, op, after, sh.access, extra == 3);
			if (op != MMAP) {
				gen_seg(&sh.segs[k], 24, target ? NB_FAULTED : NB_ANON, before);
				sh.segs[k].uffd_reg = op == UFFD_UNREG;	/* what unregistration undoes */
				if (op != NAME && (prev == NB_NAMED_ALIKE || next == NB_NAMED_ALIKE))
					sh.segs[k].name = GEN_NAME;
				k++;
			}
			if (next != NB_NONE)
				gen_neighbour(&sh.segs[k++], 40, next, op, after, sh.access, extra == 3);
		}
		sh.start = ranges[r].start;
		sh.npages = ranges[r].npages;
		sh.newname = GEN_NAME;	/* NAME */
		snprintf(names, sizeof(names), "generated%s: prev %s, %s target, next %s, %s",
			 forked ? " (forked child)" : extra == 2 ? " (uffd-registered)" :
			 extra == 3 ? " (mbind policies)" : "", nb_name[prev],
			 op == MMAP ? "no" : target ? "faulted" : "unfaulted", nb_name[next], ranges[r].name);
		shapes_run++;
		if (sweep_shape(&sh, f))
			goto out;	/* the first failing shape is the report */
	}
out:
	return sweep_end(f, shapes_run);
}

/*
 * mremap's shapes, generated the same way: prev at [8, 24) and next at
 * [40, 56) of every kind (with the target's flags, so every merge they
 * allow happens), and either an anonymous target at [24, 32) grown in
 * place to [24, 40) (vma_merge_extend(): expanding over the hole, into next
 * where it can) or a whole 16-page VMA at [SRC, SRC + 16) moved into the hole
 * [24, 40) with MREMAP_FIXED (copy_vma()'s merge with the hole's
 * neighbours, or a new VMA; then the page tables), or a target at [24, 40)
 * shrunk to [24, 32) (its tail unmapped: a split).  The target or source
 * is unfaulted or faulted, and the neighbourhoods without file or
 * unmergeable neighbours run again in a fork child (two-link chains).
 */
static unsigned long generated_mremap_sweep(void)
{
	static char names[112];
	unsigned long shapes_run = 0;
	struct file *f = ksim_file_open("gen-mremap.so");

	for (int forked = 0; forked < 2; forked++)
	for (int prev = 0; prev < NB_SHARED; prev++)
	for (int next = 0; next < NB_SHARED; next++)
	for (int faulted = 0; faulted < 2; faulted++)
	for (int mode = 0; mode < 3; mode++) {
		static const char *const what[] = { "target grown over the hole", "VMA moved into the hole",
						     "target [24, 40) shrunk to [24, 32)" };
		bool move = mode == 1, shrink = mode == 2;
		struct shape sh = { .name = names, .op = MREMAP, .vmas = -1, .forked = forked,
				    .start = 24, .npages = shrink ? 8 : 16, .src = move ? SRC : 24,
				    .old_n = move || shrink ? 16 : 8 };
		int k = 0;

		if (forked && (prev > NB_FAULTED || next > NB_FAULTED))
			continue;
		if (prev != NB_NONE)
			gen_seg(&sh.segs[k++], 8, prev, A_RW);
		gen_seg(&sh.segs[k], sh.src, faulted ? NB_FAULTED : NB_ANON, A_RW);
		sh.segs[k++].npages = sh.old_n;
		if (next != NB_NONE)
			gen_seg(&sh.segs[k++], 40, next, A_RW);
		snprintf(names, sizeof(names), "generated mremap%s: prev %s, %s %s, next %s",
			 forked ? " (forked child)" : "", nb_name[prev], faulted ? "faulted" : "unfaulted",
			 what[mode], nb_name[next]);
		shapes_run++;
		if (sweep_shape(&sh, f))
			goto out;	/* the first failing shape is the report */
	}
out:
	return sweep_end(f, shapes_run);
}

/*
 * brk's shapes, generated: a VMA below start_brk (page 24) and one above
 * the break's reach at [40, 56), each of every kind, times the brk VMA
 * (none: the break at start_brk; [24, 32) unfaulted or faulted) times a
 * change of the break (grow by 4 or 8 pages, shrink by 4 or to start_brk),
 * again in a fork child where the neighbours carry anon_vmas at most.  The
 * page model judges the pages between the old and the new break, the
 * layout model that the brk VMA grew rather than a new one was made.
 */
static unsigned long generated_brk_sweep(void)
{
	static const struct { int old, change; } brks[] = {
		{ 24, 4 }, { 24, 8 }, { 32, 4 }, { 32, -4 }, { 32, -8 }, { -32, 4 }, { -32, -4 }, { -32, -8 },
	};
	static char names[112];
	unsigned long shapes_run = 0;
	struct file *f = ksim_file_open("gen-brk.so");

	for (int forked = 0; forked < 2; forked++)
	for (int prev = 0; prev < NB_SHARED; prev++)
	for (int next = 0; next < NB_SHARED; next++)
	for (unsigned int b = 0; b < sizeof(brks) / sizeof(brks[0]); b++) {
		struct shape sh = { .name = names, .op = BRK, .vmas = -1, .forked = forked, .start = 24,
				    .npages = brks[b].change, .access = brks[b].old };
		int k = 0;

		if (forked && (prev > NB_FAULTED || next > NB_FAULTED))
			continue;
		if (prev != NB_NONE)
			gen_seg(&sh.segs[k++], 8, prev, A_RW);
		if (next != NB_NONE)
			gen_seg(&sh.segs[k++], 40, next, A_RW);
		snprintf(names, sizeof(names), "generated brk%s: prev %s, brk VMA %s, break %+d pages, next %s",
			 forked ? " (forked child)" : "", nb_name[prev],
			 brks[b].old == 24 ? "none" : brks[b].old < 0 ? "faulted" : "unfaulted", brks[b].change,
			 nb_name[next]);
		shapes_run++;
		if (sweep_shape(&sh, f))
			goto out;	/* the first failing shape is the report */
	}
out:
	return sweep_end(f, shapes_run);
}

KSIM_TEST(brk_generated_sweep)
{
	if (!ksim_mm_has_vma_c()) {
		printf("# skipped: this tree has no mm/vma.c\n");
		return;
	}
	printf("# %lu generated brk shapes swept\n", generated_brk_sweep());
}

/*
 * fork's shapes, generated: a 16-page target at [24, 40) of every kind a
 * VMA can be for dup_mmap() (unfaulted or faulted anonymous, private file
 * with and without an anon_vma, shared anonymous, mlock()ed, MADV_DONTFORK,
 * MADV_WIPEONFORK, named, with an MPOL_BIND policy, userfaultfd-registered
 * with a context that takes fork events and one that does not), between
 * neighbours absent, unfaulted or faulted, in a process and again in the
 * child of a fork (two-link chains: anon_vma_fork() clones them).  Each is
 * fork_sweep()ed (allocation N, then N..N+3: -ENOMEM, the parent unchanged,
 * nothing leaked, the invariants and hook rules) and every child a fork
 * returns is judged by the fork's layout model (check_fork_child()).
 */
enum fork_kind { FK_ANON, FK_FAULTED, FK_FILE, FK_FILE_FAULTED, FK_SHARED, FK_LOCKED, FK_DONTFORK,
		 FK_WIPEONFORK, FK_NAMED, FK_POLICY, FK_UFFD, FK_UFFD_FORK, FK_KINDS };

static const char *const fork_kind_name[FK_KINDS] = {
	"unfaulted", "faulted", "private file", "private file with an anon_vma", "shared anonymous",
	"mlock()ed", "MADV_DONTFORK", "MADV_WIPEONFORK", "named", "MPOL_BIND", "uffd-registered",
	"uffd-registered (fork events)",
};

static struct mm_struct *build_fork_shape(int prev, int kind, int next, struct file *f)
{
	struct mm_struct *mm = ksim_mm_new();
	unsigned long fl = kind == FK_SHARED ? A_RW | SH : kind == FK_LOCKED ? A_RW | LK : A_RW;
	bool file = kind == FK_FILE || kind == FK_FILE_FAULTED;
	struct userfaultfd_ctx *ctx;

	base = BASE;
	for (int k = 0; k < 3; k++) {
		int nb = k == 0 ? prev : k == 2 ? next : 0, start = 8 + 16 * k;

		if (k != 1 && nb == NB_NONE)
			continue;
		KSIM_EXPECT(!ksim_mmap(mm, PA(start), 16 * PG, k == 1 ? fl : A_RW, k == 1 && file ? f : NULL,
				       k == 1 && file ? 100 : 0), "fork shape: segment %d", k);
		if ((k == 1 && kind != FK_ANON && kind != FK_FILE) || (k != 1 && nb == NB_FAULTED))
			for (int p = 0; p < 16; p += 3)
				KSIM_EXPECT(!ksim_touch(mm, PA(start + p), true));
	}
	switch (kind) {
	case FK_DONTFORK:
	case FK_WIPEONFORK:
		KSIM_EXPECT(!ksim_madvise(mm, PA(24), 16 * PG, kind == FK_DONTFORK ? KSIM_MADV_DONTFORK :
					  KSIM_MADV_WIPEONFORK));
		break;
	case FK_NAMED:
		KSIM_EXPECT(!ksim_set_anon_name(mm, PA(24), 16 * PG, "fork-shape"));
		break;
	case FK_POLICY:
#if KSIM_HAVE_MM_VMA_C
		KSIM_EXPECT(!ksim_mbind(mm, PA(24), 16 * PG, KSIM_MPOL_BIND, 2));
#endif
		break;
	case FK_UFFD:
	case FK_UFFD_FORK:
		ctx = ksim_uffd_open(mm, KSIM_UFFD_FEATURE_EVENT_UNMAP |
				     (kind == FK_UFFD_FORK ? KSIM_UFFD_FEATURE_EVENT_FORK : 0));
		KSIM_EXPECT(ctx && !ksim_uffd_register(ctx, PA(24), 16 * PG, KSIM_UFFDIO_REGISTER_MODE_MISSING));
		break;
	}
	return mm;
}

static unsigned long generated_fork_sweep(void)
{
	static char names[128];
	unsigned long shapes_run = 0;
	struct file *f = ksim_file_open("gen-fork.so");

	for (int grand = 0; grand < 2 && !ksim_problem_count(KSIM_P_TEST); grand++)
	for (int prev = 0; prev <= NB_FAULTED && !ksim_problem_count(KSIM_P_TEST); prev++)
	for (int next = 0; next <= NB_FAULTED && !ksim_problem_count(KSIM_P_TEST); next++)
	for (int kind = 0; kind < FK_KINDS && !ksim_problem_count(KSIM_P_TEST); kind++) {
		unsigned long live0 = live_objects();
		struct mm_struct *mm, *child = NULL;

		/*
		 * madvise(2), anonymous names and mbind(2) need mm/vma.c here (6.12+);
		 * without it ksim maps directly, with no mlock accounting
		 */
		if (!ksim_mm_has_vma_c() && kind >= FK_LOCKED && kind <= FK_POLICY)
			continue;
		mm = build_fork_shape(prev, kind, next, f);

		/* a context without fork events leaves the child unregistered: nothing more to see */
		if (grand && (kind == FK_UFFD || kind == FK_DONTFORK)) {
			ksim_mm_exit(mm);
			ksim_uffd_close_all();
			continue;
		}
		snprintf(names, sizeof(names), "generated fork%s: prev %s, %s target, next %s",
			 grand ? " (of a fork child)" : "", nb_name[prev], fork_kind_name[kind], nb_name[next]);
		if (grand) {
			KSIM_EXPECT(!ksim_fork(mm, &child) && child, "%s: the first fork", names);
			check_fork_child(mm, child, names);
		}
		shapes_run++;
		fork_sweep(names, child ? child : mm, 1);
		if (child)
			ksim_mm_exit(child);
		ksim_mm_exit(mm);
		ksim_uffd_close_all();	/* the monitor closes its contexts: they hold the mms */
		check(NULL, "exit after the fork shape");
		KSIM_EXPECT(live_objects() == live0, "%s: %lu objects leaked", names, live_objects() - live0);
	}
	return sweep_end(f, shapes_run);
}

KSIM_TEST(fork_generated_sweep)
{
	printf("# %lu generated fork shapes swept\n", generated_fork_sweep());
}

KSIM_TEST(mremap_generated_sweep)
{
	if (!ksim_mm_has_vma_c()) {
		printf("# skipped: this tree has no mm/vma.c\n");
		return;
	}
	printf("# %lu generated mremap shapes swept\n", generated_mremap_sweep());
}

KSIM_TEST(generated_sweep)
{
	static const enum op ops[] = { MPROTECT, MUNMAP, MLOCK, MADVISE, NAME, MBIND, UFFD_REG, UFFD_UNREG,
				       MMAP };

	if (!ksim_mm_has_vma_c()) {
		printf("# skipped: this tree has no mm/vma.c\n");
		return;
	}
	for (unsigned int i = 0; i < sizeof(ops) / sizeof(ops[0]) && !ksim_problem_count(KSIM_P_TEST); i++)
		printf("# op %d: %lu generated shapes swept\n", ops[i], generated_sweep(ops[i]));
}
