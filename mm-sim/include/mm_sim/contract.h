/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The documented argument contract of the simulated system calls: which
 * arguments matter under which flags, which values are refused before
 * anything is looked up.  A model of the contract, not of the kernel:
 * mm-sim's argument-contract tests call the kernel with the arguments as drawn,
 * garbage in the ignored ones included, and compare with the same call
 * on an identical process given the canonical arguments this returns;
 * the two must not differ in anything (result, VMAs, pages).  The mm fuzz
 * target (fuzz/mm.c) passes garbage the contract maps back to the call
 * its model judges.
 *
 * Only calls whose argument handling is the kernel's own code are here:
 * mremap(2) (SYSCALL_DEFINE5(mremap), both mm/mremap.c generations),
 * mprotect(2) (do_mprotect_pkey(); mm-sim/mprotect_argument_contract),
 * mmap(2) (ksys_mmap_pgoff() -> do_mmap() below x86-64's two-line
 * SYSCALL_DEFINE6(mmap); mm-sim/mmap_argument_contract), mlock(2),
 * mlock2(2), munlock(2) (their SYSCALL_DEFINEs and do_mlock();
 * mm-sim/mlock_argument_contract), munmap(2) (__vm_munmap();
 * mm-sim/munmap_argument_contract), brk(2) (SYSCALL_DEFINE1(brk);
 * mm-sim/brk_argument_contract) and prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME)
 * (prctl_set_vma(), 7.x's set_anon_vma_name(), madvise_set_anon_name();
 * mm-sim/anon_name_argument_contract), madvise(2) (SYSCALL_DEFINE3(madvise),
 * do_madvise(); mm-sim/madvise_argument_contract), mbind(2)
 * (SYSCALL_DEFINE6(mbind) down to do_mbind(); mm-sim/mbind_argument_contract)
 * and the userfaultfd ioctls UFFDIO_REGISTER and UFFDIO_UNREGISTER
 * (userfaultfd_register(), userfaultfd_unregister();
 * mm-sim/uffd_argument_contract).
 */
#ifndef _MM_SIM_CONTRACT_H
#define _MM_SIM_CONTRACT_H

#include <errno.h>
#include <string.h>
#include <mm_sim/sim.h>
#include <mm_sim/query.h>	/* ksim_uffd_contract() reads the range's VMAs */

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

struct ksim_mprotect_args {
	unsigned long addr, len, prot;
};

/* uapi asm-generic/mman-common.h: PROT_READ/WRITE/EXEC are the KSIM_VM_* bits */
#define KSIM_PROT_SEM		0x8UL
#define KSIM_PROT_GROWSDOWN	0x01000000UL
#define KSIM_PROT_GROWSUP	0x02000000UL

/*
 * mprotect(2): -EINVAL for PROT_GROWSDOWN with PROT_GROWSUP, an unaligned
 * @addr, or a bit other than READ, WRITE, EXEC and SEM once the GROWS bits
 * are off; else 0, and @a is the canonical call: @len rounded up to pages
 * (the man page: "the calling process's memory pages containing any part
 * of the address range"), PROT_SEM dropped (the man page: "not used on any
 * current architecture"; x86-64's calc_vm_prot_bits() maps it to nothing).
 * A length of 0 stays 0 and the call does nothing; callers do not pair it
 * with invalid bits (do_mprotect_pkey() returns 0 before it validates
 * @prot, which no documentation promises).
 */
static inline long ksim_mprotect_contract(struct ksim_mprotect_args *a)
{
	const unsigned long pg = KSIM_PAGE_SIZE, grows = KSIM_PROT_GROWSDOWN | KSIM_PROT_GROWSUP;

	if ((a->prot & grows) == grows)
		return -EINVAL;
	if (a->addr & (pg - 1))
		return -EINVAL;
	if (a->prot & ~(grows | KSIM_VM_READ | KSIM_VM_WRITE | KSIM_VM_EXEC | KSIM_PROT_SEM))
		return -EINVAL;
	a->len = (a->len + pg - 1) & ~(pg - 1);
	a->prot &= ~KSIM_PROT_SEM;
	return 0;
}

struct ksim_mmap_args {
	unsigned long addr, len, prot, flags, fd, off;
};

/*
 * include/linux/mman.h's LEGACY_MAP_MASK in x86-64's uapi values (0x40,
 * 0x80: MAP_32BIT, MAP_ABOVE4G; MAP_HUGE_2MB/1GB: 21, 30 << MAP_HUGE_SHIFT)
 */
#define KSIM_LEGACY_MAP_MASK	(KSIM_MAP_SHARED | KSIM_MAP_PRIVATE | KSIM_MAP_FIXED | KSIM_MAP_ANONYMOUS |	\
				 KSIM_MAP_DENYWRITE | KSIM_MAP_EXECUTABLE | KSIM_MAP_UNINITIALIZED |	\
				 KSIM_MAP_GROWSDOWN | KSIM_MAP_LOCKED | KSIM_MAP_NORESERVE |		\
				 KSIM_MAP_POPULATE | KSIM_MAP_NONBLOCK | KSIM_MAP_STACK |		\
				 KSIM_MAP_HUGETLB | 0x40UL | 0x80UL | 21UL << 26 | 30UL << 26)
/* the flags with an effect here; the others are ignored, or refused under MAP_SHARED_VALIDATE */
#define KSIM_MAP_KNOWN		(KSIM_MAP_TYPE | KSIM_MAP_FIXED | KSIM_MAP_ANONYMOUS |		\
				 KSIM_MAP_GROWSDOWN | KSIM_MAP_LOCKED | KSIM_MAP_NORESERVE |		\
				 KSIM_MAP_POPULATE | KSIM_MAP_NONBLOCK | KSIM_MAP_SYNC |		\
				 KSIM_MAP_FIXED_NOREPLACE)

/*
 * mmap(2) on x86-64 (the man page's ERRORS and "MAP_ANONYMOUS ... The fd
 * argument is ignored ... offset should be zero"): refused, in the
 * kernel's order, -EINVAL for an @off not page-aligned (x86-64's syscall,
 * even with MAP_ANONYMOUS), MAP_HUGETLB (-EINVAL as a kernel without
 * hugetlb: mm-sim configures none), a @len of 0, MAP_FIXED (or
 * MAP_FIXED_NOREPLACE) with an unaligned @addr; -EOVERFLOW for a file
 * offset past MAX_LFS_FILESIZE - @len; -EINVAL for a type that is not
 * MAP_SHARED, MAP_PRIVATE or, with a file, MAP_SHARED_VALIDATE (anonymous
 * MAP_SHARED_VALIDATE is -EINVAL on every tree: the man page does not say
 * so); -EOPNOTSUPP for a MAP_SHARED_VALIDATE file mapping with a flag
 * outside LEGACY_MAP_MASK (MAP_SYNC included: no simulated file supports
 * it; MAP_FIXED_NOREPLACE too, which the mask lacks on every tree);
 * -EINVAL for MAP_GROWSDOWN on a file or shared mapping.  Otherwise 0, and @a
 * is the canonical call: @len rounded up to pages; a hint (no MAP_FIXED)
 * rounded down to its page ("the kernel will pick a nearby page
 * boundary"; mmap_min_addr is 0 here); @prot without bits other than
 * READ, WRITE, EXEC (nothing reads them; the man page lists no error for
 * them); @flags without the ones ignored (MAP_DENYWRITE, MAP_EXECUTABLE,
 * MAP_UNINITIALIZED, MAP_STACK with THP not configured, the huge page size
 * without MAP_HUGETLB, undefined bits: "unknown flags" are ignored except
 * under MAP_SHARED_VALIDATE); for MAP_ANONYMOUS @fd -1 and @off 0 (ignored:
 * the shared mapping's pgoff becomes 0, the private one's addr >> PAGE_SHIFT).
 * MAP_SYNC stays: every tree's calc_vm_flag_bits() makes it VM_SYNC before
 * the type is looked at, on MAP_SHARED and anonymous mappings too, although
 * the man page says MAP_SHARED ignores it.  Callers pass a valid @fd without
 * MAP_ANONYMOUS (else -EBADF), lengths and MAP_FIXED ranges below TASK_SIZE
 * (else -ENOMEM), no MAP_32BIT/MAP_ABOVE4G (read by x86's
 * arch_get_unmapped_area(), which Debian's source does not ship) and no
 * MAP_DROPPABLE, and do not pair MAP_FIXED_NOREPLACE with a call refused
 * after the placement (type, MAP_GROWSDOWN, -EOPNOTSUPP, -EOVERFLOW:
 * do_mmap() returns -EEXIST first).
 */
static inline long ksim_mmap_contract(struct ksim_mmap_args *a)
{
	const unsigned long pg = KSIM_PAGE_SIZE, type = a->flags & KSIM_MAP_TYPE;
	const bool anon = a->flags & KSIM_MAP_ANONYMOUS;
	const unsigned long long max_lfs = ~0ULL >> 1;

	if (a->off & (pg - 1))
		return -EINVAL;
	if (a->flags & KSIM_MAP_HUGETLB)
		return -EINVAL;
	if (!a->len)
		return -EINVAL;
	a->len = (a->len + pg - 1) & ~(pg - 1);
	if ((a->flags & (KSIM_MAP_FIXED | KSIM_MAP_FIXED_NOREPLACE)) && (a->addr & (pg - 1)))
		return -EINVAL;
	if (!anon && a->off / pg > (max_lfs - a->len) / pg)
		return -EOVERFLOW;
	if (type != KSIM_MAP_SHARED && type != KSIM_MAP_PRIVATE &&
	    (anon || type != KSIM_MAP_SHARED_VALIDATE))
		return -EINVAL;
	if (!anon && type == KSIM_MAP_SHARED_VALIDATE && (a->flags & ~KSIM_LEGACY_MAP_MASK))
		return -EOPNOTSUPP;
	if ((a->flags & KSIM_MAP_GROWSDOWN) && (!anon || type != KSIM_MAP_PRIVATE))
		return -EINVAL;
	if (!(a->flags & (KSIM_MAP_FIXED | KSIM_MAP_FIXED_NOREPLACE)))
		a->addr &= ~(pg - 1);
	a->prot &= KSIM_PROT_READ | KSIM_PROT_WRITE | KSIM_PROT_EXEC;
	a->flags &= KSIM_MAP_KNOWN;
	if (anon) {
		a->fd = ~0UL;
		a->off = 0;
	}
	return 0;
}

enum ksim_mlock_call { KSIM_MLOCK, KSIM_MLOCK2, KSIM_MUNLOCK };

struct ksim_mlock_args {
	enum ksim_mlock_call call;
	unsigned long start, len;
	int flags;		/* mlock2(2)'s; the others have none */
};

/*
 * mlock(2), mlock2(2), munlock(2): -EINVAL for mlock2() flags other than
 * MLOCK_ONFAULT (the man page: "EINVAL (mlock2()) Unknown flags were
 * specified"); else 0, and @a is the canonical call: @start rounded down
 * to its page ("Under Linux, mlock(), mlock2(), and munlock()
 * automatically round addr down to the nearest page boundary") and @len
 * rounded up so the range still ends where it did (the man page: "all
 * pages that contain a part of the specified address range").  A length
 * of 0 stays 0 and the call does nothing; callers pass it with an aligned
 * @start only (the kernel rounds 0 up over an unaligned start's offset and
 * locks the page: mm-sim/README.md).  Lengths are expected far below
 * ULONG_MAX - @start (the rounding wraps there).
 */
static inline long ksim_mlock_contract(struct ksim_mlock_args *a)
{
	const unsigned long pg = KSIM_PAGE_SIZE;

	if (a->call == KSIM_MLOCK2 && (a->flags & ~KSIM_MLOCK_ONFAULT))
		return -EINVAL;
	if (a->len)
		a->len = (a->len + (a->start & (pg - 1)) + pg - 1) & ~(pg - 1);
	a->start &= ~(pg - 1);
	return 0;
}

struct ksim_munmap_args {
	unsigned long addr, len;
};

/*
 * munmap(2): -EINVAL for an unaligned @addr ("addr must be a multiple of
 * the page size") and a @len of 0 ("EINVAL (since Linux 2.6.12) length
 * was 0"); else 0, and @a is the canonical call: @len rounded up to pages
 * ("All pages containing a part of the indicated range are unmapped").
 * Ranges are expected below TASK_SIZE (past it: -EINVAL too, "addr,
 * length ... too large").
 */
static inline long ksim_munmap_contract(struct ksim_munmap_args *a)
{
	const unsigned long pg = KSIM_PAGE_SIZE;

	if (a->addr & (pg - 1) || !a->len)
		return -EINVAL;
	a->len = (a->len + pg - 1) & ~(pg - 1);
	return 0;
}

/*
 * brk(2), the system call (not glibc's wrapper): a @brk below the heap's
 * start (@start_brk) is refused: the call returns the current break and
 * changes nothing ("On failure, the system call returns the current
 * break"); -ENOMEM here, the errno glibc's brk() sets.  So is one whose
 * rounding to a page would wrap past ~0UL (far beyond TASK_SIZE, where
 * every break fails).  Else 0, and @brk is
 * the canonical call for the mappings: rounded up to its page, as the
 * heap's mapping ends on a page boundary.  The break itself is kept as
 * given: a call with an unaligned @brk returns it and leaves it in
 * mm->brk, where the canonical call leaves the rounded one.
 */
static inline long ksim_brk_contract(unsigned long *brk, unsigned long start_brk)
{
	const unsigned long pg = KSIM_PAGE_SIZE;

	if (*brk < start_brk || *brk > ~(pg - 1))
		return -ENOMEM;
	*brk = (*brk + pg - 1) & ~(pg - 1);
	return 0;
}

struct ksim_anon_name_args {
	unsigned long opt, addr, size;	/* prctl(PR_SET_VMA, opt, addr, size, name) */
	const char *name;
};

/* ANON_VMA_NAME_MAX_LEN: a name's bytes, the NUL included */
#define KSIM_ANON_VMA_NAME_MAX_LEN	80

/*
 * prctl(PR_SET_VMA, @opt, @addr, @size, @name) (the man page, prctl(2)
 * PR_SET_VMA): -EINVAL for an @opt other than PR_SET_VMA_ANON_NAME ("arg2
 * must be one of"); -EINVAL for a @name longer than 79 characters ("The
 * name length including null byte cannot exceed 80 bytes") or with a
 * character other than printable ASCII, or one of '[', ']', '\\', '$' and
 * '`' ("can contain only printable ascii characters (including space),
 * except ..."); -EINVAL for an unaligned @addr and for a @size whose end
 * wraps, rounded up or added to @addr (the man page is silent: every
 * tree's madvise_set_anon_name() checks as madvise(2) does).  All -EINVAL,
 * so their order does not show.  Else 0, and @a is the canonical call:
 * @size rounded up to pages (madvise_set_anon_name() PAGE_ALIGNs it).  A
 * NULL @name clears ("If arg5 is NULL, the name ... will be reset"); ""
 * is not NULL: the kernel names the range "" (every tree allocates it as
 * any other name; /proc/PID/maps shows "[anon:]").  A @size of 0 does
 * nothing.  A range over holes names what is mapped and returns -ENOMEM
 * (as madvise(2)); a file mapping is -EBADF: both decided in the walk,
 * not up front.  Callers pass a readable @name (the kernel's -EFAULT is
 * not simulated).
 */
static inline long ksim_anon_name_contract(struct ksim_anon_name_args *a)
{
	const unsigned long pg = KSIM_PAGE_SIZE;
	const unsigned char *c;
	unsigned long len;

	if (a->opt != KSIM_PR_SET_VMA_ANON_NAME)
		return -EINVAL;
	if (a->name) {
		if (strnlen(a->name, KSIM_ANON_VMA_NAME_MAX_LEN) > KSIM_ANON_VMA_NAME_MAX_LEN - 1)
			return -EINVAL;
		for (c = (const unsigned char *)a->name; *c; c++)
			if (*c < 0x20 || *c > 0x7e || strchr("[]\\$`", *c))
				return -EINVAL;
	}
	if (a->addr & (pg - 1))
		return -EINVAL;
	len = (a->size + pg - 1) & ~(pg - 1);
	if ((a->size && !len) || a->addr + len < a->addr)
		return -EINVAL;
	a->size = len;
	return 0;
}

struct ksim_madvise_args {
	unsigned long start, len;
	int behavior;
};

/* uapi asm-generic/mman-common.h advice mm-sim does not simulate (sim.h has the others) */
#define KSIM_MADV_WILLNEED		3
#define KSIM_MADV_DONTNEED		4
#define KSIM_MADV_FREE			8
#define KSIM_MADV_REMOVE		9
#define KSIM_MADV_MERGEABLE		12
#define KSIM_MADV_UNMERGEABLE		13
#define KSIM_MADV_HUGEPAGE		14
#define KSIM_MADV_NOHUGEPAGE		15
#define KSIM_MADV_COLD			20
#define KSIM_MADV_PAGEOUT		21
#define KSIM_MADV_POPULATE_READ		22
#define KSIM_MADV_POPULATE_WRITE	23
#define KSIM_MADV_DONTNEED_LOCKED	24
#define KSIM_MADV_COLLAPSE		25
#define KSIM_MADV_HWPOISON		100
#define KSIM_MADV_SOFT_OFFLINE		101
#define KSIM_MADV_GUARD_INSTALL		102
#define KSIM_MADV_GUARD_REMOVE		103

/*
 * madvise(2) (the man page's ERRORS; every tree's do_madvise()): -EINVAL
 * for advice that is not valid ("advice is not a valid"): a value the
 * uapi does not define (negative ones included, and the gaps 5-7, 26-99,
 * 104 on), and MADV_MERGEABLE/UNMERGEABLE, MADV_HUGEPAGE/NOHUGEPAGE/COLLAPSE,
 * MADV_HWPOISON/SOFT_OFFLINE, which need CONFIG_KSM, CONFIG_TRANSPARENT_HUGEPAGE
 * and CONFIG_MEMORY_FAILURE (mm-sim's kernel has none of them: "advice is
 * MADV_MERGEABLE or MADV_UNMERGEABLE, but the kernel was not configured
 * with CONFIG_KSM", the others "available only if the kernel was
 * configured with" theirs); -EINVAL for an unaligned @start ("addr is not
 * page-aligned or length is negative") and for a @len whose rounding up
 * to pages or whose end wraps (a "negative" length).  All -EINVAL, so
 * their order does not show.  A @len of 0 with valid advice does nothing
 * and returns 0 (the kernel's do_madvise(); the man page is silent).
 * Else 0, and @a is the canonical call:
 * @len rounded up to pages ("madvise() only operates on whole pages ...
 * The value of length is rounded up to a multiple of page size").  What the call
 * then does is decided per VMA, not up front, the same for both forms:
 * holes in the range are skipped and reported as -ENOMEM after the rest
 * is done ("Addresses in the specified range are not currently mapped"),
 * and the first VMA that refuses the advice stops the walk with its error,
 * the VMAs before it changed: MADV_WIPEONFORK on a file or shared mapping
 * (-EINVAL, madvise_vma_behavior(); the man page: "can be applied only to
 * private anonymous pages", "EINVAL advice is MADV_FREE or MADV_WIPEONFORK
 * but the specified address range includes file, Huge TLB, MAP_SHARED, or
 * VM_PFNMAP ranges").  Callers pass no MADV_GUARD_INSTALL/REMOVE (valid
 * since Linux 6.13, so tree-dependent, and not simulated) and no valid
 * page-level advice (not simulated: mm-sim's callees return -ENOSYS).
 */
static inline long ksim_madvise_contract(struct ksim_madvise_args *a)
{
	const unsigned long pg = KSIM_PAGE_SIZE;
	unsigned long len;

	switch (a->behavior) {
	case KSIM_MADV_NORMAL: case KSIM_MADV_RANDOM: case KSIM_MADV_SEQUENTIAL:
	case KSIM_MADV_WILLNEED: case KSIM_MADV_DONTNEED: case KSIM_MADV_FREE:
	case KSIM_MADV_REMOVE: case KSIM_MADV_DONTFORK: case KSIM_MADV_DOFORK:
	case KSIM_MADV_DONTDUMP: case KSIM_MADV_DODUMP: case KSIM_MADV_WIPEONFORK:
	case KSIM_MADV_KEEPONFORK: case KSIM_MADV_COLD: case KSIM_MADV_PAGEOUT:
	case KSIM_MADV_POPULATE_READ: case KSIM_MADV_POPULATE_WRITE:
	case KSIM_MADV_DONTNEED_LOCKED: case KSIM_MADV_GUARD_INSTALL: case KSIM_MADV_GUARD_REMOVE:
		break;
	default:
		return -EINVAL;
	}
	if (a->start & (pg - 1))
		return -EINVAL;
	len = (a->len + pg - 1) & ~(pg - 1);
	if ((a->len && !len) || a->start + len < a->start)
		return -EINVAL;
	a->len = len;
	return 0;
}

/*
 * ioctl(2) on a userfaultfd: UFFDIO_REGISTER (@call KSIM_UFFD_REGISTER,
 * reads @uffdio's range and mode, writes its ioctls on success) or
 * UFFDIO_UNREGISTER (KSIM_UFFD_UNREGISTER, reads @uffdio.range only), on
 * the process's context @which (0 or 1: the tests open two).
 */
enum { KSIM_UFFD_REGISTER, KSIM_UFFD_UNREGISTER };
struct ksim_uffd_args {
	unsigned long call, which;
	struct ksim_uffdio_register uffdio;
};

/* x86-64's TASK_SIZE (4-level page tables): mm->task_size, the ioctls' limit */
#define KSIM_UFFD_TASK_SIZE	((1UL << 47) - KSIM_PAGE_SIZE)
/*
 * The ioctls a MISSING registration of anonymous memory reports
 * (ioctl_userfaultfd(2): "the kernel modifies the ioctls bit-mask field to
 * indicate which ioctl(2) operations are available for the specified
 * range"): UFFDIO_WAKE, _COPY, _ZEROPAGE, _MOVE and _POISON, bits 2, 3, 4,
 * 5 and 8 (the uapi's _UFFDIO_* numbers and UFFD_API_RANGE_IOCTLS, the same
 * in 6.12, 7.2 and 7.3); not _WRITEPROTECT (WP mode only), _CONTINUE
 * (MINOR only), 7.3's _RWPROTECT (RWP only).
 */
#define KSIM_UFFD_IOCTLS_MISSING	((1UL << 2) | (1UL << 3) | (1UL << 4) | (1UL << 5) | (1UL << 8))
/* UFFDIO_UNREGISTER refuses a VMA of another context (7.2, 7.3; not 6.12.95) */
#define KSIM_UFFD_UNREGISTER_OWN_CTX	(KSIM_HAVE_UFFD_UNREGISTER_OWN_CTX_FS || KSIM_HAVE_UFFD_UNREGISTER_OWN_CTX_MM)

/*
 * UFFDIO_REGISTER and UFFDIO_UNREGISTER of @a->uffdio.range on @mm
 * through @ctx (ioctl_userfaultfd(2)), the VMAs of the range included.
 * The range: -EINVAL unless page-aligned and not empty ("range.start or
 * range.len is not a multiple of the system page size; or, range.len is
 * zero"), below TASK_SIZE and not wrapping ("or these fields are
 * otherwise invalid": validate_range()).  REGISTER's mode: -EINVAL unless
 * UFFDIO_REGISTER_MODE_MISSING alone ("An invalid or unsupported bit was
 * specified in the mode field; or the mode field was zero"): WP ("private
 * anonymous ranges are compatible"), MINOR and 7.3's RWP are refused as on
 * an architecture without uffd-wp and minor faults, ksim's configuration
 * (no uffd pte bit; MINOR needs shmem or hugetlbfs, not simulated, which
 * anonymous memory would refuse anyway); all -EINVAL, so their order does
 * not show.  The VMAs: a range with none in it is -EINVAL ("There is no
 * mapping in the specified address range"); a hole inside the range is not
 * an error, what is mapped is (un)registered.  In address order, the
 * first VMA that is not anonymous is -EINVAL ("an incompatible mapping":
 * files; a shared anonymous mapping would be shmem, which ksim does not
 * simulate: the tests map none); for REGISTER, one without VM_MAYWRITE is
 * -EPERM (the kernel's check that UFFDIO_COPY may fill it; the man page
 * does not list it) and one registered with another context -EBUSY ("A
 * mapping in the specified range is registered with another userfaultfd
 * object"); for UNREGISTER, one of another context is -EINVAL where the
 * tree refuses it (KSIM_UFFD_UNREGISTER_OWN_CTX; 6.12.95 unregisters it:
 * the man page does not say); a range that is not registered is success,
 * nothing changes.  Else 0, the call must succeed, and @a is the canonical
 * call: REGISTER's ioctls 0 (an output, never read).
 */
static inline long ksim_uffd_contract(struct mm_struct *mm, struct userfaultfd_ctx *ctx,
				      struct ksim_uffd_args *a)
{
	const unsigned long pg = KSIM_PAGE_SIZE;
	unsigned long start = a->uffdio.range.start, len = a->uffdio.range.len, end = start + len, at;
	struct ksim_vma_info v;
	bool reg = a->call == KSIM_UFFD_REGISTER, found = false;

	if (reg && a->uffdio.mode != KSIM_UFFDIO_REGISTER_MODE_MISSING)
		return -EINVAL;
	if ((start | len) & (pg - 1) || !len || start >= KSIM_UFFD_TASK_SIZE ||
	    len > KSIM_UFFD_TASK_SIZE - start)
		return -EINVAL;
	/* the VMAs over the range in address order, however many the process has */
	for (at = start; at < end && ksim_mm_find_vma(mm, at, &v) && v.start < end; at = v.end) {
		const void *other = v.uffd_ctx && v.uffd_ctx != (const void *)ctx ? v.uffd_ctx : NULL;

		found = true;
		if (v.file)
			return -EINVAL;
		if (reg && !(v.flags & KSIM_VM_MAYWRITE))
			return -EPERM;
		if (reg && other)
			return -EBUSY;
		if (!reg && other && KSIM_UFFD_UNREGISTER_OWN_CTX)
			return -EINVAL;
	}
	if (!found)
		return -EINVAL;
	if (reg)
		a->uffdio.ioctls = 0;
	return 0;
}

/* mbind(2)'s node mask: the words the tests fill (the rest of the mask is 0) */
#define KSIM_MBIND_MASK_WORDS	3

struct ksim_mbind_args {
	unsigned long start, len, mode, maxnode;
	unsigned long mask[KSIM_MBIND_MASK_WORDS];	/* nodemask, when not @null */
	unsigned int flags;
	bool null;					/* nodemask is NULL */
};

/* what the range [start, end) meets: no mapping at all, some, or mappings without a hole */
enum ksim_cover { KSIM_COVER_NONE, KSIM_COVER_PART, KSIM_COVER_ALL };

/*
 * mbind(2) (the man page, and the kernel-doc of get_nodes() where the man
 * page is silent), on ksim's machine: nodes 0 and 1 online with memory,
 * MAX_NUMNODES 64 (mm_sim/hooks.h), no cpuset, every capability.  The
 * checks in the order the kernel makes them (several are -EINVAL, so the
 * order shows only against -EFAULT and a length of 0):
 *
 * @mode is an int ("int mode": the upper half of the register is not
 * read).  Its MPOL_F_* mode flags come off; what is left must be a mode
 * below MPOL_MAX (MPOL_DEFAULT .. MPOL_WEIGHTED_INTERLEAVE on 6.12 and
 * 7.x); MPOL_F_STATIC_NODES with MPOL_F_RELATIVE_NODES is -EINVAL ("the
 * two flags are mutually exclusive", set_mempolicy(2)); so is
 * MPOL_F_NUMA_BALANCING with a mode other than MPOL_BIND or
 * MPOL_PREFERRED_MANY (every tree's sanitize_mpol_flags()).
 *
 * The node mask: NULL, or @maxnode of 0 or 1, is the empty mask ("A NULL
 * value of nodemask or a maxnode value of zero specifies the empty set").
 * The kernel reads maxnode - 1 bits (get_nodes(): "--maxnode"; the man
 * page says "up to maxnode bits": callers never set bit maxnode - 1, where
 * the two differ, and pass maxnode 0 with a NULL mask only: the man page
 * says the mask is then ignored, every tree's get_nodes() decrements
 * first, wraps, and refuses it with -EINVAL); more than PAGE_SIZE * 8 of
 * them is -EINVAL ("maxnode exceeds a kernel-imposed limit"), and a set
 * bit at 64 (MAX_NUMNODES) or above is -EINVAL ("nodemask specifies one
 * or more node IDs that are greater than the maximum supported node ID").
 * Bits past maxnode - 1 are not read (callers set them only in words the
 * kernel does not read at all: get_nodes() checks the high words whole).
 *
 * @flags other than MPOL_MF_STRICT, MPOL_MF_MOVE, MPOL_MF_MOVE_ALL are
 * -EINVAL; MOVE_ALL needs CAP_SYS_NICE (-EPERM), which ksim's task has.
 * An unaligned @start is -EINVAL; @len is rounded up to pages, an end
 * that wraps is -EINVAL, a length of 0 succeeds at once.  Callers pass a
 * length of 0 with MPOL_DEFAULT and no mask only: the kernel returns
 * before mpol_new() judges the mode against the mask (a 0-length MPOL_BIND
 * with no nodes succeeds, where the man page says -EINVAL), and keep @len
 * a page short of ULONG_MAX at least (the rounding wraps to 0 there).
 *
 * Then the mode against the mask: MPOL_DEFAULT takes no nodes (a
 * non-empty mask is -EINVAL); MPOL_LOCAL neither, nor a mode flag;
 * MPOL_PREFERRED with no nodes is local allocation (as MPOL_LOCAL; with
 * MPOL_F_STATIC_NODES or MPOL_F_RELATIVE_NODES -EINVAL); every other mode
 * needs nodes (-EINVAL), and some of them online with memory ("none of
 * the node IDs specified by nodemask are on-line ..., or none of the
 * specified nodes contain memory"), except under MPOL_F_RELATIVE_NODES,
 * where node N means the N-th allowed node modulo their number.
 *
 * A hole in the range is -EFAULT ("There was an unmapped hole in the
 * specified memory range"), except for MPOL_DEFAULT, which takes what is
 * mapped, but still -EFAULT when nothing in the range is (@cover says
 * which, for the range as rounded).  Else 0, and the range's VMAs have
 * the policy (MPOL_DEFAULT: none).
 *
 * On 0, @a is the canonical call: @mode without its upper half
 * (MPOL_PREFERRED with no nodes: MPOL_LOCAL), @len rounded up, and the
 * mask as one word read whole (@maxnode 65) or NULL where no nodes are
 * taken; without a mode flag the mask keeps only the online nodes
 * ("nodes ... not allowed ... are ignored"), and MPOL_PREFERRED only the
 * first of them ("the first node in the mask will be selected").  With a
 * mode flag the mask as given is kept (the policy remembers it for cpuset
 * changes: MPOL_F_STATIC_NODES, MPOL_F_RELATIVE_NODES, and on 6.12 also
 * MPOL_F_NUMA_BALANCING).  @flags stay: with no node to move a page to
 * or from, STRICT and MOVE find nothing misplaced (ksim's pages have no
 * node) and change nothing.
 */
static inline long ksim_mbind_contract(struct ksim_mbind_args *a,
				       enum ksim_cover (*cover)(void *ctx, unsigned long start,
								unsigned long end),
				       void *ctx)
{
	const unsigned long pg = KSIM_PAGE_SIZE;
	const unsigned long online = (1UL << KSIM_NR_ONLINE_NODES) - 1;
	const unsigned int mode_flags = KSIM_MPOL_F_STATIC_NODES | KSIM_MPOL_F_RELATIVE_NODES |
					KSIM_MPOL_F_NUMA_BALANCING;
	int mode = (int)a->mode;
	unsigned int mflags = mode & mode_flags;
	unsigned long bits, nodes = 0, len, end, i;
	enum ksim_cover c;

	mode &= ~mode_flags;
	if ((unsigned int)mode >= KSIM_MPOL_MAX)
		return -EINVAL;
	if ((mflags & KSIM_MPOL_F_STATIC_NODES) && (mflags & KSIM_MPOL_F_RELATIVE_NODES))
		return -EINVAL;
	if ((mflags & KSIM_MPOL_F_NUMA_BALANCING) && mode != KSIM_MPOL_BIND &&
	    mode != KSIM_MPOL_PREFERRED_MANY)
		return -EINVAL;
	bits = a->maxnode - 1;
	if (!a->null && bits) {
		if (bits > pg * 8)
			return -EINVAL;
		for (i = 1; i < KSIM_MBIND_MASK_WORDS && i * 64 < bits; i++)
			if (a->mask[i])
				return -EINVAL;
		nodes = bits >= 64 ? a->mask[0] : a->mask[0] & ((1UL << bits) - 1);
	}
	if (a->flags & ~(unsigned int)(KSIM_MPOL_MF_STRICT | KSIM_MPOL_MF_MOVE | KSIM_MPOL_MF_MOVE_ALL))
		return -EINVAL;
	if (a->start & (pg - 1))
		return -EINVAL;
	len = (a->len + pg - 1) & ~(pg - 1);
	end = a->start + len;
	if (end < a->start)
		return -EINVAL;
	if (end == a->start)
		goto canonical;
	if (mode == KSIM_MPOL_DEFAULT) {
		if (nodes)
			return -EINVAL;
	} else if (mode == KSIM_MPOL_LOCAL ||
		   (mode == KSIM_MPOL_PREFERRED && !nodes)) {
		if (nodes || (mflags & (KSIM_MPOL_F_STATIC_NODES | KSIM_MPOL_F_RELATIVE_NODES)))
			return -EINVAL;
	} else if (!nodes || (!(mflags & KSIM_MPOL_F_RELATIVE_NODES) && !(nodes & online))) {
		return -EINVAL;
	}
	c = cover(ctx, a->start, end);
	if (c == KSIM_COVER_NONE || (c == KSIM_COVER_PART && mode != KSIM_MPOL_DEFAULT))
		return -EFAULT;
canonical:
	if (mode == KSIM_MPOL_PREFERRED && !nodes)
		mode = KSIM_MPOL_LOCAL;
	if (!mflags) {
		nodes &= online;
		if (mode == KSIM_MPOL_PREFERRED)
			nodes &= -nodes;	/* the first */
	}
	a->mode = (unsigned int)(mode | mflags);
	a->len = len;
	memset(a->mask, 0, sizeof(a->mask));
	a->mask[0] = nodes;
	a->null = !nodes;
	a->maxnode = nodes ? 65 : 0;
	return 0;
}

#endif
