// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel side of mm-sim, one translation unit: kernel code compiled
 * unmodified against mm_sim/kernel.h.
 *
 *   lib/rbtree.c, mm/interval_tree.c   #included whole
 *   mm/vma.c (6.12 and later)          #included whole
 *   mm/vma_init.c (where it exists)    #included whole: vm_area_alloc/dup/free
 *   mm_extract_gen.c                   functions extracted verbatim at build
 *                                      time from kernel/fork.c, mm/rmap.c,
 *                                      mm/memory.c, mm/mmap.c
 *                                      (mm-sim/extract/functions.txt)
 *   mm_mremap_gen.c (6.12)             mm/mremap.c, syscall included, and
 *                                      its helpers (extract/mremap.txt)
 *   mm_mmap_gen.c (6.12+)              mmap(2): ksys_mmap_pgoff(),
 *                                      vm_mmap_pgoff(), do_mmap()
 *                                      (extract/mmap.txt)
 *   mm_syscalls_gen.c                  mlock(2), mlock2(2), munlock(2),
 *                                      brk(2), madvise(2),
 *                                      prctl(PR_SET_VMA)
 *                                      (extract/syscalls.txt)
 *
 * Static kernel functions the simulator drives (dup_mmap) get a ksim_
 * wrapper at the end; the kernel's static caches are defined here, as the
 * files they come from define them.
 */
#include <mm_sim/kernel.h>
#include <mm_sim/sim.h>	/* struct ksim_uffdio_register/_range: checked against the uapi below */
#include <lib/rbtree.c>
#include <mm/interval_tree.c>
#ifdef KSIM_VMA_SUITE
#include "vma_suite_rmap.h"	/* the tree's VMA tests watch the anon_vma trees from here on */
#endif

#if !KSIM_HAVE_MM_VMA_INIT_C
struct kmem_cache *vm_area_cachep;		/* kernel/fork.c */
#endif
int sysctl_max_map_count = 1 << 30;	/* mm/mmap.c's sysctl, unlimited here */
DEFINE_SPINLOCK(mmlist_lock);		/* kernel/fork.c: __mmput() takes it */
static struct kmem_cache *anon_vma_cachep;	/* mm/rmap.c */
static struct kmem_cache *anon_vma_chain_cachep;

#if KSIM_HAVE_MM_VMA_C
#include <mm/vma.c>
#endif
#if KSIM_HAVE_MM_VMA_INIT_C
#include <mm/vma_init.c>	/* its own static vm_area_cachep */
#endif

#if KSIM_HAVE_UNMAP_DESC
/*
 * mm/memory.c's __zap_vma_range() (static, called by the extracted
 * unmap_vmas()), simulated like unmap_page_range() on older trees: clear
 * the ptes of the simulated tables (sim_memory.c).
 */
static void __zap_vma_range(struct mmu_gather *tlb, struct vm_area_struct *vma,
			    unsigned long start, unsigned long end,
			    struct zap_details *details)
{
	if (start < end)
		unmap_page_range(tlb, vma, start, end, details);
}
#endif

#if KSIM_HAVE_PER_VMA_LOCK && !KSIM_HAVE_MM_VMA_INIT_C
/*
 * kernel/fork.c's vm_area_free_rcu_cb() (static there), simulated: the
 * extracted vm_area_free() hands the VMA to call_rcu() under
 * CONFIG_PER_VMA_LOCK; the kernel's one asserts the VMA lock is not held,
 * which __vm_area_free()'s ksim_vma_free_check() does on the emulation.
 */
void __vm_area_free(struct vm_area_struct *vma);
static void vm_area_free_rcu_cb(struct rcu_head *head)
{
	__vm_area_free(container_of(head, struct vm_area_struct, vm_rcu));
}
#endif

/* mm/madvise.c's own struct, defined in the extract after the prototypes that name it */
struct madvise_behavior;
#include "mm_extract_gen.c"

#if KSIM_MMSIM_ANON_NAME
/*
 * madvise(2) is the tree's from the syscall down to madvise_vma_behavior()'s
 * switch (extract/syscalls.txt), the VMA-flag advice through the tree's
 * madvise_update_vma() and mm/vma.c.  What the switch dispatches to for
 * page-level advice is not simulated (no page cache, swap, LRU, page-table
 * markers or zapping of ranges by advice): mm-sim's versions, kernel names,
 * fail with -ENOSYS, an error madvise(2) never returns, so a caller can
 * never mistake one for the kernel's answer.  The arguments were checked
 * by the tree first (do_madvise()), and each is reached only for a mapped
 * VMA of the range, but madvise_populate(), which takes the whole range.
 * THP and KSM are not configured: their calls in the switch are
 * include/linux/huge_mm.h's and ksm.h's stubs (unreachable:
 * madvise_behavior_valid() refuses their advice first).
 */
#if KSIM_HAVE_MADVISE_BEHAVIOR
static long madvise_remove(struct madvise_behavior *madv_behavior)
{
	return -ENOSYS;		/* vfs_fallocate() hole punch: not simulated */
}

static long madvise_willneed(struct madvise_behavior *madv_behavior)
{
	return -ENOSYS;		/* readahead, swapin: not simulated */
}

static long madvise_cold(struct madvise_behavior *madv_behavior)
{
	return -ENOSYS;		/* LRU deactivation: not simulated */
}

static long madvise_pageout(struct madvise_behavior *madv_behavior)
{
	return -ENOSYS;		/* reclaim: not simulated */
}

static long madvise_dontneed_free(struct madvise_behavior *madv_behavior)
{
	return -ENOSYS;		/* zap_page_range_single(), lazy free: not simulated */
}

static long madvise_populate(struct madvise_behavior *madv_behavior)
{
	return -ENOSYS;		/* faultin_page_range(): not simulated */
}

static long madvise_guard_install(struct madvise_behavior *madv_behavior)
{
	return -ENOSYS;		/* guard pte markers: not simulated */
}

static long madvise_guard_remove(struct madvise_behavior *madv_behavior)
{
	return -ENOSYS;
}

/* include/linux/huge_mm.h without CONFIG_TRANSPARENT_HUGEPAGE */
static inline int hugepage_madvise(struct vm_area_struct *vma, vm_flags_t *vm_flags, int advice)
{
	return -EINVAL;
}

static inline int madvise_collapse(struct vm_area_struct *vma, unsigned long start, unsigned long end,
				   bool *lock_dropped)
{
	return -EINVAL;
}
#else
static long madvise_remove(struct vm_area_struct *vma, struct vm_area_struct **prev,
			   unsigned long start, unsigned long end)
{
	return -ENOSYS;		/* vfs_fallocate() hole punch: not simulated */
}

static long madvise_willneed(struct vm_area_struct *vma, struct vm_area_struct **prev,
			     unsigned long start, unsigned long end)
{
	return -ENOSYS;		/* readahead, swapin: not simulated */
}

static long madvise_cold(struct vm_area_struct *vma, struct vm_area_struct **prev,
			 unsigned long start, unsigned long end)
{
	return -ENOSYS;		/* LRU deactivation: not simulated */
}

static long madvise_pageout(struct vm_area_struct *vma, struct vm_area_struct **prev,
			    unsigned long start, unsigned long end)
{
	return -ENOSYS;		/* reclaim: not simulated */
}

static long madvise_dontneed_free(struct vm_area_struct *vma, struct vm_area_struct **prev,
				  unsigned long start, unsigned long end, int behavior)
{
	return -ENOSYS;		/* zap_page_range_single(), lazy free: not simulated */
}

static long madvise_populate(struct mm_struct *mm, unsigned long start, unsigned long end, int behavior)
{
	return -ENOSYS;		/* faultin_page_range(): not simulated */
}

/* include/linux/huge_mm.h without CONFIG_TRANSPARENT_HUGEPAGE */
static inline int hugepage_madvise(struct vm_area_struct *vma, unsigned long *vm_flags, int advice)
{
	return -EINVAL;
}

static inline int madvise_collapse(struct vm_area_struct *vma, struct vm_area_struct **prev,
				   unsigned long start, unsigned long end)
{
	return -EINVAL;
}

/*
 * mm/mseal.c's (mm/vma.h declares it under CONFIG_64BIT): mseal is not
 * simulated (VM_SEALED is VM_NONE), and for an unsealed VMA every advice
 * may modify
 */
bool can_modify_vma_madv(struct vm_area_struct *vma, int behavior)
{
	return true;
}
#endif
#endif /* KSIM_MMSIM_ANON_NAME */

#if KSIM_MMSIM_MREMAP
/* mm/mremap.c and what it reaches (mm-sim/extract/mremap.txt) */
#include <mm_sim/mremap.h>
#include "mm_mremap_types_gen.h"
#include "mm_mremap_gen.c"

long ksim_do_mremap(unsigned long addr, unsigned long old_len, unsigned long new_len,
		    unsigned long flags, unsigned long new_addr)
{
	return ksim_sys_mremap(addr, old_len, new_len, flags, new_addr);
}

/* __vm_munmap() is static in mm/mmap.c on older trees (extracted there) */
int ksim_vm_munmap(unsigned long start, size_t len, bool unlock)
{
	return __vm_munmap(start, len, unlock);
}

/*
 * mlock(2), mlock2(2), munlock(2) and brk(2), the syscall bodies
 * (extract/syscalls.txt): ksim_sys_mlock() & co. on current->mm, called
 * by sim.c.  After mm_mremap_gen.c: brk's check_brk_limits() calls
 * get_unmapped_area() from there.
 */
#include "mm_syscalls_gen.c"

/*
 * prctl(PR_SET_VMA, @opt, @addr, @size, @arg): the tree's prctl_set_vma()
 * (extract/syscalls.txt) on current->mm, which takes the mmap lock itself.
 */
long ksim_sys_prctl_set_vma(unsigned long opt, unsigned long addr, unsigned long size, unsigned long arg)
{
	return prctl_set_vma(opt, addr, size, arg);
}

/* get_unmapped_area(NULL, 0, len, 0, 0) for current->mm == @mm, mmap lock held */
unsigned long ksim_get_unmapped_area(struct mm_struct *mm, unsigned long len)
{
	return ksim_mm_get_unmapped_area(mm, NULL, 0, len, 0, 0);
}
#endif

/*
 * mmap(2) from the syscall down (extract/mmap.txt): ksys_mmap_pgoff(),
 * vm_mmap_pgoff() and do_mmap(), the tree's, over mm_sim/mmap.h.
 */
#if KSIM_HAVE_MM_VMA_C
#include <mm_sim/mmap.h>
#include "mm_mmap_gen.c"

void ksim_set_current(struct mm_struct *mm);	/* sim.c */

long ksim_sys_mmap(struct mm_struct *mm, unsigned long addr, unsigned long len,
		   unsigned long prot, unsigned long flags, unsigned long fd, unsigned long off)
{
	long ret;

	ksim_set_current(mm);
	/*
	 * arch/x86/kernel/sys_x86_64.c's SYSCALL_DEFINE6(mmap), whose file
	 * Debian's linux-source does not ship: its two lines, as written there.
	 */
	if (off & ~PAGE_MASK)
		ret = -EINVAL;
	else
		ret = ksys_mmap_pgoff(addr, len, prot, flags, fd, off >> PAGE_SHIFT);
	ksim_set_current(NULL);
	return ret;
}
#else
long ksim_sys_mmap(struct mm_struct *mm, unsigned long addr, unsigned long len,
		   unsigned long prot, unsigned long flags, unsigned long fd, unsigned long off)
{
	return -ENOSYS;	/* no mm/vma.c: ksim_mmap()'s direct path only */
}
#endif

#if KSIM_HAVE_MM_VMA_C
/*
 * mm/userfaultfd.c's VMA side of UFFDIO_REGISTER/UNREGISTER and of the
 * release of the file (extract/userfaultfd.txt): userfaultfd_register_range(),
 * userfaultfd_clear_vma(), userfaultfd_release_all(), the ctx/flag setters
 * and vma_can_userfault() (6.12: linux/userfaultfd_k.h's inline).  They
 * split and merge through mm/vma.c's vma_modify_flags_uffd().  What is
 * configured: MISSING mode on anonymous memory; uffd-wp (its pte bits and
 * markers), MINOR, hugetlb and shmem are not, so the pte work these functions
 * guard by userfaultfd_wp()/_rwp() never runs (reaching it WARNs).
 *
 * The ioctls above them are the tree's too: userfaultfd_register() and
 * userfaultfd_unregister() (fs/userfaultfd.c on 6.12, mm/userfaultfd.c on
 * 7.x) with validate_range(), given the address of the uffdio struct: they
 * read it with the shim's copy_from_user() and write the ioctls mask back
 * with put_user() (ksim has no user/kernel split).  The page tables have
 * no uffd pte bit: pgtable_supports_uffd_wp() (7.2), pgtable_supports_uffd()
 * (7.3) are false, and CONFIG_HAVE_ARCH_USERFAULTFD_WP (6.12) and _MINOR
 * are not set, so WP, RWP and MINOR registration is refused (-EINVAL) by
 * the ioctl's own checks, as on an architecture without them.
 */
#include <include/uapi/linux/userfaultfd.h>
#include <linux/uaccess.h>
#define pgtable_supports_uffd_wp()	false
#define pgtable_supports_uffd()		false
struct userfaultfd_wake_range;
/*
 * wake_userfault(): wakes the faults waiting in the range being
 * unregistered.  No fault ever waits here (handle_userfault() is not
 * simulated), so there is nothing to wake.
 */
static inline void wake_userfault(struct userfaultfd_ctx *ctx, struct userfaultfd_wake_range *range)
{
}
#if KSIM_HAVE_UFFD_OPS
struct vm_uffd_ops {		/* include/linux/userfaultfd_k.h: the member asked here */
	bool (*can_userfault)(struct vm_area_struct *vma, vm_flags_t vm_flags);
};
static const struct vm_uffd_ops *vma_uffd_ops(struct vm_area_struct *vma);
#define uffd_supports_wp_marker()		false
#endif
#define uffd_wp_range(vma, start, len, enable)	({ WARN_ON_ONCE(1); 0L; })
#define uffd_disable_huge_pmd_share(vma)	false
#define hugetlb_unshare_all_pmds(vma)		do { } while (0)
#ifndef MM_CP_UFFD_WP_RESOLVE
#define MM_CP_UFFD_WP_RESOLVE			(1UL << 3)	/* include/linux/mm.h */
#define MM_CP_UFFD_RWP_RESOLVE			(1UL << 5)
#endif
#if KSIM_HAVE_VM_UFFD_RWP	/* what 7.3's userfaultfd_clear_vma() asks first */
static inline bool userfaultfd_protected(struct vm_area_struct *vma)
{
	return userfaultfd_wp(vma) || userfaultfd_rwp(vma);
}
#endif
#include "mm_uffd_gen.c"

#if KSIM_HAVE_UFFD_OPS
/*
 * mm/userfaultfd.c's vma_uffd_ops() (static, with anon_uffd_ops, whose
 * folio callbacks are not simulated): anonymous VMAs answer with the
 * tree's anon_can_userfault(); no simulated file implements
 * vm_ops->uffd_ops (shmem and hugetlbfs are not simulated).
 */
static const struct vm_uffd_ops ksim_anon_uffd_ops = {
	.can_userfault	= anon_can_userfault,
};
static const struct vm_uffd_ops *vma_uffd_ops(struct vm_area_struct *vma)
{
	return vma_is_anonymous(vma) ? &ksim_anon_uffd_ops : NULL;
}
#endif

/* sim.h's uffdio structs are the uapi's, field for field */
static_assert(sizeof(struct ksim_uffdio_register) == sizeof(struct uffdio_register) &&
	      offsetof(struct ksim_uffdio_register, range.len) == offsetof(struct uffdio_register, range.len) &&
	      offsetof(struct ksim_uffdio_register, mode) == offsetof(struct uffdio_register, mode) &&
	      offsetof(struct ksim_uffdio_register, ioctls) == offsetof(struct uffdio_register, ioctls));
static_assert(sizeof(struct ksim_uffdio_range) == sizeof(struct uffdio_range) &&
	      offsetof(struct ksim_uffdio_range, len) == offsetof(struct uffdio_range, len));

/* the ioctls' bodies, as userfaultfd_ioctl() calls them with the ioctl's argument */
int ksim_userfaultfd_register(struct userfaultfd_ctx *ctx, unsigned long arg)
{
	return userfaultfd_register(ctx, arg);
}

int ksim_userfaultfd_unregister(struct userfaultfd_ctx *ctx, unsigned long arg)
{
	return userfaultfd_unregister(ctx, arg);
}

void ksim_userfaultfd_reset_ctx(struct vm_area_struct *vma)
{
	userfaultfd_reset_ctx(vma);
}

void ksim_userfaultfd_release_all(struct mm_struct *mm, struct userfaultfd_ctx *ctx)
{
	userfaultfd_release_all(mm, ctx);
}
#endif

#if KSIM_HAVE_MM_VMA_C
/*
 * mbind(2)'s collaborators in mm/mempolicy.c (extract/mempolicy.txt).
 * "User" memory is the caller's: copy_from_user() (linux/uaccess.h) reads
 * where the mask points (never -EFAULT), no compat tasks.  capable() is
 * true (mm_sim/kernel.h): MPOL_MF_MOVE_ALL is never -EPERM.
 */
#define in_compat_syscall()			false
typedef u32 compat_ulong_t;
static inline long compat_get_bitmap(unsigned long *mask, const compat_ulong_t __user *umask,
				     unsigned long bitmap_size)
{
	BUG();	/* in_compat_syscall() is false */
}
/* include/linux/mm.h */
static inline bool range_in_vma(const struct vm_area_struct *vma, unsigned long start,
				unsigned long end)
{
	return (vma && vma->vm_start <= start && end <= vma->vm_end);
}
/*
 * include/linux/mempolicy.h's vma_migratable() without DAX, hugetlb or
 * zone limits (mm-sim has none): only I/O and PFN maps cannot migrate.
 * Whatever it says, queue_pages_test_walk() queues nothing here.
 */
static inline bool vma_migratable(struct vm_area_struct *vma)
{
	return !(vma->vm_flags & (VM_IO | VM_PFNMAP));
}
/* no cpuset rebinds a policy (mpol_rebind_nodemask(), never called) */
#define nodes_remap(dst, src, old, new)		BUG()
/* mm/swap.c: no per-CPU LRU caches to drain */
#define lru_cache_disable()			do { } while (0)
#define lru_cache_enable()			do { } while (0)
/*
 * do_mbind()'s migration branch runs only when queue_pages_range() queued
 * a folio; walk_page_range() below queues none (no pte walk), so every
 * name it uses is a stop: reaching one is a bug in mm-sim.
 */
struct folio {
	struct list_head lru;
	pgoff_t index;
};
#define folio_test_ksm(f)			({ BUG(); false; })
#define folio_page(f, n)			({ BUG(); (struct page *)NULL; })
#define folio_order(f)				({ BUG(); 0U; })
#define page_address_in_vma(...)		({ BUG(); -EFAULT; })
#define get_vma_policy(v, a, o, i)		({ BUG(); (struct mempolicy *)NULL; })
#define get_task_policy(t)			({ BUG(); (struct mempolicy *)NULL; })
#define mpol_cond_put(p)			BUG()
#define migrate_pages(...)			({ BUG(); 0; })
#define putback_movable_pages(l)		BUG()
#define MIGRATE_SYNC				2
#define MR_MEMPOLICY_MBIND			5

/*
 * mm/pagewalk.c's walk_page_range(), the VMA level only: the range is cut
 * at VMA boundaries, each VMA part locked as ops->walk_lock says
 * (process_vma_walk_lock(): PGWALK_WRLOCK is vma_start_write()) and put to
 * ops->test_walk (else a PFN map is skipped), holes go to ops->pte_hole.
 * Where the kernel then walks the page tables (__walk_page_range() ->
 * ops->pmd_entry etc.) this walks nothing: mm-sim's pages have no node,
 * so a policy's walker would have nothing to check or queue (every page
 * "is on an allowed node").  walk_page_range_vma() stays a no-op.
 */
#undef walk_page_range
int walk_page_range(struct mm_struct *mm, unsigned long start, unsigned long end,
		    const struct mm_walk_ops *ops, void *private)
{
	struct mm_walk walk = { .ops = ops, .mm = mm, .private = private };
	struct vm_area_struct *vma;
	unsigned long next;
	int err = 0;

	if (start >= end || !walk.mm)
		return -EINVAL;
	if (ops->walk_lock == PGWALK_RDLOCK)
		mmap_assert_locked(mm);
	else if (ops->walk_lock != PGWALK_VMA_RDLOCK_VERIFY)
		mmap_assert_write_locked(mm);
	vma = find_vma(mm, start);
	do {
		if (!vma || start < vma->vm_start) {
			/* after the last VMA, or outside one */
			walk.vma = NULL;
			next = vma ? min(end, vma->vm_start) : end;
			if (ops->pte_hole)
				err = ops->pte_hole(start, next, -1, &walk);
		} else {
			if (ops->walk_lock == PGWALK_WRLOCK)
				vma_start_write(vma);
			else if (ops->walk_lock == PGWALK_WRLOCK_VERIFY)
				vma_assert_write_locked(vma);
			walk.vma = vma;
			next = min(end, vma->vm_end);
			vma = find_vma(mm, vma->vm_end);
			if (ops->test_walk) {
				err = ops->test_walk(start, next, &walk);
			} else if (walk.vma->vm_flags & VM_PFNMAP) {
				err = ops->pte_hole ? ops->pte_hole(start, next, -1, &walk) : 0;
				err = err ? err : 1;
			}
			if (err > 0) {
				err = 0;	/* skip this VMA */
				continue;
			}
			/* err == 0: __walk_page_range(), nothing to walk */
		}
		if (err)
			break;
	} while (start = next, start < end);
	return err;
}

/*
 * queue_pages_range()'s walkers: mm/mempolicy.c's without the pte and
 * hugetlb entries (walk_page_range() above never calls them): the VMA
 * checks of queue_pages_test_walk() (holes are -EFAULT without
 * MPOL_MF_DISCONTIG_OK) and the locking.
 */
static int queue_pages_test_walk(unsigned long start, unsigned long end, struct mm_walk *walk);
static const struct mm_walk_ops queue_pages_walk_ops = {
	.test_walk		= queue_pages_test_walk,
	.walk_lock		= PGWALK_RDLOCK,
};
static const struct mm_walk_ops queue_pages_lock_vma_walk_ops = {
	.test_walk		= queue_pages_test_walk,
	.walk_lock		= PGWALK_WRLOCK,
};
#endif

/*
 * mm/mempolicy.c: vma_dup_policy() and __mpol_equal(); with mm/vma.c also
 * mbind(2) from SYSCALL_DEFINE6(mbind) (ksim_sys_mbind()) down to
 * mbind_range() (extract/mempolicy.txt)
 */
#include "mm_mpol_gen.c"

#if KSIM_HAVE_MM_VMA_C
/* sim.h's copies for tests and the contract model (6.12+: 6.1 has no MPOL_WEIGHTED_INTERLEAVE) */
_Static_assert(KSIM_MAX_NUMNODES == MAX_NUMNODES && KSIM_NR_ONLINE_NODES == KSIM_NR_NODES &&
	       KSIM_MPOL_MAX == MPOL_MAX && KSIM_MPOL_LOCAL == MPOL_LOCAL &&
	       KSIM_MPOL_PREFERRED_MANY == MPOL_PREFERRED_MANY &&
	       KSIM_MPOL_F_STATIC_NODES == MPOL_F_STATIC_NODES &&
	       KSIM_MPOL_F_RELATIVE_NODES == MPOL_F_RELATIVE_NODES &&
	       KSIM_MPOL_F_NUMA_BALANCING == MPOL_F_NUMA_BALANCING &&
	       KSIM_MPOL_MF_MOVE_ALL == MPOL_MF_MOVE_ALL, "mm_sim/sim.h's NUMA values");

/*
 * The VMAs at @addr in @a and @baddr in @b have equal policies, as the
 * kernel compares them for a merge (mpol_equal(): both none, or the same
 * mode, flags, nodes, home node and, where kept, the user's node mask).
 */
bool ksim_vma_policy_same(struct mm_struct *a, unsigned long addr, struct mm_struct *b,
			  unsigned long baddr)
{
	struct vm_area_struct *va, *vb;
	bool same;

	mmap_read_lock(a);
	mmap_read_lock(b);
	va = vma_lookup(a, addr);
	vb = vma_lookup(b, baddr);
	same = va && vb && mpol_equal(vma_policy(va), vma_policy(vb));
	mmap_read_unlock(b);
	mmap_read_unlock(a);
	return same;
}

/* The policy of the VMA at @addr: NULL (none), or its mode and nodes in *@mode, *@nodes. */
const void *ksim_vma_policy_at(struct mm_struct *mm, unsigned long addr, unsigned short *mode,
			       unsigned long *nodes)
{
	struct vm_area_struct *vma;
	struct mempolicy *pol = NULL;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	if (vma && (pol = vma_policy(vma))) {
		/* MPOL_LOCAL has no nodes (mpol_new() leaves them unset) */
		*mode = pol->mode;
		*nodes = pol->mode == MPOL_LOCAL ? 0 : pol->nodes.bits[0];
	}
	mmap_read_unlock(mm);
	return pol;
}
#endif

int ksim_dup_mmap(struct mm_struct *mm, struct mm_struct *oldmm)
{
	return dup_mmap(mm, oldmm);
}

/* kernel/fork.c's proc_caches_init() and mm/rmap.c's anon_vma_init(), once. */
void ksim_mm_caches_init(void)
{
	static bool done;

	if (done)
		return;
	done = true;
#if KSIM_HAVE_MM_VMA_INIT_C
	vma_state_init();	/* mm/vma_init.c */
#else
	vm_area_cachep = KMEM_CACHE(vm_area_struct, SLAB_PANIC | SLAB_ACCOUNT);
#endif
	anon_vma_init();
	ksim_hooks_init();
}

/*
 * mm/memory.c's copy_page_range(), simulated below the decision: the
 * kernel's own vma_needs_copy() (extracted) decides whether the parent's
 * page tables are copied at all; the copy itself walks the simulated
 * tables, allocating the child's through the __pud/__pmd/__pte_alloc
 * fault sites, and write-protects private writable ptes in both (COW).
 */
pte_t *ksim_pte_lookup(struct mm_struct *mm, unsigned long addr);
pte_t *ksim_pte_alloc(struct mm_struct *mm, unsigned long addr);

int copy_page_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma)
{
	struct mm_struct *dst_mm = dst_vma->vm_mm, *src_mm = src_vma->vm_mm;
	unsigned long addr = src_vma->vm_start, end = src_vma->vm_end;
	bool cow = !(src_vma->vm_flags & VM_SHARED) && (src_vma->vm_flags & VM_MAYWRITE);

	struct mmu_notifier_range range;
	int ret = 0;

	if (!vma_needs_copy(dst_vma, src_vma))
		return 0;
	/*
	 * As the real one: a COW copy write-protects the parent's ptes, so the
	 * secondary MMUs are invalidated around it and the parent's VMA must be
	 * write-locked (vma_assert_write_locked() where the tree asserts it).
	 */
	if (cow) {
		mmu_notifier_range_init(&range, MMU_NOTIFY_PROTECTION_PAGE, 0, src_mm, addr, end);
		mmu_notifier_invalidate_range_start(&range);
#if KSIM_HAVE_COPY_PAGE_RANGE_VMA_ASSERT
		vma_assert_write_locked(src_vma);
#endif
	}
	while (addr < end && !ret) {
		unsigned long next = pmd_addr_end(addr, end);
		pte_t *src = ksim_pte_lookup(src_mm, addr), *dst;

		for (; src && addr < next; addr += PAGE_SIZE, src++) {
			if (pte_none(*src))
				continue;
			dst = ksim_pte_alloc(dst_mm, addr);
			if (!dst) {
				ret = -ENOMEM;
				break;
			}
			if (cow)
				src->pte &= ~_PAGE_RW;
			dst->pte = src->pte;
			dst_mm->ksim_rss++;
		}
		addr = next;
	}
	if (cow)
		mmu_notifier_invalidate_range_end(&range);
	return ret;
}

/* mm/mprotect.c's change_protection(), simulated: drop write from ptes. */
long change_protection(struct mmu_gather *tlb, struct vm_area_struct *vma,
		       unsigned long start, unsigned long end, unsigned long cp_flags)
{
	long pages = 0;

	if (vma->vm_flags & VM_WRITE)
		return 0;
	for (; start < end; start += PAGE_SIZE) {
		pte_t *pte = ksim_pte_lookup(vma->vm_mm, start);

		if (pte && pte_present(*pte) && pte_write(*pte)) {
			pte->pte &= ~_PAGE_RW;
			pages++;
		}
	}
	return pages;
}

/* mm/shmem.c's shmem_zero_setup(), simulated: a fresh file backs the mapping. */
struct file *ksim_file_open(const char *name);
int shmem_zero_setup(struct vm_area_struct *vma)
{
	struct file *file = ksim_file_open("dev/zero (shared anonymous)");

	file->ksim_opened = false;	/* only the mapping holds it */
	file->ksim_anon_shmem = true;
	if (vma->vm_file)
		fput(vma->vm_file);
	vma->vm_file = file;
	return 0;
}

#if KSIM_HAVE_MM_VMA_C
/* mprotect(2) of current->mm: the extracted syscall body, no protection key */
int ksim_do_mprotect(unsigned long start, size_t len, unsigned long prot)
{
	return do_mprotect_pkey(start, len, prot, -1);
}
#endif
