/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The subsystems the fork/exit/mmap/munmap/mremap paths and mm/vma.c call
 * into, emulated as state with their lifecycle rules checked (hooks.c):
 * KSM and khugepaged mm registration, userfaultfd fork and unmap events,
 * mmu notifier release and invalidation pairs, uprobes' fork flag, and the
 * per-VMA locks (CONFIG_PER_VMA_LOCK) where the tree has them.
 *
 * Every hook the kernel text calls is a macro passing the call site
 * (__FILE__/__LINE__, which #line directives point into the kernel tree),
 * so each broken rule is reported, through ksim_problem(), where the
 * kernel called the hook.  Included by mm_sim/kernel.h after the types.
 */
#ifndef _MM_SIM_HOOKS_H
#define _MM_SIM_HOOKS_H



/* ---- mm references (kernel/fork.c: mmgrab()/mmdrop(); the last drop frees) ---- */
void ksim_mm_free(struct mm_struct *mm);	/* sim.c: the checks at free, then free */
static inline void mmgrab(struct mm_struct *mm)
{
	atomic_inc(&mm->mm_count);
}
static inline void mmdrop(struct mm_struct *mm)
{
	if (atomic_dec_and_test(&mm->mm_count))
		ksim_mm_free(mm);
}
static inline bool mmget_not_zero(struct mm_struct *mm)
{
	return atomic_inc_not_zero(&mm->mm_users);
}
void mmput(struct mm_struct *mm);	/* kernel/fork.c, extracted */

/* ---- KSM (mm/ksm.c __ksm_enter/__ksm_exit, include/linux/ksm.h wrappers) ---- */
int ksim_ksm_fork(struct mm_struct *mm, struct mm_struct *oldmm, KSIM_SITE_ARGS);
void ksim_ksm_exit(struct mm_struct *mm, KSIM_SITE_ARGS);
#define ksm_fork(mm, oldmm)		ksim_ksm_fork(mm, oldmm, KSIM_SITE)
#define ksm_exit(mm)			ksim_ksm_exit(mm, KSIM_SITE)

/* ---- khugepaged (mm/khugepaged.c __khugepaged_enter/__khugepaged_exit) ---- */
void ksim_khugepaged_fork(struct mm_struct *mm, struct mm_struct *oldmm, KSIM_SITE_ARGS);
void ksim_khugepaged_exit(struct mm_struct *mm, KSIM_SITE_ARGS);
#define khugepaged_fork(mm, oldmm)	ksim_khugepaged_fork(mm, oldmm, KSIM_SITE)
#define khugepaged_exit(mm)		ksim_khugepaged_exit(mm, KSIM_SITE)
/* THP not configured (hugepage_pmd_enabled() false): it never registers */
#define khugepaged_enter_vma(v, f)	do { } while (0)

/* ---- userfaultfd (fs/userfaultfd.c): fork and unmap events ---- */
/*
 * The kernel's context (include/linux/userfaultfd_k.h on 6.12+, 6.1 keeps
 * it in fs/userfaultfd.c) reduced to the fields the VMA code, the ioctls
 * and the emulation read: mm/userfaultfd.c's registration functions and
 * the UFFDIO_(UN)REGISTER ioctls (extracted, kernel_mm.c) read ->mm and
 * ->features (as UFFDIO_API leaves them: the requested features and
 * UFFD_FEATURE_INITIALIZED).  Its wait queues are not here: no fault waits
 * (kernel_mm.c's wake_userfault()).
 */
struct userfaultfd_ctx {
	atomic_t refcount;
	unsigned long features;
	struct mm_struct *mm;
	atomic_t mmap_changing;		/* events queued and not yet read */
	bool released;
	bool fd_open;			/* the monitor holds its file */
	unsigned long fork_events, unmap_events;
	struct list_head all;
};
int ksim_dup_userfaultfd(struct vm_area_struct *vma, struct list_head *fcs, KSIM_SITE_ARGS);
void ksim_dup_userfaultfd_complete(struct list_head *fcs, KSIM_SITE_ARGS);
void ksim_dup_userfaultfd_fail(struct list_head *fcs, KSIM_SITE_ARGS);
int ksim_userfaultfd_unmap_prep(struct vm_area_struct *vma, unsigned long start,
				unsigned long end, struct list_head *uf, KSIM_SITE_ARGS);
void ksim_userfaultfd_unmap_complete(struct mm_struct *mm, struct list_head *uf,
				     KSIM_SITE_ARGS);
/*
 * include/linux/userfaultfd_k.h's tests of a registered VMA, with the
 * kernel's bodies: what mremap asks of a VMA (a context without
 * UFFD_FEATURE_EVENT_REMAP is dropped by the move, so 7.x's copy_vma() does
 * not merge the copy and page tables move pte by pte; 7.x moves a
 * registered VMA alone)
 */
static inline bool userfaultfd_armed(struct vm_area_struct *vma)
{
	return vma->vm_flags & VM_UFFD_FLAGS;
}
static inline bool vma_has_uffd_without_event_remap(struct vm_area_struct *vma)
{
	struct userfaultfd_ctx *uffd_ctx = vma->vm_userfaultfd_ctx.ctx;

	return uffd_ctx && (uffd_ctx->features & (1UL << 2) /* UFFD_FEATURE_EVENT_REMAP */) == 0;
}
/* @ctx is a context of @mm the monitor has not closed (the per-mm invariant) */
bool ksim_uffd_ctx_live(struct userfaultfd_ctx *ctx, struct mm_struct *mm);
#if KSIM_HAVE_MM_VMA_C
/* mm/userfaultfd.c's registration functions, extracted (kernel_mm.c; static on 7.x) */
/* the UFFDIO_REGISTER/UNREGISTER ioctls (6.12: fs/userfaultfd.c), @arg the uffdio struct's address */
int ksim_userfaultfd_register(struct userfaultfd_ctx *ctx, unsigned long arg);
int ksim_userfaultfd_unregister(struct userfaultfd_ctx *ctx, unsigned long arg);
void ksim_userfaultfd_reset_ctx(struct vm_area_struct *vma);
void ksim_userfaultfd_release_all(struct mm_struct *mm, struct userfaultfd_ctx *ctx);
#endif
#define dup_userfaultfd(v, l)			ksim_dup_userfaultfd(v, l, KSIM_SITE)
#define dup_userfaultfd_complete(l)		ksim_dup_userfaultfd_complete(l, KSIM_SITE)
#define dup_userfaultfd_fail(l)			ksim_dup_userfaultfd_fail(l, KSIM_SITE)
#define userfaultfd_unmap_prep(v, s, e, u)	ksim_userfaultfd_unmap_prep(v, s, e, u, KSIM_SITE)
#define userfaultfd_unmap_complete(mm, u)	ksim_userfaultfd_unmap_complete(mm, u, KSIM_SITE)
/* include/linux/userfaultfd_k.h: VMAs with different contexts never merge */
#define is_mergeable_vm_userfaultfd_ctx(v, c)	((v)->vm_userfaultfd_ctx.ctx == (c).ctx)

/*
 * ---- NUMA topology (include/linux/numa.h, nodemask_types.h, nodemask.h) ----
 * ksim's machine: CONFIG_NODES_SHIFT 6 (x86-64's default; MAX_NUMNODES 64,
 * a nodemask_t is one word) and nodes 0 and 1 possible, online and with
 * memory (node_states[], hooks.c), so mbind(2)'s node checks have an
 * outside: nodes 2..63 are valid numbers but not online, 64 and up are
 * beyond MAX_NUMNODES.  No cpusets (the kernel's !CONFIG_CPUSETS
 * cpuset_current_mems_allowed).  Pages have no node: the page walk that
 * would look (queue_pages_range()'s pte walker) is not run (kernel_mm.c).
 * The nodemask operations are linux/nodemask.h's, over the shim's bitmaps.
 */
#define NODES_SHIFT			6
#define MAX_NUMNODES			(1 << NODES_SHIFT)
#define NUMA_NO_NODE			(-1)
#define KSIM_NR_NODES			2	/* nodes 0 and 1 */
typedef struct { DECLARE_BITMAP(bits, MAX_NUMNODES); } nodemask_t;
enum node_states {
	N_POSSIBLE,
	N_ONLINE,
	N_NORMAL_MEMORY,
	N_HIGH_MEMORY = N_NORMAL_MEMORY,	/* no CONFIG_HIGHMEM */
	N_MEMORY,
	N_CPU,
	N_GENERIC_INITIATOR,
	NR_NODE_STATES
};
extern nodemask_t node_states[NR_NODE_STATES];
#define nodes_addr(src)			((src).bits)
#define node_set(node, dst)		__set_bit((node), (dst).bits)
#define node_isset(node, nodemask)	test_bit((node), (nodemask).bits)
#define nodes_clear(dst)		bitmap_zero((dst).bits, MAX_NUMNODES)
#define nodes_and(dst, src1, src2)	bitmap_and((dst).bits, (src1).bits, (src2).bits, MAX_NUMNODES)
#define nodes_equal(src1, src2)		bitmap_equal((src1).bits, (src2).bits, MAX_NUMNODES)
#define nodes_empty(src)		bitmap_empty((src).bits, MAX_NUMNODES)
#define nodes_weight(nodemask)		bitmap_weight((nodemask).bits, MAX_NUMNODES)
#define first_node(src)			((int)find_first_bit((src).bits, MAX_NUMNODES))
void bitmap_onto(unsigned long *dst, const unsigned long *orig, const unsigned long *relmap,
		 unsigned int bits);	/* lib/bitmap.c, extracted */
void bitmap_fold(unsigned long *dst, const unsigned long *orig, unsigned int sz, unsigned int nbits);
#define nodes_onto(dst, orig, relmap)	bitmap_onto((dst).bits, (orig).bits, (relmap).bits, MAX_NUMNODES)
#define nodes_fold(dst, orig, sz)	bitmap_fold((dst).bits, (orig).bits, (sz), MAX_NUMNODES)
/* NODES_SHIFT <= 8: the scratch masks live on the stack */
struct nodemask_scratch {
	nodemask_t mask1;
	nodemask_t mask2;
};
#define NODEMASK_ALLOC(type, name, gfp_flags)	type _##name, *name = &_##name
#define NODEMASK_FREE(m)			do {} while (0)
#define NODEMASK_SCRATCH(x)			NODEMASK_ALLOC(struct nodemask_scratch, x, GFP_KERNEL | __GFP_NORETRY)
#define NODEMASK_SCRATCH_FREE(x)		NODEMASK_FREE(x)
#define cpuset_current_mems_allowed		(node_states[N_MEMORY])

/*
 * ---- NUMA memory policy (mm/mempolicy.c), emulated as tracked state ----
 * A kernel without CONFIG_NUMA has no policies; here VMAs carry one so that
 * mbind(2) (the syscall down to mbind_range(), vma_replace_policy(),
 * extracted) and mm/vma.c's vma_modify_policy() run, and split, fork and
 * mremap duplicate it (vma_dup_policy(), extracted).  The object is
 * include/linux/mempolicy.h's (no RCU head: 7.x's kfree_rcu() put is a
 * plain free here) plus ksim's bookkeeping; mpol_put()/mpol_dup()/
 * mpol_equal()/vma_policy() are linux/mempolicy.h's, mpol_new() and
 * __mpol_equal() are extracted, and __mpol_dup()/__mpol_put() keep the
 * kernel's rules (a duplicate is a new object with one reference; the last
 * put frees).  Every duplicate is on a list (a VMA only ever holds one:
 * vma_replace_policy() installs mpol_dup() of mbind's policy):
 * ksim_mm_check_global() matches each refcount with the VMAs that point at
 * it, and none may be left at the end.
 */
struct mempolicy {
	atomic_t refcnt;
	unsigned short mode;		/* MPOL_* (uapi/linux/mempolicy.h) */
	unsigned short flags;
	nodemask_t nodes;
	int home_node;
	union {
		nodemask_t cpuset_mems_allowed;
		nodemask_t user_nodemask;
	} w;
	struct list_head ksim_all;	/* every live duplicate; empty from the cache's ctor */
	unsigned int ksim_refs;		/* VMA references counted by the check */
};
extern struct kmem_cache *policy_cache;	/* mm/mempolicy.c's, "numa_policy" (hooks.c) */
struct mempolicy *__mpol_dup(struct mempolicy *old);
void __mpol_put(struct mempolicy *pol);
bool __mpol_equal(struct mempolicy *a, struct mempolicy *b);
static inline void mpol_put(struct mempolicy *pol)
{
	if (pol)
		__mpol_put(pol);
}
static inline struct mempolicy *mpol_dup(struct mempolicy *pol)
{
	if (pol)
		pol = __mpol_dup(pol);
	return pol;
}
static inline bool mpol_equal(struct mempolicy *a, struct mempolicy *b)
{
	if (a == b)
		return true;
	return __mpol_equal(a, b);
}
#define vma_policy(vma)			((vma)->vm_policy)
int vma_dup_policy(struct vm_area_struct *src, struct vm_area_struct *dst);	/* extracted */
static inline void mpol_get(struct mempolicy *pol)
{
	if (pol)
		atomic_inc(&pol->refcnt);
}
void ksim_mpol_count(struct vm_area_struct *vma, unsigned long *bad);
unsigned long ksim_mpol_check_done(void);

/* ---- mmu notifiers (mm/mmu_notifier.c, include/linux/mmu_notifier.h) ---- */
struct mmu_notifier_range {
	struct mm_struct *mm;
	unsigned long start, end;
	const char *ksim_file;	/* where it was started, while started */
	int ksim_line;
};
void ksim_mmu_notifier_release(struct mm_struct *mm, KSIM_SITE_ARGS);
void ksim_mmu_notifier_range_init(struct mmu_notifier_range *r, struct mm_struct *mm,
				  unsigned long start, unsigned long end);
void ksim_mmu_notifier_range_start(struct mmu_notifier_range *r, KSIM_SITE_ARGS);
void ksim_mmu_notifier_range_end(struct mmu_notifier_range *r, KSIM_SITE_ARGS);
#define mmu_notifier_release(mm)		ksim_mmu_notifier_release(mm, KSIM_SITE)
/* (range, event, flags, [vma,] mm, start, end): older trees pass the VMA too */
#define __ksim_mnr_pick(r, a, b, c, d, which, ...)	which
#define __ksim_mnr3(r, mm, s, e)			ksim_mmu_notifier_range_init(r, mm, s, e)
#define __ksim_mnr4(r, vma, mm, s, e)			ksim_mmu_notifier_range_init(r, mm, s, e)
#define mmu_notifier_range_init(r, ev, fl, ...)					\
	__ksim_mnr_pick(r, __VA_ARGS__, __ksim_mnr4, __ksim_mnr3)(r, __VA_ARGS__)
#define mmu_notifier_invalidate_range_start(r)	ksim_mmu_notifier_range_start(r, KSIM_SITE)
#define mmu_notifier_invalidate_range_end(r)	ksim_mmu_notifier_range_end(r, KSIM_SITE)

/* ---- uprobes (kernel/events/uprobes.c uprobe_dup_mmap()) ---- */
void ksim_uprobe_dup_mmap(struct mm_struct *oldmm, struct mm_struct *mm, KSIM_SITE_ARGS);
#define uprobe_dup_mmap(o, n)			ksim_uprobe_dup_mmap(o, n, KSIM_SITE)

/* ---- the rules checked from outside the hooks (sim.c drivers, tests) ---- */
/* dup_mmap() returned @err: its uffd fork list was completed or failed to match. */
void ksim_hooks_fork_begin(void);
void ksim_hooks_fork_end(struct mm_struct *child, struct mm_struct *parent, int err);
/* A syscall driver's userfaultfd unmap list after the call (must be empty). */
void ksim_hooks_uf_done(struct mm_struct *mm, struct list_head *uf, const char *what);
/* mmput() returned and @mm is still allocated: is that allowed (a uffd ctx holds it)? */
void ksim_hooks_mm_put_done(struct mm_struct *mm);
/* The mm is being freed: nothing may still refer to it. */
void ksim_hooks_mm_free(struct mm_struct *mm);
void ksim_hooks_init(void);

/* ---- per-VMA locks (CONFIG_PER_VMA_LOCK), emulated: hooks.c ---- */
#if KSIM_HAVE_PER_VMA_LOCK
void ksim_vma_start_write(struct vm_area_struct *vma, KSIM_SITE_ARGS);
void ksim_vma_assert_write_locked(struct vm_area_struct *vma, KSIM_SITE_ARGS);
void ksim_vma_assert_locked(struct vm_area_struct *vma, KSIM_SITE_ARGS);
void ksim_vma_assert_stabilised(struct vm_area_struct *vma, KSIM_SITE_ARGS);
/* vm_lock_seq = UINT_MAX, a new VMA for the shape check; reset_refcnt: no readers */
void ksim_vma_lock_reset(struct vm_area_struct *vma, bool reset_refcnt);
void ksim_vma_free_check(struct vm_area_struct *vma, KSIM_SITE_ARGS);
/* How long a writer waits for a VMA's readers before it reports them (4.5 s) */
extern long long ksim_vma_readers_wait_ns;
void ksim_mmap_write_unlock(struct mm_struct *mm, bool downgrade, KSIM_SITE_ARGS);
/* mm_lock_seqcount_begin(): the mm's sequence odd while the mmap lock is write-held */
static inline void ksim_mm_lock_seq_begin(struct mm_struct *mm)
{
	WRITE_ONCE(mm->mm_lock_seq, mm->mm_lock_seq + 1);
	smp_wmb();
}
#define mmap_write_lock(mm)		do { down_write(&(mm)->mmap_lock); ksim_mm_lock_seq_begin(mm); } while (0)
#define mmap_write_lock_nested(mm, c)	do { down_write_nested(&(mm)->mmap_lock, c); ksim_mm_lock_seq_begin(mm); } while (0)
#define mmap_write_lock_killable(mm)	({ int __r = down_write_killable(&(mm)->mmap_lock);	\
					   if (!__r) ksim_mm_lock_seq_begin(mm); __r; })
#define vma_start_write(v)		ksim_vma_start_write(v, KSIM_SITE)
/* -EINTR (not locked) when a fatal signal is pending: the fault engine's class signal */
#define vma_start_write_killable(v)	({ ksim_should_fail_signal(__func__, __FILE__, __LINE__) ? -EINTR : \
					   (ksim_vma_start_write(v, KSIM_SITE), 0); })
#define vma_assert_write_locked(v)	ksim_vma_assert_write_locked(v, KSIM_SITE)
#define vma_assert_locked(v)		ksim_vma_assert_locked(v, KSIM_SITE)
#define vma_assert_can_modify(v)	ksim_vma_assert_write_locked(v, KSIM_SITE)
#define vma_assert_stabilised(v)	ksim_vma_assert_stabilised(v, KSIM_SITE)
#define mmap_write_unlock(mm)		ksim_mmap_write_unlock(mm, false, KSIM_SITE)
#define mmap_write_downgrade(mm)	ksim_mmap_write_unlock(mm, true, KSIM_SITE)
#define vma_end_write_all(mm)		do { } while (0)	/* in ksim_mmap_write_unlock() */
/*
 * The reader side, in the shape the tree's own lock_vma_under_rcu() calls
 * it (extracted verbatim from mm/memory.c or mm/mmap_lock.c,
 * extract/functions.txt): 6.12 vma_start_read(vma) -> bool, then it checks
 * vma->detached itself; 7.x vma_start_read(mm, vma) -> the VMA, NULL, or
 * ERR_PTR(-EAGAIN) when it was detached, dropping the RCU lock on failure.
 */
#if KSIM_HAVE_LOCK_VMA_UNDER_RCU_MMAP_LOCK_C
struct vm_area_struct *ksim_vma_start_read(struct mm_struct *mm, struct vm_area_struct *vma);
#define vma_start_read(mm, v)		ksim_vma_start_read(mm, v)
#elif KSIM_HAVE_LOCK_VMA_UNDER_RCU_MEMORY_C
bool ksim_vma_start_read(struct vm_area_struct *vma);
#define vma_start_read(v)		ksim_vma_start_read(v)
#endif
void ksim_vma_end_read(struct vm_area_struct *vma);
#define vma_end_read(v)			ksim_vma_end_read(v)
#define count_vm_vma_lock_event(e)	do { } while (0)
struct vm_area_struct *lock_vma_under_rcu(struct mm_struct *mm, unsigned long address);
#if KSIM_HAVE_LOCK_NEXT_VMA
/* include/linux/mmap_lock.h, on the mm's sequence: raw_seqcount_try_begin(), read_seqcount_retry() */
static inline bool mmap_lock_speculate_try_begin(struct mm_struct *mm, unsigned int *seq)
{
	*seq = smp_load_acquire(&mm->mm_lock_seq);
	return !(*seq & 1);
}
static inline bool mmap_lock_speculate_retry(struct mm_struct *mm, unsigned int seq)
{
	smp_rmb();
	return READ_ONCE(mm->mm_lock_seq) != seq;
}
/* vma_start_read_locked(): a reader reference under the mmap read lock */
bool ksim_vma_start_read_locked(struct vm_area_struct *vma, KSIM_SITE_ARGS);
#define vma_start_read_locked(v)	ksim_vma_start_read_locked(v, KSIM_SITE)
struct vma_iterator;
struct vm_area_struct *lock_next_vma(struct mm_struct *mm, struct vma_iterator *vmi,
				     unsigned long from_addr);
#endif
/* 7.x: attach and detach under the lock readers take their reference with */
void ksim_vma_set_attached(struct vm_area_struct *vma, bool attached, KSIM_SITE_ARGS);
#endif

#endif
