// SPDX-License-Identifier: GPL-2.0
/*
 * userfaultfd registration through the tree's own mm/userfaultfd.c
 * (userfaultfd_register_range(), userfaultfd_clear_vma(),
 * userfaultfd_release_all(), extracted) and mm/vma.c's
 * vma_modify_flags_uffd(): UFFDIO_REGISTER/UNREGISTER (ksim_uffd_register(),
 * ksim_uffd_unregister()) and the monitor closing its file
 * (ksim_uffd_close()), checked against the VMA list each step must leave,
 * under failed allocations, and across fork.
 */
#include <mm_sim/kernel.h>
#include <mm_sim/sim.h>
#include <mm_sim/query.h>
#include <mm_sim/contract.h>
#include <ksim/test.h>
#include <ksim/fault.h>
#include <ksim/slab.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test_mm_sim.h"

#if KSIM_HAVE_MM_VMA_C

#define PG		KSIM_PAGE_SIZE
#define BASE		0x20000000UL
#define PA(p)		(BASE + (unsigned long)(p) * PG)
#define RW		(KSIM_VM_READ | KSIM_VM_WRITE | KSIM_VM_MAYREAD | KSIM_VM_MAYWRITE | KSIM_VM_MAYEXEC)
#define RO_MAYWRITE	(KSIM_VM_READ | KSIM_VM_MAYREAD | KSIM_VM_MAYWRITE | KSIM_VM_MAYEXEC)
#define MISSING		KSIM_UFFDIO_REGISTER_MODE_MISSING

/* One VMA the test expects, in pages from BASE, and the context it has (NULL: none). */
struct want {
	int start, end;
	struct userfaultfd_ctx *ctx;
};

/* the context, and VM_UFFD_MISSING iff a context */
static bool uffd_match(struct vm_area_struct *vma, const void *want, char *buf, size_t len)
{
	const struct want *w = want;
	struct userfaultfd_ctx *ctx = vma->vm_userfaultfd_ctx.ctx;
	bool missing = vma->vm_flags & VM_UFFD_MISSING;

	snprintf(buf, len, "%s", ctx ? (missing ? "R" : "r!") : (missing ? "!M" : ""));
	return w && ctx == w->ctx && missing == (w->ctx != NULL);
}
static const struct vma_prop uffd_prop = {
	.legend = " (R: registered)", .want_size = sizeof(struct want), .match = uffd_match,
};
#define VMAS(mm, what, ...)	VMA_LIST_IS(mm, what, BASE, &uffd_prop, struct want, __VA_ARGS__)
#define touch_range(mm, s, e, step)	touch_pages(mm, BASE, s, e, step)

/* Register, extend, re-register, unregister and close: the splits and the merges back. */
KSIM_TEST(uffd_register)
{
	struct userfaultfd_ctx *c1, *c2;
	struct mm_struct *mm = ksim_mm_new();
	struct file *f = ksim_file_open("lib.so");

	KSIM_ASSERT(mm);
	KSIM_ASSERT(!ksim_mmap(mm, PA(0), 64 * PG, RW, NULL, 0));
	touch_range(mm, 0, 64, 5);			/* an anon_vma the splits share */
	KSIM_ASSERT(!ksim_mmap(mm, PA(80), 8 * PG, RW, f, 0));	/* a file: cannot userfault */
	KSIM_ASSERT(!ksim_mmap(mm, PA(96), 8 * PG, KSIM_VM_READ | KSIM_VM_MAYREAD, NULL, 0));
	c1 = ksim_uffd_open(mm, 0);
	c2 = ksim_uffd_open(mm, 0);
	KSIM_ASSERT(c1 && c2);
	VMAS(mm, "built", { 0, 64 }, { 80, 88 }, { 96, 104 });

	/* partial range: split at both ends */
	KSIM_EXPECT(!ksim_uffd_register(c1, PA(8), 16 * PG, MISSING));
	VMAS(mm, "register [8,24)", { 0, 8 }, { 8, 24, c1 }, { 24, 64 }, { 80, 88 }, { 96, 104 });
	/* the adjacent range, same context: merges with the registered prev */
	KSIM_EXPECT(!ksim_uffd_register(c1, PA(24), 8 * PG, MISSING));
	VMAS(mm, "register [24,32)", { 0, 8 }, { 8, 32, c1 }, { 32, 64 }, { 80, 88 }, { 96, 104 });
	/* and before it: merges with the registered next */
	KSIM_EXPECT(!ksim_uffd_register(c1, PA(0), 8 * PG, MISSING));
	VMAS(mm, "register [0,8)", { 0, 32, c1 }, { 32, 64 }, { 80, 88 }, { 96, 104 });
	/* again, over a registered VMA and a hole: nothing to do for the VMA */
	KSIM_EXPECT(!ksim_uffd_register(c1, PA(0), 40 * PG, MISSING));
	VMAS(mm, "register [0,40) again", { 0, 40, c1 }, { 40, 64 }, { 80, 88 }, { 96, 104 });

	/* another context: not over c1's VMAs; beside them it does not merge with them */
	KSIM_EXPECT(ksim_uffd_register(c2, PA(16), 32 * PG, MISSING) == -EBUSY);
	KSIM_EXPECT(!ksim_uffd_register(c2, PA(40), 8 * PG, MISSING));
	VMAS(mm, "c2 [40,48)", { 0, 40, c1 }, { 40, 48, c2 }, { 48, 64 }, { 80, 88 }, { 96, 104 });

	/* the ioctls' refusals change nothing */
	KSIM_EXPECT(ksim_uffd_register(c2, PA(80), 8 * PG, MISSING) == -EINVAL, "file VMA");
	KSIM_EXPECT(ksim_uffd_register(c2, PA(96), 8 * PG, MISSING) == -EPERM, "no VM_MAYWRITE");
	KSIM_EXPECT(ksim_uffd_register(c2, PA(48), 40 * PG, MISSING) == -EINVAL, "range reaching a file");
	KSIM_EXPECT(ksim_uffd_register(c2, PA(48), 8 * PG, KSIM_UFFDIO_REGISTER_MODE_WP) == -EINVAL);
	KSIM_EXPECT(ksim_uffd_register(c2, PA(48), 8 * PG, 0) == -EINVAL);
	KSIM_EXPECT(ksim_uffd_register(c2, PA(48) + 1, 8 * PG, MISSING) == -EINVAL);
	KSIM_EXPECT(ksim_uffd_register(c2, PA(64), 16 * PG, MISSING) == -EINVAL, "a hole only");
	/* a tree without the check (6.12.95) unregisters c2's VMA: uffd_argument_contract has that */
	if (KSIM_UFFD_UNREGISTER_OWN_CTX)
		KSIM_EXPECT(ksim_uffd_unregister(c1, PA(32), 16 * PG) == -EINVAL, "c2's VMA through c1");
	VMAS(mm, "refused", { 0, 40, c1 }, { 40, 48, c2 }, { 48, 64 }, { 80, 88 }, { 96, 104 });

	/* unregister the middle of c1's VMA: split, the rest keeps c1 */
	KSIM_EXPECT(!ksim_uffd_unregister(c1, PA(4), 8 * PG));
	VMAS(mm, "unregister [4,12)", { 0, 4, c1 }, { 4, 12 }, { 12, 40, c1 }, { 40, 48, c2 }, { 48, 64 },
	     { 80, 88 }, { 96, 104 });
	/* c2's monitor closes: its VMA merges with the unregistered next */
	ksim_uffd_close(c2);
	VMAS(mm, "close c2", { 0, 4, c1 }, { 4, 12 }, { 12, 40, c1 }, { 40, 64 }, { 80, 88 }, { 96, 104 });
	/* unregister all of it (a hole and an unregistered VMA inside): one VMA again */
	KSIM_EXPECT(!ksim_uffd_unregister(c1, PA(0), 72 * PG));
	VMAS(mm, "unregister [0,72)", { 0, 64 }, { 80, 88 }, { 96, 104 });

	/* register pieces, then close: userfaultfd_release_all() merges them back */
	KSIM_EXPECT(!ksim_uffd_register(c1, PA(8), 8 * PG, MISSING));
	KSIM_EXPECT(!ksim_uffd_register(c1, PA(32), 8 * PG, MISSING));
	KSIM_EXPECT(!ksim_uffd_register(c1, PA(56), 8 * PG, MISSING));
	VMAS(mm, "three ranges", { 0, 8 }, { 8, 16, c1 }, { 16, 32 }, { 32, 40, c1 }, { 40, 56 },
	     { 56, 64, c1 }, { 80, 88 }, { 96, 104 });
	ksim_uffd_close(c1);
	VMAS(mm, "close c1", { 0, 64 }, { 80, 88 }, { 96, 104 });

	ksim_mm_exit(mm);
	ksim_file_close(f);
	check(NULL, "exit");
	check_all_freed();
}

/* Fork of an mm with registered pieces: EVENT_FORK contexts are duplicated, the others dropped. */
KSIM_TEST(uffd_register_fork)
{
	struct userfaultfd_ctx *cf, *cp, *cc;
	struct mm_struct *p = ksim_mm_new(), *c;

	KSIM_ASSERT(p);
	KSIM_ASSERT(!ksim_mmap(p, PA(0), 64 * PG, RW, NULL, 0));
	touch_range(p, 0, 64, 3);
	cf = ksim_uffd_open(p, KSIM_UFFD_FEATURE_EVENT_FORK);
	cp = ksim_uffd_open(p, 0);
	KSIM_ASSERT(cf && cp);
	KSIM_EXPECT(!ksim_uffd_register(cf, PA(8), 8 * PG, MISSING));
	KSIM_EXPECT(!ksim_uffd_register(cp, PA(32), 8 * PG, MISSING));
	VMAS(p, "parent", { 0, 8 }, { 8, 16, cf }, { 16, 32 }, { 32, 40, cp }, { 40, 64 });
	KSIM_ASSERT(!ksim_fork(p, &c));
	cc = ksim_uffd_ctx_at(c, PA(8));
	KSIM_EXPECT(cc && cc != cf);
	/* the dropped context leaves its VMA split in the child (dup_userfaultfd() does not merge) */
	VMAS(c, "child", { 0, 8 }, { 8, 16, cc }, { 16, 32 }, { 32, 40 }, { 40, 64 });
	VMAS(p, "parent after fork", { 0, 8 }, { 8, 16, cf }, { 16, 32 }, { 32, 40, cp }, { 40, 64 });
	/*
	 * the child's monitor unregisters: cleared, but the pieces stay apart,
	 * each faulted with an anon_vma of its own (anon_vma_fork())
	 */
	KSIM_EXPECT(cc && !ksim_uffd_unregister(cc, PA(0), 64 * PG));
	VMAS(c, "child unregistered", { 0, 8 }, { 8, 16 }, { 16, 32 }, { 32, 40 }, { 40, 64 });
	ksim_mm_exit(c);
	ksim_mm_exit(p);
	ksim_uffd_close_all();
	check(NULL, "exit");
	check_all_freed();
}

/*
 * mremap moves a registered VMA whose context lacks UFFD_FEATURE_EVENT_REMAP
 * next to a VMA registered to the same context: the moved VMA loses its
 * registration (mremap_userfaultfd_prep()), the neighbour keeps its own.
 * Both unfaulted, so the copy would otherwise merge with the neighbour
 * (copy_vma() gives an unfaulted anonymous VMA the page offset of its new
 * address).
 */
KSIM_TEST(uffd_mremap)
{
	struct userfaultfd_ctx *ctx;
	struct mm_struct *mm = ksim_mm_new();

	KSIM_ASSERT(mm);
	KSIM_ASSERT(!ksim_mmap(mm, PA(0), 8 * PG, RW, NULL, 0));
	KSIM_ASSERT(!ksim_mmap(mm, PA(32), 16 * PG, RW, NULL, 0));
	ctx = ksim_uffd_open(mm, 0);
	KSIM_ASSERT(ctx);
	KSIM_EXPECT(!ksim_uffd_register(ctx, PA(0), 48 * PG, MISSING));
	VMAS(mm, "registered", { 0, 8, ctx }, { 32, 48, ctx });
	KSIM_EXPECT(ksim_mremap(mm, PA(0), 8 * PG, 8 * PG, KSIM_MREMAP_MAYMOVE | KSIM_MREMAP_FIXED, PA(24)) ==
		    (long)PA(24));
	VMAS(mm, "moved next to the registered VMA", { 24, 32 }, { 32, 48, ctx });
	ksim_uffd_close(ctx);
	VMAS(mm, "closed", { 24, 48 });
	ksim_mm_exit(mm);
	check(NULL, "exit");
	check_all_freed();
}


enum uffd_op { OP_REGISTER, OP_UNREGISTER, OP_CLOSE };

/*
 * [0,48) RW (faulted), [48,56) read-only with VM_MAYWRITE (the flags keep
 * them apart).  REGISTER starts from [0,8) registered, UNREGISTER from all
 * of [0,56), CLOSE from what REGISTER leaves: [0,48) and [48,52).
 */
static struct mm_struct *sweep_build(enum uffd_op op, struct userfaultfd_ctx **ctx)
{
	struct mm_struct *mm = ksim_mm_new();

	KSIM_EXPECT(!ksim_mmap(mm, PA(0), 48 * PG, RW, NULL, 0));
	touch_range(mm, 0, 48, 3);
	KSIM_EXPECT(!ksim_mmap(mm, PA(48), 8 * PG, RO_MAYWRITE, NULL, 0));
	*ctx = ksim_uffd_open(mm, 0);
	KSIM_EXPECT(*ctx);
	if (op == OP_UNREGISTER) {
		KSIM_EXPECT(!ksim_uffd_register(*ctx, PA(0), 56 * PG, MISSING));
		return mm;
	}
	KSIM_EXPECT(!ksim_uffd_register(*ctx, PA(0), 8 * PG, MISSING));
	if (op == OP_CLOSE)
		KSIM_EXPECT(!ksim_uffd_register(*ctx, PA(8), 44 * PG, MISSING));
	return mm;
}

#define MASK(a, b)	((((b) < 64 ? 1UL << (b) : 0UL) - 1) & ~((1UL << (a)) - 1))

/* The window's pages [0, 64) whose VMA has a context, as a bitmap. */
static unsigned long registered_pages(struct mm_struct *mm)
{
	struct vm_area_struct *vma;
	VMA_ITERATOR(vmi, mm, PA(0));
	unsigned long m = 0;

	mmap_read_lock(mm);
	for_each_vma_range(vmi, vma, PA(64))
		if (vma->vm_userfaultfd_ctx.ctx)
			m |= MASK((vma->vm_start - BASE) / PG, (vma->vm_end - BASE) / PG);
	mmap_read_unlock(mm);
	return m;
}

static void uffd_sweep(enum uffd_op op, const char *name)
{
	unsigned long total = 0, n, failed = 0;
	struct ksim_fault_config cfg;

	for (n = 0; ; n++) {
		unsigned long live0 = live_objects(), calls, m;
		struct userfaultfd_ctx *ctx;
		struct mm_struct *mm = sweep_build(op, &ctx);
		int r = 0;

		check(mm, name);
		memset(&cfg, 0, sizeof(cfg));
		cfg.nth = n ? n : ~0UL;	/* n = 0: count the allocations of an unfailed call */
		cfg.times = 1;
		ksim_fault_set(&cfg);
		if (op == OP_REGISTER)
			r = ksim_uffd_register(ctx, PA(8), 44 * PG, MISSING);
		else if (op == OP_UNREGISTER)
			r = ksim_uffd_unregister(ctx, PA(4), 48 * PG);
		else
			ksim_uffd_close(ctx);
		calls = ksim_fault_calls();
		ksim_fault_reset();
		if (!n)
			total = calls;
		check(mm, "after the call with a failed allocation");
		KSIM_EXPECT(!r || r == -ENOMEM, "%s, allocation %lu failed: %d", name, n, r);
		failed += r != 0;
		m = registered_pages(mm);
		/*
		 * The loops go in address order and stop at the first error, each
		 * VMA changed whole or not at all (and has its context iff its
		 * flags: check()); the close cannot fail (give_up_on_oom: its
		 * merges are best effort).
		 */
		if (op == OP_REGISTER && r)
			KSIM_EXPECT(m == MASK(0, 8) || m == MASK(0, 48),
				    "%s, allocation %lu failed (%d): registered pages %#lx", name, n, r, m);
		else if (op == OP_REGISTER)
			VMAS(mm, "registered", { 0, 48, ctx }, { 48, 52, ctx }, { 52, 56 });
		else if (op == OP_UNREGISTER && r)
			KSIM_EXPECT(m == MASK(0, 56) || m == (MASK(0, 4) | MASK(48, 56)),
				    "%s, allocation %lu failed (%d): registered pages %#lx", name, n, r, m);
		else if (op == OP_UNREGISTER)
			VMAS(mm, "unregistered", { 0, 4, ctx }, { 4, 48 }, { 48, 52 }, { 52, 56, ctx });
		else if (!n)
			VMAS(mm, "closed", { 0, 48 }, { 48, 56 });
		else
			KSIM_EXPECT(!m, "%s, allocation %lu failed: registered pages %#lx", name, n, m);
		/* whatever the failure left, the close clears it all */
		if (op != OP_CLOSE) {
			ksim_uffd_close(ctx);
			KSIM_EXPECT(!registered_pages(mm));
			check(mm, "close after the sweep step");
		}
		ksim_mm_exit(mm);
		check(NULL, "exit after the sweep step");
		KSIM_EXPECT(live_objects() == live0, "%s, allocation %lu failed: %lu objects leaked",
			    name, n, live_objects() - live0);
		if (ksim_problem_count(KSIM_P_TEST) || (n && n >= total))
			break;
	}
	printf("# %s: %lu allocations, %lu calls failed\n", name, total, failed);
	KSIM_EXPECT(total > 0, "%s allocates nothing: no sweep", name);
	check_all_freed();
}

/* UFFDIO_REGISTER with allocation N failed, N = 1 .. all it makes */
KSIM_TEST(uffd_register_sweep)
{
	uffd_sweep(OP_REGISTER, "uffd register [8,52)");
	uffd_sweep(OP_UNREGISTER, "uffd unregister [4,52)");
	uffd_sweep(OP_CLOSE, "uffd close (userfaultfd_release_all)");
}

/* ---- UFFDIO_REGISTER/UNREGISTER's argument contract (mm_sim/contract.h) ---- */

#define UW		0x60000000UL	/* the window the layouts map in (its upper half stays a hole) */
#define UW_PAGES	64
#define NORESERVE_RW	(RW | KSIM_VM_NORESERVE)
#define NO_MAYWRITE	(KSIM_VM_READ | KSIM_VM_MAYREAD)

static struct file *uffd_contract_file;	/* the file some layouts map privately */

/*
 * The two contexts of each process a layout built, by mm: the monitor
 * holds them until the test ends (ksim_uffd_close_all()), so no mm of the
 * table is freed and reused meanwhile.
 */
static struct {
	struct mm_struct *mm;
	struct userfaultfd_ctx *ctx[2];
} uffd_procs[8];
static unsigned int uffd_nprocs;

static struct userfaultfd_ctx *uffd_ctx_of(struct mm_struct *mm, unsigned long which)
{
	unsigned int i;

	for (i = 0; i < 8; i++)
		if (uffd_procs[i].mm == mm)
			return uffd_procs[i].ctx[which & 1];
	fprintf(stderr, "uffd_argument_contract: no contexts for mm %p\n", (void *)mm);
	abort();
}

/*
 * A layout drawn from @seed: 1-3 mappings in the window's lower half,
 * private anonymous read-write (most), read-only with VM_MAYWRITE, without
 * VM_MAYWRITE, or a private file mapping; some pages touched; two
 * contexts, and 0-2 ranges registered with either (a refused registration
 * leaves the layout as it was: the same on both processes).
 */
static struct mm_struct *uffd_layout(uint64_t seed)
{
	static const unsigned long kinds[] = { NORESERVE_RW, NORESERVE_RW, RO_MAYWRITE | KSIM_VM_NORESERVE,
		NO_MAYWRITE, NORESERVE_RW };
	struct mm_struct *mm = ksim_mm_new();
	struct ksim_vma_info v[8];
	struct ksim_rng rng;
	unsigned long i, n, k, slot = uffd_nprocs++ % 8;

	ksim_rng_seed(&rng, seed);
	n = 1 + ksim_rng_below(&rng, 3);
	for (i = 0; i < n; i++) {
		unsigned long start = UW + ksim_rng_below(&rng, UW_PAGES / 2) * PG;
		unsigned long len = (1 + ksim_rng_below(&rng, 6)) * PG;
		unsigned long kind = ksim_rng_below(&rng, 5);

		KSIM_EXPECT(!ksim_mmap(mm, start, len, kinds[kind], kind == 4 ? uffd_contract_file : NULL, 0));
		for (k = 0; k < len / PG; k++)
			if (ksim_rng_below(&rng, 2))
				KSIM_EXPECT(!ksim_touch(mm, start + k * PG, kinds[kind] & KSIM_VM_WRITE));
	}
	uffd_procs[slot].mm = mm;
	uffd_procs[slot].ctx[0] = ksim_uffd_open(mm, 0);
	uffd_procs[slot].ctx[1] = ksim_uffd_open(mm, KSIM_UFFD_FEATURE_EVENT_UNMAP);
	KSIM_EXPECT(uffd_procs[slot].ctx[0] && uffd_procs[slot].ctx[1]);
	n = ksim_rng_below(&rng, 3);
	for (i = 0; i < n; i++) {
		int nv = ksim_mm_vmas(mm, v, 8), j = ksim_rng_below(&rng, nv < 8 ? nv : 8);
		unsigned long pages = (v[j].end - v[j].start) / PG;

		k = ksim_rng_below(&rng, pages);
		(void)ksim_uffd_register(uffd_procs[slot].ctx[ksim_rng_below(&rng, 2)], v[j].start + k * PG,
					 (1 + ksim_rng_below(&rng, pages - k)) * PG, MISSING);
	}
	return mm;
}

/* What the contract said of the draws, for the summary line */
static struct {
	unsigned long ok[2], einval[2], eperm, ebusy, unreg_other;
} uffd_drawn;

/*
 * Draw a UFFDIO_REGISTER (half) or UFFDIO_UNREGISTER on context 0 (most)
 * or 1: a mode MISSING (17 in 24), else 0, WP, MINOR, RWP, MISSING|WP,
 * MISSING with an undefined bit, or anything; a start in a mapping,
 * sometimes in the window's empty upper half, unaligned, at or past
 * TASK_SIZE; a length mostly inside the mapping, sometimes past it over
 * holes and the next mappings, sometimes unaligned, 0, wrapping, past
 * TASK_SIZE, or reaching TASK_SIZE exactly (and a page more); REGISTER's
 * ioctls field garbage (an output the kernel does not read).
 */
static void uffd_draw(struct ksim_rng *rng, struct mm_struct *mm, void *args)
{
	struct ksim_uffd_args *a = args;
	struct ksim_uffdio_register *u = &a->uffdio;
	struct ksim_vma_info v[8];
	int n = ksim_mm_vmas(mm, v, 8), i = ksim_rng_below(rng, n < 8 ? n : 8);
	unsigned long pages = (v[i].end - v[i].start) / PG, k = ksim_rng_below(rng, pages);

	a->call = ksim_rng_below(rng, 2) ? KSIM_UFFD_REGISTER : KSIM_UFFD_UNREGISTER;
	a->which = !ksim_rng_below(rng, 4);
	u->range.start = v[i].start + k * PG;
	if (!ksim_rng_below(rng, 16))
		u->range.start = UW + (UW_PAGES / 2 + ksim_rng_below(rng, UW_PAGES / 2)) * PG;
	u->range.len = (1 + ksim_rng_below(rng, ksim_rng_below(rng, 4) ? pages - k : 24)) * PG;
	if (!ksim_rng_below(rng, 16))
		u->range.start += 1 + ksim_rng_below(rng, PG - 1);
	if (!ksim_rng_below(rng, 16))
		u->range.len -= 1 + ksim_rng_below(rng, PG - 1);
	switch (ksim_rng_below(rng, 32)) {
	case 0:
	case 1:
		u->range.len = 0;
		break;
	case 2:
		u->range.len = ~0UL - ksim_rng_below(rng, 3 * PG);
		break;
	case 3:
		u->range.len = (1UL << 47) + ksim_rng_below(rng, 1UL << 40);
		break;
	case 4:
		u->range.len = KSIM_UFFD_TASK_SIZE - u->range.start;
		break;
	case 5:
		u->range.len = KSIM_UFFD_TASK_SIZE - u->range.start + PG;
		break;
	case 6:
		u->range.start = KSIM_UFFD_TASK_SIZE - ksim_rng_below(rng, 2) * PG;
		u->range.len = PG;
		break;
	}
	if (a->call == KSIM_UFFD_UNREGISTER) {
		u->mode = u->ioctls = 0;	/* not UFFDIO_UNREGISTER's: struct uffdio_range only */
		return;
	}
	switch (ksim_rng_below(rng, 24)) {
	case 0:
		u->mode = 0;
		break;
	case 1:
		u->mode = KSIM_UFFDIO_REGISTER_MODE_WP;
		break;
	case 2:
		u->mode = KSIM_UFFDIO_REGISTER_MODE_MINOR;
		break;
	case 3:
		u->mode = KSIM_UFFDIO_REGISTER_MODE_RWP;
		break;
	case 4:
		u->mode = KSIM_UFFDIO_REGISTER_MODE_MISSING | KSIM_UFFDIO_REGISTER_MODE_WP;
		break;
	case 5:
		u->mode = KSIM_UFFDIO_REGISTER_MODE_MISSING | 1UL << (4 + ksim_rng_below(rng, 60));
		break;
	case 6:
		u->mode = ksim_rng_next(rng);
		break;
	default:
		u->mode = KSIM_UFFDIO_REGISTER_MODE_MISSING;
		break;
	}
	u->ioctls = ksim_rng_below(rng, 4) ? ksim_rng_next(rng) : 0;
}

static long uffd_contract(struct mm_struct *mm, void *args)
{
	struct ksim_uffd_args *a = args;
	struct ksim_uffd_args raw = *a;
	bool reg = a->call == KSIM_UFFD_REGISTER;
	long want = ksim_uffd_contract(mm, uffd_ctx_of(mm, a->which), a);

	if (!want)
		uffd_drawn.ok[reg]++;
	else if (want == -EINVAL)
		uffd_drawn.einval[reg]++;
	uffd_drawn.eperm += want == -EPERM;
	uffd_drawn.ebusy += want == -EBUSY;
	/* an UNREGISTER the tree lets through over another context's VMA */
	if (!reg && !want) {
		unsigned long s = raw.uffdio.range.start, e = s + raw.uffdio.range.len, addr;
		struct userfaultfd_ctx *own = uffd_ctx_of(mm, a->which), *c;

		for (addr = s; addr < e && addr < UW + UW_PAGES * PG; addr += PG) {
			c = ksim_uffd_ctx_at(mm, addr);
			if (c && c != own) {
				uffd_drawn.unreg_other++;
				break;
			}
		}
	}
	return want;
}

/*
 * After a call that succeeded, every VMA over the range is registered with
 * @ctx (VM_UFFD_MISSING and the context; split at the range's ends unless
 * merged with a neighbour of the same context), or none is (@ctx NULL:
 * UNREGISTER).
 */
static void uffd_range_is(struct mm_struct *mm, const struct ksim_uffdio_range *r,
			  struct userfaultfd_ctx *ctx, const char *what)
{
	struct ksim_vma_info v[32];
	int i, n = ksim_mm_vmas(mm, v, 32);

	for (i = 0; i < n && i < 32; i++) {
		if (v[i].end <= r->start || v[i].start >= r->start + r->len)
			continue;
		KSIM_EXPECT(v[i].uffd_ctx == ctx && !(v[i].flags & VM_UFFD_MISSING) == !ctx,
			    "%s [%#lx, %#lx): VMA [%#lx, %#lx) flags %#lx context %p, want context %p",
			    what, r->start, r->start + r->len, v[i].start, v[i].end, v[i].flags, v[i].uffd_ctx,
			    (void *)ctx);
	}
}

/*
 * The call on @mm's context: the kernel reads the range and the mode (and
 * never writes them), and writes ioctls only on success, with the mask
 * the contract expects for a MISSING registration.
 */
static long uffd_run(struct mm_struct *mm, const void *args)
{
	const struct ksim_uffd_args *a = args;
	struct userfaultfd_ctx *ctx = uffd_ctx_of(mm, a->which);
	struct ksim_uffdio_register u = a->uffdio;
	long ret;

	if (a->call == KSIM_UFFD_UNREGISTER) {
		ret = ksim_uffd_ioctl_unregister(ctx, &u.range);
		KSIM_EXPECT(!memcmp(&u, &a->uffdio, sizeof(u)), "UFFDIO_UNREGISTER wrote its argument");
		if (!ret)
			uffd_range_is(mm, &u.range, NULL, "UFFDIO_UNREGISTER");
		return ret;
	}
	ret = ksim_uffd_ioctl_register(ctx, &u);
	KSIM_EXPECT(u.range.start == a->uffdio.range.start && u.range.len == a->uffdio.range.len &&
		    u.mode == a->uffdio.mode, "UFFDIO_REGISTER wrote its input fields");
	KSIM_EXPECT(u.ioctls == (ret ? a->uffdio.ioctls : KSIM_UFFD_IOCTLS_MISSING),
		    "UFFDIO_REGISTER = %ld: ioctls %#lx (was %#lx), want %#lx", ret, u.ioctls, a->uffdio.ioctls,
		    ret ? a->uffdio.ioctls : KSIM_UFFD_IOCTLS_MISSING);
	if (!ret)
		uffd_range_is(mm, &u.range, ctx, "UFFDIO_REGISTER");
	return ret;
}

static int uffd_show(char *buf, size_t len, const void *args)
{
	const struct ksim_uffd_args *a = args;
	const struct ksim_uffdio_register *u = &a->uffdio;

	if (a->call == KSIM_UFFD_UNREGISTER)
		return snprintf(buf, len, "UFFDIO_UNREGISTER(ctx%lu, {%#lx, %#lx})", a->which, u->range.start,
				u->range.len);
	return snprintf(buf, len, "UFFDIO_REGISTER(ctx%lu, {%#lx, %#lx}, mode %#lx, ioctls %#lx)", a->which,
			u->range.start, u->range.len, u->mode, u->ioctls);
}

/*
 * UFFDIO_REGISTER and UFFDIO_UNREGISTER's argument contract (the tree's
 * userfaultfd_register()/_unregister(), extracted): ksim_uffd_contract(),
 * which decides success too (the call it takes must succeed).  Contexts
 * compared too (contract_same(), the snapshot of a refused call).
 */
KSIM_TEST(uffd_argument_contract)
{
	static const struct contract_test t = {
		"UFFDIO_REGISTER/UFFDIO_UNREGISTER", sizeof(struct ksim_uffd_args), uffd_layout, uffd_draw,
		uffd_contract, uffd_run, uffd_show, "REGISTER's ioctls field, an output", true,
	};

	uffd_contract_file = ksim_file_open("uffd-contract");
	KSIM_ASSERT(uffd_contract_file);
	contract_run(&t);
	printf("# contract: REGISTER %lu to succeed, %lu -EINVAL, %lu -EPERM, %lu -EBUSY; UNREGISTER %lu to "
	       "succeed (%lu over another context's VMA), %lu -EINVAL\n", uffd_drawn.ok[1], uffd_drawn.einval[1],
	       uffd_drawn.eperm, uffd_drawn.ebusy, uffd_drawn.ok[0], uffd_drawn.unreg_other,
	       uffd_drawn.einval[0]);
	ksim_uffd_close_all();
	ksim_file_close(uffd_contract_file);
	check(NULL, "exit");
	check_all_freed();
}

#else
KSIM_TEST(uffd_argument_contract)
{
	printf("# skipped: the uffd ioctls are mm-sim's emulation on this tree (no mm/vma.c)\n");
}
#endif /* KSIM_HAVE_MM_VMA_C */
