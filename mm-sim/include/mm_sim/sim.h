/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process simulator: address spaces built and changed through the
 * kernel's own functions, and the invariant checks run after every
 * operation.  Test and benchmark code includes this; it needs nothing
 * else from the kernel side.
 */
#ifndef _MM_SIM_SIM_H
#define _MM_SIM_SIM_H

#include <stdbool.h>
#include <stddef.h>

struct mm_struct;
struct file;
struct list_head;

/* Simulated vm_flags the tests pass (kernel values). */
#define KSIM_VM_READ		0x00000001UL
#define KSIM_VM_WRITE		0x00000002UL
#define KSIM_VM_EXEC		0x00000004UL
#define KSIM_VM_SHARED		0x00000008UL
#define KSIM_VM_MAYREAD		0x00000010UL
#define KSIM_VM_MAYWRITE	0x00000020UL
#define KSIM_VM_MAYEXEC		0x00000040UL
#define KSIM_VM_MAYSHARE	0x00000080UL
#define KSIM_VM_GROWSDOWN	0x00000100UL
#define KSIM_VM_LOCKED		0x00002000UL
#define KSIM_VM_DONTCOPY	0x00020000UL
#define KSIM_VM_LOCKONFAULT	0x00080000UL
#define KSIM_VM_ACCOUNT		0x00100000UL
#define KSIM_VM_NORESERVE	0x00200000UL
#define KSIM_VM_WIPEONFORK	0x02000000UL
#define KSIM_PAGE_SIZE		4096UL

/* Does this tree have mm/vma.c (6.12+), and so munmap/mprotect/brk/mmap merging? */
bool ksim_mm_has_vma_c(void);
/* mremap is built (KSIM_MMSIM_MREMAP): ksim_mremap() is not -ENOSYS */
bool ksim_mm_has_mremap(void);
/* Kernel version the library was built from, e.g. 0x060c00. */
unsigned int ksim_mm_kver(void);

void ksim_mm_sim_init(void);
struct mm_struct *ksim_mm_new(void);		/* NULL: allocation failed */
int ksim_mm_init(struct mm_struct *mm);	/* mm_init() on a zeroed mm (not on the live list) */
void ksim_mm_exit(struct mm_struct *mm);	/* exit_mmap + free; checks all freed */
void ksim_mm_check_torn_down(struct mm_struct *mm, const char *what);	/* no page tables, no pages */
int ksim_fork(struct mm_struct *parent, struct mm_struct **child);

/*
 * Operations.  Addresses and lengths are bytes; flags are vm_flags.
 * ksim_mmap() maps at a fixed address (MAP_FIXED: unmaps what is there):
 * through mmap(2) itself (ksim_sys_mmap()) where the vm_flags are what
 * mmap(2) can ask for, else mmap_region() with the flags as given (e.g.
 * VM_DONTCOPY, VM_WIPEONFORK, VM_DONTDUMP, a VM_MAY* bit cleared); on a
 * tree without mm/vma.c it inserts the VMA directly (no merging).
 * Each returns 0 or a negative errno.
 */
long ksim_mmap(struct mm_struct *mm, unsigned long addr, unsigned long len,
	       unsigned long vm_flags, struct file *file, unsigned long pgoff);
int ksim_munmap(struct mm_struct *mm, unsigned long addr, unsigned long len);
/*
 * mmap(2) itself, x86-64's SYSCALL_DEFINE6(mmap) -> the tree's
 * ksys_mmap_pgoff() -> vm_mmap_pgoff() -> do_mmap(): the address or a
 * negative errno (-ENOSYS without mm/vma.c).  @fd is looked up in @mm's
 * table (ksim_fd_install()).  The uapi values below.
 */
long ksim_sys_mmap(struct mm_struct *mm, unsigned long addr, unsigned long len,
		   unsigned long prot, unsigned long flags, unsigned long fd, unsigned long off);
#define KSIM_PROT_READ		0x1UL
#define KSIM_PROT_WRITE		0x2UL
#define KSIM_PROT_EXEC		0x4UL
#define KSIM_MAP_SHARED		0x01UL
#define KSIM_MAP_PRIVATE	0x02UL
#define KSIM_MAP_SHARED_VALIDATE 0x03UL
#define KSIM_MAP_TYPE		0x0fUL
#define KSIM_MAP_FIXED		0x10UL
#define KSIM_MAP_ANONYMOUS	0x20UL
#define KSIM_MAP_GROWSDOWN	0x0100UL
#define KSIM_MAP_DENYWRITE	0x0800UL
#define KSIM_MAP_EXECUTABLE	0x1000UL
#define KSIM_MAP_LOCKED		0x2000UL
#define KSIM_MAP_NORESERVE	0x4000UL
#define KSIM_MAP_POPULATE	0x8000UL
#define KSIM_MAP_NONBLOCK	0x10000UL
#define KSIM_MAP_STACK		0x20000UL
#define KSIM_MAP_HUGETLB	0x40000UL
#define KSIM_MAP_SYNC		0x80000UL
#define KSIM_MAP_FIXED_NOREPLACE 0x100000UL
#define KSIM_MAP_UNINITIALIZED	0x4000000UL
/* a process's open files (no fork inheritance): the fd, or -EMFILE; close: 0 or -EBADF */
int ksim_fd_install(struct mm_struct *mm, struct file *file);
int ksim_fd_close(struct mm_struct *mm, int fd);
/* The top-down layout (MMF_TOPDOWN, mmap_base KSIM_MMAP_BASE_TOPDOWN). */
#define KSIM_MMAP_BASE_TOPDOWN	0x7f0000000000UL
void ksim_mm_set_topdown(struct mm_struct *mm);
/*
 * mmap(NULL, len, ..., MAP_PRIVATE|MAP_ANONYMOUS) (ksim_sys_mmap() where @vm_flags
 * are expressible): the address or -errno (-ENOSYS without mm/vma.c)
 */
long ksim_mmap_anywhere(struct mm_struct *mm, unsigned long len, unsigned long vm_flags);
unsigned long ksim_get_unmapped_area(struct mm_struct *mm, unsigned long len);	/* kernel_mm.c */
int ksim_mprotect(struct mm_struct *mm, unsigned long addr, unsigned long len,
		  unsigned long access);	/* READ|WRITE|EXEC bits */
/*
 * The kernel's mlock(2) (@flags KSIM_VM_LOCKED), mlock2(MLOCK_ONFAULT)
 * (KSIM_VM_LOCKED | KSIM_VM_LOCKONFAULT) or munlock(2) (0); other @flags
 * -EINVAL.  ksim_sys_call_mlock2(): mlock2(2) with the raw @flags.
 */
int ksim_mlock(struct mm_struct *mm, unsigned long start, unsigned long len, unsigned long flags);
#define KSIM_MLOCK_ONFAULT	0x01
long ksim_sys_call_mlock2(struct mm_struct *mm, unsigned long start, unsigned long len, int flags);
/*
 * brk(2): ksim_brk() is 0 when the break moved to @newbrk, -ENOMEM when
 * the kernel refused (it returns the old break), -EINTR;
 * ksim_sys_call_brk() is the kernel's return value itself.
 */
int ksim_brk(struct mm_struct *mm, unsigned long newbrk);
unsigned long ksim_sys_call_brk(struct mm_struct *mm, unsigned long brk);
/*
 * madvise(2) (the tree's SYSCALL_DEFINE3(madvise), every argument as
 * given; uapi MADV_* values, the VMA-flag advice below simulated, other
 * valid advice -ENOSYS where it reaches a VMA, POPULATE_READ/WRITE for any
 * range) and prctl(PR_SET_VMA,
 * PR_SET_VMA_ANON_NAME) (@name NULL: clear), through mm/madvise.c's
 * madvise_update_vma() and mm/vma.c's merge and split (trees with
 * mm/vma.c; -ENOSYS elsewhere).  As the kernel: -EINVAL for unknown advice,
 * an unaligned start or a wrapping length, -ENOMEM for a gap in the range
 * (after doing the rest), -EAGAIN when an allocation failed, -EBADF naming
 * a file mapping, -EINVAL for WIPEONFORK on a non-private-anonymous one.
 */
#define KSIM_MADV_NORMAL	0
#define KSIM_MADV_RANDOM	1
#define KSIM_MADV_SEQUENTIAL	2
#define KSIM_MADV_DONTFORK	10
#define KSIM_MADV_DOFORK	11
#define KSIM_MADV_DONTDUMP	16
#define KSIM_MADV_DODUMP	17
#define KSIM_MADV_WIPEONFORK	18
#define KSIM_MADV_KEEPONFORK	19
#define KSIM_VM_SEQ_READ	0x00008000UL
#define KSIM_VM_RAND_READ	0x00010000UL
#define KSIM_VM_DONTDUMP	0x04000000UL
#define KSIM_MADV_VM_FLAGS	(KSIM_VM_DONTCOPY | KSIM_VM_WIPEONFORK | KSIM_VM_DONTDUMP | \
				 KSIM_VM_SEQ_READ | KSIM_VM_RAND_READ)
/*
 * The model of the advice above: the vm_flags a VMA with @flags gets
 * (madvise_vma_behavior()'s cases; the refusals, -EINVAL for WIPEONFORK on
 * a file or shared mapping, are the caller's).  Tests and fuzz use it.
 */
static inline unsigned long ksim_madv_model_flags(int advice, unsigned long flags)
{
	switch (advice) {
	case KSIM_MADV_DONTFORK:	return flags | KSIM_VM_DONTCOPY;
	case KSIM_MADV_DOFORK:		return flags & ~KSIM_VM_DONTCOPY;
	case KSIM_MADV_WIPEONFORK:	return flags | KSIM_VM_WIPEONFORK;
	case KSIM_MADV_KEEPONFORK:	return flags & ~KSIM_VM_WIPEONFORK;
	case KSIM_MADV_DONTDUMP:	return flags | KSIM_VM_DONTDUMP;
	case KSIM_MADV_DODUMP:		return flags & ~KSIM_VM_DONTDUMP;
	case KSIM_MADV_SEQUENTIAL:	return (flags & ~KSIM_VM_RAND_READ) | KSIM_VM_SEQ_READ;
	case KSIM_MADV_RANDOM:		return (flags & ~KSIM_VM_SEQ_READ) | KSIM_VM_RAND_READ;
	default:			return flags & ~(KSIM_VM_SEQ_READ | KSIM_VM_RAND_READ);
	}
}
int ksim_madvise(struct mm_struct *mm, unsigned long start, unsigned long len, int behavior);
/* prctl(2)'s PR_SET_VMA options (uapi linux/prctl.h) */
#define KSIM_PR_SET_VMA_ANON_NAME	0UL
/*
 * prctl(PR_SET_VMA, @opt, @addr, @size, @name), every argument as given to
 * the tree's prctl_set_vma(); -ENOSYS on a tree without mm/vma.c.
 */
int ksim_prctl_set_vma(struct mm_struct *mm, unsigned long opt, unsigned long addr, unsigned long size,
		       const char *name);
/* prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, @start, @len, @name) */
int ksim_set_anon_name(struct mm_struct *mm, unsigned long start, unsigned long len, const char *name);
/*
 * What mmu_notifier_register() does around its update (mm/mmu_notifier.c):
 * the mmap write lock, mm_take_all_locks() (every file mapping's i_mmap_rwsem
 * and anon_vma root lock of @mm, each once), @held while they are held,
 * mm_drop_all_locks().  Returns mm_take_all_locks()'s result (-EINTR: a
 * signal, fault class signal); -ENOSYS on a tree without mm/vma.c.
 */
int ksim_mm_take_all_locks(struct mm_struct *mm, void (*held)(struct mm_struct *mm, void *arg),
			   void *arg);
/* While ksim_mm_take_all_locks() holds them (or any time): mappings and anon_vma roots of @mm, and how many are locked. */
void ksim_mm_all_locks_count(struct mm_struct *mm, unsigned long *mappings, unsigned long *mappings_locked,
			     unsigned long *anon_roots, unsigned long *anon_roots_locked);
/* Where the heap starts (start_brk = brk = @start), as exec would set it. */
void ksim_mm_set_brk(struct mm_struct *mm, unsigned long start);
/*
 * mremap(2) through the kernel's own syscall body (6.12; -ENOSYS on a tree
 * without mm/vma.c).  Returns the new address, or a negative errno.
 * Without MREMAP_FIXED a move goes where get_unmapped_area() puts it:
 * bottom-up from KSIM_MMAP_BASE (the mm's mmap_base).
 */
#define KSIM_MREMAP_MAYMOVE	1UL
#define KSIM_MREMAP_FIXED	2UL
#define KSIM_MREMAP_DONTUNMAP	4UL
#define KSIM_MMAP_BASE		0x200000000000UL	/* 32 TiB */
long ksim_mremap(struct mm_struct *mm, unsigned long old_addr, unsigned long old_len,
		 unsigned long new_len, unsigned long flags, unsigned long new_addr);
int ksim_touch(struct mm_struct *mm, unsigned long addr, bool write);
/* Insert a VMA straight into the tree (shape building, any tree version). */
int ksim_map_direct(struct mm_struct *mm, unsigned long start, unsigned long end,
		    unsigned long vm_flags, struct file *file, unsigned long pgoff);

struct file *ksim_file_open(const char *name);
void ksim_file_close(struct file *f);		/* drop the opener's reference */
struct list_head *ksim_file_list(void);
long ksim_file_refs(struct file *f);		/* f_count */

/*
 * A simulated driver's file with an f_op->mmap_prepare() hook (sim_driver.c;
 * trees whose __mmap_region() calls it, else ksim_driver_file_open()
 * returns NULL).  The test fills in what the hook does to the struct
 * vm_area_desc; the hook records what it was given.
 */
enum ksim_driver_ops {
	KSIM_DRIVER_OPS_KEEP,		/* leave desc->vm_ops (vma_dummy_vm_ops) */
	KSIM_DRIVER_OPS_MAPPED,		/* the driver's: ->mapped() */
	KSIM_DRIVER_OPS_CLOSE,		/* the driver's: ->mapped() and ->close() (no merging) */
	KSIM_DRIVER_OPS_NULL,		/* NULL: the VMA is made anonymous ("only /dev/zero") */
};
struct ksim_driver {
	/* what ->mmap_prepare() does */
	int prepare_err;		/* return it at once (0: go on) */
	unsigned long set_flags, clear_flags;	/* KSIM_VM_* set/cleared in desc->vma_flags */
	long pgoff_delta;		/* added to desc->pgoff */
	enum ksim_driver_ops ops;	/* desc->vm_ops */
	void *private_data;		/* desc->private_data */
	bool new_file;			/* desc->vm_file = a fresh file holding one reference */
	int error_override;		/* desc->action.error_override (a negative errno or 0) */
	/* what ->mapped() does */
	int mapped_err;
	void *mapped_private;		/* non-NULL: becomes the VMA's vm_private_data */
	/* what the hooks saw */
	unsigned long prepare_calls, mapped_calls, close_calls;
	struct {
		const struct mm_struct *mm;
		unsigned long start, end, pgoff, flags;
		bool vm_file_is_file, vm_ops_dummy, private_null, action_nothing;
		unsigned long mapped_start, mapped_end, mapped_pgoff;
		void *mapped_private;
	} seen;
	struct file *made;		/* the file new_file made (identity; the mapping owns it) */
};
struct file *ksim_driver_file_open(const char *name, struct ksim_driver *drv);
const void *ksim_driver_vm_ops_id(enum ksim_driver_ops ops);	/* what the VMA's vm_ops should be */
/*
 * A vdso-like special mapping: the tree's __install_special_mapping() ->
 * insert_vm_struct() under the mmap write lock, @sp as vm_private_data,
 * ops with ->close() (counted in @sp), ->name() and a ->may_split() that
 * refuses (sim_driver.c).  0 or a negative errno; -ENOSYS where the tree's
 * __install_special_mapping() is not in mm/vma.c.
 */
#define KSIM_VM_DONTEXPAND	0x00040000UL
struct ksim_special {
	const char *name;
	unsigned long close_calls;
};
int ksim_install_special_mapping(struct mm_struct *mm, unsigned long addr, unsigned long len,
				 unsigned long vm_flags, struct ksim_special *sp);
const void *ksim_special_vm_ops_id(void);
/* The VMA containing @addr: its vm_ops and vm_private_data (identity only); false if none. */
bool ksim_mm_vma_ops(struct mm_struct *mm, unsigned long addr, const void **ops, void **private_data);

/* Invariants: returns the number of violations (each reported as a problem). */
unsigned long ksim_mm_check(struct mm_struct *mm);
/* anon_vma and i_mmap consistency across every live mm, files, accounting. */
unsigned long ksim_mm_check_global(void);
/* At the end: no mm, page-table page, file or commit charge left. */
unsigned long ksim_mm_check_all_freed(void);

/* Parent-unchanged check for the failure sweeps. */
struct ksim_mm_snapshot;
struct ksim_mm_snapshot *ksim_mm_snapshot(struct mm_struct *mm);
unsigned long ksim_mm_snapshot_compare(struct ksim_mm_snapshot *s, struct mm_struct *mm);
void ksim_mm_snapshot_free(struct ksim_mm_snapshot *s);

/*
 * The emulated hooks (hooks.c; mm-sim/README.md "Hooks").  KSM/khugepaged:
 * register an mm as madvise()/prctl() would; fork passes it on.
 */
int ksim_ksm_enable(struct mm_struct *mm);
void ksim_khugepaged_enable(struct mm_struct *mm);
bool ksim_mm_ksm_registered(struct mm_struct *mm);
bool ksim_mm_thp_registered(struct mm_struct *mm);
/*
 * ksmd and khugepaged as threads (hooks.c): a scan step walks the next
 * registered mm's VMAs under its mmap lock and checks what it sees; an
 * exiting mm left at a daemon's cursor is freed by the daemon.  visit: the
 * walk both would do on @mm now, if it is registered.  quiesce: before the
 * final checks, with no daemon step running.
 */
enum ksim_daemon { KSIM_KSMD, KSIM_KHUGEPAGED, KSIM_NR_DAEMONS };
long ksim_daemon_step(enum ksim_daemon which);
void ksim_daemons_visit(struct mm_struct *mm);
void ksim_daemons_quiesce(void);
void ksim_daemon_stats(enum ksim_daemon which, unsigned long *walks, unsigned long *vmas,
		       unsigned long *freed);
void ksim_mm_set_has_uprobes(struct mm_struct *mm);
bool ksim_mm_has_uprobes(struct mm_struct *mm);	/* MMF_HAS_UPROBES and MMF_RECALC_UPROBES */
/* userfaultfd: a context (the monitor holds its file) and its registered ranges */
struct userfaultfd_ctx;
#define KSIM_UFFD_FEATURE_EVENT_FORK	(1UL << 1)	/* include/uapi/linux/userfaultfd.h */
#define KSIM_UFFD_FEATURE_EVENT_REMAP	(1UL << 2)	/* not emulated */
#define KSIM_UFFD_FEATURE_EVENT_UNMAP	(1UL << 6)
struct userfaultfd_ctx *ksim_uffd_open(struct mm_struct *mm, unsigned long features);
#define KSIM_UFFD_FEATURE_INITIALIZED	(1UL << 31)	/* fs/userfaultfd.c: UFFDIO_API done */
/* UFFDIO_REGISTER_MODE_* (include/uapi/linux/userfaultfd.h); only MISSING is simulated */
#define KSIM_UFFDIO_REGISTER_MODE_MISSING	(1UL << 0)
#define KSIM_UFFDIO_REGISTER_MODE_WP		(1UL << 1)
#define KSIM_UFFDIO_REGISTER_MODE_MINOR		(1UL << 2)
#define KSIM_UFFDIO_REGISTER_MODE_RWP		(1UL << 3)	/* 7.3 */
/* struct uffdio_range, struct uffdio_register (include/uapi/linux/userfaultfd.h) */
struct ksim_uffdio_range {
	unsigned long start, len;
};
struct ksim_uffdio_register {
	struct ksim_uffdio_range range;
	unsigned long mode;
	unsigned long ioctls;		/* out: the ioctls the range supports */
};
/*
 * ioctl(uffd, UFFDIO_REGISTER, @uffdio) and ioctl(uffd, UFFDIO_UNREGISTER,
 * @range): the tree's userfaultfd_register()/_unregister() (6.12+; 6.1:
 * emulated, whole VMAs only, no unregister), which read the struct and on
 * success write @uffdio->ioctls.  0 or -errno.  ksim_uffd_register() and
 * ksim_uffd_unregister() build the struct of [start, start + len).
 */
int ksim_uffd_ioctl_register(struct userfaultfd_ctx *ctx, struct ksim_uffdio_register *uffdio);
int ksim_uffd_ioctl_unregister(struct userfaultfd_ctx *ctx, const struct ksim_uffdio_range *range);
int ksim_uffd_register(struct userfaultfd_ctx *ctx, unsigned long start, unsigned long len,
		       unsigned long mode);
int ksim_uffd_unregister(struct userfaultfd_ctx *ctx, unsigned long start, unsigned long len);
/* the monitor closes this one context's file: userfaultfd_release() -> userfaultfd_release_all() */
void ksim_uffd_close(struct userfaultfd_ctx *ctx);
/*
 * mbind(2) of [start, start + len) (6.12+), the tree's syscall on @mm:
 * ksim_sys_call_mbind() with the syscall's arguments (@nmask: @maxnode
 * bits as get_nodes() reads them; KSIM_MPOL_MF_* @flags; @mode with the
 * KSIM_MPOL_F_* mode flags), ksim_mbind() with one word of nodes and no
 * flags.  Nodes 0 and 1 exist.  0 or -errno.  ksim_vma_policy_at(): the
 * policy object of the VMA at @addr (NULL: none), its mode and nodes.
 */
#define KSIM_MPOL_DEFAULT	0	/* include/uapi/linux/mempolicy.h */
#define KSIM_MPOL_PREFERRED	1
#define KSIM_MPOL_BIND		2
#define KSIM_MPOL_INTERLEAVE	3
#define KSIM_MPOL_LOCAL		4
#define KSIM_MPOL_PREFERRED_MANY	5
#define KSIM_MPOL_WEIGHTED_INTERLEAVE	6
#define KSIM_MPOL_MAX		7
#define KSIM_MPOL_F_STATIC_NODES	(1 << 15)
#define KSIM_MPOL_F_RELATIVE_NODES	(1 << 14)
#define KSIM_MPOL_F_NUMA_BALANCING	(1 << 13)
#define KSIM_MPOL_MF_STRICT	(1 << 0)
#define KSIM_MPOL_MF_MOVE	(1 << 1)
#define KSIM_MPOL_MF_MOVE_ALL	(1 << 2)
#define KSIM_MAX_NUMNODES	64	/* mm_sim/hooks.h */
#define KSIM_NR_ONLINE_NODES	2
int ksim_mbind(struct mm_struct *mm, unsigned long start, unsigned long len,
	       unsigned short mode, unsigned long nodes);
long ksim_sys_call_mbind(struct mm_struct *mm, unsigned long start, unsigned long len,
			 unsigned long mode, const unsigned long *nmask, unsigned long maxnode,
			 unsigned int flags);
const void *ksim_vma_policy_at(struct mm_struct *mm, unsigned long addr, unsigned short *mode,
			       unsigned long *nodes);
/* the policies of the VMAs at @addr in @a and @baddr in @b are equal, as mpol_equal() says */
bool ksim_vma_policy_same(struct mm_struct *a, unsigned long addr, struct mm_struct *b,
			  unsigned long baddr);
struct userfaultfd_ctx *ksim_uffd_ctx_at(struct mm_struct *mm, unsigned long addr);
unsigned long ksim_uffd_events(struct userfaultfd_ctx *ctx, bool fork);
void ksim_uffd_close_all(void);		/* the monitor closes every context it holds */
unsigned long ksim_hooks_check_all_freed(void);
unsigned long ksim_hooks_check_global(void);	/* in ksim_mm_check_global() */
/* Per-VMA locks (where the tree has them): a reader as lock_vma_under_rcu()/vma_end_read(). */
bool ksim_mm_has_per_vma_lock(void);
struct vm_area_struct;
struct vm_area_struct *ksim_lock_vma_under_rcu(struct mm_struct *mm, unsigned long addr);
/*
 * Tests only: called by the emulated vma_start_read() with the VMA a
 * lockless reader found, before it takes its reference, under RCU (where
 * the kernel's reader can be preempted); the hook may run another thread's
 * operation to completion there.  Trees with per-VMA locks only.
 */
extern void (*ksim_vma_read_race_hook)(struct vm_area_struct *vma);
void ksim_vma_end_read(struct vm_area_struct *vma);

/* Counters and facts for tests and the benchmark. */
struct ksim_mm_info {
	int map_count;
	unsigned long total_vm, data_vm, exec_vm, stack_vm;
	long nr_ptes, nr_pmds, nr_puds, rss;
	unsigned long locked_vm, start_brk, brk;
};
void ksim_mm_info(struct mm_struct *mm, struct ksim_mm_info *out);
/* Skip the per-operation checks (benchmarks). */
extern bool ksim_mm_checks_off;

/* Tree copy alone, for the benchmark: returns 0 or -ENOMEM. */
int ksim_tree_dup_mt(struct mm_struct *src, struct mm_struct *dst);	/* __mt_dup */
int ksim_tree_dup_store(struct mm_struct *src, struct mm_struct *dst);	/* store by store */
void ksim_tree_destroy(struct mm_struct *mm);

#endif
