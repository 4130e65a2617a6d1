// SPDX-License-Identifier: GPL-2.0
/*
 * mremap tests (6.12): the kernel's own SYSCALL_DEFINE5(mremap) down to
 * move_ptes()/move_normal_pmd()/move_normal_pud(), on simulated processes.
 *
 * The oracle is the page content: every touched page has a unique fake pfn,
 * and after a move the pfn seen at new_addr + k must be the one that was at
 * old_addr + k; the old range must be unmapped (or, for MREMAP_DONTUNMAP,
 * mapped but empty).  Whole-table moves are checked by identity: the pte
 * (pmd) table at the new address is the very page that was at the old one.
 * Invariants (tree, counters, anon_vma, i_mmap, commit accounting, page
 * tables) after every call; nothing left at the end.
 */
#include <ksim/test.h>
#include <ksim/fault.h>
#include <mm_sim/sim.h>
#include <mm_sim/query.h>
#include <mm_sim/contract.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test_mm_sim.h"

#define PG		KSIM_PAGE_SIZE
#define MiB		(1UL << 20)
#define GiB		(1UL << 30)
#define ANON_RW		(KSIM_VM_READ | KSIM_VM_WRITE | KSIM_VM_MAYREAD | KSIM_VM_MAYWRITE | KSIM_VM_MAYEXEC)
#define ANON_RO		(KSIM_VM_READ | KSIM_VM_MAYREAD | KSIM_VM_MAYWRITE | KSIM_VM_MAYEXEC)
#define SHARED_RW	(ANON_RW | KSIM_VM_SHARED | KSIM_VM_MAYSHARE)
#define MAYMOVE		KSIM_MREMAP_MAYMOVE
#define FIXED		KSIM_MREMAP_FIXED
#define DONTUNMAP	KSIM_MREMAP_DONTUNMAP

#define SKIP_WITHOUT_VMA_C() do {						\
	if (!ksim_mm_has_mremap()) {						\
		printf("# skipped: mremap not built on this tree\n");		\
		return;								\
	}									\
} while (0)

/* pfns of @n pages from @addr (0: nothing mapped); caller frees. */
static unsigned long *pfns_of(struct mm_struct *mm, unsigned long addr, unsigned long n)
{
	unsigned long *p = calloc(n + 1, sizeof(*p)), k;

	for (k = 0; k < n; k++)
		p[k] = ksim_mm_pfn(mm, addr + k * PG);
	return p;
}

static unsigned long count_mapped(struct mm_struct *mm, unsigned long addr, unsigned long n)
{
	unsigned long k, c = 0;

	for (k = 0; k < n; k++)
		c += ksim_mm_pfn(mm, addr + k * PG) != 0;
	return c;
}

/* Does any VMA intersect [addr, addr + len)? */
static bool any_vma(struct mm_struct *mm, unsigned long addr, unsigned long len)
{
	struct ksim_vma_info vi;

	return ksim_mm_find_vma(mm, addr, &vi) && vi.start < addr + len;
}

static bool vma_at(struct mm_struct *mm, unsigned long addr, struct ksim_vma_info *vi)
{
	return ksim_mm_find_vma(mm, addr, vi) && vi->start <= addr;
}

/* The pages seen at @new are @before (n pages); differences are counted. */
static unsigned long pfns_differ(struct mm_struct *mm, unsigned long new, const unsigned long *before,
				 unsigned long n)
{
	unsigned long k, bad = 0;

	for (k = 0; k < n; k++)
		bad += ksim_mm_pfn(mm, new + k * PG) != before[k];
	return bad;
}

static void touch_range(struct mm_struct *mm, unsigned long addr, unsigned long n, unsigned long stride)
{
	unsigned long k;

	for (k = 0; k < n; k += stride)
		KSIM_EXPECT(!ksim_touch(mm, addr + k * PG, true));
}

static unsigned long map_count(struct mm_struct *mm)
{
	struct ksim_mm_info in;

	ksim_mm_info(mm, &in);
	return in.map_count;
}

KSIM_TEST(mremap_ops)
{
	struct mm_struct *mm;
	struct ksim_vma_info vi;
	struct ksim_mm_info in;
	unsigned long a = 0x10000000, *before;
	struct file *f;
	long r;

	SKIP_WITHOUT_VMA_C();
	f = ksim_file_open("data.bin");
	mm = ksim_mm_new();

	/* grow in place (vma_merge_extend) */
	KSIM_EXPECT(!ksim_mmap(mm, a, 16 * PG, ANON_RW, NULL, 0));
	touch_range(mm, a, 16, 1);
	before = pfns_of(mm, a, 16);
	r = ksim_mremap(mm, a, 16 * PG, 32 * PG, 0, 0);
	KSIM_EXPECT_EQ(r, (long)a);
	check(mm, "grow in place");
	KSIM_EXPECT_EQ(pfns_differ(mm, a, before, 16), 0);
	ksim_mm_info(mm, &in);
	KSIM_EXPECT_EQ(in.map_count, 1);
	KSIM_EXPECT_EQ(in.total_vm, 32);
	touch_range(mm, a + 16 * PG, 16, 4);

	/* shrink: the tail is unmapped (do_vmi_munmap, which drops the lock itself) */
	r = ksim_mremap(mm, a, 32 * PG, 8 * PG, 0, 0);
	KSIM_EXPECT_EQ(r, (long)a);
	check(mm, "shrink");
	KSIM_EXPECT_EQ(pfns_differ(mm, a, before, 8), 0);
	KSIM_EXPECT(!any_vma(mm, a + 8 * PG, 24 * PG));
	ksim_mm_info(mm, &in);
	KSIM_EXPECT_EQ(in.total_vm, 8);
	KSIM_EXPECT_EQ(in.rss, 8);
	free(before);

	/* grow blocked by a neighbour: -ENOMEM without MAYMOVE, a move with it */
	KSIM_EXPECT(!ksim_mmap(mm, a + 8 * PG, 4 * PG, ANON_RO, NULL, 0));
	KSIM_EXPECT_EQ(ksim_mremap(mm, a, 8 * PG, 64 * PG, 0, 0), -ENOMEM);
	check(mm, "blocked grow");
	before = pfns_of(mm, a, 8);
	r = ksim_mremap(mm, a, 8 * PG, 64 * PG, MAYMOVE, 0);
	KSIM_EXPECT(r > 0 && (unsigned long)r >= KSIM_MMAP_BASE, "grow by move: %#lx", r);
	check(mm, "grow by move");
	if (r > 0) {
		KSIM_EXPECT_EQ(pfns_differ(mm, r, before, 8), 0);
		KSIM_EXPECT_EQ(count_mapped(mm, r + 8 * PG, 56), 0);
		KSIM_EXPECT(vma_at(mm, r, &vi) && vi.end == (unsigned long)r + 64 * PG);
	}
	KSIM_EXPECT(!any_vma(mm, a, 8 * PG));
	free(before);

	/* MREMAP_FIXED over existing mappings: the destination's pages are gone */
	KSIM_EXPECT(!ksim_mmap(mm, 0x20000000, 16 * PG, ANON_RW, NULL, 0));
	KSIM_EXPECT(!ksim_mmap(mm, 0x30000000 - 4 * PG, 24 * PG, ANON_RW, NULL, 0));
	touch_range(mm, 0x20000000, 16, 1);
	touch_range(mm, 0x30000000 - 4 * PG, 24, 1);
	before = pfns_of(mm, 0x20000000, 16);
	ksim_mm_info(mm, &in);
	r = ksim_mremap(mm, 0x20000000, 16 * PG, 16 * PG, MAYMOVE | FIXED, 0x30000000);
	KSIM_EXPECT_EQ(r, 0x30000000L);
	check(mm, "fixed over");
	KSIM_EXPECT_EQ(pfns_differ(mm, 0x30000000, before, 16), 0);
	KSIM_EXPECT(!any_vma(mm, 0x20000000, 16 * PG));
	{
		struct ksim_mm_info in2;

		ksim_mm_info(mm, &in2);
		KSIM_EXPECT_EQ(in2.rss, in.rss - 16);	/* the 16 pages moved over are gone */
	}
	free(before);

	/* MREMAP_DONTUNMAP: pages move, the old range stays mapped and empty */
	KSIM_EXPECT(!ksim_mmap(mm, 0x40000000, 8 * PG, ANON_RW, NULL, 0));
	touch_range(mm, 0x40000000, 8, 1);
	before = pfns_of(mm, 0x40000000, 8);
	r = ksim_mremap(mm, 0x40000000, 8 * PG, 8 * PG, MAYMOVE | FIXED | DONTUNMAP, 0x48000000);
	KSIM_EXPECT_EQ(r, 0x48000000L);
	check(mm, "dontunmap");
	KSIM_EXPECT_EQ(pfns_differ(mm, 0x48000000, before, 8), 0);
	KSIM_EXPECT(vma_at(mm, 0x40000000, &vi) && vi.end == 0x40000000 + 8 * PG && !vi.anon_vma);
	KSIM_EXPECT_EQ(count_mapped(mm, 0x40000000, 8), 0);
	KSIM_EXPECT(!ksim_touch(mm, 0x40000000, true));		/* a fresh page */
	KSIM_EXPECT(ksim_mm_pfn(mm, 0x40000000) != before[0]);
	check(mm, "touch after dontunmap");
	/* and without FIXED: new_addr is only a hint */
	r = ksim_mremap(mm, 0x48000000, 8 * PG, 8 * PG, MAYMOVE | DONTUNMAP, 0x49000000);
	KSIM_EXPECT_EQ(r, 0x49000000L);
	check(mm, "dontunmap with a hint");
	KSIM_EXPECT_EQ(pfns_differ(mm, 0x49000000, before, 8), 0);
	free(before);

	/* a shared file mapping moves (i_mmap, pgoff kept) */
	KSIM_EXPECT(!ksim_mmap(mm, 0x60000000, 16 * PG, SHARED_RW, f, 4));
	KSIM_EXPECT(!ksim_mmap(mm, 0x60000000 + 16 * PG, PG, ANON_RO, NULL, 0));
	touch_range(mm, 0x60000000, 16, 3);
	before = pfns_of(mm, 0x60000000, 16);
	r = ksim_mremap(mm, 0x60000000, 16 * PG, 24 * PG, MAYMOVE, 0);
	KSIM_EXPECT(r > 0, "shared file grow by move: %ld", r);
	check(mm, "shared file move");
	if (r > 0) {
		KSIM_EXPECT_EQ(pfns_differ(mm, r, before, 16), 0);
		KSIM_EXPECT(vma_at(mm, r, &vi) && vi.file == f && vi.pgoff == 4);
		/* old_len 0 duplicates a shared mapping (the DOS-emu case) */
		long d = ksim_mremap(mm, r + 2 * PG, 0, 4 * PG, MAYMOVE, 0);

		KSIM_EXPECT(d > 0, "duplicate: %ld", d);
		check(mm, "duplicate a shared mapping");
		KSIM_EXPECT(d > 0 && vma_at(mm, d, &vi) && vi.file == f && vi.pgoff == 6 &&
			    vi.end == (unsigned long)d + 4 * PG);
		KSIM_EXPECT(vma_at(mm, r, &vi) && vi.end == (unsigned long)r + 24 * PG);
	}
	free(before);

	/* errors, as the syscall returns them */
	KSIM_EXPECT_EQ(ksim_mremap(mm, 0x30000000, PG, PG, 8, 0), -EINVAL);		/* unknown flag */
	KSIM_EXPECT_EQ(ksim_mremap(mm, 0x30000000, PG, PG, FIXED, 0x50000000), -EINVAL);
	KSIM_EXPECT_EQ(ksim_mremap(mm, 0x30000000, PG, 2 * PG, MAYMOVE | DONTUNMAP, 0), -EINVAL);
	KSIM_EXPECT_EQ(ksim_mremap(mm, 0x30000000 + 1, PG, PG, 0, 0), -EINVAL);	/* unaligned */
	KSIM_EXPECT_EQ(ksim_mremap(mm, 0x30000000, PG, 0, 0, 0), -EINVAL);		/* new_len 0 */
	KSIM_EXPECT_EQ(ksim_mremap(mm, 0x70000000, PG, 2 * PG, MAYMOVE, 0), -EFAULT);	/* nothing there */
	KSIM_EXPECT_EQ(ksim_mremap(mm, 0x30000000, 32 * PG, 64 * PG, MAYMOVE, 0), -EFAULT); /* past the VMA */
	KSIM_EXPECT_EQ(ksim_mremap(mm, 0x30000000, 16 * PG, 16 * PG, MAYMOVE | FIXED, 0x30000000 + 8 * PG),
		       -EINVAL);								/* overlap */
	KSIM_EXPECT_EQ(ksim_mremap(mm, 0x30000000, 16 * PG, 16 * PG, MAYMOVE | FIXED, 0x50000000 + 8),
		       -EINVAL);								/* unaligned */
	KSIM_EXPECT_EQ(ksim_mremap(mm, 0x30000000, 0, 4 * PG, MAYMOVE, 0), -EINVAL);	/* duplicate private */
	KSIM_EXPECT_EQ(ksim_mremap(mm, 0x30000000, 16 * PG, 16 * PG, MAYMOVE | FIXED, (1UL << 47) - 8 * PG),
		       -EINVAL);								/* past TASK_SIZE */
	check(mm, "errors");

	/* a move that closes a hole merges with both neighbours (unfaulted: pgoff follows the address) */
	KSIM_EXPECT(!ksim_mmap(mm, 0x80000000, 8 * PG, ANON_RW, NULL, 0));
	KSIM_EXPECT(!ksim_mmap(mm, 0x80000000 + 16 * PG, 8 * PG, ANON_RW, NULL, 0));
	KSIM_EXPECT(!ksim_mmap(mm, 0x90000000, 8 * PG, ANON_RW, NULL, 0));
	{
		unsigned long n0 = map_count(mm);

		r = ksim_mremap(mm, 0x90000000, 8 * PG, 8 * PG, MAYMOVE | FIXED, 0x80000000 + 8 * PG);
		KSIM_EXPECT_EQ(r, 0x80000000L + 8 * PG);
		check(mm, "move into a hole");
		KSIM_EXPECT_EQ(map_count(mm), n0 - 2);
		KSIM_EXPECT(vma_at(mm, 0x80000000, &vi) && vi.end == 0x80000000 + 24 * PG);
	}
	/* a part of a VMA moves out (split before and after; VM_ACCOUNT restored on both pieces) */
	touch_range(mm, 0x80000000, 24, 1);
	before = pfns_of(mm, 0x80000000 + 4 * PG, 8);
	r = ksim_mremap(mm, 0x80000000 + 4 * PG, 8 * PG, 8 * PG, MAYMOVE | FIXED, 0xa0000000);
	KSIM_EXPECT_EQ(r, 0xa0000000L);
	check(mm, "move out of the middle");
	KSIM_EXPECT_EQ(pfns_differ(mm, 0xa0000000, before, 8), 0);
	KSIM_EXPECT(vma_at(mm, 0x80000000, &vi) && vi.end == 0x80000000 + 4 * PG &&
		    (vi.flags & KSIM_VM_ACCOUNT));
	KSIM_EXPECT(vma_at(mm, 0x80000000 + 12 * PG, &vi) && vi.start == 0x80000000 + 12 * PG &&
		    (vi.flags & KSIM_VM_ACCOUNT));
	free(before);

	ksim_mm_exit(mm);
	ksim_file_close(f);
	check(NULL, "exit");
	check_all_freed();
}

/*
 * Moves across 2 MiB and 1 GiB boundaries: aligned ones go through
 * move_normal_pmd()/move_normal_pud() (the pte/pmd table itself moves: the
 * same page is found at the new address), unaligned ones through
 * move_ptes(); realigned ones (try_realign_addr) move whole tables too.
 */
/*
 * A MREMAP_FIXED move of [@from, +@old_len) to @to that must succeed: the
 * return value, the invariants, and every page's pfn at its new address.
 */
static void move_fixed(struct mm_struct *mm, unsigned long from, unsigned long old_len,
		       unsigned long new_len, unsigned long flags, unsigned long to, const char *what)
{
	unsigned long n = old_len / PG, *before = pfns_of(mm, from, n);
	long r = ksim_mremap(mm, from, old_len, new_len, flags | MAYMOVE | FIXED, to);

	KSIM_EXPECT_EQ(r, (long)to);
	check(mm, what);
	KSIM_EXPECT_EQ(pfns_differ(mm, to, before, n), 0);
	free(before);
}

KSIM_TEST(mremap_pgtables)
{
	struct mm_struct *mm;
	const void *t0, *t1;

	SKIP_WITHOUT_VMA_C();
	mm = ksim_mm_new();

	/* 4 MiB, 2 MiB aligned, to a 2 MiB aligned address: two pte tables move */
	KSIM_EXPECT(!ksim_mmap(mm, 0x40200000, 4 * MiB, ANON_RW, NULL, 0));
	touch_range(mm, 0x40200000, 4 * MiB / PG, 61);
	t0 = ksim_mm_pt_table(mm, 0x40200000, 2);
	t1 = ksim_mm_pt_table(mm, 0x40400000, 2);
	move_fixed(mm, 0x40200000, 4 * MiB, 4 * MiB, 0, 0x48000000, "pmd-aligned move");
	KSIM_EXPECT(t0 && ksim_mm_pt_table(mm, 0x48000000, 2) == t0, "pte table not moved by move_normal_pmd");
	KSIM_EXPECT(t1 && ksim_mm_pt_table(mm, 0x48200000, 2) == t1);
	KSIM_EXPECT(!ksim_mm_pt_table(mm, 0x40200000, 2));

	/* 1 GiB + 2 MiB at 4 GiB to 8 GiB: the pmd table moves (move_normal_pud) */
	KSIM_EXPECT(!ksim_mmap(mm, 4 * GiB, GiB + 2 * MiB, ANON_RW, NULL, 0));
	touch_range(mm, 4 * GiB, (GiB + 2 * MiB) / PG, 4099);
	t0 = ksim_mm_pt_table(mm, 4 * GiB, 1);
	t1 = ksim_mm_pt_table(mm, 5 * GiB, 2);
	move_fixed(mm, 4 * GiB, GiB + 2 * MiB, GiB + 2 * MiB, 0, 8 * GiB, "pud-aligned move");
	KSIM_EXPECT(t0 && ksim_mm_pt_table(mm, 8 * GiB, 1) == t0, "pmd table not moved by move_normal_pud");
	KSIM_EXPECT(t1 && ksim_mm_pt_table(mm, 9 * GiB, 2) == t1, "pte table after the pud not moved");

	/* unaligned, across the 1 GiB boundary, to a different offset: move_ptes() */
	KSIM_EXPECT(!ksim_mmap(mm, GiB - 2 * MiB - 5 * PG, 4 * MiB, ANON_RW, NULL, 0));
	touch_range(mm, GiB - 2 * MiB - 5 * PG, 4 * MiB / PG, 7);
	move_fixed(mm, GiB - 2 * MiB - 5 * PG, 4 * MiB, 6 * MiB, 0, 3 * GiB - MiB + 3 * PG,
		   "unaligned move across boundaries");
	KSIM_EXPECT(!any_vma(mm, GiB - 2 * MiB - 5 * PG, 4 * MiB));

	/* mutually misaligned by the same offset, nothing below: realigned, tables move */
	KSIM_EXPECT(!ksim_mmap(mm, 0x50100000, 3 * MiB, ANON_RW, NULL, 0));
	touch_range(mm, 0x50100000, 3 * MiB / PG, 5);
	t0 = ksim_mm_pt_table(mm, 0x50100000, 2);
	move_fixed(mm, 0x50100000, 3 * MiB, 3 * MiB, 0, 0x58100000, "realigned move");
	KSIM_EXPECT(t0 && ksim_mm_pt_table(mm, 0x58100000, 2) == t0, "realigned: pte table not moved");

	/* and back down over the old place, DONTUNMAP, across a pud */
	move_fixed(mm, 8 * GiB, GiB + 2 * MiB, GiB + 2 * MiB, DONTUNMAP, 4 * GiB,
		   "dontunmap across a pud");
	KSIM_EXPECT_EQ(count_mapped(mm, 8 * GiB, 8), 0);

	ksim_mm_exit(mm);
	check(NULL, "exit");
	check_all_freed();
}

/* ---- the allocation-failure sweep ---- */

struct mremap_shape {
	const char *name;
	unsigned long addr, old_len, new_len, flags, new_addr;
	bool file;
};

/*
 * Consecutive failures only among mremap's own allocations (VMA copy,
 * anon_vma links, page tables), not the maple nodes that the cleanup munmap
 * of move_vma()'s error path needs: when that munmap fails too, the kernel
 * leaves the new VMA mapped ("OOM: unable to split vma, just get accounts
 * right"), see README.md.
 */
void mremap_own_sites(struct ksim_fault_config *cfg)
{
	static const char *const own[] = { "vm_area_dup", "anon_vma_alloc", "anon_vma_chain_alloc",
		"pud_alloc_one", "pmd_alloc_one", "pte_alloc_one" };

	for (cfg->nr_sites = 0; cfg->nr_sites < (int)(sizeof(own) / sizeof(own[0])); cfg->nr_sites++)
		snprintf(cfg->sites[cfg->nr_sites], sizeof(cfg->sites[0]), "%s", own[cfg->nr_sites]);
}

/* Build the shape's process: the VMA to move and neighbours sharing its page tables. */
static struct mm_struct *build_shape(const struct mremap_shape *s, struct file *f)
{
	struct mm_struct *mm = ksim_mm_new();
	unsigned long a, flags = s->file ? SHARED_RW : ANON_RW;

	KSIM_EXPECT(!ksim_mmap(mm, s->addr - 4 * PG, 2 * PG, ANON_RW, NULL, 0));
	KSIM_EXPECT(!ksim_mmap(mm, s->addr, s->old_len, flags, s->file ? f : NULL, 2));
	KSIM_EXPECT(!ksim_mmap(mm, s->addr + s->old_len, 2 * PG, ANON_RO, NULL, 0));	/* blocks growth */
	KSIM_EXPECT(!ksim_touch(mm, s->addr - 4 * PG, true));
	KSIM_EXPECT(!ksim_touch(mm, s->addr + s->old_len, false));
	for (a = s->addr; a < s->addr + s->old_len; a += 13 * PG)
		KSIM_EXPECT(!ksim_touch(mm, a, true));
	/*
	 * A neighbour above the destination, under the same pud table but not
	 * the same pmd table: the ceiling free_pgtables() gets when the error
	 * path unmaps the new VMA (tables it shares with a neighbour would
	 * rightly stay, and the snapshot compare counts tables).
	 */
	if (s->flags & FIXED)
		KSIM_EXPECT(!ksim_mmap(mm, s->new_addr + s->new_len + GiB, 4 * PG, ANON_RW, NULL, 0));
	return mm;
}

static void mremap_sweep_pass(const struct mremap_shape *s, long times)
{
	struct site_acc acc[64];
	unsigned int nacc = 0, i, sites_failed = 0;
	unsigned long total = 0, n, failed = 0, moved = 0, nmove = s->old_len < s->new_len ? s->old_len : s->new_len;
	struct ksim_fault_config cfg;
	struct file *f = ksim_file_open("sweep.bin");

	for (n = 0; ; n++) {
		struct mm_struct *mm = build_shape(s, f);
		struct ksim_mm_snapshot *snap;
		unsigned long *before, calls;
		long r;

		check(mm, "sweep shape");
		snap = ksim_mm_snapshot(mm);
		before = pfns_of(mm, s->addr, nmove / PG);
		memset(&cfg, 0, sizeof(cfg));
		cfg.nth = n ? n : ~0UL;		/* n = 0: count the allocations of an unfailed call */
		cfg.times = times;
		if (times > 1)
			mremap_own_sites(&cfg);
		ksim_fault_set(&cfg);
		r = ksim_mremap(mm, s->addr, s->old_len, s->new_len, s->flags, s->new_addr);
		calls = ksim_fault_calls();
		if (n)
			acc_sites(acc, &nacc, 64);
		ksim_fault_reset();
		if (!n) {
			total = calls;
			KSIM_EXPECT(r > 0, "%s: unfailed mremap = %ld", s->name, r);
		}
		check(mm, "mremap with a failed allocation");
		if (r < 0) {
			failed += n > 0;
			KSIM_EXPECT(r == -ENOMEM, "%s: mremap failing at allocation %lu: %ld", s->name, n, r);
			if (s->old_len <= s->new_len) {
				KSIM_EXPECT(ksim_mm_snapshot_compare(snap, mm) == 0,
					    "%s: a mremap failing at allocation %lu changed the process", s->name, n);
			} else {
				/*
				 * mremap_to() unmaps the tail first, for good (unless that
				 * munmap is what failed): the rest is as it was
				 */
				KSIM_EXPECT(pfns_differ(mm, s->addr, before, nmove / PG) == 0,
					    "%s: failing allocation %lu: pages changed", s->name, n);
				KSIM_EXPECT(!any_vma(mm, s->new_addr, s->new_len),
					    "%s: failing allocation %lu: left a mapping at the destination", s->name, n);
			}
		} else {
			moved += n > 0;
			KSIM_EXPECT(!(s->flags & FIXED) || r == (long)s->new_addr);
			KSIM_EXPECT(pfns_differ(mm, r, before, nmove / PG) == 0,
				    "%s: failing allocation %lu: pages not moved", s->name, n);
			if (s->flags & DONTUNMAP)
				KSIM_EXPECT(count_mapped(mm, s->addr, s->old_len / PG) == 0);
			else
				KSIM_EXPECT(!any_vma(mm, s->addr, s->old_len));
		}
		ksim_mm_snapshot_free(snap);
		free(before);
		ksim_mm_exit(mm);
		check(NULL, "exit after the sweep step");
		if (ksim_problem_count(KSIM_P_TEST)) {
			printf("# %s: first failure with allocation %lu failed (times=%ld)\n", s->name, n, times);
			break;
		}
		if (n && n >= total)
			break;
	}
	ksim_file_close(f);
	for (i = 0; i < nacc; i++)
		sites_failed += acc[i].failed > 0;
	printf("# %s, %s: %lu allocations per mremap, %lu failed in turn: %lu mremaps failed, "
	       "%lu completed; %u allocation sites reached, %u failed\n",
	       s->name, times == 1 ? "fail allocation N only" : "fail allocations N..N+3 (own sites)",
	       total, n, failed, moved, nacc, sites_failed);
	for (i = 0; i < nacc; i++)
		printf("#   %-28s reached %6lu  failed %5lu\n", acc[i].name, acc[i].reached, acc[i].failed);
}

/*
 * Fail allocation N (then N..N+3) of one mremap, N = 1 .. total, for each
 * shape: the process is unchanged (snapshot: VMAs, anon_vmas, ptes and
 * pfns, counters, commit charge) or completely moved; invariants; at exit
 * nothing is left.  move_vma()'s error path moves the page tables back and
 * unmaps the new VMA: that is what the page-table allocation failures in
 * move_page_tables() reach.
 */
static void mremap_sweep(const struct mremap_shape *shapes, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && !ksim_problem_count(KSIM_P_TEST); i++) {
		mremap_sweep_pass(&shapes[i], 1);
		if (!ksim_problem_count(KSIM_P_TEST))
			mremap_sweep_pass(&shapes[i], 4);
	}
	check_all_freed();
}

KSIM_TEST(mremap_sweep)
{
	static const struct mremap_shape shapes[] = {
		{ "shared file, grow by move", 0x40000000 - 24 * PG, 48 * PG, 64 * PG, MAYMOVE, 0, true },
		{ "fixed, 2 MiB aligned + tail", 0x40200000, 2 * MiB + 40 * PG, 2 * MiB + 40 * PG,
		  MAYMOVE | FIXED, 0x7fc00000, false },
		{ "fixed across 1 GiB, shrink", GiB - 40 * PG, 80 * PG, 60 * PG, MAYMOVE | FIXED,
		  3 * GiB - 20 * PG, false },
		{ "dontunmap, grow-sized", 0x40000000 - 24 * PG, 48 * PG, 48 * PG, MAYMOVE | FIXED | DONTUNMAP,
		  0x80000000, false },
	};

	SKIP_WITHOUT_VMA_C();
	mremap_sweep(shapes, sizeof(shapes) / sizeof(shapes[0]));
}

/*
 * A private accounted VMA grown by a move: move_vma() charges the growth
 * (new_len - old_len) up front, and on its error path clears VM_ACCOUNT on
 * the new VMA before unmapping it ("conceal VM_ACCOUNT so old reservation
 * is not undone"), so the growth's charge is never returned: 6.12.117
 * leaks it (docs/findings.toml, README.md).
 */
KSIM_TEST(mremap_sweep_grow_accounted)
{
	static const struct mremap_shape shapes[] = {
		{ "grow by move, accounted", 0x40000000 - 24 * PG, 48 * PG, 96 * PG, MAYMOVE, 0, false },
	};

	SKIP_WITHOUT_VMA_C();
	mremap_sweep(shapes, 1);
}

/*
 * A VM_ACCOUNT mapping shrunk and moved in one MREMAP_FIXED call: mremap_to()
 * unmaps the tail first (that uncharges it), then moves the rest; the move
 * must not charge anything more.  The commit charge equals the pages of the
 * VM_ACCOUNT VMAs after the call (ksim_mm_check) and nothing is left at the
 * end.  Fails on 7.2.13: docs/findings.toml.
 */
KSIM_TEST(mremap_shrink_move_accounted)
{
	struct mm_struct *mm;
	unsigned long a = 0x10000000, b = 0x20000000, *before;
	long r;

	SKIP_WITHOUT_VMA_C();
	mm = ksim_mm_new();
	KSIM_EXPECT(!ksim_mmap(mm, a, 40 * PG, ANON_RW, NULL, 0));
	touch_range(mm, a, 40, 1);
	before = pfns_of(mm, a, 20);
	r = ksim_mremap(mm, a, 40 * PG, 20 * PG, MAYMOVE | FIXED, b);
	KSIM_EXPECT_EQ(r, (long)b);
	check(mm, "shrink and move, accounted");
	KSIM_EXPECT_EQ(pfns_differ(mm, b, before, 20), 0);
	KSIM_EXPECT(!any_vma(mm, a, 40 * PG));
	free(before);
	ksim_mm_exit(mm);
	check_all_freed();
}

/*
 * A faulted VM_WIPEONFORK mapping moved by mremap() keeps its page offset
 * (copy_vma() re-bases only unfaulted VMAs); fork() then gives the child the
 * VMA without its anon_vma (dup_mmap(): "a clean slate"), so the child holds
 * an unfaulted anonymous VMA whose vm_pgoff is not vm_start >> PAGE_SHIFT.
 * Trees that state that invariant (7.3's assert_sane_pgoff() in mm/vma.h)
 * WARN when the child splits the VMA.  In-tree path: madvise(MADV_WIPEONFORK)
 * (or MAP_DROPPABLE), a write fault, mremap(MREMAP_MAYMOVE|MREMAP_FIXED),
 * fork(), munmap() of part of the mapping in the child.  docs/findings.toml.
 */
KSIM_TEST(mremap_wipeonfork_fork_split)
{
	struct mm_struct *mm, *child;
	struct ksim_vma_info vi;
	unsigned long a = 0x10000000, b = 0x20000000;

	SKIP_WITHOUT_VMA_C();
	mm = ksim_mm_new();
	KSIM_EXPECT(!ksim_mmap(mm, a, 4 * PG, ANON_RW | KSIM_VM_WIPEONFORK, NULL, 0));
	touch_range(mm, a, 1, 1);
	KSIM_EXPECT_EQ(ksim_mremap(mm, a, 4 * PG, 4 * PG, MAYMOVE | FIXED, b), (long)b);
	check(mm, "move of a faulted VM_WIPEONFORK mapping");
	KSIM_ASSERT(ksim_mm_find_vma(mm, b, &vi));
	KSIM_EXPECT_EQ(vi.pgoff, a / PG);	/* faulted: the page offset moves with it */
	KSIM_ASSERT(!ksim_fork(mm, &child));
	check(child, "fork");
	KSIM_ASSERT(ksim_mm_find_vma(child, b, &vi));
	KSIM_EXPECT(!vi.anon_vma);
	KSIM_EXPECT(!ksim_munmap(child, b + 2 * PG, PG));
	check(child, "munmap of a page in the child");
	ksim_mm_exit(child);
	ksim_mm_exit(mm);
	check_all_freed();
}

/*
 * MREMAP_DONTUNMAP of part of an mlock()ed mapping: the moved range is
 * locked at its new place and no longer at the old one (the source "cannot
 * be mlock()'d any longer", 7.x's dontunmap_complete()), the rest of the
 * source keeps its lock, and locked_vm counts exactly the VM_LOCKED pages
 * (the invariant, check()).  6.12 clears VM_LOCKED on the whole source VMA
 * and leaves locked_vm as it was: mm-mremap-dontunmap-mlock-part.
 */
KSIM_TEST(mremap_dontunmap_mlocked_part)
{
	struct mm_struct *mm;
	struct ksim_vma_info vi;
	unsigned long a = 0x10000000, b = 0x20000000;

	SKIP_WITHOUT_VMA_C();
	mm = ksim_mm_new();
	KSIM_EXPECT(!ksim_mmap(mm, a, 4 * PG, ANON_RW | KSIM_VM_LOCKED, NULL, 0));
	touch_range(mm, a, 4, 1);
	KSIM_EXPECT_EQ(ksim_mremap(mm, a + 3 * PG, PG, PG, MAYMOVE | DONTUNMAP, b), (long)b);
	check(mm, "MREMAP_DONTUNMAP of the last page of a locked mapping");
	KSIM_ASSERT(vma_at(mm, a, &vi));
	KSIM_EXPECT((vi.flags & KSIM_VM_LOCKED) && vi.end == a + 3 * PG,
		    "the pages not moved: [%#lx, %#lx) flags %#lx, want [%#lx, %#lx) still VM_LOCKED",
		    vi.start, vi.end, vi.flags, a, a + 3 * PG);
	KSIM_ASSERT(vma_at(mm, b, &vi));
	KSIM_EXPECT(vi.flags & KSIM_VM_LOCKED, "the moved page: flags %#lx, want VM_LOCKED", vi.flags);
	KSIM_EXPECT(!ksim_munmap(mm, a, 4 * PG));
	KSIM_EXPECT(!ksim_munmap(mm, b, PG));
	check(mm, "everything unmapped");
	ksim_mm_exit(mm);
	check_all_freed();
}

/* ---- the argument contract (mm_sim/contract.h) ---- */

#define CW		0x60000000UL	/* the window the layouts and FIXED targets use */
#define CW_PAGES	64

/*
 * A layout drawn from @seed: 1-3 mappings in the window's lower half, some
 * pages touched.  Neither VM_LOCKED nor accountable (private writable
 * mappings are MAP_NORESERVE): mlock and commit accounting have their own
 * tests, and their known findings (mm-mremap-dontunmap-mlock-part on 6.12,
 * mm-mremap-shrink-move-overcharge on 7.2) would end a run on those trees
 * before the contract is judged.
 */
#define ANON_RW_NORESERVE	(ANON_RW | KSIM_VM_NORESERVE)
struct mm_struct *contract_layout(uint64_t seed)
{
	static const unsigned long kinds[] = { ANON_RW_NORESERVE, ANON_RO, SHARED_RW,
		ANON_RW_NORESERVE | KSIM_VM_DONTCOPY };
	struct mm_struct *mm = ksim_mm_new();
	struct ksim_rng rng;
	unsigned long i, n, k;

	ksim_rng_seed(&rng, seed);
	n = 1 + ksim_rng_below(&rng, 3);
	for (i = 0; i < n; i++) {
		unsigned long start = CW + ksim_rng_below(&rng, CW_PAGES / 2) * PG;
		unsigned long len = (1 + ksim_rng_below(&rng, 6)) * PG;
		unsigned long flags = kinds[ksim_rng_below(&rng, 4)];

		KSIM_EXPECT(!ksim_mmap(mm, start, len, flags, NULL, 0));
		for (k = 0; k < len / PG; k++)
			if (ksim_rng_below(&rng, 2))
				KSIM_EXPECT(!ksim_touch(mm, start + k * PG, flags & KSIM_VM_WRITE));
	}
	return mm;
}

/*
 * Both processes alike: VMAs (start, end, flags, pgoff, anon_vma, file or
 * not, anonymous name or none, userfaultfd context: each process has its
 * own, so the same one wherever the other has the same one, NUMA policy as
 * mpol_equal() compares it), pages mapped, counters (locked_vm too).
 */
bool contract_same(struct mm_struct *a, struct mm_struct *b, char *why, size_t len)
{
	static struct ksim_vma_info va[32], vb[32];
	const void *ctx_a[32], *ctx_b[32];
	struct ksim_mm_info ia, ib;
	int na = ksim_mm_vmas(a, va, 32), nb = ksim_mm_vmas(b, vb, 32), i, j, nctx = 0;
	unsigned long k;

	if (na != nb || na > 32) {
		snprintf(why, len, "%d VMAs vs %d", na, nb);
		return false;
	}
	for (i = 0; i < na; i++) {
		if (va[i].start != vb[i].start || va[i].end != vb[i].end || va[i].flags != vb[i].flags ||
		    va[i].pgoff != vb[i].pgoff || va[i].anon_vma != vb[i].anon_vma ||
		    !va[i].file != !vb[i].file) {
			snprintf(why, len, "VMA %d: [%#lx, %#lx) flags %#lx pgoff %#lx anon_vma %d vs "
				 "[%#lx, %#lx) flags %#lx pgoff %#lx anon_vma %d", i, va[i].start, va[i].end,
				 va[i].flags, va[i].pgoff, va[i].anon_vma, vb[i].start, vb[i].end,
				 vb[i].flags, vb[i].pgoff, vb[i].anon_vma);
			return false;
		}
		if (va[i].named != vb[i].named || strcmp(va[i].name, vb[i].name)) {
			snprintf(why, len, "VMA %d [%#lx, %#lx): name %s\"%.20s\" vs %s\"%.20s\"", i, va[i].start,
				 va[i].end, va[i].named ? "" : "(none) ", va[i].name, vb[i].named ? "" : "(none) ",
				 vb[i].name);
			return false;
		}
		for (j = 0; j < nctx && ctx_a[j] != va[i].uffd_ctx && ctx_b[j] != vb[i].uffd_ctx; j++)
			;
		if (j == nctx) {
			ctx_a[nctx] = va[i].uffd_ctx;
			ctx_b[nctx++] = vb[i].uffd_ctx;
		}
		if (ctx_a[j] != va[i].uffd_ctx || ctx_b[j] != vb[i].uffd_ctx || !va[i].uffd_ctx != !vb[i].uffd_ctx) {
			snprintf(why, len, "VMA %d [%#lx, %#lx): userfaultfd context %p vs %p (not the same one)", i,
				 va[i].start, va[i].end, va[i].uffd_ctx, vb[i].uffd_ctx);
			return false;
		}
#if KSIM_HAVE_MM_VMA_C
		if (!ksim_vma_policy_same(a, va[i].start, b, vb[i].start)) {
			unsigned short ma = 0, mb = 0;
			unsigned long na = 0, nb = 0;
			const void *pa = ksim_vma_policy_at(a, va[i].start, &ma, &na);
			const void *pb = ksim_vma_policy_at(b, vb[i].start, &mb, &nb);

			snprintf(why, len, "VMA %d [%#lx, %#lx): policy %s mode %u nodes %#lx vs %s mode %u "
				 "nodes %#lx (or their flags)", i, va[i].start, va[i].end, pa ? "" : "(none)",
				 ma, na, pb ? "" : "(none)", mb, nb);
			return false;
		}
#endif
		for (k = va[i].start; k < va[i].end; k += PG) {
			if (!ksim_mm_pfn(a, k) != !ksim_mm_pfn(b, k)) {
				snprintf(why, len, "page %#lx mapped in one only", k);
				return false;
			}
		}
	}
	ksim_mm_info(a, &ia);
	ksim_mm_info(b, &ib);
	if (ia.total_vm != ib.total_vm || ia.data_vm != ib.data_vm || ia.rss != ib.rss ||
	    ia.locked_vm != ib.locked_vm) {
		snprintf(why, len, "total_vm %lu/%lu data_vm %lu/%lu rss %ld/%ld locked_vm %lu/%lu",
			 ia.total_vm, ib.total_vm, ia.data_vm, ib.data_vm, ia.rss, ib.rss, ia.locked_vm,
			 ib.locked_vm);
		return false;
	}
	return true;
}

/*
 * Draw every argument, the ones the flags make irrelevant included: flags
 * (valid or not), an address (sometimes unaligned), lengths that are not
 * page multiples, and for calls that do not name a target a garbage
 * new_addr (anything: unaligned, past TASK_SIZE, or a free page-aligned
 * address a hint would take).
 */
static void contract_draw(struct ksim_rng *rng, struct mm_struct *mm, struct ksim_mremap_args *a)
{
	static const unsigned long flags[] = { 0, 0, MAYMOVE, MAYMOVE, MAYMOVE, MAYMOVE | FIXED,
		MAYMOVE | FIXED, MAYMOVE | DONTUNMAP, MAYMOVE | FIXED | DONTUNMAP, FIXED, DONTUNMAP, 8,
		MAYMOVE | 1UL << 40 };
	struct ksim_vma_info v[8];
	int n = ksim_mm_vmas(mm, v, 8), i = ksim_rng_below(rng, n < 8 ? n : 8);
	unsigned long pages = (v[i].end - v[i].start) / PG, k = ksim_rng_below(rng, pages);

	a->flags = flags[ksim_rng_below(rng, sizeof(flags) / sizeof(flags[0]))];
	/* mostly a range inside one mapping (the interesting paths), sometimes past it or unaligned */
	a->addr = v[i].start + k * PG;
	a->old_len = (ksim_rng_below(rng, 8) ? 1 + ksim_rng_below(rng, pages - k) :
		      ksim_rng_below(rng, 8)) * PG;
	a->new_len = (1 + ksim_rng_below(rng, 10)) * PG;
	if (!ksim_rng_below(rng, 16))
		a->addr += 1 + ksim_rng_below(rng, PG - 1);
	if (!ksim_rng_below(rng, 16))
		a->new_len = 0;
	if (a->flags & DONTUNMAP) {
		a->new_len = a->old_len;	/* page-aligned: see ksim_mremap_contract() */
	} else if (ksim_rng_below(rng, 4)) {
		a->old_len -= a->old_len ? ksim_rng_below(rng, PG) : 0;
		a->new_len -= a->new_len ? ksim_rng_below(rng, PG) : 0;
	}
	if (a->flags & (FIXED | DONTUNMAP)) {
		a->new_addr = CW + ksim_rng_below(rng, CW_PAGES) * PG;	/* may overlap: the kernel refuses */
		return;
	}
	switch (ksim_rng_below(rng, 4)) {
	case 0:
		a->new_addr = ksim_rng_next(rng);
		break;
	case 1:
		a->new_addr = CW + ksim_rng_below(rng, CW_PAGES * PG);
		break;
	case 2:
		a->new_addr = CW + (CW_PAGES / 2 + ksim_rng_below(rng, CW_PAGES / 2)) * PG;
		break;
	default:
		a->new_addr = ~0UL - ksim_rng_below(rng, 3 * PG);
		break;
	}
}

/*
 * mremap(2)'s argument contract, by differential testing: the call as
 * drawn on one process, the canonical call (ksim_mremap_contract()) on an
 * identical one; same result, same VMAs and pages after it.  A call the
 * contract refuses must fail with -EINVAL and change nothing.
 */
KSIM_TEST(mremap_argument_contract)
{
	struct ksim_rng *rng = ksim_test_rng();
	unsigned long runs = 1500, i, refused = 0, moved = 0, hinted = 0, failed = 0;
	char why[256];

	SKIP_WITHOUT_VMA_C();
	for (i = 0; i < runs && !ksim_problem_count(KSIM_P_TEST); i++) {
		uint64_t seed = ksim_rng_next(rng);
		struct ksim_mremap_args raw, canon;
		struct mm_struct *a = contract_layout(seed), *b = contract_layout(seed);
		struct ksim_mm_snapshot *snap = ksim_mm_snapshot(a);
		long ra, rb, want;

		contract_draw(rng, a, &raw);
		canon = raw;
		want = ksim_mremap_contract(&canon);
		ra = ksim_mremap(a, raw.addr, raw.old_len, raw.new_len, raw.flags, raw.new_addr);
		check(a, "mremap as drawn");
		if (want) {
			refused++;
			KSIM_EXPECT(ra == want && !ksim_mm_snapshot_compare(snap, a),
				    "mremap(%#lx, %#lx, %#lx, %#lx, %#lx) = %ld: the contract refuses it (%ld), unchanged",
				    raw.addr, raw.old_len, raw.new_len, raw.flags, raw.new_addr, ra, want);
		} else {
			rb = ksim_mremap(b, canon.addr, canon.old_len, canon.new_len, canon.flags, canon.new_addr);
			check(b, "mremap, canonical arguments");
			KSIM_EXPECT(ra == rb && contract_same(a, b, why, sizeof(why)),
				    "mremap(%#lx, %#lx, %#lx, %#lx, %#lx) = %#lx, but %#lx with the canonical "
				    "arguments (%#lx, %#lx, %#lx, %#lx, %#lx)%s%s", raw.addr, raw.old_len,
				    raw.new_len, raw.flags, raw.new_addr, ra, rb, canon.addr, canon.old_len,
				    canon.new_len, canon.flags, canon.new_addr, ra == rb ? ": " : "",
				    ra == rb ? why : "");
			failed += ra < 0;
			moved += ra > 0 && ra != (long)raw.addr;
			hinted += ra > 0 && !(raw.flags & (FIXED | DONTUNMAP)) && raw.new_addr != 0;
		}
		if (ksim_problem_count(KSIM_P_TEST)) {
			struct mm_struct *l = contract_layout(seed);
			struct ksim_vma_info v[8];
			int j, n = ksim_mm_vmas(l, v, 8);

			printf("# the failing call: mremap(%#lx, %#lx, %#lx, %#lx, %#lx), canonical (%#lx, %#lx, "
			       "%#lx, %#lx, %#lx); the layout (seed %#lx):\n", raw.addr, raw.old_len, raw.new_len,
			       raw.flags, raw.new_addr, canon.addr, canon.old_len, canon.new_len, canon.flags,
			       canon.new_addr, (unsigned long)seed);
			for (j = 0; j < n && j < 8; j++)
				printf("#   [%#lx, %#lx) flags %#lx pgoff %#lx%s\n", v[j].start, v[j].end, v[j].flags,
				       v[j].pgoff, v[j].anon_vma ? " anon_vma" : "");
			ksim_mm_exit(l);
			n = ksim_mm_vmas(a, v, 8);
			printf("# after the call as drawn:\n");
			for (j = 0; j < n && j < 8; j++)
				printf("#   [%#lx, %#lx) flags %#lx pgoff %#lx%s\n", v[j].start, v[j].end, v[j].flags,
				       v[j].pgoff, v[j].anon_vma ? " anon_vma" : "");
		}
		ksim_mm_snapshot_free(snap);
		ksim_mm_exit(a);
		ksim_mm_exit(b);
	}
	printf("# %lu calls: %lu refused by the contract, %lu failed in the kernel, %lu moved, "
	       "%lu succeeded with garbage in an ignored new_addr\n", i, refused, failed, moved, hinted);
	check_all_freed();
}

/*
 * Draw an mprotect(2): a protection (sometimes with PROT_SEM, a PROT_GROWS*
 * bit, both, or a bit no architecture here knows), an address in a mapping
 * (sometimes unaligned), a length of whole pages or short of its last page
 * (sometimes 0, then with valid bits only: see ksim_mprotect_contract()).
 */
static void mprotect_draw(struct ksim_rng *rng, struct mm_struct *mm, void *args)
{
	struct ksim_mprotect_args *a = args;
	struct ksim_vma_info v[8];
	int n = ksim_mm_vmas(mm, v, 8), i = ksim_rng_below(rng, n < 8 ? n : 8);
	unsigned long pages = (v[i].end - v[i].start) / PG, k = ksim_rng_below(rng, pages);

	a->prot = ksim_rng_below(rng, 8);
	switch (ksim_rng_below(rng, 8)) {
	case 0:
		a->prot |= KSIM_PROT_SEM;
		break;
	case 1:
		a->prot |= ksim_rng_below(rng, 2) ? KSIM_PROT_GROWSDOWN : KSIM_PROT_GROWSUP;
		break;
	case 2:
		a->prot |= KSIM_PROT_GROWSDOWN | KSIM_PROT_GROWSUP;
		break;
	case 3:
		a->prot |= 1UL << (4 + ksim_rng_below(rng, 20));
		break;
	}
	a->addr = v[i].start + k * PG;
	if (!ksim_rng_below(rng, 16))
		a->addr += 1 + ksim_rng_below(rng, PG - 1);
	/* mostly inside the mapping, sometimes past it into a hole or the next one */
	a->len = (1 + ksim_rng_below(rng, ksim_rng_below(rng, 4) ? pages - k : 16)) * PG;
	if (ksim_rng_below(rng, 2))
		a->len -= ksim_rng_below(rng, PG);
	if (!ksim_rng_below(rng, 16)) {
		a->len = 0;
		a->prot &= KSIM_VM_READ | KSIM_VM_WRITE | KSIM_VM_EXEC;
	}
}

/*
 * mprotect(2)'s argument contract (do_mprotect_pkey(), extracted), by
 * differential testing as mremap_argument_contract: the call as drawn on
 * one process, the canonical one (ksim_mprotect_contract()) on an
 * identical process; same result, VMAs and pages.  A call the contract
 * refuses fails with -EINVAL and changes nothing.
 */
static long mprotect_contract(struct mm_struct *mm, void *args)
{
	return ksim_mprotect_contract(args);
}

static long mprotect_run(struct mm_struct *mm, const void *args)
{
	const struct ksim_mprotect_args *a = args;

	return ksim_mprotect(mm, a->addr, a->len, a->prot);
}

static int mprotect_show(char *buf, size_t len, const void *args)
{
	const struct ksim_mprotect_args *a = args;

	return snprintf(buf, len, "mprotect(%#lx, %#lx, %#lx)", a->addr, a->len, a->prot);
}

KSIM_TEST(mprotect_argument_contract)
{
	static const struct contract_test t = {
		"mprotect", sizeof(struct ksim_mprotect_args), contract_layout, mprotect_draw,
		mprotect_contract, mprotect_run, mprotect_show, "a partial last page, PROT_SEM",
	};

	SKIP_WITHOUT_VMA_C();
	contract_run(&t);
	check_all_freed();
}

/*
 * The argument-contract tests below share one differential loop: a call
 * is drawn (every argument, garbage included) on a layout drawn from a
 * seed, run as drawn on one process and, unless the contract refuses it,
 * canonicalised and run on an identical process: same result, same VMAs,
 * pages and counters.  A refused call returns the contract's error and
 * leaves the process unchanged (snapshot).  Invariants after every call.
 */
static void contract_show_vmas(struct mm_struct *mm, const char *what)
{
	struct ksim_vma_info v[8];
	int j, n = ksim_mm_vmas(mm, v, 8);

	printf("# %s:\n", what);
	for (j = 0; j < n && j < 8; j++)
		printf("#   [%#lx, %#lx) flags %#lx pgoff %#lx%s\n", v[j].start, v[j].end, v[j].flags,
		       v[j].pgoff, v[j].anon_vma ? " anon_vma" : "");
}

void contract_run(const struct contract_test *t)
{
	struct ksim_rng *rng = ksim_test_rng();
	unsigned long runs = 1500, i, refused = 0, garbage = 0, failed = 0;
	char why[256], sraw[128], scanon[128];
	unsigned char raw[64], canon[64];

	KSIM_ASSERT(t->size <= sizeof(raw));
	for (i = 0; i < runs && !ksim_problem_count(KSIM_P_TEST); i++) {
		uint64_t seed = ksim_rng_next(rng);
		struct mm_struct *a = t->layout(seed), *b = t->layout(seed);
		struct ksim_mm_snapshot *snap = ksim_mm_snapshot(a);
		long ra, rb, want;

		memset(raw, 0, sizeof(raw));
		t->draw(rng, a, raw);
		memcpy(canon, raw, t->size);
		want = t->contract(a, canon);
		t->show(sraw, sizeof(sraw), raw);
		t->show(scanon, sizeof(scanon), canon);
		ra = t->run(a, raw);
		check(a, t->call);
		if (want) {
			refused++;
			KSIM_EXPECT(ra == want && !ksim_mm_snapshot_compare(snap, a),
				    "%s = %ld: the contract refuses it (%ld), unchanged", sraw, ra, want);
		} else {
			rb = t->run(b, canon);
			check(b, t->call);
			KSIM_EXPECT(ra == rb && contract_same(a, b, why, sizeof(why)),
				    "%s = %ld, but %ld as %s%s%s", sraw, ra, rb, scanon, ra == rb ? ": " : "",
				    ra == rb ? why : "");
			KSIM_EXPECT(!t->exact || !ra, "%s = %ld: the contract takes it, it must succeed", sraw, ra);
			failed += (unsigned long)ra >= -4095UL;	/* -errno; else 0 or an address */
			garbage += (unsigned long)ra < -4095UL && memcmp(raw, canon, t->size);
		}
		if (ksim_problem_count(KSIM_P_TEST)) {
			struct mm_struct *l = t->layout(seed);

			printf("# the failing call: %s, canonical %s; the layout is seed %#lx\n", sraw, scanon,
			       (unsigned long)seed);
			contract_show_vmas(l, "the layout");
			contract_show_vmas(a, "after the call as drawn");
			ksim_mm_exit(l);
		}
		ksim_mm_snapshot_free(snap);
		ksim_mm_exit(a);
		ksim_mm_exit(b);
	}
	printf("# %lu calls: %lu refused by the contract, %lu failed in the kernel, %lu succeeded with "
	       "garbage the kernel must ignore (%s)\n", i, refused, failed, garbage, t->garbage);
}

/* An address in one of @mm's VMAs (page @k of it, of @pages) for the draws below. */
static unsigned long contract_addr(struct ksim_rng *rng, struct mm_struct *mm, unsigned long *pages,
				   unsigned long *k)
{
	struct ksim_vma_info v[8];
	int n = ksim_mm_vmas(mm, v, 8), i = ksim_rng_below(rng, n < 8 ? n : 8);

	*pages = (v[i].end - v[i].start) / PG;
	*k = ksim_rng_below(rng, *pages);
	return v[i].start + *k * PG;
}

/* What contract_draw_range() drew, for the summary lines */
struct range_drawn {
	unsigned long hole, unaligned, zero, huge;
};

/*
 * A (start, length) pair for the calls that take one (madvise, prctl
 * PR_SET_VMA): from contract_addr(), sometimes in a hole (the window's
 * upper half is never mapped) or unaligned; a length inside the mapping or
 * past it, sometimes short of its last page, 0, wrapping or past TASK_SIZE.
 */
static void contract_draw_range(struct ksim_rng *rng, struct mm_struct *mm, unsigned long *start,
				unsigned long *len, struct range_drawn *n)
{
	unsigned long pages, k;

	*start = contract_addr(rng, mm, &pages, &k);
	if (!ksim_rng_below(rng, 16)) {
		*start = CW + (CW_PAGES / 2 + ksim_rng_below(rng, CW_PAGES / 2)) * PG;
		n->hole++;
	}
	if (!ksim_rng_below(rng, 8)) {
		*start += 1 + ksim_rng_below(rng, PG - 1);
		n->unaligned++;
	}
	*len = (1 + ksim_rng_below(rng, ksim_rng_below(rng, 4) ? pages - k : 16)) * PG;
	if (ksim_rng_below(rng, 2))
		*len -= ksim_rng_below(rng, PG);
	switch (ksim_rng_below(rng, 32)) {
	case 0:
	case 1:
		*len = 0;
		n->zero++;
		break;
	case 2:
		*len = ~0UL - ksim_rng_below(rng, 3 * PG);
		n->huge++;
		break;
	case 3:
		*len = (1UL << 47) + ksim_rng_below(rng, 1UL << 40);
		n->huge++;
		break;
	}
}

/*
 * The contract layout, and on some of them part of one mapping mlock()ed
 * (sometimes MLOCK_ONFAULT), the same on both processes: what munlock and
 * a second mlock meet.
 */
static struct mm_struct *mlock_layout(uint64_t seed)
{
	struct mm_struct *mm = contract_layout(seed);
	struct ksim_rng rng;
	unsigned long pages, k, addr;

	ksim_rng_seed(&rng, seed ^ 0x6d6c6f636bUL);
	if (ksim_rng_below(&rng, 3)) {
		addr = contract_addr(&rng, mm, &pages, &k);
		KSIM_EXPECT(!ksim_mlock(mm, addr, (1 + ksim_rng_below(&rng, pages - k)) * PG,
					KSIM_VM_LOCKED | (ksim_rng_below(&rng, 2) ? KSIM_VM_LOCKONFAULT : 0)));
	}
	return mm;
}

/*
 * Draw an mlock(2), mlock2(2) or munlock(2): mlock2's flags sometimes
 * with bits other than MLOCK_ONFAULT; a start in a mapping, sometimes
 * unaligned; a length mostly inside the mapping, sometimes past it, often
 * not a page multiple; sometimes 0 (then from an aligned start: see
 * ksim_mlock_contract()).
 */
static void mlock_draw(struct ksim_rng *rng, struct mm_struct *mm, void *args)
{
	struct ksim_mlock_args *a = args;
	unsigned long pages, k;

	a->call = ksim_rng_below(rng, 3);
	a->flags = 0;
	if (a->call == KSIM_MLOCK2) {
		a->flags = ksim_rng_below(rng, 2) ? KSIM_MLOCK_ONFAULT : 0;
		if (!ksim_rng_below(rng, 4))
			a->flags |= 1 << (1 + ksim_rng_below(rng, 30));
	}
	a->start = contract_addr(rng, mm, &pages, &k);
	a->len = (1 + ksim_rng_below(rng, ksim_rng_below(rng, 4) ? pages - k : 16)) * PG;
	if (ksim_rng_below(rng, 2))
		a->len -= ksim_rng_below(rng, PG);
	if (ksim_rng_below(rng, 4))	/* an unaligned start, its offset within the length */
		a->start += ksim_rng_below(rng, a->len < PG ? a->len : PG);
	if (!ksim_rng_below(rng, 16)) {
		a->start &= ~(PG - 1);
		a->len = 0;
	}
}

static long mlock_contract(struct mm_struct *mm, void *args)
{
	return ksim_mlock_contract(args);
}

static long mlock_run(struct mm_struct *mm, const void *args)
{
	const struct ksim_mlock_args *a = args;

	switch (a->call) {
	case KSIM_MLOCK:
		return ksim_mlock(mm, a->start, a->len, KSIM_VM_LOCKED);
	case KSIM_MLOCK2:
		return ksim_sys_call_mlock2(mm, a->start, a->len, a->flags);
	default:
		return ksim_mlock(mm, a->start, a->len, 0);
	}
}

static int mlock_show(char *buf, size_t len, const void *args)
{
	const struct ksim_mlock_args *a = args;

	if (a->call == KSIM_MLOCK2)
		return snprintf(buf, len, "mlock2(%#lx, %#lx, %#x)", a->start, a->len, a->flags);
	return snprintf(buf, len, "%s(%#lx, %#lx)", a->call == KSIM_MLOCK ? "mlock" : "munlock", a->start,
			a->len);
}

/*
 * mlock(2), mlock2(2) and munlock(2)'s argument contract (their
 * SYSCALL_DEFINEs and do_mlock(), extracted): ksim_mlock_contract().
 */
KSIM_TEST(mlock_argument_contract)
{
	static const struct contract_test t = {
		"mlock/mlock2/munlock", sizeof(struct ksim_mlock_args), mlock_layout, mlock_draw, mlock_contract,
		mlock_run, mlock_show, "an unaligned start, a partial last page",
	};

	SKIP_WITHOUT_VMA_C();
	contract_run(&t);
	check_all_freed();
}

/*
 * Draw a munmap(2): an address in a mapping (sometimes unaligned), a
 * length mostly inside it, sometimes past it into a hole or the next one,
 * often short of its last page, sometimes 0.
 */
static void munmap_draw(struct ksim_rng *rng, struct mm_struct *mm, void *args)
{
	struct ksim_munmap_args *a = args;
	unsigned long pages, k;

	a->addr = contract_addr(rng, mm, &pages, &k);
	if (!ksim_rng_below(rng, 16))
		a->addr += 1 + ksim_rng_below(rng, PG - 1);
	a->len = (1 + ksim_rng_below(rng, ksim_rng_below(rng, 4) ? pages - k : 16)) * PG;
	if (ksim_rng_below(rng, 2))
		a->len -= ksim_rng_below(rng, PG);
	if (!ksim_rng_below(rng, 16))
		a->len = 0;
}

static long munmap_contract(struct mm_struct *mm, void *args)
{
	return ksim_munmap_contract(args);
}

static long munmap_run(struct mm_struct *mm, const void *args)
{
	const struct ksim_munmap_args *a = args;

	return ksim_munmap(mm, a->addr, a->len);
}

static int munmap_show(char *buf, size_t len, const void *args)
{
	const struct ksim_munmap_args *a = args;

	return snprintf(buf, len, "munmap(%#lx, %#lx)", a->addr, a->len);
}

/* munmap(2)'s argument contract (__vm_munmap(), the tree's): ksim_munmap_contract(). */
KSIM_TEST(munmap_argument_contract)
{
	static const struct contract_test t = {
		"munmap", sizeof(struct ksim_munmap_args), contract_layout, munmap_draw, munmap_contract,
		munmap_run, munmap_show, "a partial last page",
	};

	SKIP_WITHOUT_VMA_C();
	contract_run(&t);
	check_all_freed();
}

/*
 * The contract layout with a heap above it: start_brk 8-15 pages past the
 * mappings' half of the window, the break 0-11 pages further (sometimes
 * not page-aligned), some heap pages touched; sometimes a mapping above
 * the heap that stops it growing (one page beyond its end), or a stack
 * (VM_GROWSDOWN) whose guard gap (stack_guard_gap, 256 pages) does.
 */
#define BRK_HEAP	(CW + (CW_PAGES / 2 + 8) * PG)
static struct mm_struct *brk_layout(uint64_t seed)
{
	struct mm_struct *mm = contract_layout(seed);
	struct ksim_rng rng;
	unsigned long start, brk, k;

	ksim_rng_seed(&rng, seed ^ 0x62726bUL);
	start = BRK_HEAP + ksim_rng_below(&rng, 8) * PG;
	ksim_mm_set_brk(mm, start);
	brk = start + ksim_rng_below(&rng, 12) * PG;
	if (brk > start && ksim_rng_below(&rng, 2))
		brk -= ksim_rng_below(&rng, PG);
	KSIM_EXPECT(!ksim_brk(mm, brk));
	for (k = start; k < brk; k += PG)
		if (ksim_rng_below(&rng, 2))
			KSIM_EXPECT(!ksim_touch(mm, k, true));
	switch (ksim_rng_below(&rng, 4)) {
	case 0:
		KSIM_EXPECT(!ksim_mmap(mm, BRK_HEAP + (20 + ksim_rng_below(&rng, 8)) * PG, 2 * PG, ANON_RO,
				       NULL, 0));
		break;
	case 1:
		KSIM_EXPECT(!ksim_mmap(mm, BRK_HEAP + 40 * PG, 4 * PG, ANON_RW_NORESERVE | KSIM_VM_GROWSDOWN,
				       NULL, 0));
		break;
	}
	return mm;
}

/*
 * Draw a brk(2): mostly a break in the heap's range, above or below the
 * current one, often not page-aligned; sometimes below start_brk, or
 * garbage (any 64-bit value, or one within a few pages of ~0UL).
 */
static void brk_draw(struct ksim_rng *rng, struct mm_struct *mm, void *args)
{
	unsigned long *brk = args;
	struct ksim_mm_info in;

	ksim_mm_info(mm, &in);
	switch (ksim_rng_below(rng, 16)) {
	case 0:
		*brk = in.start_brk - 1 - ksim_rng_below(rng, 4 * PG);
		break;
	case 1:
		*brk = ksim_rng_next(rng);
		break;
	case 2:
		*brk = ~0UL - ksim_rng_below(rng, 3 * PG);
		break;
	default:
		*brk = in.start_brk + ksim_rng_below(rng, 32) * PG;
		if (ksim_rng_below(rng, 2))
			*brk -= ksim_rng_below(rng, *brk > in.start_brk ? PG : 1);
		break;
	}
}

static long brk_contract(struct mm_struct *mm, void *args)
{
	struct ksim_mm_info in;

	ksim_mm_info(mm, &in);
	return ksim_brk_contract(args, in.start_brk);
}

/*
 * The kernel's brk(2) as 0 when it returned the break asked for, -ENOMEM
 * when it returned the one before the call; and the break it left:
 * the one asked for, as given, or the old one.
 */
static long brk_run(struct mm_struct *mm, const void *args)
{
	unsigned long brk = *(const unsigned long *)args, ret;
	struct ksim_mm_info before, after;

	ksim_mm_info(mm, &before);
	ret = ksim_sys_call_brk(mm, brk);
	ksim_mm_info(mm, &after);
	if (ret == brk) {
		KSIM_EXPECT(after.brk == brk, "brk(%#lx) succeeded, mm->brk %#lx", brk, after.brk);
		return 0;
	}
	KSIM_EXPECT(ret == before.brk && after.brk == before.brk,
		    "brk(%#lx) = %#lx, the break was %#lx and is %#lx", brk, ret, before.brk, after.brk);
	return -ENOMEM;
}

static int brk_show(char *buf, size_t len, const void *args)
{
	return snprintf(buf, len, "brk(%#lx)", *(const unsigned long *)args);
}

/*
 * brk(2)'s argument contract (SYSCALL_DEFINE1(brk), extracted):
 * ksim_brk_contract().  The mappings must agree; the break itself is the
 * value given (brk_run()).
 */
KSIM_TEST(brk_argument_contract)
{
	static const struct contract_test t = {
		"brk", sizeof(unsigned long), brk_layout, brk_draw, brk_contract, brk_run, brk_show,
		"an unaligned break",
	};

	SKIP_WITHOUT_VMA_C();
	contract_run(&t);
	check_all_freed();
}

/* The names the layouts and draws share, so that a drawn name meets its equal (merges) */
static const char *const anon_name_pool[] = { "a", "b", "heap" };

/*
 * The contract layout with part of one mapping named (two times in
 * three), with a name of the pool: renames, merges with an equal name,
 * clears meet a name already there.
 */
static struct mm_struct *anon_name_layout(uint64_t seed)
{
	struct mm_struct *mm = contract_layout(seed);
	struct ksim_rng rng;
	unsigned long pages, k, addr;

	ksim_rng_seed(&rng, seed ^ 0x616e6f6eUL);
	if (ksim_rng_below(&rng, 3)) {
		addr = contract_addr(&rng, mm, &pages, &k);
		KSIM_EXPECT(!ksim_set_anon_name(mm, addr, (1 + ksim_rng_below(&rng, pages - k)) * PG,
						anon_name_pool[ksim_rng_below(&rng, 3)]));
	}
	return mm;
}

/* What the draws gave, for the summary line */
static struct {
	struct range_drawn range;
	unsigned long bad_opt, null, empty, pool, valid, max, bad_char, too_long;
} anon_name_drawn;

/* A name of @n characters, printable ASCII other than the five refused */
static void anon_name_fill(struct ksim_rng *rng, char *buf, unsigned long n)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 !\"#%&'()*+,-./:;<=>?@^_{|}~";
	unsigned long i;

	for (i = 0; i < n; i++)
		buf[i] = ok[ksim_rng_below(rng, sizeof(ok) - 1)];
	buf[n] = 0;
}

/*
 * Draw a prctl(PR_SET_VMA, ...): mostly PR_SET_VMA_ANON_NAME, sometimes
 * another option (garbage); an address in a mapping, sometimes unaligned
 * or in the window's empty upper half; a length mostly inside the mapping,
 * sometimes past it, often short of its last page, sometimes 0, or
 * garbage within a few pages of ~0UL or far past TASK_SIZE; a name NULL,
 * "", one of the pool, a valid one of 1-79 characters (79 often), one with
 * a refused character ('[', ']', '\\', '$', '`', a control character,
 * DEL, a byte above 0x7f) somewhere, or one of 80-100 characters.  The
 * name lives in a static buffer until the next draw (both runs read it).
 */
static void anon_name_draw(struct ksim_rng *rng, struct mm_struct *mm, void *args)
{
	static const char refused[] = { '[', ']', '\\', '$', '`', 0x01, 0x1f, '\t', '\n', 0x7f, (char)0x80,
		(char)0xc3, (char)0xff };
	static char buf[128];
	struct ksim_anon_name_args *a = args;
	unsigned long n;
	bool bad = false;

	a->opt = KSIM_PR_SET_VMA_ANON_NAME;
	if (!ksim_rng_below(rng, 16)) {
		a->opt = ksim_rng_below(rng, 2) ? 1 + ksim_rng_below(rng, 8) : ksim_rng_next(rng) | 1;
		anon_name_drawn.bad_opt++;
	}
	contract_draw_range(rng, mm, &a->addr, &a->size, &anon_name_drawn.range);
	switch (ksim_rng_below(rng, 12)) {
	case 0:
	case 1:
		a->name = NULL;
		anon_name_drawn.null++;
		return;
	case 2:
		n = 0;
		anon_name_drawn.empty++;
		break;
	case 3:
	case 4:
		a->name = anon_name_pool[ksim_rng_below(rng, 3)];
		anon_name_drawn.pool++;
		return;
	case 5:
	case 6:
		n = 1 + ksim_rng_below(rng, KSIM_ANON_VMA_NAME_MAX_LEN - 1);
		anon_name_drawn.valid++;
		break;
	case 7:
		n = KSIM_ANON_VMA_NAME_MAX_LEN - 1;
		anon_name_drawn.max++;
		break;
	case 8:
	case 9:
	case 10:
		n = 1 + ksim_rng_below(rng, KSIM_ANON_VMA_NAME_MAX_LEN - 1);
		bad = true;
		anon_name_drawn.bad_char++;
		break;
	default:
		n = KSIM_ANON_VMA_NAME_MAX_LEN + ksim_rng_below(rng, 21);
		anon_name_drawn.too_long++;
		break;
	}
	anon_name_fill(rng, buf, n);
	if (bad)	/* one refused character anywhere, the rest valid */
		buf[ksim_rng_below(rng, n)] = refused[ksim_rng_below(rng, sizeof(refused))];
	a->name = buf;
}

static long anon_name_contract(struct mm_struct *mm, void *args)
{
	return ksim_anon_name_contract(args);
}

static long anon_name_run(struct mm_struct *mm, const void *args)
{
	const struct ksim_anon_name_args *a = args;

	return ksim_prctl_set_vma(mm, a->opt, a->addr, a->size, a->name);
}

/* the name's first characters, bytes outside printable ASCII as '?', and its length */
static int anon_name_show(char *buf, size_t len, const void *args)
{
	const struct ksim_anon_name_args *a = args;
	char name[24];
	size_t i;

	if (!a->name)
		return snprintf(buf, len, "prctl(PR_SET_VMA, %#lx, %#lx, %#lx, NULL)", a->opt, a->addr, a->size);
	for (i = 0; i < sizeof(name) - 1 && a->name[i]; i++)
		name[i] = (unsigned char)a->name[i] < 0x20 || (unsigned char)a->name[i] > 0x7e ? '?' : a->name[i];
	name[i] = 0;
	return snprintf(buf, len, "prctl(PR_SET_VMA, %#lx, %#lx, %#lx, \"%s\"%s (%zu))", a->opt, a->addr,
			a->size, name, a->name[i] ? "..." : "", strlen(a->name));
}

/*
 * prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME)'s argument contract (the tree's
 * prctl_set_vma(), 7.x's set_anon_vma_name(), madvise_set_anon_name(),
 * extracted): ksim_anon_name_contract().  Names compared too (contract_same()).
 */
KSIM_TEST(anon_name_argument_contract)
{
	static const struct contract_test t = {
		"prctl(PR_SET_VMA)", sizeof(struct ksim_anon_name_args), anon_name_layout, anon_name_draw,
		anon_name_contract, anon_name_run, anon_name_show, "a partial last page",
	};

	SKIP_WITHOUT_VMA_C();
	memset(&anon_name_drawn, 0, sizeof(anon_name_drawn));
	contract_run(&t);
	printf("# drawn: %lu other options, %lu unaligned addresses, %lu lengths 0, %lu lengths past "
	       "TASK_SIZE or wrapping; names: %lu NULL, %lu \"\", %lu of the pool, %lu valid of 1-79 "
	       "characters, %lu of 79, %lu with a refused character, %lu of 80-100 characters\n",
	       anon_name_drawn.bad_opt, anon_name_drawn.range.unaligned, anon_name_drawn.range.zero,
	       anon_name_drawn.range.huge,
	       anon_name_drawn.null, anon_name_drawn.empty, anon_name_drawn.pool, anon_name_drawn.valid,
	       anon_name_drawn.max, anon_name_drawn.bad_char, anon_name_drawn.too_long);
}

/*
 * The contract layout with part of one mapping advised before (two times
 * in three) with VMA-flag advice: what a second advice meets (undone,
 * merged back, or split again).
 */
static const int madvise_simulated[] = {
	KSIM_MADV_NORMAL, KSIM_MADV_RANDOM, KSIM_MADV_SEQUENTIAL, KSIM_MADV_DONTFORK, KSIM_MADV_DOFORK,
	KSIM_MADV_DONTDUMP, KSIM_MADV_DODUMP, KSIM_MADV_WIPEONFORK, KSIM_MADV_KEEPONFORK,
};
#define MADV_NSIM	(sizeof(madvise_simulated) / sizeof(madvise_simulated[0]))

static struct mm_struct *madvise_layout(uint64_t seed)
{
	struct mm_struct *mm = contract_layout(seed);
	struct ksim_rng rng;
	unsigned long pages, k, addr;
	long r;

	ksim_rng_seed(&rng, seed ^ 0x6d61647669UL);
	if (ksim_rng_below(&rng, 3)) {
		addr = contract_addr(&rng, mm, &pages, &k);
		r = ksim_madvise(mm, addr, (1 + ksim_rng_below(&rng, pages - k)) * PG,
				 madvise_simulated[ksim_rng_below(&rng, MADV_NSIM)]);
		KSIM_EXPECT(!r || r == -EINVAL, "the layout's madvise: %ld", r);	/* WIPEONFORK on shared */
	}
	return mm;
}

static struct {
	struct range_drawn range;
	unsigned long bad_advice, unconfigured;
} madvise_drawn;

/*
 * Draw a madvise(2): mostly the simulated advice, sometimes invalid advice
 * (negative, -1 included: 7.x's internal __MADV_SET_ANON_VMA_NAME; the
 * gaps in the numbering; past the last; any int) or advice of KSM, THP and
 * memory failure, which mm-sim's kernel is not configured for; a start in
 * a mapping, sometimes in the window's empty upper half or unaligned; a
 * length mostly inside the mapping, sometimes past it, often short of its
 * last page, sometimes 0 or garbage within a few pages of ~0UL (wraps) or
 * far past TASK_SIZE.
 */
static void madvise_draw(struct ksim_rng *rng, struct mm_struct *mm, void *args)
{
	static const int gaps[] = { 5, 6, 7, 26, 27, 99, 104, 105, 1000, -2, INT_MIN, INT_MAX };
	static const int unconfigured[] = { KSIM_MADV_MERGEABLE, KSIM_MADV_UNMERGEABLE, KSIM_MADV_HUGEPAGE,
		KSIM_MADV_NOHUGEPAGE, KSIM_MADV_COLLAPSE, KSIM_MADV_HWPOISON, KSIM_MADV_SOFT_OFFLINE };
	struct ksim_madvise_args *a = args;

	a->behavior = madvise_simulated[ksim_rng_below(rng, MADV_NSIM)];
	switch (ksim_rng_below(rng, 16)) {
	case 0:
		a->behavior = -1;
		madvise_drawn.bad_advice++;
		break;
	case 1:
		a->behavior = gaps[ksim_rng_below(rng, sizeof(gaps) / sizeof(gaps[0]))];
		madvise_drawn.bad_advice++;
		break;
	case 2:
		a->behavior = (int)ksim_rng_next(rng);
		madvise_drawn.bad_advice++;
		break;
	case 3:
		a->behavior = unconfigured[ksim_rng_below(rng, sizeof(unconfigured) / sizeof(unconfigured[0]))];
		madvise_drawn.unconfigured++;
		break;
	}
	contract_draw_range(rng, mm, &a->start, &a->len, &madvise_drawn.range);
}

static long madvise_contract(struct mm_struct *mm, void *args)
{
	return ksim_madvise_contract(args);
}

/*
 * The canonical call's result and VMA flags, from the man page (see
 * ksim_madvise_contract()): page by page in the range, the advice's flags
 * (ksim_madv_model_flags()) up to the first VMA that refuses it
 * (MADV_WIPEONFORK on a shared mapping: -EINVAL), the rest unchanged;
 * -ENOMEM if a page of the range is not mapped and nothing refused.
 * Only the window has mappings (contract_layout()).
 */
static long madvise_model(struct mm_struct *mm, const struct ksim_madvise_args *a, unsigned long *flags)
{
	unsigned long end = a->start + a->len, addr;
	struct ksim_vma_info vi;
	long ret = 0;
	bool hole = false;

	for (addr = CW; addr < CW + CW_PAGES * PG; addr += PG)
		flags[(addr - CW) / PG] = ksim_mm_find_vma(mm, addr, &vi) && vi.start <= addr ? vi.flags : 0;
	for (addr = CW; addr < CW + CW_PAGES * PG; addr += PG) {
		unsigned long *f = &flags[(addr - CW) / PG];

		if (addr < a->start || addr >= end || !*f)
			continue;
		if (a->behavior == KSIM_MADV_WIPEONFORK && (*f & KSIM_VM_SHARED)) {
			ret = -EINVAL;
			break;
		}
		*f = ksim_madv_model_flags(a->behavior, *f);
	}
	if (ret)
		return ret;
	/* a hole: a page of the range outside the window, or one in it not mapped */
	hole = a->start < CW || end > CW + CW_PAGES * PG;
	for (addr = a->start; !hole && addr < end; addr += PG)
		hole = !flags[(addr - CW) / PG];
	return hole ? -ENOMEM : 0;
}

/*
 * The call as given; if the contract accepts it (either form), its result
 * and the VMA flags after it must be the model's for the canonical form.
 */
static long madvise_run(struct mm_struct *mm, const void *args)
{
	struct ksim_madvise_args c = *(const struct ksim_madvise_args *)args;
	unsigned long want_flags[CW_PAGES], addr;
	struct ksim_vma_info vi;
	long want, r;

	if (ksim_madvise_contract(&c))
		return ksim_madvise(mm, c.start, c.len, c.behavior);	/* refused: unchanged */
	want = madvise_model(mm, &c, want_flags);
	r = ksim_madvise(mm, ((const struct ksim_madvise_args *)args)->start,
			 ((const struct ksim_madvise_args *)args)->len, c.behavior);
	KSIM_EXPECT(r == want, "madvise(%#lx, %#lx, %d) = %ld, the model says %ld", c.start, c.len,
		    c.behavior, r, want);
	for (addr = CW; addr < CW + CW_PAGES * PG; addr += PG) {
		unsigned long f = ksim_mm_find_vma(mm, addr, &vi) && vi.start <= addr ? vi.flags : 0;

		if (f != want_flags[(addr - CW) / PG]) {
			KSIM_EXPECT(false, "madvise(%#lx, %#lx, %d) = %ld: page %#lx flags %#lx, the model says %#lx",
				    c.start, c.len, c.behavior, r, addr, f, want_flags[(addr - CW) / PG]);
			break;
		}
	}
	return r;
}

static int madvise_show(char *buf, size_t len, const void *args)
{
	const struct ksim_madvise_args *a = args;

	return snprintf(buf, len, "madvise(%#lx, %#lx, %d)", a->start, a->len, a->behavior);
}

/*
 * The valid advice mm-sim does not simulate reaches its callees (kernel_mm.c)
 * through the tree's code (7.x: DONTNEED, FREE and DONTNEED_LOCKED by the
 * per-VMA read lock, the others under the mmap read lock) and fails with
 * -ENOSYS, changing nothing; over a hole only it is -ENOMEM (no VMA reached),
 * but for POPULATE_READ/WRITE, whose madvise_populate() takes the whole range.
 */
static void madvise_page_level(void)
{
	static const int advice[] = { KSIM_MADV_WILLNEED, KSIM_MADV_DONTNEED, KSIM_MADV_FREE, KSIM_MADV_REMOVE,
		KSIM_MADV_COLD, KSIM_MADV_PAGEOUT, KSIM_MADV_POPULATE_READ, KSIM_MADV_POPULATE_WRITE,
		KSIM_MADV_DONTNEED_LOCKED };
	struct mm_struct *mm = ksim_mm_new();
	struct ksim_mm_snapshot *snap;
	unsigned int i;

	KSIM_EXPECT(!ksim_mmap(mm, CW, 4 * PG, ANON_RW_NORESERVE, NULL, 0));
	KSIM_EXPECT(!ksim_touch(mm, CW, true));
	snap = ksim_mm_snapshot(mm);
	for (i = 0; i < sizeof(advice) / sizeof(advice[0]); i++) {
		KSIM_EXPECT_EQ(ksim_madvise(mm, CW, 2 * PG, advice[i]), -ENOSYS);
		KSIM_EXPECT_EQ(ksim_madvise(mm, CW + 8 * PG, 2 * PG, advice[i]),
			       advice[i] == KSIM_MADV_POPULATE_READ || advice[i] == KSIM_MADV_POPULATE_WRITE ?
			       -ENOSYS : -ENOMEM);
		check(mm, "page-level advice");
		KSIM_EXPECT(!ksim_mm_snapshot_compare(snap, mm), "advice %d changed the process", advice[i]);
	}
	ksim_mm_snapshot_free(snap);
	ksim_mm_exit(mm);
}

/*
 * madvise(2)'s argument contract (the tree's SYSCALL_DEFINE3(madvise),
 * do_madvise() and madvise_vma_behavior(), extracted):
 * ksim_madvise_contract(), and the canonical call's result and VMA flags
 * against the man page (madvise_model()).
 */
KSIM_TEST(madvise_argument_contract)
{
	static const struct contract_test t = {
		"madvise", sizeof(struct ksim_madvise_args), madvise_layout, madvise_draw, madvise_contract,
		madvise_run, madvise_show, "a partial last page",
	};

	SKIP_WITHOUT_VMA_C();
	memset(&madvise_drawn, 0, sizeof(madvise_drawn));
	contract_run(&t);
	printf("# drawn: %lu invalid advice, %lu advice of KSM, THP or memory failure (not configured), "
	       "%lu starts in a hole, %lu unaligned starts, %lu lengths 0, %lu lengths past TASK_SIZE or "
	       "wrapping\n", madvise_drawn.bad_advice, madvise_drawn.unconfigured,
	       madvise_drawn.range.hole, madvise_drawn.range.unaligned, madvise_drawn.range.zero,
	       madvise_drawn.range.huge);
	madvise_page_level();
	check_all_freed();
}

/*
 * The contract layout, and on some of them part of one mapping already
 * under a policy (MPOL_BIND, MPOL_INTERLEAVE or MPOL_PREFERRED of nodes
 * drawn from 0 and 1), the same on both processes: what a second mbind
 * splits, merges with or replaces.
 */
static struct mm_struct *mbind_layout(uint64_t seed)
{
	static const unsigned short modes[] = { KSIM_MPOL_BIND, KSIM_MPOL_INTERLEAVE, KSIM_MPOL_PREFERRED };
	struct mm_struct *mm = contract_layout(seed);
	struct ksim_rng rng;
	unsigned long pages, k, addr;

	ksim_rng_seed(&rng, seed ^ 0x6d62696e64UL);
	if (ksim_rng_below(&rng, 2)) {
		unsigned short mode = modes[ksim_rng_below(&rng, 3)];
		unsigned long nodes = 1 + ksim_rng_below(&rng, 3);

		addr = contract_addr(&rng, mm, &pages, &k);
		if (mode == KSIM_MPOL_PREFERRED)
			nodes &= -nodes;
		KSIM_EXPECT(!ksim_mbind(mm, addr, (1 + ksim_rng_below(&rng, pages - k)) * PG, mode, nodes));
	}
	return mm;
}

static struct {
	unsigned long bad_mode, high_mode, mode_flags, null, maxnode0, bits_over, bits_high, node_high,
		      offline, past_maxnode, bad_flags, unaligned, zero, wrap, outside;
} mbind_drawn;

/* a bit at or above @lo and below @hi, in @w's words (@hi > @lo) */
static void mbind_set_bit(struct ksim_rng *rng, unsigned long *w, unsigned long lo, unsigned long hi)
{
	unsigned long b = lo + ksim_rng_below(rng, hi - lo);

	w[b / 64] |= 1UL << (b % 64);
}

/*
 * Draw an mbind(2): a range as mlock's draws it (sometimes starting in a
 * hole of the window, sometimes wrapping; a length of 0 with MPOL_DEFAULT
 * and no mask); a mode mostly valid, sometimes
 * with mode flags (STATIC and RELATIVE together too), sometimes out of
 * range or garbage in its upper half; a mask of nodes 0 and 1, sometimes
 * with an offline node, a node at 64 or above inside maxnode - 1 bits, or
 * garbage past what the kernel reads, never bit maxnode - 1; maxnode from
 * 0 (with a NULL mask) past PAGE_SIZE * 8 + 1; flags mostly
 * STRICT/MOVE/MOVE_ALL, sometimes an undefined bit.
 */
static void mbind_draw(struct ksim_rng *rng, struct mm_struct *mm, void *args)
{
	struct ksim_mbind_args *a = args;
	unsigned long pages, k, bits, r, i;

	a->start = contract_addr(rng, mm, &pages, &k);
	if (!ksim_rng_below(rng, 16)) {
		a->start = CW + ksim_rng_below(rng, CW_PAGES) * PG;
		mbind_drawn.outside++;
	}
	a->len = (1 + ksim_rng_below(rng, ksim_rng_below(rng, 4) ? pages - k : 16)) * PG;
	if (ksim_rng_below(rng, 2))
		a->len -= ksim_rng_below(rng, PG);
	if (!ksim_rng_below(rng, 16)) {
		a->start += 1 + ksim_rng_below(rng, PG - 1);
		mbind_drawn.unaligned++;
	}
	if (!ksim_rng_below(rng, 16)) {
		a->len = 0;
		mbind_drawn.zero++;
	} else if (!ksim_rng_below(rng, 32)) {
		a->len = -a->start + (1 + ksim_rng_below(rng, 16)) * PG - ksim_rng_below(rng, PG);
		mbind_drawn.wrap++;
	}

	r = ksim_rng_below(rng, 16);
	if (r < 14) {
		a->mode = ksim_rng_below(rng, KSIM_MPOL_MAX);
	} else {
		a->mode = r < 15 ? KSIM_MPOL_MAX + ksim_rng_below(rng, 8) : ksim_rng_below(rng, 1UL << 32);
		mbind_drawn.bad_mode++;
	}
	if (!ksim_rng_below(rng, 8))
		a->mode |= KSIM_MPOL_F_STATIC_NODES;
	if (!ksim_rng_below(rng, 8))
		a->mode |= KSIM_MPOL_F_RELATIVE_NODES;
	if (!ksim_rng_below(rng, a->mode == KSIM_MPOL_BIND || a->mode == KSIM_MPOL_PREFERRED_MANY ? 3 : 16))
		a->mode |= KSIM_MPOL_F_NUMA_BALANCING;
	mbind_drawn.mode_flags += (a->mode & (KSIM_MPOL_F_STATIC_NODES | KSIM_MPOL_F_RELATIVE_NODES |
					      KSIM_MPOL_F_NUMA_BALANCING)) != 0;
	if (!ksim_rng_below(rng, 4)) {
		a->mode |= (1 + ksim_rng_below(rng, 0xffffffffUL)) << 32;
		mbind_drawn.high_mode++;
	}

	r = ksim_rng_below(rng, 32);
	a->maxnode = r == 0 ? 0 : r == 1 ? 1 : r < 18 ? 2 + ksim_rng_below(rng, 64) : r < 24 ? 65 :
		     r < 28 ? 66 + ksim_rng_below(rng, 64 * KSIM_MBIND_MASK_WORDS - 65) :
		     r < 31 ? 64 * KSIM_MBIND_MASK_WORDS + 1 + ksim_rng_below(rng, PG * 8 - 64 * 2) :
		     PG * 8 + 2 + ksim_rng_below(rng, 1UL << 20);
	bits = a->maxnode - 1;
	mbind_drawn.bits_over += a->maxnode && bits > PG * 8;
	mbind_drawn.maxnode0 += !a->maxnode;
	/* MPOL_DEFAULT and MPOL_LOCAL take no nodes: mostly none for them */
	a->null = !ksim_rng_below(rng, (a->mode & 0xff) == KSIM_MPOL_DEFAULT ||
				       (a->mode & 0xff) == KSIM_MPOL_LOCAL ? 2 : 16);
	a->mask[0] = ksim_rng_below(rng, 8) ? 1 + ksim_rng_below(rng, 3) : 0;
	if (!ksim_rng_below(rng, 4)) {
		mbind_set_bit(rng, a->mask, KSIM_NR_ONLINE_NODES, 64);
		mbind_drawn.offline++;
	}
	/* garbage past maxnode - 1 bits, never bit maxnode - 1 (the man page's last) */
	if (bits + 1 < 64 && ksim_rng_below(rng, 3)) {
		mbind_set_bit(rng, a->mask, bits + 1, 64);
		mbind_drawn.past_maxnode++;
	}
	for (i = 1; i < KSIM_MBIND_MASK_WORDS; i++) {
		if (ksim_rng_below(rng, 12))
			continue;
		if (i * 64 >= bits) {	/* a word the kernel does not read */
			mbind_set_bit(rng, a->mask, i * 64, i * 64 + 64);
			mbind_drawn.past_maxnode++;
		} else {		/* a node at 64 or above, inside the bits read */
			mbind_set_bit(rng, a->mask, i * 64, bits < i * 64 + 64 ? bits : i * 64 + 64);
			mbind_drawn.node_high++;
		}
	}
	mbind_drawn.bits_high += bits > 64 && bits <= PG * 8;
	/* never bit maxnode - 1 (the man page's last, not the kernel's) */
	if (bits < 64 * KSIM_MBIND_MASK_WORDS)
		a->mask[bits / 64] &= ~(1UL << (bits % 64));
	/* maxnode 0 with no mask only, a length of 0 with MPOL_DEFAULT and no mask: ksim_mbind_contract() */
	if (!a->maxnode)
		a->null = true;
	if (!a->len) {
		a->mode = (a->mode & ~0xffffffffUL) | (a->mode & (KSIM_MPOL_F_STATIC_NODES |
			  KSIM_MPOL_F_RELATIVE_NODES | KSIM_MPOL_F_NUMA_BALANCING));
		a->null = true;
	}
	mbind_drawn.null += a->null;

	a->flags = ksim_rng_below(rng, 8);
	if (!ksim_rng_below(rng, 16)) {
		a->flags |= 1U << (3 + ksim_rng_below(rng, 29));
		mbind_drawn.bad_flags++;
	}
}

/* what [start, end) of @ctx (the process) meets */
static enum ksim_cover mbind_cover(void *ctx, unsigned long start, unsigned long end)
{
	struct mm_struct *mm = ctx;
	struct ksim_vma_info vi;
	unsigned long at = start;
	bool some = false, hole = false;

	while (at < end && ksim_mm_find_vma(mm, at, &vi) && vi.start < end) {
		hole |= vi.start > at;
		some = true;
		at = vi.end;
	}
	hole |= at < end;
	return !some ? KSIM_COVER_NONE : hole ? KSIM_COVER_PART : KSIM_COVER_ALL;
}

static long mbind_contract(struct mm_struct *mm, void *args)
{
	return ksim_mbind_contract(args, mbind_cover, mm);
}

static long mbind_run(struct mm_struct *mm, const void *args)
{
	const struct ksim_mbind_args *a = args;
	static unsigned long mask[KSIM_PAGE_SIZE * 8 / 64];	/* as much as get_nodes() reads */

	memset(mask, 0, sizeof(mask));
	memcpy(mask, a->mask, sizeof(a->mask));
	return ksim_sys_call_mbind(mm, a->start, a->len, a->mode, a->null ? NULL : mask, a->maxnode,
				   a->flags);
}

static int mbind_show(char *buf, size_t len, const void *args)
{
	const struct ksim_mbind_args *a = args;

	if (a->null)
		return snprintf(buf, len, "mbind(%#lx, %#lx, %#lx, NULL, %lu, %#x)", a->start, a->len,
				a->mode, a->maxnode, a->flags);
	return snprintf(buf, len, "mbind(%#lx, %#lx, %#lx, {%#lx, %#lx, %#lx}, %lu, %#x)", a->start,
			a->len, a->mode, a->mask[0], a->mask[1], a->mask[2], a->maxnode, a->flags);
}

/*
 * mbind(2)'s argument contract (SYSCALL_DEFINE6(mbind), kernel_mbind(),
 * sanitize_mpol_flags(), get_nodes(), do_mbind(), mpol_new(),
 * mpol_set_nodemask(), extracted): ksim_mbind_contract().  The resulting
 * policies are compared as the kernel's mpol_equal() compares them.
 */
KSIM_TEST(mbind_argument_contract)
{
	static const struct contract_test t = {
		"mbind", sizeof(struct ksim_mbind_args), mbind_layout, mbind_draw, mbind_contract,
		mbind_run, mbind_show, "the mode's upper half, a partial last page, nodes past maxnode - 1 "
		"or offline, PREFERRED's nodes after the first",
	};

	SKIP_WITHOUT_VMA_C();
	memset(&mbind_drawn, 0, sizeof(mbind_drawn));
	contract_run(&t);
	printf("# drawn: %lu modes out of range, %lu with garbage in the upper half, %lu with mode flags; "
	       "masks: %lu NULL, %lu maxnode 0, %lu maxnode - 1 past PAGE_SIZE * 8, %lu of 65 to PAGE_SIZE * 8 bits, "
	       "%lu with a node at 64 or above, %lu with an offline node, %lu with bits past maxnode - 1; "
	       "%lu undefined flags, %lu unaligned starts, %lu lengths 0, %lu wrapping, %lu starts "
	       "anywhere in the window\n", mbind_drawn.bad_mode, mbind_drawn.high_mode,
	       mbind_drawn.mode_flags, mbind_drawn.null, mbind_drawn.maxnode0, mbind_drawn.bits_over,
	       mbind_drawn.bits_high,
	       mbind_drawn.node_high, mbind_drawn.offline, mbind_drawn.past_maxnode, mbind_drawn.bad_flags,
	       mbind_drawn.unaligned, mbind_drawn.zero, mbind_drawn.wrap, mbind_drawn.outside);
	check_all_freed();
}
