// SPDX-License-Identifier: GPL-2.0
/*
 * The subsystems the kernel's fork/exit/mmap/munmap/mremap code calls into,
 * emulated as state, with the lifecycle rules their own code states checked
 * at every call (mm_sim/hooks.h; the rules and where they come from are in
 * mm-sim/README.md, "Hooks").  A broken rule is a ksim_problem() at the
 * kernel's call site.  The hooks' allocations (KSM and khugepaged mm_slots,
 * userfaultfd contexts and event records, 6.12's VMA locks) go through the
 * shim's slab, so the fault engine fails them like any other.
 *
 * KSM and khugepaged: their daemons run when a caller steps them
 * (ksim_daemon_step(): stress/mm_stress's daemon threads) and scan a forked
 * child when dup_mmap() has returned (ksim_daemons_visit()); an exit frees
 * its slot at once unless it is at a daemon's cursor, which then frees it.
 * userfaultfd: the monitor reads every event at once (a fork event hands it
 * the child's context).
 */
#include <mm_sim/kernel.h>
#include <mm_sim/sim.h>
#include <ksim/sched.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#define P(kind, ...)	ksim_problem(kind, file, line, __VA_ARGS__)

/* Under --sched a holder may yield (slab calls are yield points): taken through the scheduler. */
static pthread_mutex_t ksim_hooks_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kmem_cache *ksm_slot_cache, *thp_slot_cache, *uffd_ctx_cache, *vma_lock_cache;
struct kmem_cache *policy_cache;	/* mm/mempolicy.c's, "numa_policy" (hooks.h) */

static bool mmf_test(struct mm_struct *mm, int bit)
{
#if KSIM_HAVE_MM_FLAGS_T
	return mm_flags_test(bit, mm);
#else
	return test_bit(bit, &mm->flags);
#endif
}

static void mmf_set(struct mm_struct *mm, int bit)
{
#if KSIM_HAVE_MM_FLAGS_T
	mm_flags_set(bit, mm);
#else
	set_bit(bit, &mm->flags);
#endif
}

static void mmf_clear(struct mm_struct *mm, int bit)
{
#if KSIM_HAVE_MM_FLAGS_T
	mm_flags_clear(bit, mm);
#else
	clear_bit(bit, &mm->flags);
#endif
}

/* ---- KSM and khugepaged: one mm_slot per registered mm (mm/mm_slot.h) ---- */
struct ksim_mm_slot {
	struct mm_struct *mm;
	const char *file;	/* where the mm was registered */
	int line;
	struct list_head list;
};
static LIST_HEAD(ksm_slots);
static LIST_HEAD(thp_slots);
/* this thread's fork: a best-effort registration that failed to allocate */
static __thread bool ksim_fork_ksm_nomem, ksim_fork_thp_nomem;

/*
 * ksmd and khugepaged (mm/ksm.c ksm_do_scan(), mm/khugepaged.c
 * khugepaged_do_scan()): each has one cursor, the registered mm it scans
 * (ksm_scan.mm_slot, khugepaged_scan.mm_slot); an exiting mm at the
 * cursor is left to the daemon to free.  Protected by ksim_hooks_lock
 * (ksm_mmlist_lock, khugepaged_mm_lock).
 */
static struct ksim_daemon_state {
	const char *name;
	struct list_head *slots;
	struct ksim_mm_slot *cursor;
	bool trylock;			/* khugepaged: mmap_read_trylock(), skip the mm if held */
	bool busy;			/* a thread is this daemon now (the kernel runs one) */
	unsigned long steps, walks, vmas, freed;
} ksim_daemons[] = {
	[KSIM_KSMD] = { "ksmd", &ksm_slots },
	[KSIM_KHUGEPAGED] = { "khugepaged", &thp_slots, .trylock = true },
};

static struct ksim_mm_slot *slot_lookup(struct list_head *head, struct mm_struct *mm)
{
	struct ksim_mm_slot *s;

	list_for_each_entry(s, head, list)
		if (s->mm == mm)
			return s;
	return NULL;
}

/* mm/ksm.c __ksm_enter(): allocate and hash an mm_slot, MMF_VM_MERGEABLE, mmgrab() */
static int ksim_ksm_enter(struct mm_struct *mm, KSIM_SITE_ARGS)
{
	struct ksim_mm_slot *slot;

	if (mm->ksim_ksm_slot)	/* mm_slot_insert() of a hashed mm: two slots, one freed */
		P(KSIM_P_TEST, "__ksm_enter(): mm %d is already registered with KSM (at %s:%d)",
		  mm->ksim_id, ((struct ksim_mm_slot *)mm->ksim_ksm_slot)->file,
		  ((struct ksim_mm_slot *)mm->ksim_ksm_slot)->line);
	slot = kmem_cache_alloc(ksm_slot_cache, GFP_KERNEL);
	if (!slot)
		return -ENOMEM;
	slot->mm = mm;
	slot->file = file;
	slot->line = line;
	/*
	 * The pointer under the lock too: from list_add_tail() on, ksmd may
	 * find the slot and, once the mm has no users, clear it (under the
	 * lock).  A store after the unlock raced with that (ThreadSanitizer,
	 * stress/mm on 6.12.95).
	 */
	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
	list_add_tail(&slot->list, &ksm_slots);
	mm->ksim_ksm_slot = slot;
	pthread_mutex_unlock(&ksim_hooks_lock);
	mmf_set(mm, MMF_VM_MERGEABLE);
	mmgrab(mm);
	return 0;
}

/* include/linux/ksm.h ksm_fork(): the child joins KSM if the parent is in it */
int ksim_ksm_fork(struct mm_struct *mm, struct mm_struct *oldmm, KSIM_SITE_ARGS)
{
	int err;

	if (!mmf_test(oldmm, MMF_VM_MERGEABLE))
		return 0;
	err = ksim_ksm_enter(mm, func, file, line);
	if (err)
		ksim_fork_ksm_nomem = true;
	return err;
}

/*
 * include/linux/ksm.h ksm_exit() -> mm/ksm.c __ksm_exit(): the slot is freed
 * at once (easy_to_free) unless it is at ksmd's cursor; then ksmd frees it
 * when it sees the mm exiting, and the exit waits for ksmd to leave the mm
 * (mmap_write_lock() and unlock).  ksmd may also have freed it already.
 */
void ksim_ksm_exit(struct mm_struct *mm, KSIM_SITE_ARGS)
{
	struct ksim_mm_slot *slot;
	bool flagged, at_cursor = false;

	if (atomic_read(&mm->mm_users))
		P(KSIM_P_TEST, "ksm_exit(): mm %d still has %d users", mm->ksim_id,
		  atomic_read(&mm->mm_users));
	if (!mmf_test(mm, MMF_VM_MERGEABLE))
		return;
	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
	flagged = mmf_test(mm, MMF_VM_MERGEABLE);	/* ksmd clears it under the lock */
	slot = slot_lookup(&ksm_slots, mm);
	if (slot && slot == ksim_daemons[KSIM_KSMD].cursor)
		at_cursor = true;
	else if (slot)
		list_del(&slot->list);
	pthread_mutex_unlock(&ksim_hooks_lock);
	if (!flagged)
		return;		/* ksmd saw the exit first and freed the slot */
	if (!slot) {
		P(KSIM_P_TEST, "ksm_exit(): mm %d has MMF_VM_MERGEABLE but no mm_slot", mm->ksim_id);
		return;
	}
	if (at_cursor) {
		mmap_write_lock(mm);
		mmap_write_unlock(mm);
		return;
	}
	mm->ksim_ksm_slot = NULL;
	kmem_cache_free(ksm_slot_cache, slot);
#ifdef MMF_VM_MERGE_ANY	/* the tree's bit (extract/mmf.txt), where it has one */
	mmf_clear(mm, MMF_VM_MERGE_ANY);
#endif
	mmf_clear(mm, MMF_VM_MERGEABLE);
	mmdrop(mm);
}

/* mm/khugepaged.c __khugepaged_enter(): the flag first, then the slot (may fail) */
static void ksim_khugepaged_enter(struct mm_struct *mm, KSIM_SITE_ARGS)
{
	struct ksim_mm_slot *slot;

	/* "__khugepaged_exit() must not run from under us" */
	if (!atomic_read(&mm->mm_users))
		P(KSIM_P_TEST, "__khugepaged_enter(): mm %d has no users (VM_BUG_ON_MM)", mm->ksim_id);
	if (mmf_test(mm, MMF_VM_HUGEPAGE))
		return;
	mmf_set(mm, MMF_VM_HUGEPAGE);
	slot = kmem_cache_alloc(thp_slot_cache, GFP_KERNEL);
	if (!slot) {
		ksim_fork_thp_nomem = true;
		return;
	}
	slot->mm = mm;
	slot->file = file;
	slot->line = line;
	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");	/* as ksim_ksm_enter() */
	list_add_tail(&slot->list, &thp_slots);
	mm->ksim_thp_slot = slot;
	pthread_mutex_unlock(&ksim_hooks_lock);
	mmgrab(mm);
}

void ksim_khugepaged_fork(struct mm_struct *mm, struct mm_struct *oldmm, KSIM_SITE_ARGS)
{
	if (mmf_test(oldmm, MMF_VM_HUGEPAGE))
		ksim_khugepaged_enter(mm, func, file, line);
}

/* mm/khugepaged.c __khugepaged_exit(): as __ksm_exit(), with khugepaged's cursor */
void ksim_khugepaged_exit(struct mm_struct *mm, KSIM_SITE_ARGS)
{
	struct ksim_mm_slot *slot;
	bool at_cursor = false;

	if (!mmf_test(mm, MMF_VM_HUGEPAGE))
		return;
	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
	slot = slot_lookup(&thp_slots, mm);
	if (slot && slot == ksim_daemons[KSIM_KHUGEPAGED].cursor)
		at_cursor = true;
	else if (slot)
		list_del(&slot->list);
	pthread_mutex_unlock(&ksim_hooks_lock);
	if (!slot)	/* the slot allocation failed (the flag stays), or khugepaged freed it */
		return;
	if (at_cursor) {
		mmap_write_lock(mm);
		mmap_write_unlock(mm);
		return;
	}
	mm->ksim_thp_slot = NULL;
	mmf_clear(mm, MMF_VM_HUGEPAGE);
	kmem_cache_free(thp_slot_cache, slot);
	mmdrop(mm);
}

int ksim_ksm_enable(struct mm_struct *mm)
{
	return mmf_test(mm, MMF_VM_MERGEABLE) ? 0 : ksim_ksm_enter(mm, KSIM_SITE);
}

void ksim_khugepaged_enable(struct mm_struct *mm)
{
	ksim_khugepaged_enter(mm, KSIM_SITE);
}

bool ksim_mm_ksm_registered(struct mm_struct *mm)
{
	return mm->ksim_ksm_slot && mmf_test(mm, MMF_VM_MERGEABLE);
}

bool ksim_mm_thp_registered(struct mm_struct *mm)
{
	return mm->ksim_thp_slot && mmf_test(mm, MMF_VM_HUGEPAGE);
}

/*
 * What ksmd and khugepaged do with a registered mm (mm/ksm.c
 * scan_get_next_rmap_item(), mm/khugepaged.c khugepaged_scan_mm_slot()):
 * take its mmap lock for reading (khugepaged only tries), leave it alone if
 * it is exiting (ksm_test_exit(), collapse_test_exit(): no users left), else
 * walk its VMAs with the tree's own iterator and read what they read.  Every
 * entry must be a VMA of this mm, in address order: anything else is what
 * the daemon would dereference as a VMA (an internal entry such as the
 * XA_ZERO_ENTRY a failed 6.x dup_mmap() leaves in the child's tree, or a
 * VMA of the parent that __mt_dup() copied).  The problem is reported at
 * the call that registered the mm (#line: in the kernel's text).
 */
static long daemon_walk(struct ksim_daemon_state *d, struct mm_struct *mm, bool trylock,
			const char *file, int line)
{
	struct vm_area_struct *vma;
	unsigned long end = 0;
	long n = 0;
	VMA_ITERATOR(vmi, mm, 0);

	if (!trylock)
		mmap_read_lock(mm);
	else if (!mmap_read_trylock(mm))
		return -EAGAIN;
	if (!atomic_read(&mm->mm_users)) {
		mmap_read_unlock(mm);
		return -ESRCH;
	}
	for_each_vma(vmi, vma) {
		if (xa_is_internal(vma)) {
			P(KSIM_P_TEST, "%s: mm %d (registered here) has %s %p at [%#lx, %#lx] in its VMA "
			  "tree, which %s would use as a VMA%s", d->name, mm->ksim_id,
			  xa_is_zero(vma) ? "XA_ZERO_ENTRY" : "the internal entry", (void *)vma,
			  vmi.mas.index, vmi.mas.last, d->name,
			  mmf_test(mm, MMF_UNSTABLE) ? " (the mm is MMF_UNSTABLE: a failed dup_mmap())" : "");
			break;
		}
		if (vma->vm_mm != mm || vma->vm_start >= vma->vm_end || vma->vm_start < end) {
			P(KSIM_P_TEST, "%s: mm %d (registered here): VMA [%#lx, %#lx) of mm %d after %#lx%s",
			  d->name, mm->ksim_id, vma->vm_start, vma->vm_end,
			  vma->vm_mm ? vma->vm_mm->ksim_id : -1, end,
			  mmf_test(mm, MMF_UNSTABLE) ? " (the mm is MMF_UNSTABLE: a failed dup_mmap())" : "");
			break;
		}
		end = vma->vm_end;
		/* the fields both daemons test first (VM_MERGEABLE/thp checks, anon_vma, the file) */
		(void)READ_ONCE(vma->anon_vma);
		(void)READ_ONCE(vma->vm_file);
		n++;
	}
	mmap_read_unlock(mm);
	__atomic_add_fetch(&d->walks, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&d->vmas, n, __ATOMIC_RELAXED);
	return n;
}

/*
 * One scan step of a daemon: the mm at its cursor (or the first), walked,
 * then the cursor moves on.  An mm found exiting is freed here, as the
 * daemons do for a slot __ksm_exit()/__khugepaged_exit() left at the
 * cursor: off the list, (ksmd) MMF_VM_MERGEABLE cleared, mmdrop() (under
 * the lock, so an exit's reference count never sees a slot half gone).
 */
long ksim_daemon_step(enum ksim_daemon which)
{
	struct ksim_daemon_state *d = &ksim_daemons[which];
	struct ksim_mm_slot *slot, *next;
	struct mm_struct *mm;
	const char *file;
	int line;
	long n;

	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
	if (d->busy) {
		pthread_mutex_unlock(&ksim_hooks_lock);
		return 0;
	}
	slot = d->cursor ? d->cursor : list_first_entry_or_null(d->slots, struct ksim_mm_slot, list);
	d->cursor = slot;
	d->busy = slot != NULL;
	d->steps++;
	if (slot) {
		mm = slot->mm;
		file = slot->file;
		line = slot->line;
	}
	pthread_mutex_unlock(&ksim_hooks_lock);
	if (!slot)
		return 0;
	n = daemon_walk(d, mm, d->trylock, file, line);
	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
	next = list_is_last(&slot->list, d->slots) ? NULL : list_next_entry(slot, list);
	if (!atomic_read(&mm->mm_users)) {
		list_del(&slot->list);
		if (which == KSIM_KSMD) {
			mm->ksim_ksm_slot = NULL;
			mmf_clear(mm, MMF_VM_MERGEABLE);
			kmem_cache_free(ksm_slot_cache, slot);
		} else {
			mm->ksim_thp_slot = NULL;	/* MMF_VM_HUGEPAGE stays (collect_mm_slot()) */
			kmem_cache_free(thp_slot_cache, slot);
		}
		d->freed++;
		mmdrop(mm);
	}
	d->cursor = next;
	d->busy = false;
	pthread_mutex_unlock(&ksim_hooks_lock);
	return n;
}

/*
 * ksmd and khugepaged may scan @mm whenever its mmap lock is free: the
 * walk they would do, now, if it is on their lists (the caller holds a
 * user of @mm, so its slots stay).
 */
void ksim_daemons_visit(struct mm_struct *mm)
{
	for (int i = 0; i < KSIM_NR_DAEMONS; i++) {
		struct ksim_daemon_state *d = &ksim_daemons[i];
		struct ksim_mm_slot *slot;
		const char *file = NULL;
		int line = 0;

		ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
		slot = slot_lookup(d->slots, mm);
		if (slot) {
			file = slot->file;
			line = slot->line;
		}
		pthread_mutex_unlock(&ksim_hooks_lock);
		if (slot)
			daemon_walk(d, mm, false, file, line);
	}
}

/* The daemons stop: each frees the exiting mm its cursor holds, then lets go of it. */
void ksim_daemons_quiesce(void)
{
	for (int i = 0; i < KSIM_NR_DAEMONS; i++) {
		struct ksim_daemon_state *d = &ksim_daemons[i];

		ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
		while (d->cursor && !atomic_read(&d->cursor->mm->mm_users)) {
			pthread_mutex_unlock(&ksim_hooks_lock);
			ksim_daemon_step(i);
			ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
		}
		d->cursor = NULL;
		pthread_mutex_unlock(&ksim_hooks_lock);
	}
}

void ksim_daemon_stats(enum ksim_daemon which, unsigned long *walks, unsigned long *vmas,
		       unsigned long *freed)
{
	struct ksim_daemon_state *d = &ksim_daemons[which];

	*walks = __atomic_load_n(&d->walks, __ATOMIC_RELAXED);
	*vmas = __atomic_load_n(&d->vmas, __ATOMIC_RELAXED);
	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
	*freed = d->freed;
	pthread_mutex_unlock(&ksim_hooks_lock);
}

/* ---- uprobes: kernel/events/uprobes.c uprobe_dup_mmap() ---- */
void ksim_uprobe_dup_mmap(struct mm_struct *oldmm, struct mm_struct *mm, KSIM_SITE_ARGS)
{
	if (mmf_test(oldmm, MMF_HAS_UPROBES)) {
		mmf_set(mm, MMF_HAS_UPROBES);
		/* unconditionally, dup_mmap() skips VM_DONTCOPY vmas */
		mmf_set(mm, MMF_RECALC_UPROBES);
	}
}

void ksim_mm_set_has_uprobes(struct mm_struct *mm)
{
	mmf_set(mm, MMF_HAS_UPROBES);
}

/*
 * The top-down layout, as arch_pick_mmap_layout() sets it for every
 * non-legacy process on x86-64: MMF_TOPDOWN, mmap_base below the stack.
 */
void ksim_mm_set_topdown(struct mm_struct *mm)
{
#if KSIM_HAVE_MMF_IN_MM_TYPES || KSIM_HAVE_MMF_TOPDOWN_IN_COREDUMP
	mmf_set(mm, MMF_TOPDOWN);	/* 6.1 has no such bit (nor an mmap path here) */
#endif
	mm->mmap_base = KSIM_MMAP_BASE_TOPDOWN;
}

bool ksim_mm_has_uprobes(struct mm_struct *mm)
{
	return mmf_test(mm, MMF_HAS_UPROBES) && mmf_test(mm, MMF_RECALC_UPROBES);
}

/* ---- userfaultfd: fs/userfaultfd.c, its fork and unmap events ---- */
struct ksim_uffd_fork_ctx {		/* struct userfaultfd_fork_ctx */
	struct userfaultfd_ctx *orig, *new;
	struct list_head list;
};
struct ksim_uffd_unmap_ctx {		/* struct userfaultfd_unmap_ctx */
	struct userfaultfd_ctx *ctx;
	unsigned long start, end;
	struct list_head list;
};
static LIST_HEAD(uffd_all);
/* this thread's dup_mmap(): which of complete/fail it called, and where */
static __thread struct {
	int completes, fails;
	int dups;		/* dup_userfaultfd() calls: dup_mmap()'s VMA loop ran */
	const char *file;
	int line;
} fork_rec;

static void uffd_ctx_get(struct userfaultfd_ctx *ctx)
{
	atomic_inc(&ctx->refcount);
}

/* fs/userfaultfd.c userfaultfd_ctx_put(): the last put drops the mm and frees */
static void uffd_ctx_put(struct userfaultfd_ctx *ctx)
{
	if (!atomic_dec_and_test(&ctx->refcount))
		return;
	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
	list_del(&ctx->all);
	pthread_mutex_unlock(&ksim_hooks_lock);
	mmdrop(ctx->mm);
	kmem_cache_free(uffd_ctx_cache, ctx);
}

static struct userfaultfd_ctx *uffd_ctx_new(struct mm_struct *mm, unsigned long features)
{
	struct userfaultfd_ctx *ctx = kmem_cache_alloc(uffd_ctx_cache, GFP_KERNEL);

	if (!ctx)
		return NULL;
	memset(ctx, 0, sizeof(*ctx));
	atomic_set(&ctx->refcount, 1);
	ctx->features = features;
	ctx->mm = mm;
	mmgrab(mm);
	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
	list_add_tail(&ctx->all, &uffd_all);
	pthread_mutex_unlock(&ksim_hooks_lock);
	return ctx;
}

/* the event is read: userfaultfd_event_wait_completion()'s "out:" */
static void uffd_event_done(struct userfaultfd_ctx *ctx, KSIM_SITE_ARGS)
{
	atomic_dec(&ctx->mmap_changing);
	if (atomic_read(&ctx->mmap_changing) < 0)
		P(KSIM_P_TEST, "userfaultfd: mmap_changing below zero (an event delivered twice)");
	uffd_ctx_put(ctx);
}

/* mm/userfaultfd.c userfaultfd_reset_ctx() -> userfaultfd_set_ctx(vma, NULL, 0) */
static void uffd_reset_ctx(struct vm_area_struct *vma)
{
#if KSIM_HAVE_MM_VMA_C
	ksim_userfaultfd_reset_ctx(vma);	/* the tree's, extracted */
#else
	vma_start_write(vma);
	vma->vm_userfaultfd_ctx.ctx = NULL;
	vma->vm_flags &= ~VM_UFFD_FLAGS;
#endif
}

int ksim_dup_userfaultfd(struct vm_area_struct *vma, struct list_head *fcs, KSIM_SITE_ARGS)
{
	struct userfaultfd_ctx *ctx = NULL, *octx = vma->vm_userfaultfd_ctx.ctx;
	struct ksim_uffd_fork_ctx *fctx;

	fork_rec.dups++;
	if (!octx)
		return 0;
	if (!(octx->features & KSIM_UFFD_FEATURE_EVENT_FORK)) {
		uffd_reset_ctx(vma);
		return 0;
	}
	list_for_each_entry(fctx, fcs, list)
		if (fctx->orig == octx) {
			ctx = fctx->new;
			break;
		}
	if (!ctx) {
		fctx = kmalloc(sizeof(*fctx), GFP_KERNEL);
		if (!fctx)
			return -ENOMEM;
		ctx = uffd_ctx_new(vma->vm_mm, octx->features);
		if (!ctx) {
			kfree(fctx);
			return -ENOMEM;
		}
		uffd_ctx_get(octx);
		atomic_inc(&octx->mmap_changing);
		fctx->orig = octx;
		fctx->new = ctx;
		list_add_tail(&fctx->list, fcs);
	}
	vma->vm_userfaultfd_ctx.ctx = ctx;
	return 0;
}

void ksim_dup_userfaultfd_complete(struct list_head *fcs, KSIM_SITE_ARGS)
{
	struct ksim_uffd_fork_ctx *fctx, *n;

	fork_rec.completes++;
	fork_rec.file = file;
	fork_rec.line = line;
	list_for_each_entry_safe(fctx, n, fcs, list) {
		/* dup_fctx(): UFFD_EVENT_FORK; the monitor reads it and owns the new ctx's fd */
		fctx->orig->fork_events++;
		fctx->new->fd_open = true;
		uffd_event_done(fctx->orig, func, file, line);
		list_del(&fctx->list);
		kfree(fctx);
	}
}

void ksim_dup_userfaultfd_fail(struct list_head *fcs, KSIM_SITE_ARGS)
{
	struct ksim_uffd_fork_ctx *fctx, *n;

	fork_rec.fails++;
	fork_rec.file = file;
	fork_rec.line = line;
	list_for_each_entry_safe(fctx, n, fcs, list) {
		struct userfaultfd_ctx *octx = fctx->orig, *ctx = fctx->new;

		atomic_dec(&octx->mmap_changing);
		if (atomic_read(&octx->mmap_changing) < 0)
			P(KSIM_P_TEST, "dup_userfaultfd_fail(): mmap_changing below zero (VM_BUG_ON)");
		uffd_ctx_put(octx);
		uffd_ctx_put(ctx);
		list_del(&fctx->list);
		kfree(fctx);
	}
}

int ksim_userfaultfd_unmap_prep(struct vm_area_struct *vma, unsigned long start,
				unsigned long end, struct list_head *unmaps, KSIM_SITE_ARGS)
{
	struct userfaultfd_ctx *ctx = vma->vm_userfaultfd_ctx.ctx;
	struct ksim_uffd_unmap_ctx *u;

	if (!lockdep_is_held_type(&vma->vm_mm->mmap_lock, 0))
		P(KSIM_P_LOCKDEP, "userfaultfd_unmap_prep() without the mmap write lock");
	if (!ctx || !(ctx->features & KSIM_UFFD_FEATURE_EVENT_UNMAP))
		return 0;
	list_for_each_entry(u, unmaps, list)	/* has_unmap_ctx() */
		if (u->ctx == ctx && u->start == start && u->end == end)
			return 0;
	u = kzalloc(sizeof(*u), GFP_KERNEL);
	if (!u)
		return -ENOMEM;
	uffd_ctx_get(ctx);
	atomic_inc(&ctx->mmap_changing);
	u->ctx = ctx;
	u->start = start;
	u->end = end;
	list_add_tail(&u->list, unmaps);
	return 0;
}

void ksim_userfaultfd_unmap_complete(struct mm_struct *mm, struct list_head *uf, KSIM_SITE_ARGS)
{
	struct ksim_uffd_unmap_ctx *u, *n;

	/* it waits for the monitor to read the event: never under the mmap lock */
	if (!list_empty(uf) && lockdep_is_held(&mm->mmap_lock))
		P(KSIM_P_LOCKDEP, "userfaultfd_unmap_complete() with the mmap lock held (the monitor may need it)");
	list_for_each_entry_safe(u, n, uf, list) {
		u->ctx->unmap_events++;
		uffd_event_done(u->ctx, func, file, line);
		list_del(&u->list);
		kfree(u);
	}
}

void ksim_mremap_userfaultfd_prep(struct vm_area_struct *vma, struct vm_userfaultfd_ctx *vm_ctx,
				  KSIM_SITE_ARGS)
{
	struct userfaultfd_ctx *ctx = vma->vm_userfaultfd_ctx.ctx;

	if (!ctx)
		return;
	if (ctx->features & KSIM_UFFD_FEATURE_EVENT_REMAP)
		P(KSIM_P_TEST, "mremap: UFFD_EVENT_REMAP is not emulated");
	else
		uffd_reset_ctx(vma);
}

/*
 * userfaultfd(2) and the UFFDIO_API handshake: the context keeps the
 * features asked for and UFFD_FEATURE_INITIALIZED (userfaultfd_api(),
 * uffd_ctx_features()), the ioctls' gate.  Callers ask only for the
 * features ksim emulates (hooks.h), as a monitor asks UFFDIO_API.
 */
struct userfaultfd_ctx *ksim_uffd_open(struct mm_struct *mm, unsigned long features)
{
	struct userfaultfd_ctx *ctx = uffd_ctx_new(mm, features | KSIM_UFFD_FEATURE_INITIALIZED);

	if (ctx)
		ctx->fd_open = true;
	return ctx;
}

#if KSIM_HAVE_MM_VMA_C
/*
 * UFFDIO_REGISTER and UFFDIO_UNREGISTER: the tree's ioctl functions
 * (userfaultfd_register(), userfaultfd_unregister(), kernel_mm.c) with the
 * uffdio struct's address as the ioctl's argument: the argument checks,
 * the VMA checks and loops and the ioctls mask written back are the
 * kernel's.  What userfaultfd_ioctl() does before (the UFFDIO_API gate)
 * is not run: ksim's contexts are all past the handshake.
 */
int ksim_uffd_ioctl_register(struct userfaultfd_ctx *ctx, struct ksim_uffdio_register *uffdio)
{
	return ksim_userfaultfd_register(ctx, (unsigned long)uffdio);
}

int ksim_uffd_ioctl_unregister(struct userfaultfd_ctx *ctx, const struct ksim_uffdio_range *range)
{
	return ksim_userfaultfd_unregister(ctx, (unsigned long)range);
}
#else
/* validate_range() of the ioctls: page-aligned, non-empty, below TASK_SIZE */
static int uffd_validate_range(unsigned long start, unsigned long len)
{
	if ((start & ~PAGE_MASK) || (len & ~PAGE_MASK) || !len)
		return -EINVAL;
	if (start < mmap_min_addr || start >= TASK_SIZE || len > TASK_SIZE - start)
		return -EINVAL;
	return 0;
}

/*
 * 6.1 (no mm/vma.c, no userfaultfd_register_range(); its ioctls merge and
 * split with vma_merge() themselves): emulated, whole VMAs inside the
 * range get the context; @uffdio->ioctls is not written.
 */
int ksim_uffd_ioctl_register(struct userfaultfd_ctx *ctx, struct ksim_uffdio_register *uffdio)
{
	unsigned long start = uffdio->range.start, end = start + uffdio->range.len;
	struct mm_struct *mm = ctx->mm;
	struct vm_area_struct *vma;
	VMA_ITERATOR(vmi, mm, start);
	int ret = uffd_validate_range(start, uffdio->range.len);

	if (ret)
		return ret;
	if (uffdio->mode != KSIM_UFFDIO_REGISTER_MODE_MISSING)
		return -EINVAL;
	mmap_write_lock(mm);
	for_each_vma_range(vmi, vma, end) {
		if (vma->vm_start < start || vma->vm_end > end)
			continue;
		vma->vm_userfaultfd_ctx.ctx = ctx;
		vma->vm_flags |= VM_UFFD_MISSING;
	}
	mmap_write_unlock(mm);
	return 0;
}

int ksim_uffd_ioctl_unregister(struct userfaultfd_ctx *ctx, const struct ksim_uffdio_range *range)
{
	return -ENOSYS;
}
#endif

int ksim_uffd_register(struct userfaultfd_ctx *ctx, unsigned long start, unsigned long len,
		       unsigned long mode)
{
	struct ksim_uffdio_register uffdio = { .range = { start, len }, .mode = mode };

	return ksim_uffd_ioctl_register(ctx, &uffdio);
}

int ksim_uffd_unregister(struct userfaultfd_ctx *ctx, unsigned long start, unsigned long len)
{
	struct ksim_uffdio_range range = { start, len };

	return ksim_uffd_ioctl_unregister(ctx, &range);
}

/* userfaultfd_release(): the monitor closes the file */
static void uffd_release(struct userfaultfd_ctx *ctx)
{
	struct mm_struct *mm = ctx->mm;

	ctx->fd_open = false;
	ctx->released = true;
#if KSIM_HAVE_MM_VMA_C
	ksim_userfaultfd_release_all(mm, ctx);	/* the tree's */
#else
	if (mmget_not_zero(mm)) {
		struct vm_area_struct *vma;
		VMA_ITERATOR(vmi, mm, 0);

		mmap_write_lock(mm);
		for_each_vma(vmi, vma) {
			if (vma->vm_userfaultfd_ctx.ctx != ctx)
				continue;
			vma->vm_userfaultfd_ctx.ctx = NULL;
			vma->vm_flags &= ~VM_UFFD_FLAGS;
		}
		mmap_write_unlock(mm);
		mmput(mm);
	}
#endif
	uffd_ctx_put(ctx);
}

void ksim_uffd_close(struct userfaultfd_ctx *ctx)
{
	if (!ctx->fd_open) {
		ksim_problem(KSIM_P_TEST, __FILE__, __LINE__,
			     "userfaultfd: closing a context whose file is not open");
		return;
	}
	uffd_release(ctx);
}

bool ksim_uffd_ctx_live(struct userfaultfd_ctx *ctx, struct mm_struct *mm)
{
	struct userfaultfd_ctx *it;
	bool live = false;

	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
	list_for_each_entry(it, &uffd_all, all)
		if (it == ctx) {
			live = it->mm == mm && !it->released && atomic_read(&it->refcount) > 0;
			break;
		}
	pthread_mutex_unlock(&ksim_hooks_lock);
	return live;
}

void ksim_uffd_close_all(void)
{
	struct userfaultfd_ctx *ctx;

	for (;;) {
		ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
		ctx = NULL;
		list_for_each_entry(ctx, &uffd_all, all)
			if (ctx->fd_open)
				break;
		if (&ctx->all == &uffd_all)
			ctx = NULL;
		pthread_mutex_unlock(&ksim_hooks_lock);
		if (!ctx)
			return;
		uffd_release(ctx);
	}
}

unsigned long ksim_uffd_events(struct userfaultfd_ctx *ctx, bool fork)
{
	return fork ? ctx->fork_events : ctx->unmap_events;
}

/* The context the child's VMA at @addr has (NULL: none). */
struct userfaultfd_ctx *ksim_uffd_ctx_at(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma = vma_lookup(mm, addr);

	return vma ? vma->vm_userfaultfd_ctx.ctx : NULL;
}

/* ---- NUMA: ksim's two nodes, and mm/mempolicy.c's object lifecycle (hooks.h) ---- */
#define KSIM_NODES_ALL	{ { (1UL << KSIM_NR_NODES) - 1 } }
nodemask_t node_states[NR_NODE_STATES] = {
	[N_POSSIBLE] = KSIM_NODES_ALL,
	[N_ONLINE] = KSIM_NODES_ALL,
	[N_NORMAL_MEMORY] = KSIM_NODES_ALL,
	[N_MEMORY] = KSIM_NODES_ALL,
	[N_CPU] = KSIM_NODES_ALL,
};

static LIST_HEAD(mpol_all);

/* a freed policy goes back to the cache off every list (__mpol_put()), as the ctor made it */
static void ksim_mpol_ctor(void *p)
{
	struct mempolicy *pol = p;

	INIT_LIST_HEAD(&pol->ksim_all);
}

/* __mpol_dup(): a new object, a copy with one reference (no cpuset to rebind against) */
struct mempolicy *__mpol_dup(struct mempolicy *old)
{
	struct mempolicy *new = kmem_cache_alloc(policy_cache, GFP_KERNEL);

	if (!new)
		return ERR_PTR(-ENOMEM);
	*new = *old;
	atomic_set(&new->refcnt, 1);
	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
	list_add_tail(&new->ksim_all, &mpol_all);
	pthread_mutex_unlock(&ksim_hooks_lock);
	return new;
}

/* __mpol_put(): the last reference frees (7.x: after a grace period) */
void __mpol_put(struct mempolicy *pol)
{
	if (atomic_read(&pol->refcnt) <= 0)
		ksim_problem(KSIM_P_TEST, __FILE__, __LINE__, "mpol_put() of a policy with refcount %d",
			     atomic_read(&pol->refcnt));
	if (!atomic_dec_and_test(&pol->refcnt))
		return;
	/* mpol_new()'s own object was never listed: its ksim_all is the ctor's empty list */
	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
	list_del_init(&pol->ksim_all);
	pthread_mutex_unlock(&ksim_hooks_lock);
	kmem_cache_free(policy_cache, pol);
}

/*
 * ksim_mm_check_global()'s policy count: @vma == NULL starts (zero the
 * counts), a VMA adds its reference, and ksim_mpol_check_done() compares:
 * a policy a VMA points at is live, and each live policy has as many
 * references as VMAs plus @extra (mbind's own, during the call: none here).
 */
void ksim_mpol_count(struct vm_area_struct *vma, unsigned long *bad)
{
	struct mempolicy *pol, *it;
	bool live = false;

	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
	if (!vma) {
		list_for_each_entry(it, &mpol_all, ksim_all)
			it->ksim_refs = 0;
		pthread_mutex_unlock(&ksim_hooks_lock);
		return;
	}
	pol = vma->vm_policy;
	if (pol) {
		list_for_each_entry(it, &mpol_all, ksim_all)
			if (it == pol) {
				live = true;
				it->ksim_refs++;
				break;
			}
		if (!live) {
			ksim_problem(KSIM_P_TEST, __FILE__, __LINE__,
				     "mm %d: VMA [%#lx, %#lx) points at a freed policy %p", vma->vm_mm->ksim_id,
				     vma->vm_start, vma->vm_end, (void *)pol);
			(*bad)++;
		}
	}
	pthread_mutex_unlock(&ksim_hooks_lock);
}

unsigned long ksim_mpol_check_done(void)
{
	struct mempolicy *it;
	unsigned long bad = 0;

	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
	list_for_each_entry(it, &mpol_all, ksim_all)
		if ((unsigned int)atomic_read(&it->refcnt) != it->ksim_refs) {
			ksim_problem(KSIM_P_TEST, __FILE__, __LINE__,
				     "policy %p (mode %u, nodes %#lx): refcount %d, VMAs pointing at it %u",
				     (void *)it, it->mode, it->nodes.bits[0], atomic_read(&it->refcnt), it->ksim_refs);
			bad++;
		}
	pthread_mutex_unlock(&ksim_hooks_lock);
	return bad;
}

/* ---- mmu notifiers: include/linux/mmu_notifier.h, mm/mmu_notifier.c ---- */
void ksim_mmu_notifier_release(struct mm_struct *mm, KSIM_SITE_ARGS)
{
	/* exit_mmap(): "mm's last user has gone" */
	if (atomic_read(&mm->mm_users))
		P(KSIM_P_TEST, "mmu_notifier_release(): mm %d still has %d users", mm->ksim_id,
		  atomic_read(&mm->mm_users));
	if (mm->ksim_notifier_released++)
		P(KSIM_P_TEST, "mmu_notifier_release(): mm %d released twice", mm->ksim_id);
	/*
	 * __ksm_exit() syncs with break_cow "before pagetables are freed";
	 * khugepaged_exit() "must run before exit_mmap" (kernel/fork.c).  A
	 * slot the exit left at a daemon's cursor stays until the daemon frees
	 * it (which it may do at any time: under the lock); the daemon never
	 * moves its cursor off an exiting mm without freeing its slot.
	 */
	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
	if (mm->ksim_ksm_slot && mm->ksim_ksm_slot != ksim_daemons[KSIM_KSMD].cursor)
		P(KSIM_P_TEST, "exit_mmap(): mm %d is still registered with KSM (at %s:%d): ksm_exit() must come first",
		  mm->ksim_id, ((struct ksim_mm_slot *)mm->ksim_ksm_slot)->file,
		  ((struct ksim_mm_slot *)mm->ksim_ksm_slot)->line);
	if (mm->ksim_thp_slot && mm->ksim_thp_slot != ksim_daemons[KSIM_KHUGEPAGED].cursor)
		P(KSIM_P_TEST, "exit_mmap(): mm %d is still registered with khugepaged (at %s:%d): khugepaged_exit() must come first",
		  mm->ksim_id, ((struct ksim_mm_slot *)mm->ksim_thp_slot)->file,
		  ((struct ksim_mm_slot *)mm->ksim_thp_slot)->line);
	pthread_mutex_unlock(&ksim_hooks_lock);
}

void ksim_mmu_notifier_range_init(struct mmu_notifier_range *r, struct mm_struct *mm,
				  unsigned long start, unsigned long end)
{
	r->mm = mm;
	r->start = start;
	r->end = end;
	r->ksim_file = NULL;
	r->ksim_line = 0;
}

/* start/end pair like a lock (lockdep's __mmu_notifier_invalidate_range_start_map) */
void ksim_mmu_notifier_range_start(struct mmu_notifier_range *r, KSIM_SITE_ARGS)
{
	if (r->ksim_file)
		P(KSIM_P_LOCKDEP, "mmu_notifier_invalidate_range_start() twice (first at %s:%d)",
		  r->ksim_file, r->ksim_line);
	if (r->start > r->end)
		P(KSIM_P_TEST, "mmu_notifier range [%lx, %lx) inverted", r->start, r->end);
	if (!lockdep_is_held(&r->mm->mmap_lock))
		P(KSIM_P_LOCKDEP, "mmu_notifier_invalidate_range_start() without the mmap lock");
	r->ksim_file = file;
	r->ksim_line = line;
	r->mm->ksim_ranges_active++;
}

void ksim_mmu_notifier_range_end(struct mmu_notifier_range *r, KSIM_SITE_ARGS)
{
	if (!r->ksim_file) {
		P(KSIM_P_LOCKDEP, "mmu_notifier_invalidate_range_end() without a start");
		return;
	}
	r->ksim_file = NULL;
	r->mm->ksim_ranges_active--;
}

/* ---- fork, exit, syscall drivers: the rules across calls ---- */
void ksim_hooks_fork_begin(void)
{
	memset(&fork_rec, 0, sizeof(fork_rec));
	ksim_fork_ksm_nomem = ksim_fork_thp_nomem = false;
}

static unsigned long uffd_pending(void)
{
	struct userfaultfd_ctx *ctx;
	unsigned long n = 0;

	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
	list_for_each_entry(ctx, &uffd_all, all)
		n += atomic_read(&ctx->mmap_changing) != 0;
	pthread_mutex_unlock(&ksim_hooks_lock);
	return n;
}

void ksim_hooks_fork_end(struct mm_struct *child, struct mm_struct *parent, int err)
{
	const char *file = fork_rec.file ? fork_rec.file : __FILE__;
	int line = fork_rec.file ? fork_rec.line : __LINE__;

#if KSIM_HAVE_DUP_USERFAULTFD_FAIL
	/*
	 * dup_mmap(): complete on success, fail on failure, once; a failure
	 * before any VMA was duplicated (the killable lock of the old mm, a
	 * fatal signal at the first VMA: -EINTR) has nothing to undo and may
	 * call neither.
	 */
	if (err && (fork_rec.fails > 1 || (fork_rec.dups && !fork_rec.fails) || fork_rec.completes))
		P(KSIM_P_TEST, "failed dup_mmap() (%d): dup_userfaultfd_fail() %d times, _complete() %d times "
		  "(%d VMAs duplicated)", err, fork_rec.fails, fork_rec.completes, fork_rec.dups);
	if (!err && (fork_rec.completes != 1 || fork_rec.fails))
		P(KSIM_P_TEST, "dup_mmap(): dup_userfaultfd_complete() %d times, _fail() %d times",
		  fork_rec.completes, fork_rec.fails);
#else
	/* the same early failure may call nothing */
	if (fork_rec.completes > 1 || (!fork_rec.completes && (!err || fork_rec.dups)) || fork_rec.fails)
		P(KSIM_P_TEST, "dup_mmap() (%d): dup_userfaultfd_complete() %d times (%d VMAs duplicated)",
		  err, fork_rec.completes, fork_rec.dups);
#endif
	if (uffd_pending())
		P(KSIM_P_TEST, "after dup_mmap() (%d): %lu userfaultfd contexts with undelivered events",
		  err, uffd_pending());
	if (err)
		return;
	/* a registration survives fork unless its slot could not be allocated */
	if (mmf_test(parent, MMF_VM_MERGEABLE) && !ksim_mm_ksm_registered(child) && !ksim_fork_ksm_nomem)
		P(KSIM_P_TEST, "fork: parent mm %d is in KSM, child mm %d is not", parent->ksim_id, child->ksim_id);
	if (mmf_test(parent, MMF_VM_HUGEPAGE) && !mmf_test(child, MMF_VM_HUGEPAGE))
		P(KSIM_P_TEST, "fork: parent mm %d is in khugepaged, child mm %d is not", parent->ksim_id,
		  child->ksim_id);
	if (mmf_test(parent, MMF_VM_HUGEPAGE) && !ksim_mm_thp_registered(child) && !ksim_fork_thp_nomem)
		P(KSIM_P_TEST, "fork: child mm %d has MMF_VM_HUGEPAGE without an mm_slot", child->ksim_id);
	if (mmf_test(parent, MMF_HAS_UPROBES) && !ksim_mm_has_uprobes(child))
		P(KSIM_P_TEST, "fork: child mm %d lost MMF_HAS_UPROBES/MMF_RECALC_UPROBES", child->ksim_id);
}

void ksim_hooks_uf_done(struct mm_struct *mm, struct list_head *uf, const char *what)
{
	struct ksim_uffd_unmap_ctx *u, *n;

	if (list_empty(uf))
		return;
	ksim_problem(KSIM_P_TEST, __FILE__, __LINE__,
		     "%s: userfaultfd unmap events prepared and never completed", what);
	list_for_each_entry_safe(u, n, uf, list) {
		uffd_event_done(u->ctx, KSIM_SITE);
		list_del(&u->list);
		kfree(u);
	}
}

/* References to @mm besides the caller's: from userfaultfd contexts (allowed). */
static int uffd_refs(struct mm_struct *mm)
{
	struct userfaultfd_ctx *ctx;
	int n = 0;

	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
	list_for_each_entry(ctx, &uffd_all, all)
		n += ctx->mm == mm;
	pthread_mutex_unlock(&ksim_hooks_lock);
	return n;
}

/* mmput() is done and the caller still holds one mm_count reference. */
void ksim_hooks_mm_put_done(struct mm_struct *mm)
{
	int extra, deferred = 0, uffd = uffd_refs(mm);
	const char *file = __FILE__;
	int line = __LINE__;

	/* a slot an exit left at a daemon's cursor is the daemon's to free */
	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
	for (int i = 0; i < KSIM_NR_DAEMONS; i++)
		deferred += ksim_daemons[i].cursor && ksim_daemons[i].cursor->mm == mm;
	extra = atomic_read(&mm->mm_count) - 1 - deferred - uffd;
	if (extra > 0 && mm->ksim_ksm_slot)
		P(KSIM_P_TEST, "mm %d outlives mmput(): still registered with KSM (at %s:%d), its mmgrab() not dropped",
		  mm->ksim_id, ((struct ksim_mm_slot *)mm->ksim_ksm_slot)->file,
		  ((struct ksim_mm_slot *)mm->ksim_ksm_slot)->line);
	if (extra > 0 && mm->ksim_thp_slot)
		P(KSIM_P_TEST, "mm %d outlives mmput(): still registered with khugepaged (at %s:%d), its mmgrab() not dropped",
		  mm->ksim_id, ((struct ksim_mm_slot *)mm->ksim_thp_slot)->file,
		  ((struct ksim_mm_slot *)mm->ksim_thp_slot)->line);
	if (extra > 0 && !mm->ksim_ksm_slot && !mm->ksim_thp_slot)
		P(KSIM_P_TEST, "mm %d outlives mmput(): %d mm_count references not dropped", mm->ksim_id, extra);
	pthread_mutex_unlock(&ksim_hooks_lock);
}

void ksim_hooks_mm_free(struct mm_struct *mm)
{
	const char *file = __FILE__;
	int line = __LINE__;

	if (mm->ksim_ranges_active)
		P(KSIM_P_TEST, "mm %d freed with %d mmu_notifier ranges started and not ended", mm->ksim_id,
		  mm->ksim_ranges_active);
	if (!mm->ksim_notifier_released)
		P(KSIM_P_TEST, "mm %d freed without mmu_notifier_release()", mm->ksim_id);
}

/* Between operations: registrations consistent, no event left undelivered. */
unsigned long ksim_hooks_check_global(void)
{
	struct ksim_mm_slot *s;
	struct userfaultfd_ctx *ctx;
	unsigned long bad = 0;

	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
	list_for_each_entry(s, &ksm_slots, list)
		if (s->mm->ksim_ksm_slot != s || !mmf_test(s->mm, MMF_VM_MERGEABLE)) {
			ksim_problem(KSIM_P_TEST, s->file, s->line,
				     "KSM mm_slot of mm %d: the mm does not point back or lacks MMF_VM_MERGEABLE",
				     s->mm->ksim_id);
			bad++;
		}
	list_for_each_entry(s, &thp_slots, list)
		if (s->mm->ksim_thp_slot != s || !mmf_test(s->mm, MMF_VM_HUGEPAGE)) {
			ksim_problem(KSIM_P_TEST, s->file, s->line,
				     "khugepaged mm_slot of mm %d: the mm does not point back or lacks MMF_VM_HUGEPAGE",
				     s->mm->ksim_id);
			bad++;
		}
	list_for_each_entry(ctx, &uffd_all, all)
		if (atomic_read(&ctx->mmap_changing) || atomic_read(&ctx->refcount) < 1) {
			ksim_problem(KSIM_P_TEST, __FILE__, __LINE__,
				     "userfaultfd ctx of mm %d: %d events undelivered, refcount %d",
				     ctx->mm->ksim_id, atomic_read(&ctx->mmap_changing), atomic_read(&ctx->refcount));
			bad++;
		}
	pthread_mutex_unlock(&ksim_hooks_lock);
	return bad;
}

unsigned long ksim_hooks_check_all_freed(void)
{
	struct ksim_mm_slot *s;
	struct userfaultfd_ctx *ctx;
	unsigned long bad = 0;

	ksim_sched_mutex_lock(&ksim_hooks_lock, "mm-sim hooks");
	list_for_each_entry(s, &ksm_slots, list) {
		ksim_problem(KSIM_P_TEST, s->file, s->line, "KSM mm_slot of mm %d never freed", s->mm->ksim_id);
		bad++;
	}
	list_for_each_entry(s, &thp_slots, list) {
		ksim_problem(KSIM_P_TEST, s->file, s->line, "khugepaged mm_slot of mm %d never freed",
			     s->mm->ksim_id);
		bad++;
	}
	list_for_each_entry(ctx, &uffd_all, all) {
		ksim_problem(KSIM_P_TEST, __FILE__, __LINE__,
			     "userfaultfd ctx of mm %d left: refcount %d, %s", ctx->mm->ksim_id,
			     atomic_read(&ctx->refcount), ctx->fd_open ? "file open" : "no file holds it");
		bad++;
	}
	if (!list_empty(&mpol_all)) {
		ksim_problem(KSIM_P_TEST, __FILE__, __LINE__, "NUMA policies never freed");
		bad++;
	}
	pthread_mutex_unlock(&ksim_hooks_lock);
	return bad;
}

/* ---- per-VMA locks (include/linux/mmap_lock.h semantics), emulated ---- */
#if KSIM_HAVE_PER_VMA_LOCK
/* Where the readers and the shape live: kernel.h, struct vm_area_struct */
#if KSIM_HAVE_VMA_LOCK_ALLOC
static atomic_t *vma_readers(struct vm_area_struct *vma)
{
	return &vma->vm_lock->readers;
}

static unsigned long *vma_shadow(struct vm_area_struct *vma)
{
	return &vma->vm_lock->shadow;
}
#else
static atomic_t *vma_readers(struct vm_area_struct *vma)
{
	return &vma->ksim_readers;
}

static unsigned long *vma_shadow(struct vm_area_struct *vma)
{
	return &vma->ksim_shadow;
}
#endif

static bool mmap_write_held(struct mm_struct *mm)
{
	return lockdep_is_held_type(&mm->mmap_lock, 0);
}

/* __is_vma_write_locked(): only meaningful under the mmap write lock */
static bool vma_write_locked(struct vm_area_struct *vma)
{
	return READ_ONCE(vma->vm_lock_seq) == READ_ONCE(vma->vm_mm->mm_lock_seq);
}

/*
 * Wait for the VMA's readers to leave (rcuwait in the kernel); false if they
 * never do (a test holding a reader on purpose).  The limit is generous: a
 * stress reader holding a VMA may be descheduled for long on a loaded
 * machine; a test that holds one on purpose shortens it
 * (ksim_vma_readers_wait_ns, mm_sim/hooks.h).  Under deterministic
 * scheduling the baton goes to another thread, which may be the reader.
 */
long long ksim_vma_readers_wait_ns = 4500000000LL;

static bool wait_readers_left(struct vm_area_struct *vma)
{
	struct timespec t0 = { 0 }, t;

	/* The clock only once a reader is inside: it cost 7% of a fork. */
	while (atomic_read_acquire(vma_readers(vma))) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (!t0.tv_sec && !t0.tv_nsec)
			t0 = t;
		if ((t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec) >
		    __atomic_load_n(&ksim_vma_readers_wait_ns, __ATOMIC_RELAXED))
			return false;
		if (ksim_sched_current())
			ksim_sched_block("per-VMA lock readers");
		else
			sched_yield();
	}
	return true;
}

void ksim_vma_start_write(struct vm_area_struct *vma, KSIM_SITE_ARGS)
{
	if (!mmap_write_held(vma->vm_mm))	/* mmap_assert_write_locked() */
		P(KSIM_P_LOCKDEP, "vma_start_write() without the mmap write lock");
	if (vma_write_locked(vma))
		return;
	/*
	 * Mark it write-locked first, then wait for the readers inside: a
	 * reader increments its count and then rechecks vm_lock_seq, so
	 * either it sees the mark and backs off or we see it and wait (the
	 * kernel's VMA_LOCK_OFFSET closes the same window).  Waiting first
	 * let a reader in between and hold the VMA while it changed.
	 */
	WRITE_ONCE(vma->vm_lock_seq, vma->vm_mm->mm_lock_seq);
	smp_mb();
	ksim_yield_point();
	/* exclude readers: wait for the ones inside to leave */
	if (!wait_readers_left(vma))
		P(KSIM_P_LOCKDEP, "vma_start_write(): VMA [%lx, %lx) readers never left",
		  vma->vm_start, vma->vm_end);
}

/*
 * 7.x's vm_refcnt, emulated: a reader takes its reference only while the VMA
 * is attached (__refcount_inc_not_zero_limited_acquire() on a refcount
 * that is 0 when detached), so the check and the increment are one step
 * under this lock; the attach state changes under it too.  A reader that
 * took a reference just before the writer's vma_start_write() set
 * vm_lock_seq backs off on its recheck; vma_mark_detached() waits for such
 * readers, as __vma_exclude_readers_for_detach() does.  The lock lives
 * outside the VMA: a VMA's memory is reused at once (SLAB_TYPESAFE_BY_RCU).
 */
static pthread_mutex_t vma_ref_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Test-only mutant (-DKSIM_MUTANT_VMA_READ_NO_RECHECK=1): vma_start_read()
 * does not recheck vm_lock_seq after taking its reference, so a reader can
 * hold a VMA a writer write-locked in between (mm-sim/README.md, mutants).
 */
#ifndef KSIM_MUTANT_VMA_READ_NO_RECHECK
#define KSIM_MUTANT_VMA_READ_NO_RECHECK 0
#endif

void ksim_vma_set_attached(struct vm_area_struct *vma, bool attached, KSIM_SITE_ARGS)
{
#if KSIM_HAVE_MM_VMA_INIT_C
	pthread_mutex_lock(&vma_ref_lock);
	vma->ksim_attached = attached;
	pthread_mutex_unlock(&vma_ref_lock);
	if (!attached && !wait_readers_left(vma))
		P(KSIM_P_LOCKDEP, "vma_mark_detached(): VMA [%lx, %lx) readers never left",
		  vma->vm_start, vma->vm_end);
#endif
}

void ksim_vma_assert_write_locked(struct vm_area_struct *vma, KSIM_SITE_ARGS)
{
	if (!mmap_write_held(vma->vm_mm))
		P(KSIM_P_LOCKDEP, "vma_assert_write_locked() without the mmap write lock");
	else if (!vma_write_locked(vma))
		P(KSIM_P_WARN, "vma_assert_write_locked(): VMA [%lx, %lx) is not write-locked",
		  vma->vm_start, vma->vm_end);
}

/* vma_assert_locked(): read-locked (a reader inside), else write-locked */
void ksim_vma_assert_locked(struct vm_area_struct *vma, KSIM_SITE_ARGS)
{
	if (atomic_read(vma_readers(vma)))
		return;
	if (lockdep_is_held(&vma->vm_mm->mmap_lock) && !mmap_write_held(vma->vm_mm))
		return;	/* vma_assert_stabilised()'s mmap read lock */
	ksim_vma_assert_write_locked(vma, func, file, line);
}

/* include/linux/mmap_lock.h (7.x, lockdep on): our mmap lock, read or write, or else a VMA lock */
void ksim_vma_assert_stabilised(struct vm_area_struct *vma, KSIM_SITE_ARGS)
{
	if (lockdep_is_held(&vma->vm_mm->mmap_lock))
		return;
	ksim_vma_assert_locked(vma, func, file, line);
}

void ksim_vma_lock_reset(struct vm_area_struct *vma, bool reset_refcnt)
{
	vma->vm_lock_seq = UINT_MAX;
	if (reset_refcnt)
		atomic_set(vma_readers(vma), 0);
	*vma_shadow(vma) = 0;
}

#if KSIM_HAVE_VMA_LOCK_ALLOC
/* 6.12's vma_lock_alloc(): a new lock object, as init_rwsem() leaves it */
bool ksim_vma_lock_alloc(struct vm_area_struct *vma)
{
	vma->vm_lock = kmem_cache_alloc(vma_lock_cache, GFP_KERNEL);
	if (!vma->vm_lock)
		return false;
	ksim_vma_lock_reset(vma, true);
	return true;
}

void ksim_vma_lock_free(struct vm_area_struct *vma)
{
	kmem_cache_free(vma_lock_cache, vma->vm_lock);
}
#endif

void ksim_vma_free_check(struct vm_area_struct *vma, KSIM_SITE_ARGS)
{
	if (atomic_read(vma_readers(vma)))
		P(KSIM_P_TEST, "VMA [%lx, %lx) freed while %d reader(s) hold it", vma->vm_start, vma->vm_end,
		  atomic_read(vma_readers(vma)));
}

static unsigned long vma_shape(struct vm_area_struct *vma)
{
	unsigned long h = vma->vm_start * 31 + vma->vm_end;

	h = h * 31 + vma->vm_pgoff;
	h = h * 31 + vma->vm_flags;
	h = h * 31 + (unsigned long)vma->vm_file;
	h = h * 31 + (unsigned long)vma->vm_userfaultfd_ctx.ctx;
	return h | 1;
}

/*
 * mmap_write_unlock()/_downgrade(): vma_end_write_all() ends every VMA write
 * lock of this session.  Before it, every VMA whose shape changed since the
 * last unlock must have been write-locked: a lockless reader
 * (lock_vma_under_rcu()) would otherwise have seen it change under it.
 */
void ksim_mmap_write_unlock(struct mm_struct *mm, bool downgrade, KSIM_SITE_ARGS)
{
	if (mm->ksim_ranges_active)
		P(KSIM_P_LOCKDEP, "mmap_write_unlock() with %d mmu_notifier ranges started and not ended",
		  mm->ksim_ranges_active);
	if (!ksim_mm_checks_off && mmap_write_held(mm)) {
		struct vm_area_struct *vma;
		MA_STATE(mas, &mm->mm_mt, 0, 0);

		mas_for_each(&mas, vma, ULONG_MAX) {
			unsigned long h;

			/* a failed dup_mmap() leaves a zero entry and the parent's VMAs after it */
			if (xa_is_zero(vma) || vma->vm_mm != mm)
				continue;
			h = vma_shape(vma);

			if (h != *vma_shadow(vma) && !vma_write_locked(vma))
				P(KSIM_P_LOCKDEP, "VMA [%lx, %lx) of mm %d %s under the mmap write lock without vma_start_write()",
				  vma->vm_start, vma->vm_end, mm->ksim_id,
				  *vma_shadow(vma) ? "changed" : "inserted");
			*vma_shadow(vma) = h;
		}
	}
	/* mm_lock_seqcount_end(): even again, every VMA write lock of the session ends (RELEASE) */
	smp_store_release(&mm->mm_lock_seq, mm->mm_lock_seq + 1);
	if (downgrade)
		downgrade_write(&mm->mmap_lock);
	else
		up_write(&mm->mmap_lock);
}

void (*ksim_vma_read_race_hook)(struct vm_area_struct *vma);

#if KSIM_HAVE_LOCK_VMA_UNDER_RCU_MMAP_LOCK_C
/*
 * 7.x vma_start_read() (mm/mmap_lock.c, static there), emulated: called
 * under RCU, which it drops on failure; the kernel's lock_vma_under_rcu()
 * (extracted) does the rest: retry on -EAGAIN, the address recheck.
 */
struct vm_area_struct *ksim_vma_start_read(struct mm_struct *mm, struct vm_area_struct *vma)
{
	bool attached;

	/* a reader may be preempted between its walk, the check and the reference (PREEMPT_RCU) */
	if (ksim_vma_read_race_hook)
		ksim_vma_read_race_hook(vma);
	ksim_yield_point();
	if (READ_ONCE(vma->vm_lock_seq) == READ_ONCE(mm->mm_lock_seq)) {
		vma = NULL;
		goto err;
	}
	ksim_yield_point();
	pthread_mutex_lock(&vma_ref_lock);
	attached = READ_ONCE(vma->ksim_attached);
	if (attached)
		(void)atomic_inc_return(vma_readers(vma));
	pthread_mutex_unlock(&vma_ref_lock);
	if (!attached) {
		vma = ERR_PTR(-EAGAIN);	/* detached from under us */
		goto err;
	}
	smp_mb();
	/* reused for another mm, or write-locked since the first check */
	if (READ_ONCE(vma->vm_mm) != mm ||
	    (!KSIM_MUTANT_VMA_READ_NO_RECHECK &&
	     READ_ONCE(vma->vm_lock_seq) == smp_load_acquire(&mm->mm_lock_seq))) {
		atomic_dec(vma_readers(vma));
		vma = NULL;
		goto err;
	}
	ksim_yield_point();	/* a fault handler holds its VMA for long */
	return vma;
err:
	rcu_read_unlock();
	return vma;
}
#if KSIM_HAVE_LOCK_NEXT_VMA
/* 7.x vma_start_read_locked() (include/linux/mmap_lock.h): under the mmap read lock */
bool ksim_vma_start_read_locked(struct vm_area_struct *vma, KSIM_SITE_ARGS)
{
	bool attached;

	if (!lockdep_is_held(&vma->vm_mm->mmap_lock))	/* mmap_assert_locked() */
		P(KSIM_P_LOCKDEP, "vma_start_read_locked() without the mmap lock");
	pthread_mutex_lock(&vma_ref_lock);
	attached = READ_ONCE(vma->ksim_attached);
	if (attached)
		(void)atomic_inc_return(vma_readers(vma));
	pthread_mutex_unlock(&vma_ref_lock);
	return attached;
}
#endif
#elif KSIM_HAVE_LOCK_VMA_UNDER_RCU_MEMORY_C
/*
 * 6.12 vma_start_read() (include/linux/mm.h), emulated: the read side of
 * vma->vm_lock; the VMA itself stays allocated until a grace period after
 * vm_area_free() (call_rcu()), the caller checks vma->detached.
 */
bool ksim_vma_start_read(struct vm_area_struct *vma)
{
	if (ksim_vma_read_race_hook)
		ksim_vma_read_race_hook(vma);
	ksim_yield_point();	/* preemptible between the walk, the check and the lock (PREEMPT_RCU) */
	if (READ_ONCE(vma->vm_lock_seq) == READ_ONCE(vma->vm_mm->mm_lock_seq))
		return false;
	ksim_yield_point();
	(void)atomic_inc_return(vma_readers(vma));
	if (!KSIM_MUTANT_VMA_READ_NO_RECHECK &&
	    READ_ONCE(vma->vm_lock_seq) == smp_load_acquire(&vma->vm_mm->mm_lock_seq)) {
		atomic_dec(vma_readers(vma));
		return false;
	}
	ksim_yield_point();	/* a fault handler holds its VMA for long */
	return true;
}
#endif

/*
 * lock_vma_under_rcu(): the tree's own (extracted) where the probe found
 * it; otherwise an emulation: find the VMA under RCU, take a reader
 * reference unless it is write-locked, recheck it is still the VMA at
 * @addr.  NULL: the caller falls back to the mmap lock.
 */
struct vm_area_struct *ksim_lock_vma_under_rcu(struct mm_struct *mm, unsigned long addr)
{
#if KSIM_HAVE_LOCK_VMA_UNDER_RCU_MMAP_LOCK_C || KSIM_HAVE_LOCK_VMA_UNDER_RCU_MEMORY_C
	return lock_vma_under_rcu(mm, addr);
#else
	struct vm_area_struct *vma;
	MA_STATE(mas, &mm->mm_mt, addr, addr);

	rcu_read_lock();
	vma = mas_walk(&mas);
	if (!vma)
		goto fail;
	atomic_inc(vma_readers(vma));
	smp_mb();
	if (READ_ONCE(vma->vm_lock_seq) == READ_ONCE(mm->mm_lock_seq) || vma->vm_mm != mm ||
	    addr < vma->vm_start || addr >= vma->vm_end) {
		atomic_dec(vma_readers(vma));
		goto fail;
	}
	rcu_read_unlock();
	return vma;
fail:
	rcu_read_unlock();
	return NULL;
#endif
}

/* release: what the reader read of the VMA happens before the writer that waited for it */
void ksim_vma_end_read(struct vm_area_struct *vma)
{
	(void)atomic_dec_return(vma_readers(vma));
}
#endif /* KSIM_HAVE_PER_VMA_LOCK */

bool ksim_mm_has_per_vma_lock(void)
{
	return KSIM_HAVE_PER_VMA_LOCK;
}

void ksim_hooks_init(void)
{
	ksm_slot_cache = kmem_cache_create("ksm_mm_slot", sizeof(struct ksim_mm_slot), 0, 0, NULL);
	thp_slot_cache = kmem_cache_create("khugepaged_mm_slot", sizeof(struct ksim_mm_slot), 0, 0, NULL);
	uffd_ctx_cache = kmem_cache_create("userfaultfd_ctx_cache", sizeof(struct userfaultfd_ctx), 0, 0, NULL);
#if KSIM_HAVE_VMA_LOCK_ALLOC
	vma_lock_cache = kmem_cache_create("vma_lock", sizeof(struct ksim_vma_lock), 0, 0, NULL);
#endif
	policy_cache = kmem_cache_create("numa_policy", sizeof(struct mempolicy), 0, SLAB_PANIC, ksim_mpol_ctor);
}
