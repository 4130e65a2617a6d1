// SPDX-License-Identifier: GPL-2.0
/*
 * The emulated hooks (hooks.c) driven by the kernel's own fork, exit,
 * munmap and mremap code: KSM/khugepaged registration passed on by fork
 * and dropped by exit, userfaultfd fork and unmap events, uprobes' fork
 * flag; the per-VMA lock emulation and its checks; the fork failure sweep
 * with every hook allocating.
 */
#include <mm_sim/kernel.h>
#include <mm_sim/sim.h>
#include <mm_sim/query.h>
#include <ksim/test.h>
#include <ksim/fault.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test_mm_sim.h"

#define PG		KSIM_PAGE_SIZE
#define DATA		0x600000UL
#define HEAP2		0x7f0000000000UL
#define STACKA		0x7ffff0000000UL

/* A small process in KSM and khugepaged, with uprobes, and two uffd contexts. */
static struct mm_struct *build_hooked(struct file *f, struct userfaultfd_ctx **ufork,
				      struct userfaultfd_ctx **uplain)
{
	struct mm_struct *p = build_small(f, 0);

	/* KSIM_ASSERT returns without a value: not in a function returning one (clang errors) */
	KSIM_EXPECT(!ksim_ksm_enable(p));
	ksim_khugepaged_enable(p);
	ksim_mm_set_has_uprobes(p);
	*ufork = ksim_uffd_open(p, KSIM_UFFD_FEATURE_EVENT_FORK | KSIM_UFFD_FEATURE_EVENT_UNMAP);
	*uplain = ksim_uffd_open(p, 0);
	KSIM_EXPECT(*ufork && *uplain);
	if (!*ufork || !*uplain)
		abort();	/* built before any fault is armed: cannot fail */
	KSIM_EXPECT(!ksim_uffd_register(*ufork, DATA, 64 * PG, KSIM_UFFDIO_REGISTER_MODE_MISSING));
	KSIM_EXPECT(!ksim_uffd_register(*ufork, HEAP2, 32 * PG, KSIM_UFFDIO_REGISTER_MODE_MISSING));
	KSIM_EXPECT(!ksim_uffd_register(*uplain, STACKA, 32 * PG, KSIM_UFFDIO_REGISTER_MODE_MISSING));
	check(p, "hooked shape");
	return p;
}

KSIM_TEST(hooks_fork_exit)
{
	struct userfaultfd_ctx *ufork, *uplain, *cctx;
	struct mm_struct *p, *c, *g;
	struct ksim_fault_config cfg;
	struct file *f = ksim_file_open("libc.so");
	unsigned long exit_allocs;

	p = build_hooked(f, &ufork, &uplain);
	KSIM_ASSERT(!ksim_fork(p, &c));
	check(c, "fork");
	KSIM_EXPECT(ksim_mm_ksm_registered(c), "child not in KSM");
	KSIM_EXPECT(ksim_mm_thp_registered(c), "child not in khugepaged");
	KSIM_EXPECT(ksim_mm_has_uprobes(c), "child lost MMF_HAS_UPROBES");
	/* EVENT_FORK: one new context per parent context, announced once */
	cctx = ksim_uffd_ctx_at(c, DATA);
	KSIM_EXPECT(cctx && cctx != ufork, "child VMA ctx %p (parent's %p)", (void *)cctx, (void *)ufork);
	KSIM_EXPECT(ksim_uffd_ctx_at(c, HEAP2) == cctx);
	KSIM_EXPECT(ksim_uffd_events(ufork, true) == 1, "%lu fork events", ksim_uffd_events(ufork, true));
	/* no EVENT_FORK: the child's VMA loses the context */
	KSIM_EXPECT(ksim_uffd_ctx_at(c, STACKA) == NULL);
	KSIM_ASSERT(!ksim_fork(c, &g));
	check(g, "grandchild");
	KSIM_EXPECT(cctx && ksim_uffd_events(cctx, true) == 1);
	if (ksim_mm_has_vma_c()) {
		/* EVENT_UNMAP: munmap (do_vmi_munmap) announces the range; no event without it */
		KSIM_EXPECT(!ksim_munmap(p, DATA + 60 * PG, 4 * PG));
		KSIM_EXPECT(ksim_uffd_events(ufork, false) == 1, "%lu unmap events", ksim_uffd_events(ufork, false));
		KSIM_EXPECT(!ksim_munmap(p, STACKA, PG));
		KSIM_EXPECT(ksim_uffd_events(uplain, false) == 0);
		check(p, "munmap");
	}
	if (ksim_mm_has_mremap()) {
		/* a shrinking mremap unmaps the tail (mremap's own userfaultfd_unmap_complete()) */
		KSIM_EXPECT(ksim_mremap(p, HEAP2, 32 * PG, 16 * PG, 0, 0) == (long)HEAP2);
		KSIM_EXPECT(ksim_uffd_events(ufork, false) == 2, "%lu unmap events", ksim_uffd_events(ufork, false));
		check(p, "mremap");
	}
	/* exit allocates nothing on these trees: there is no exit sweep to run */
	memset(&cfg, 0, sizeof(cfg));
	cfg.nth = ~0UL;
	ksim_fault_set(&cfg);
	ksim_mm_exit(g);
	exit_allocs = ksim_fault_calls();
	ksim_fault_reset();
	printf("# exit of a hooked process: %lu allocations\n", exit_allocs);
	ksim_mm_exit(c);
	ksim_mm_exit(p);
	check(NULL, "exit");
	/* the monitor still holds the contexts (and they their mms) until it closes them */
	ksim_uffd_close_all();
	ksim_file_close(f);
	check_all_freed();
}

/* The fork failure sweep with every hook allocating (mm_slots, uffd contexts). */
KSIM_TEST(fork_sweep_hooks)
{
	struct userfaultfd_ctx *ufork, *uplain;
	struct file *f = ksim_file_open("libc.so");
	struct mm_struct *p = build_hooked(f, &ufork, &uplain);

	fork_sweep("hooks (KSM, khugepaged, uffd)", p, 1);
	if (!ksim_problem_count(KSIM_P_TEST))
		fork_signal_sweep("hooks (KSM, khugepaged, uffd)", p);
	ksim_mm_exit(p);
	ksim_uffd_close_all();
	ksim_file_close(f);
	check(NULL, "exit");
	check_all_freed();
}

/* The cross-call rules fire when broken (hooks.c's own checks). */
KSIM_TEST(hooks_checks_fire)
{
	struct mm_struct *p, *c;
	unsigned long t0, l0;
	LIST_HEAD(fcs);

	p = ksim_mm_new();
	KSIM_ASSERT(!ksim_map_direct(p, DATA, DATA + 4 * PG, KSIM_VM_READ | KSIM_VM_WRITE |
				     KSIM_VM_MAYREAD | KSIM_VM_MAYWRITE, NULL, 0));
	KSIM_ASSERT(!ksim_fork(p, &c));
	/* complete twice: the dup_mmap() rule */
	t0 = ksim_problem_count(KSIM_P_TEST);
	ksim_hooks_fork_begin();
	dup_userfaultfd_complete(&fcs);
	dup_userfaultfd_complete(&fcs);
	ksim_hooks_fork_end(c, p, 0);
	KSIM_EXPECT(ksim_problem_count(KSIM_P_TEST) == t0 + 1);
	/* an mmu notifier range started and not ended at mmap_write_unlock() */
	l0 = ksim_problem_count(KSIM_P_LOCKDEP);
	{
		struct mmu_notifier_range r;

		mmap_write_lock(p);
		mmu_notifier_range_init(&r, 0, 0, p, DATA, DATA + PG);
		mmu_notifier_invalidate_range_start(&r);
		mmu_notifier_invalidate_range_start(&r);	/* twice */
		mmap_write_unlock(p);
		mmap_write_lock(p);
		mmu_notifier_invalidate_range_end(&r);
		mmu_notifier_invalidate_range_end(&r);		/* end without start */
		p->ksim_ranges_active = 0;
		mmap_write_unlock(p);
	}
	KSIM_EXPECT(ksim_problem_count(KSIM_P_LOCKDEP) >= l0 + 2 + KSIM_HAVE_PER_VMA_LOCK, "%lu", ksim_problem_count(KSIM_P_LOCKDEP) - l0);
	ksim_mm_exit(c);
	ksim_mm_exit(p);
	check(NULL, "exit");
	check_all_freed();
	ksim_expect_problems(KSIM_P_TEST, ksim_problem_count(KSIM_P_TEST));
	ksim_expect_problems(KSIM_P_LOCKDEP, ksim_problem_count(KSIM_P_LOCKDEP));
}

/*
 * ksmd and khugepaged: a step walks the mm at the cursor; an mm that exits
 * while at a cursor keeps its slot until the daemon's next step frees it
 * (__ksm_exit()/__khugepaged_exit() leave it), and nothing leaks.
 */
KSIM_TEST(daemons_free_at_cursor)
{
	struct file *f = ksim_file_open("libc.so");
	struct mm_struct *p = build_small(f, 0), *q = build_small(f, 0);
	unsigned long walks, vmas, freed, freed0[KSIM_NR_DAEMONS];

	for (int i = 0; i < KSIM_NR_DAEMONS; i++)
		ksim_daemon_stats(i, &walks, &vmas, &freed0[i]);
	KSIM_ASSERT(!ksim_ksm_enable(p) && !ksim_ksm_enable(q));
	ksim_khugepaged_enable(p);
	ksim_khugepaged_enable(q);
	for (int i = 0; i < KSIM_NR_DAEMONS; i++)
		KSIM_EXPECT(ksim_daemon_step(i) == 5, "%d: walked p", i);	/* p's 5 VMAs; cursor: q */
	ksim_mm_exit(q);		/* at both cursors: left to the daemons */
	KSIM_EXPECT(ksim_mm_ksm_registered(q) && ksim_mm_thp_registered(q), "q's slots left at the cursors");
	for (int i = 0; i < KSIM_NR_DAEMONS; i++) {
		KSIM_EXPECT(ksim_daemon_step(i) == -ESRCH, "%d: q is exiting", i);
		ksim_daemon_stats(i, &walks, &vmas, &freed);
		KSIM_EXPECT(freed == freed0[i] + 1, "%d: q's slot freed by the daemon", i);
	}
	/* q is gone (the last mmdrop() was the daemon's); p again */
	for (int i = 0; i < KSIM_NR_DAEMONS; i++)
		KSIM_EXPECT(ksim_daemon_step(i) == 5, "%d: p again", i);
	ksim_mm_exit(p);
	ksim_daemons_quiesce();
	ksim_file_close(f);
	check(NULL, "exit");
	check_all_freed();
}

/*
 * The daemons' walk fires on what a failed 6.x dup_mmap() leaves in a
 * registered child (XA_ZERO_ENTRY, then the parent's VMAs) and on a VMA
 * of another mm; planted here and put back.
 */
KSIM_TEST(daemons_walk_checks_fire)
{
	struct file *f = ksim_file_open("libc.so");
	struct mm_struct *p = build_small(f, 0), *q = build_small(f, 0);
	struct vm_area_struct *vma;
	unsigned long t0 = ksim_problem_count(KSIM_P_TEST);

	KSIM_ASSERT(!ksim_ksm_enable(p));
	ksim_khugepaged_enable(p);
	ksim_daemons_visit(p);
	KSIM_EXPECT(ksim_problem_count(KSIM_P_TEST) == t0, "a sound tree");
	{
		MA_STATE(mas, &p->mm_mt, 0x600000, 0x600000);

		mmap_write_lock(p);
		vma = mas_walk(&mas);
		KSIM_ASSERT(vma && vma->vm_start == 0x600000);
		mas_set_range(&mas, vma->vm_start, vma->vm_end - 1);
		mas_store_gfp(&mas, XA_ZERO_ENTRY, GFP_KERNEL);	/* same range: no allocation */
		mmap_write_unlock(p);
		ksim_daemons_visit(p);
		KSIM_EXPECT(ksim_problem_count(KSIM_P_TEST) == t0 + 2, "XA_ZERO_ENTRY: %lu",
			    ksim_problem_count(KSIM_P_TEST) - t0);
		mmap_write_lock(p);
		mas_set_range(&mas, vma->vm_start, vma->vm_end - 1);
		mas_store_gfp(&mas, vma, GFP_KERNEL);
		vma->vm_mm = q;
		mmap_write_unlock(p);
		ksim_daemons_visit(p);
		KSIM_EXPECT(ksim_problem_count(KSIM_P_TEST) == t0 + 4, "another mm's VMA: %lu",
			    ksim_problem_count(KSIM_P_TEST) - t0);
		mmap_write_lock(p);
		vma->vm_mm = p;
		mmap_write_unlock(p);
	}
	ksim_daemons_visit(p);
	KSIM_EXPECT(ksim_problem_count(KSIM_P_TEST) == t0 + 4, "put back");
	ksim_expect_problems(KSIM_P_TEST, 4);
	ksim_mm_exit(p);
	ksim_mm_exit(q);
	ksim_file_close(f);
	check(NULL, "exit");
	check_all_freed();
}

/* Per-VMA locks: readers, write locks until mmap_write_unlock(), the checks. */
KSIM_TEST(vma_locks)
{
#if KSIM_HAVE_PER_VMA_LOCK
	struct vm_area_struct *vma, *r;
	struct mm_struct *mm = ksim_mm_new();
	unsigned long l0, w0, t0;
	unsigned long fl = KSIM_VM_READ | KSIM_VM_WRITE | KSIM_VM_MAYREAD | KSIM_VM_MAYWRITE;

	KSIM_ASSERT(!ksim_map_direct(mm, DATA, DATA + 4 * PG, fl, NULL, 0));
	KSIM_ASSERT(!ksim_map_direct(mm, HEAP2, HEAP2 + 4 * PG, fl, NULL, 0));
	KSIM_ASSERT(!ksim_map_direct(mm, STACKA, STACKA + 4 * PG, fl, NULL, 0));
	r = ksim_lock_vma_under_rcu(mm, DATA + PG);
	KSIM_EXPECT(r && r->vm_start == DATA);
	if (r)
		ksim_vma_end_read(r);
	KSIM_EXPECT(!ksim_lock_vma_under_rcu(mm, DATA + 8 * PG));	/* no VMA there */
	/* write-locked until mmap_write_unlock(): readers fall back */
	mmap_write_lock(mm);
	vma = vma_lookup(mm, DATA);
	vma_start_write(vma);
	KSIM_EXPECT(!ksim_lock_vma_under_rcu(mm, DATA));
	r = ksim_lock_vma_under_rcu(mm, HEAP2);		/* another VMA: not locked */
	KSIM_EXPECT(r != NULL);
	if (r)
		ksim_vma_end_read(r);
	mmap_write_unlock(mm);
	r = ksim_lock_vma_under_rcu(mm, DATA);
	KSIM_EXPECT(r != NULL);
	if (r)
		ksim_vma_end_read(r);

	/* a VMA changed under the mmap write lock without vma_start_write() */
	l0 = ksim_problem_count(KSIM_P_LOCKDEP);
	mmap_write_lock(mm);
	vma = vma_lookup(mm, HEAP2);
	vma->vm_pgoff++;
	mmap_write_unlock(mm);
	KSIM_EXPECT(ksim_problem_count(KSIM_P_LOCKDEP) == l0 + 1);
	mmap_write_lock(mm);
	vma_start_write(vma);
	vma->vm_pgoff--;
	mmap_write_unlock(mm);
	KSIM_EXPECT(ksim_problem_count(KSIM_P_LOCKDEP) == l0 + 1);
	/* vma_assert_write_locked() of a VMA not write-locked; vma_start_write() without the mmap lock */
	w0 = ksim_problem_count(KSIM_P_WARN);
	mmap_write_lock(mm);
	vma_assert_write_locked(vma);
	mmap_write_unlock(mm);
	KSIM_EXPECT(ksim_problem_count(KSIM_P_WARN) == w0 + 1);
	vma_start_write(vma);
	KSIM_EXPECT(ksim_problem_count(KSIM_P_LOCKDEP) == l0 + 2);
	mmap_write_lock(mm);
	mmap_write_unlock(mm);
	/* a VMA unmapped while a reader holds it: the writer waits in vain, then it is freed */
	t0 = ksim_problem_count(KSIM_P_TEST);
	ksim_vma_readers_wait_ns = 100 * 1000 * 1000;	/* in vain: no need to wait 4.5 s */
	r = ksim_lock_vma_under_rcu(mm, STACKA);
	KSIM_EXPECT(r != NULL);
	if (ksim_mm_has_vma_c()) {
		KSIM_EXPECT(!ksim_munmap(mm, STACKA, 4 * PG));
		/* 7.x: vma_mark_detached() waits for readers too (vm_refcnt) */
		KSIM_EXPECT(ksim_problem_count(KSIM_P_LOCKDEP) == l0 + 3 + KSIM_HAVE_MM_VMA_INIT_C);
		rcu_barrier();	/* 6.12 frees VMAs after a grace period */
		KSIM_EXPECT(ksim_problem_count(KSIM_P_TEST) == t0 + 1);
	} else if (r) {
		ksim_vma_end_read(r);
	}
	ksim_vma_readers_wait_ns = 4500000000LL;
	ksim_mm_exit(mm);
	check(NULL, "exit");
	check_all_freed();
	ksim_expect_problems(KSIM_P_TEST, ksim_problem_count(KSIM_P_TEST));
	ksim_expect_problems(KSIM_P_LOCKDEP, ksim_problem_count(KSIM_P_LOCKDEP));
	ksim_expect_problems(KSIM_P_WARN, ksim_problem_count(KSIM_P_WARN));
#else
	printf("# skipped: this tree has no per-VMA locks\n");
#endif
}

#if KSIM_HAVE_PER_VMA_LOCK
/*
 * The lockless readers' race windows, made deterministic: a reader has found
 * VMA V under RCU and is about to take its reference (where the kernel's
 * reader can be preempted) when another thread mprotects V's upper half.
 * __split_vma() keeps V as the upper part and installs a new VMA N below
 * it: V has shrunk from the front, with N ahead of it.  The writer runs on
 * its own thread to completion from ksim_vma_read_race_hook while the
 * reader waits inside its RCU section.
 */
#define RACE_A		0x10000000UL
#define RACE_V		0x10010000UL

static struct mm_struct *race_mm;
static struct vm_area_struct *race_target;
static int race_fired;

static void *race_writer(void *arg)
{
	(void)arg;
	KSIM_EXPECT(!ksim_mprotect(race_mm, RACE_V + 8 * PG, 8 * PG, KSIM_VM_READ));
	return NULL;
}

static void race_hook(struct vm_area_struct *vma)
{
	pthread_t th;

	if (vma != race_target || race_fired)
		return;
	race_fired = 1;
	KSIM_ASSERT(!pthread_create(&th, NULL, race_writer, NULL));
	pthread_join(th, NULL);
}

static void race_setup(void)
{
	struct ksim_vma_info vi;
	struct vm_area_struct *vma;
	unsigned long rw = KSIM_VM_READ | KSIM_VM_WRITE | KSIM_VM_MAYREAD | KSIM_VM_MAYWRITE;

	race_mm = ksim_mm_new();
	KSIM_ASSERT(!ksim_mmap(race_mm, RACE_A, 4 * PG, rw, NULL, 0));
	KSIM_ASSERT(!ksim_mmap(race_mm, RACE_V, 16 * PG, rw, NULL, 0));
	KSIM_ASSERT(ksim_mm_find_vma(race_mm, RACE_V, &vi) && vi.start == RACE_V);
	mmap_read_lock(race_mm);
	vma = vma_lookup(race_mm, RACE_V);
	mmap_read_unlock(race_mm);
	race_target = vma;
	race_fired = 0;
	ksim_vma_read_race_hook = race_hook;
}

static void race_teardown(const char *what)
{
	ksim_vma_read_race_hook = NULL;
	KSIM_EXPECT(race_fired, "%s: the reader never reached the VMA", what);
	check(race_mm, what);
	ksim_mm_exit(race_mm);
	check_all_freed();
}

/*
 * /proc/PID/maps (7.x lock_next_vma()): having returned A, the walk finds V,
 * which then shrinks with N installed ahead.  It must not skip N: the
 * kernel re-walks from the end of A when V starts above it ("verify it was
 * not shrunk after we found it and another vma has not been installed ahead
 * of it") and falls back to the mmap lock.
 */
KSIM_TEST(vma_read_race_maps_walk)
{
	struct ksim_vma_info out[8];
	long n;

	if (ksim_mm_maps_walk(NULL, NULL, 0) == -ENOSYS) {
		printf("# skipped: no lock_next_vma() in this tree\n");
		return;
	}
	race_setup();
	n = ksim_mm_maps_walk(race_mm, out, 8);
	KSIM_EXPECT_EQ(n, 3);
	if (n == 3) {
		KSIM_EXPECT(out[0].start == RACE_A && out[0].end == RACE_A + 4 * PG);
		KSIM_EXPECT(out[1].start == RACE_V && out[1].end == RACE_V + 8 * PG,
			    "maps walk: [%#lx, %#lx) where the VMA below the shrunk one is",
			    out[1].start, out[1].end);
		KSIM_EXPECT(out[2].start == RACE_V + 8 * PG && out[2].end == RACE_V + 16 * PG);
	} else {
		for (long i = 0; i < n && i < 8; i++)
			printf("# maps walk %ld: [%#lx, %#lx)\n", i, out[i].start, out[i].end);
		KSIM_EXPECT(0, "maps walk skipped the VMA installed ahead of a shrunk one: %ld VMAs, want 3", n);
	}
	race_teardown("maps walk");
}

/*
 * A page fault's lookup (lock_vma_under_rcu()) at RACE_V + 1 page finds V,
 * which then no longer covers the address: the kernel rechecks the range
 * after taking the reference and falls back (NULL); a VMA that does not
 * contain the address must never be returned.
 */
KSIM_TEST(vma_read_race_lock_under_rcu)
{
	struct vm_area_struct *vma;
	unsigned long addr = RACE_V + PG;

	race_setup();
	vma = ksim_lock_vma_under_rcu(race_mm, addr);
	if (vma) {
		KSIM_EXPECT(addr >= vma->vm_start && addr < vma->vm_end,
			    "lock_vma_under_rcu(%#lx) = [%#lx, %#lx): not the VMA at that address",
			    addr, vma->vm_start, vma->vm_end);
		ksim_vma_end_read(vma);
	}
	race_teardown("lock_vma_under_rcu");
}
#endif
