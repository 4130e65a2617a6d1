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
#include <ksim/test.h>
#include <ksim/fault.h>
#include <ksim/slab.h>
#include <errno.h>
#include <stdio.h>
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

#endif /* KSIM_HAVE_MM_VMA_C */
