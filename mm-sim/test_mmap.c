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
	late = !anon && a->off / PG > ((~0UL >> 1) - a->len) / PG;
	late |= (a->flags & KSIM_MAP_GROWSDOWN) && (!anon || (a->flags & KSIM_MAP_TYPE) != KSIM_MAP_PRIVATE);
	late |= (a->flags & KSIM_MAP_TYPE) != KSIM_MAP_SHARED && (a->flags & KSIM_MAP_TYPE) != KSIM_MAP_PRIVATE;
	if (late && (a->flags & KSIM_MAP_FIXED_NOREPLACE))
		a->flags = (a->flags & ~KSIM_MAP_FIXED_NOREPLACE) | KSIM_MAP_FIXED;
}

static bool mmap_args_differ(const struct ksim_mmap_args *x, const struct ksim_mmap_args *y)
{
	return x->addr != y->addr || x->len != y->len || x->prot != y->prot || x->flags != y->flags ||
	       x->fd != y->fd || x->off != y->off;
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
	struct ksim_rng *rng = ksim_test_rng();
	unsigned long runs = 1500, i, refused = 0, failed = 0, mapped = 0, garbage = 0, files = 0;
	struct file *f;
	char why[256];

	if (!ksim_mm_has_vma_c()) {
		printf("# skipped: mmap(2)'s own code is not built on this tree\n");
		return;
	}
	f = ksim_file_open("mmap-contract");
	for (i = 0; i < runs && !ksim_problem_count(KSIM_P_TEST); i++) {
		uint64_t seed = ksim_rng_next(rng);
		struct ksim_mmap_args raw, canon;
		struct mm_struct *a = contract_layout(seed), *b = contract_layout(seed);
		struct ksim_mm_snapshot *snap;
		long ra, rb, want;

		KSIM_ASSERT(ksim_fd_install(a, f) == FD && ksim_fd_install(b, f) == FD);
		snap = ksim_mm_snapshot(a);
		mmap_draw(rng, &raw);
		canon = raw;
		want = ksim_mmap_contract(&canon);
		ra = ksim_sys_mmap(a, raw.addr, raw.len, raw.prot, raw.flags, raw.fd, raw.off);
		check(a, "mmap as drawn");
		files += !(raw.flags & KSIM_MAP_ANONYMOUS);
		if (want) {
			refused++;
			KSIM_EXPECT(ra == want && !ksim_mm_snapshot_compare(snap, a),
				    "mmap(%#lx, %#lx, %#lx, %#lx, %#lx, %#lx) = %ld: the contract refuses it "
				    "(%ld), unchanged", raw.addr, raw.len, raw.prot, raw.flags, raw.fd, raw.off,
				    ra, want);
		} else {
			rb = ksim_sys_mmap(b, canon.addr, canon.len, canon.prot, canon.flags, canon.fd, canon.off);
			check(b, "mmap, canonical arguments");
			KSIM_EXPECT(ra == rb && contract_same(a, b, why, sizeof(why)),
				    "mmap(%#lx, %#lx, %#lx, %#lx, %#lx, %#lx) = %#lx, but %#lx with the canonical "
				    "arguments (%#lx, %#lx, %#lx, %#lx, %#lx, %#lx)%s%s", raw.addr, raw.len,
				    raw.prot, raw.flags, raw.fd, raw.off, ra, rb, canon.addr, canon.len,
				    canon.prot, canon.flags, canon.fd, canon.off, ra == rb ? ": " : "",
				    ra == rb ? why : "");
			if (ra < 0 && ra > -4096) {
				failed++;
			} else {
				mapped++;
				garbage += mmap_args_differ(&raw, &canon);
			}
		}
		ksim_mm_snapshot_free(snap);
		ksim_mm_exit(a);
		ksim_mm_exit(b);
	}
	printf("# %lu calls (%lu of the file): %lu refused by the contract, %lu failed in the kernel, "
	       "%lu mapped, %lu of them with garbage the kernel must ignore\n", i, files, refused, failed,
	       mapped, garbage);
	ksim_file_close(f);
	check_all_freed();
}
