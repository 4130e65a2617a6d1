// SPDX-License-Identifier: GPL-2.0
/*
 * mmap(2) through the kernel's own argument handling (ksim_sys_mmap():
 * x86-64's SYSCALL_DEFINE6(mmap) -> ksys_mmap_pgoff() -> vm_mmap_pgoff()
 * -> do_mmap(), extract/mmap.txt), judged by its argument contract
 * (mm_sim/contract.h) as mremap and mprotect are (test_mremap.c).
 */
#include <ksim/test.h>
#include <mm_sim/sim.h>
#include <mm_sim/query.h>
#include <mm_sim/contract.h>
#include <errno.h>
#include <stdio.h>
#include "test_mm_sim.h"

#define PG		KSIM_PAGE_SIZE
#define CW		0x60000000UL	/* contract_layout()'s window */
#define CW_PAGES	64
#define FD		0		/* the file every process has open (the first fd) */

/*
 * Draw an mmap(2): anonymous (garbage @fd: anything, -1 or small; an
 * @off page-aligned garbage of all 64 bits, sometimes not aligned) or of the
 * open file (an offset of a few pages, sometimes near MAX_LFS_FILESIZE or
 * unaligned); a type MAP_SHARED or MAP_PRIVATE, for the file sometimes
 * MAP_SHARED_VALIDATE, now and then an invalid one; flags that matter,
 * flags that are ignored and undefined bits (all 64); MAP_FIXED at a
 * page in the window (sometimes unaligned) or a hint (anything, 0 or
 * unaligned in the window); a length of whole pages or short of its last
 * page, sometimes 0; a protection with garbage bits now and then.  What
 * ksim_mmap_contract() asks of its callers holds.
 */
static void mmap_draw(struct ksim_rng *rng, struct ksim_mmap_args *a)
{
	static const unsigned long effect[] = { KSIM_MAP_GROWSDOWN, KSIM_MAP_LOCKED, KSIM_MAP_NORESERVE,
		KSIM_MAP_POPULATE, KSIM_MAP_NONBLOCK, KSIM_MAP_SYNC };
	static const unsigned long ignored[] = { KSIM_MAP_DENYWRITE, KSIM_MAP_EXECUTABLE, KSIM_MAP_STACK,
		KSIM_MAP_UNINITIALIZED, 21UL << 26, 30UL << 26, 1UL << 31, 0x200, 0x400 };
	const bool anon = ksim_rng_below(rng, 4) != 0;
	const unsigned long r = ksim_rng_below(rng, 16);
	unsigned long i, late;

	a->flags = anon ? KSIM_MAP_ANONYMOUS : 0;
	if (r < 7)
		a->flags |= KSIM_MAP_PRIVATE;
	else if (r < 13 || (anon && r < 15))
		a->flags |= KSIM_MAP_SHARED;
	else
		a->flags |= KSIM_MAP_SHARED_VALIDATE;	/* anonymous: -EINVAL */
	if (!ksim_rng_below(rng, 24)) {	/* an invalid type (not MAP_DROPPABLE, 8) */
		a->flags &= ~KSIM_MAP_TYPE;
		a->flags |= (unsigned long[]){ 0, 3, 4, 7, 9, 15 }[ksim_rng_below(rng, 6)];
	}
	for (i = 0; i < sizeof(effect) / sizeof(effect[0]); i++)
		if (!ksim_rng_below(rng, effect[i] == KSIM_MAP_SYNC ? 16 : 6))
			a->flags |= effect[i];
	if (ksim_rng_below(rng, 2))
		for (i = ksim_rng_below(rng, 4); i; i--)
			a->flags |= ignored[ksim_rng_below(rng, sizeof(ignored) / sizeof(ignored[0]))];
	if (!ksim_rng_below(rng, 4))
		a->flags |= ksim_rng_next(rng) & ~0xffffffffUL;	/* the upper half: no flags there */
	if (!ksim_rng_below(rng, 4))
		a->flags |= 1UL << (21 + ksim_rng_below(rng, 5));	/* undefined bits 21..25 */
	if (!ksim_rng_below(rng, 48))
		a->flags |= KSIM_MAP_HUGETLB;

	a->len = (1 + ksim_rng_below(rng, 12)) * PG;
	if (ksim_rng_below(rng, 2))
		a->len -= ksim_rng_below(rng, PG);
	if (!ksim_rng_below(rng, 24))
		a->len = 0;

	switch (ksim_rng_below(rng, 6)) {
	case 0:
	case 1:
	case 2:
		a->flags |= ksim_rng_below(rng, 4) ? KSIM_MAP_FIXED : KSIM_MAP_FIXED_NOREPLACE;
		a->addr = CW + ksim_rng_below(rng, CW_PAGES) * PG;
		if (!ksim_rng_below(rng, 16))
			a->addr += 1 + ksim_rng_below(rng, PG - 1);
		break;
	case 3:
		a->addr = ksim_rng_next(rng);
		break;
	case 4:
		a->addr = 0;
		break;
	default:
		a->addr = CW + ksim_rng_below(rng, CW_PAGES * PG);
		break;
	}

	a->prot = ksim_rng_below(rng, 8);
	if (!ksim_rng_below(rng, 6))
		a->prot |= ksim_rng_below(rng, 2) ? 0x8UL : 1UL << (3 + ksim_rng_below(rng, 61));

	if (anon) {
		a->fd = (unsigned long[]){ ksim_rng_next(rng), ~0UL, ksim_rng_below(rng, 16), FD }[ksim_rng_below(rng, 4)];
		/*
		 * Any 64 bits: 7.x's vm_mmap_pgoff() computes (loff_t)pgoff <<
		 * PAGE_SHIFT, which wraps above 2^63 as the kernel's
		 * -fno-strict-overflow (cmake/Kernel.cmake) makes it; only
		 * fsnotify_mmap_perm() reads it, which ignores anonymous maps.
		 */
		a->off = ksim_rng_below(rng, 4) ? ksim_rng_next(rng) & ~(PG - 1) : 0;
	} else {
		a->fd = FD;
		a->off = ksim_rng_below(rng, 64) * PG;
		if (!ksim_rng_below(rng, 24))	/* -EOVERFLOW: past MAX_LFS_FILESIZE - len, below 2^63 */
			a->off = (1UL << 63) - PG * (1 + ksim_rng_below(rng, (a->len + PG - 1) / PG + 1));
	}
	if (!ksim_rng_below(rng, 24))
		a->off |= 1 + ksim_rng_below(rng, PG - 1);

	/* MAP_FIXED_NOREPLACE's -EEXIST comes before the checks after the placement */
	late = !anon && a->off / PG > ((~0UL >> 1) - ((a->len + PG - 1) & ~(PG - 1))) / PG;	/* len as rounded */
	late |= (a->flags & KSIM_MAP_GROWSDOWN) && (!anon || (a->flags & KSIM_MAP_TYPE) != KSIM_MAP_PRIVATE);
	late |= (a->flags & KSIM_MAP_TYPE) != KSIM_MAP_SHARED && (a->flags & KSIM_MAP_TYPE) != KSIM_MAP_PRIVATE;
	if (late && (a->flags & KSIM_MAP_FIXED_NOREPLACE))
		a->flags = (a->flags & ~KSIM_MAP_FIXED_NOREPLACE) | KSIM_MAP_FIXED;
}

static struct file *mmap_file;	/* open as fd FD in every process of the test */

static struct mm_struct *mmap_layout(uint64_t seed)
{
	struct mm_struct *mm = contract_layout(seed);

	KSIM_EXPECT(ksim_fd_install(mm, mmap_file) == FD);
	return mm;
}

static void mmap_draw_args(struct ksim_rng *rng, struct mm_struct *mm, void *args)
{
	mmap_draw(rng, args);
}

static long mmap_contract(struct mm_struct *mm, void *args)
{
	return ksim_mmap_contract(args);
}

static long mmap_run(struct mm_struct *mm, const void *args)
{
	const struct ksim_mmap_args *a = args;

	return ksim_sys_mmap(mm, a->addr, a->len, a->prot, a->flags, a->fd, a->off);
}

static int mmap_show(char *buf, size_t len, const void *args)
{
	const struct ksim_mmap_args *a = args;

	return snprintf(buf, len, "mmap(%#lx, %#lx, %#lx, %#lx, %#lx, %#lx)", a->addr, a->len, a->prot,
			a->flags, a->fd, a->off);
}

/*
 * mmap(2)'s argument contract, by differential testing as
 * mremap_argument_contract: the call as drawn on one process, the
 * canonical one (ksim_mmap_contract()) on an identical process (the same
 * layout, the same file open as fd 0); the same result (address or
 * errno), VMAs, pages and counters.  A call the contract refuses fails
 * with its errno and changes nothing.
 */
KSIM_TEST(mmap_argument_contract)
{
	static const struct contract_test t = {
		"mmap", sizeof(struct ksim_mmap_args), mmap_layout, mmap_draw_args, mmap_contract, mmap_run,
		mmap_show, "a garbage fd or offset for anonymous memory, a partial last page, ignored flags",
	};

	if (!ksim_mm_has_vma_c()) {
		printf("# skipped: mmap(2)'s own code is not built on this tree\n");
		return;
	}
	mmap_file = ksim_file_open("mmap-contract");
	contract_run(&t);
	ksim_file_close(mmap_file);
	check_all_freed();
}
