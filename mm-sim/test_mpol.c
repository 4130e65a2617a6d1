// SPDX-License-Identifier: GPL-2.0
/*
 * NUMA policies on VMAs: mbind(2) (ksim_mbind()) through the tree's
 * mbind_range()/vma_replace_policy() and mm/vma.c's vma_modify_policy(),
 * the emulated policy objects duplicated by split, fork and mremap
 * (vma_dup_policy()) and freed once; every check() matches each policy's
 * refcount with the VMAs pointing at it.
 */
#include <mm_sim/kernel.h>
#include <mm_sim/sim.h>
#include <ksim/test.h>
#include <ksim/fault.h>
#include <ksim/slab.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "test_mm_sim.h"

#if KSIM_HAVE_MM_VMA_C

#define PG		KSIM_PAGE_SIZE
#define BASE		0x30000000UL
#define PA(p)		(BASE + (unsigned long)(p) * PG)
#define RW		(KSIM_VM_READ | KSIM_VM_WRITE | KSIM_VM_MAYREAD | KSIM_VM_MAYWRITE | KSIM_VM_MAYEXEC)
#define BIND		KSIM_MPOL_BIND
#define ILV		KSIM_MPOL_INTERLEAVE

/* One VMA expected, in pages from BASE, with its policy (mode 0: none). */
struct pwant {
	int start, end;
	unsigned short mode;
	unsigned long nodes;
};

/* the policy's mode and nodes; none where the entry's mode is 0 */
static bool mpol_match(struct vm_area_struct *vma, const void *want, char *buf, size_t len)
{
	const struct pwant *w = want;
	struct mempolicy *pol = vma->vm_policy;

	if (pol)
		snprintf(buf, len, "m%u/%#lx", pol->mode, pol->nodes.bits[0]);
	else
		snprintf(buf, len, "%s", "");
	return w && !pol == !w->mode && (!pol || (pol->mode == w->mode && pol->nodes.bits[0] == w->nodes));
}
static const struct vma_prop mpol_prop = {
	.legend = "", .want_size = sizeof(struct pwant), .match = mpol_match,
};
#define VMAS(mm, what, ...)	VMA_LIST_IS(mm, what, BASE, &mpol_prop, struct pwant, __VA_ARGS__)
#define touch_range(mm, s, e, step)	touch_pages(mm, BASE, s, e, step)

/* mbind splits, merges equal neighbours, keeps different ones apart, MPOL_DEFAULT merges back. */
KSIM_TEST(mbind_policy)
{
	struct mm_struct *mm = ksim_mm_new(), *c;
	unsigned long nodes;
	unsigned short mode;
	const void *pp, *pc;

	KSIM_ASSERT(mm);
	KSIM_ASSERT(!ksim_mmap(mm, PA(0), 64 * PG, RW, NULL, 0));
	touch_range(mm, 0, 64, 5);
	KSIM_EXPECT(!ksim_mbind(mm, PA(8), 16 * PG, BIND, 1));
	VMAS(mm, "mbind [8,24)", { 0, 8 }, { 8, 24, BIND, 1 }, { 24, 64 });
	/* an equal policy (another object) next to it: one VMA */
	KSIM_EXPECT(!ksim_mbind(mm, PA(24), 8 * PG, BIND, 1));
	VMAS(mm, "mbind [24,32) equal", { 0, 8 }, { 8, 32, BIND, 1 }, { 32, 64 });
	/* a different one over part of it: apart */
	KSIM_EXPECT(!ksim_mbind(mm, PA(16), 24 * PG, ILV, 3));
	VMAS(mm, "mbind [16,40) other", { 0, 8 }, { 8, 16, BIND, 1 }, { 16, 40, ILV, 3 }, { 32 + 8, 64 });
	/* a hole: -EFAULT, nothing changes */
	KSIM_EXPECT(ksim_mbind(mm, PA(60), 8 * PG, BIND, 1) == -EFAULT);
	KSIM_EXPECT(ksim_mbind(mm, PA(8) + 1, PG, BIND, 1) == -EINVAL);
	VMAS(mm, "refused", { 0, 8 }, { 8, 16, BIND, 1 }, { 16, 40, ILV, 3 }, { 40, 64 });

	/* split by munmap, moved by mremap, duplicated by fork: each VMA its own object */
	KSIM_EXPECT(!ksim_munmap(mm, PA(20), 4 * PG));
	VMAS(mm, "munmap [20,24)", { 0, 8 }, { 8, 16, BIND, 1 }, { 16, 20, ILV, 3 }, { 24, 40, ILV, 3 },
	     { 40, 64 });
	if (ksim_mm_has_mremap()) {
		KSIM_EXPECT(ksim_mremap(mm, PA(24), 16 * PG, 16 * PG, KSIM_MREMAP_MAYMOVE | KSIM_MREMAP_FIXED,
					PA(80)) == (long)PA(80));
		VMAS(mm, "mremap [24,40) to 80", { 0, 8 }, { 8, 16, BIND, 1 }, { 16, 20, ILV, 3 }, { 40, 64 },
		     { 80, 96, ILV, 3 });
	}
	KSIM_ASSERT(!ksim_fork(mm, &c));
	pp = ksim_vma_policy_at(mm, PA(8), &mode, &nodes);
	pc = ksim_vma_policy_at(c, PA(8), &mode, &nodes);
	KSIM_EXPECT(pp && pc && pp != pc && mode == BIND && nodes == 1, "child's policy %p, parent's %p",
		    pc, pp);
	VMAS(c, "child", { 0, 8 }, { 8, 16, BIND, 1 }, { 16, 20, ILV, 3 }, { 40, 64 }, { 80, 96, ILV, 3 });
	ksim_mm_exit(c);
	check(mm, "child exited");

	/* MPOL_DEFAULT over everything: no policy left, the pieces merge back */
	KSIM_EXPECT(!ksim_mbind(mm, PA(0), 20 * PG, KSIM_MPOL_DEFAULT, 0));
	VMAS(mm, "mbind default [0,20)", { 0, 20 }, { 40, 64 }, { 80, 96, ILV, 3 });
	KSIM_EXPECT(!ksim_mbind(mm, PA(80), 16 * PG, KSIM_MPOL_DEFAULT, 0));
	VMAS(mm, "mbind default [80,96)", { 0, 20 }, { 40, 64 }, { 80, 96 });
	ksim_mm_exit(mm);
	check(NULL, "exit");
	check_all_freed();
}


/* Per page of [0, 48): 0 no policy, else the policy's nodes. */
static void page_policies(struct mm_struct *mm, unsigned long *out)
{
	for (int p = 0; p < 48; p++) {
		unsigned short mode;
		unsigned long nodes = 0;

		out[p] = ksim_vma_policy_at(mm, PA(p), &mode, &nodes) ? nodes : 0;
	}
}

/*
 * [0,48) faulted, nodes 1 on [ia, ib); mbind [ma, mb) to nodes 2 with
 * allocation N failed, N = 1 .. all: -ENOMEM or success; the pages given the
 * new policy are [ma, X) for some X (mbind_range() goes in address order
 * and stops at the first error; a VMA split for the new policy whose
 * vma_replace_policy() then fails keeps its old one), the others keep
 * theirs; refcounts match (check()), nothing leaks; on success the VMA list.
 */
static void mbind_sweep_case(int ia, int ib, int ma, int mb, const struct pwant *w, int nw)
{
	unsigned long total = 0, n, failed = 0;
	struct ksim_fault_config cfg;

	for (n = 0; ; n++) {
		unsigned long live0 = live_objects(), calls, pol[48];
		struct mm_struct *mm = ksim_mm_new();
		int r, x;

		KSIM_ASSERT(!ksim_mmap(mm, PA(0), 48 * PG, RW, NULL, 0));
		touch_range(mm, 0, 48, 3);
		KSIM_EXPECT(!ksim_mbind(mm, PA(ia), (ib - ia) * PG, BIND, 1));
		check(mm, "built");
		memset(&cfg, 0, sizeof(cfg));
		cfg.nth = n ? n : ~0UL;	/* n = 0: count the allocations of an unfailed call */
		cfg.times = 1;
		ksim_fault_set(&cfg);
		r = ksim_mbind(mm, PA(ma), (mb - ma) * PG, BIND, 2);
		calls = ksim_fault_calls();
		ksim_fault_reset();
		if (!n)
			total = calls;
		check(mm, "after the mbind with a failed allocation");
		KSIM_EXPECT(!r || r == -ENOMEM, "allocation %lu failed: %d", n, r);
		failed += r != 0;
		page_policies(mm, pol);
		for (x = ma; x < mb && pol[x] == 2; x++)
			;
		for (int p = 0; p < 48; p++) {
			unsigned long want = p >= ma && p < x ? 2 : (p >= ia && p < ib ? 1 : 0);

			if (pol[p] != want) {
				KSIM_EXPECT(0, "allocation %lu failed (%d): page %d has nodes %#lx, the prefix [%d,%d) "
					    "means %#lx", n, r, p, pol[p], ma, x, want);
				break;
			}
		}
		if (!r) {
			KSIM_EXPECT(x == mb, "success, but nodes 2 only on [%d,%d)", ma, x);
			vma_list_is(mm, "mbind", BASE, &mpol_prop, w, nw);
		}
		ksim_mm_exit(mm);
		check(NULL, "exit after the sweep step");
		KSIM_EXPECT(live_objects() == live0, "allocation %lu failed: %lu objects leaked", n,
			    live_objects() - live0);
		if (ksim_problem_count(KSIM_P_TEST) || (n && n >= total))
			break;
	}
	printf("# mbind [%d,%d) over nodes 1 on [%d,%d): %lu allocations, %lu calls failed\n", ma, mb, ia, ib,
	       total, failed);
	KSIM_EXPECT(total > 0);
}

KSIM_TEST(mbind_sweep)
{
	/* split the unpolicied ends, replace and merge across a policied VMA */
	static const struct pwant a[] = { { 0, 4 }, { 4, 40, BIND, 2 }, { 40, 48 } };
	/* split a policied VMA twice: each split duplicates its policy */
	static const struct pwant b[] = { { 0, 8 }, { 8, 16, BIND, 1 }, { 16, 24, BIND, 2 }, { 24, 40, BIND, 1 },
					  { 40, 48 } };

	mbind_sweep_case(8, 16, 4, 40, a, 3);
	mbind_sweep_case(8, 40, 16, 24, b, 5);
	check_all_freed();
}

/*
 * Fail each allocation of a fork of a process whose VMAs carry policies:
 * dup_mmap() duplicates each policy (vma_dup_policy()) and must put it on
 * every later failure of that VMA's copy (anon_vma_fork(), the tree
 * store); a reference left behind fails check()'s refcount match.
 */
KSIM_TEST(fork_sweep_policies)
{
	struct file *f = ksim_file_open("libm.so");
	struct mm_struct *p = build_small(f, 0);

	KSIM_EXPECT(!ksim_mmap(p, PA(0), 64 * PG, RW, NULL, 0));
	touch_pages(p, BASE, 0, 64, 5);
	KSIM_EXPECT(!ksim_mbind(p, PA(8), 16 * PG, BIND, 1));
	KSIM_EXPECT(!ksim_mbind(p, PA(32), 8 * PG, ILV, 3));
	KSIM_EXPECT(!ksim_mbind(p, PA(48), 8 * PG, BIND, 2));
	check(p, "build");
	fork_sweep("policies", p, 1);
	ksim_mm_exit(p);
	ksim_file_close(f);
	check(NULL, "exit");
	check_all_freed();
}

#endif /* KSIM_HAVE_MM_VMA_C */
