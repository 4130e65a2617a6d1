/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mm-sim's kernel-facing header: the types and helpers that mm/vma.c and the
 * functions extracted from kernel/fork.c, mm/mmap.c, mm/rmap.c and
 * mm/memory.c compile against.
 *
 * It takes over mm/vma_internal.h by using its include guard
 * (__MM_VMA_INTERNAL_H), the way the kernel's own tools/testing/vma does:
 * mm/vma.c's `#include "vma_internal.h"` then finds it already included.
 * include/linux/mm.h, fs.h and rmap.h (for mm/interval_tree.c) are
 * forwarded here by mm-sim/include/linux/.
 *
 * Our own definitions of struct mm_struct, vm_area_struct, anon_vma, file
 * and address_space carry the fields this code reads, with the kernel's
 * names.  The kernel's small inline helpers from include/linux/mm.h are
 * extracted verbatim (mm_inline_gen.h); everything else here is either
 * simulated (page tables, accounting: see mm-sim/README.md) or a subsystem
 * out of scope (uprobes, userfaultfd, NUMA policy, KSM, khugepaged,
 * hugetlb, mmu notifiers), stubbed as "not configured" the way a kernel
 * built without it behaves.
 */
#ifndef __MM_VMA_INTERNAL_H
#define __MM_VMA_INTERNAL_H
#define _LINUX_MM_H
#define _LINUX_FS_H
#define _LINUX_RMAP_H

/*
 * mremap (mm/mremap.c and what it reaches, extract/mremap.txt) is built on
 * trees with mm/vma.c (copy_vma(), vma_merge_extend()); the list has one
 * section per shape of mm/mremap.c (KSIM_HAVE_MREMAP_VRM).
 */
#define KSIM_MMSIM_MREMAP	KSIM_HAVE_MM_VMA_C

#ifndef CONFIG_MMU
#define CONFIG_MMU 1
#endif
#ifndef CONFIG_DEBUG_VM_MAPLE_TREE
#define CONFIG_DEBUG_VM_MAPLE_TREE 1	/* validate_mm() in mm/vma.c is live */
#endif
#ifndef CONFIG_DEBUG_VM
#define CONFIG_DEBUG_VM 1
#endif
/*
 * Anonymous VMA names (prctl(PR_SET_VMA_ANON_NAME), mm/madvise.c): on where
 * mm/vma.c is, which merges by name and splits with a reference each; the
 * names are the kernel's refcounted objects (include/linux/mm_inline.h,
 * mm/madvise.c, extracted), so a reference taken twice or dropped too often
 * is a leak report or a use-after-free, and ksim_mm_check_global() counts
 * every name's references against the VMAs that hold it.
 */
#define KSIM_MMSIM_ANON_NAME	KSIM_HAVE_MM_VMA_C
#if KSIM_MMSIM_ANON_NAME && !defined(CONFIG_ANON_VMA_NAME)
#define CONFIG_ANON_VMA_NAME 1
#endif

/*
 * The CONFIG_DEBUG_MAPLE_TREE checks of the maple_tree.h inlines the VMA
 * code calls (MAS_WARN_ON() in __mas_set_range(), reached by
 * vma_iter_config()) fail what reached them: see linux/printk.h.
 */
#define KSIM_DUMP_STACK_FAILS	"a kernel debug check failed in mm code"

#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/bug.h>
#include <linux/err.h>
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/maple_tree.h>
#include <linux/xarray.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/kref.h>
#include <ksim/fault.h>
#include <ksim/ksim.h>

#define __randomize_layout
#define __latent_entropy
#define __private
#define __ro_after_init
#ifndef __init
#define __init
#endif

/* ---- geometry: x86-64, 4-level paging, 4 KiB pages ---- */
#ifndef PAGE_SHIFT
#define PAGE_SHIFT	12
#endif
#ifndef PAGE_SIZE
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#endif
#ifndef PAGE_MASK
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#endif
#define PTRS_PER_PTE	512
#define PTRS_PER_PMD	512
#define PTRS_PER_PUD	512
#define PTRS_PER_P4D	1
#define PTRS_PER_PGD	512
#define PMD_SHIFT	21
#define PUD_SHIFT	30
#define P4D_SHIFT	39
#define PGDIR_SHIFT	39
#define PMD_SIZE	(1UL << PMD_SHIFT)
#define PUD_SIZE	(1UL << PUD_SHIFT)
#define P4D_SIZE	(1UL << P4D_SHIFT)
#define PGDIR_SIZE	(1UL << PGDIR_SHIFT)
#define PMD_MASK	(~(PMD_SIZE - 1))
#define PUD_MASK	(~(PUD_SIZE - 1))
#define P4D_MASK	(~(P4D_SIZE - 1))
#define PGDIR_MASK	(~(PGDIR_SIZE - 1))
#define TASK_SIZE	((1UL << 47) - PAGE_SIZE)
#define TASK_SIZE_MAX	TASK_SIZE
#define FIRST_USER_ADDRESS	0UL
#define USER_PGTABLES_CEILING	0UL
#define PAGE_ALIGN(addr)	ALIGN(addr, PAGE_SIZE)
#define PAGE_ALIGNED(addr)	IS_ALIGNED((unsigned long)(addr), PAGE_SIZE)
#define offset_in_page(p)	((unsigned long)(p) & ~PAGE_MASK)
#define PHYS_PFN(x)		((unsigned long)((x) >> PAGE_SHIFT))
#define PFN_UP(x)		(((x) + PAGE_SIZE - 1) >> PAGE_SHIFT)

typedef unsigned long vm_flags_t;
typedef unsigned long pgoff_t;
typedef unsigned int vm_fault_t;
typedef unsigned long pgprotval_t;
typedef struct pgprot { pgprotval_t pgprot; } pgprot_t;
#define pgprot_val(x)		((x).pgprot)
#define __pgprot(x)		((pgprot_t) { (x) })

#if KSIM_HAVE_VMA_FLAGS_T
/*
 * vma_flags_t, the VMA_*_BIT numbers and the VM_* and VMA_* masks: the kernel's
 * own text (extract/flags.txt), configured as x86-64 without the optional
 * features; the x86 and "not configured" extras follow.
 */
#define VM_NONE		0x00000000
#define READ_IMPLIES_EXEC	0x0400000
#define ARCH_VM_PKEY_FLAGS	0
#include "mm_flags_gen.h"
#define VM_PAT		VM_ARCH_1
#define VM_UFFD_FLAGS	(VM_UFFD_MISSING | VM_UFFD_WP | VM_UFFD_MINOR)
#define VM_DATA_DEFAULT_FLAGS	(VM_READ | VM_WRITE | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC)
#else
/* ---- vm_flags (include/linux/mm.h values, x86-64, features off) ---- */
#define VM_NONE		0x00000000
#define VM_READ		0x00000001
#define VM_WRITE	0x00000002
#define VM_EXEC		0x00000004
#define VM_SHARED	0x00000008
#define VM_MAYREAD	0x00000010
#define VM_MAYWRITE	0x00000020
#define VM_MAYEXEC	0x00000040
#define VM_MAYSHARE	0x00000080
#define VM_GROWSDOWN	0x00000100
#define VM_UFFD_MISSING	0x00000200	/* CONFIG_USERFAULTFD: registration is simulated */
#define VM_PFNMAP	0x00000400
#define VM_UFFD_WP	0x00001000	/* CONFIG_HAVE_ARCH_USERFAULTFD_WP (x86-64); never set: WP mode is not simulated */
#define VM_LOCKED	0x00002000
#define VM_IO		0x00004000
#define VM_SEQ_READ	0x00008000
#define VM_RAND_READ	0x00010000
#define VM_DONTCOPY	0x00020000
#define VM_DONTEXPAND	0x00040000
#define VM_LOCKONFAULT	0x00080000
#define VM_ACCOUNT	0x00100000
#define VM_NORESERVE	0x00200000
#define VM_HUGETLB	0x00400000
#define VM_SYNC		0x00800000
#define VM_ARCH_1	0x01000000
#define VM_WIPEONFORK	0x02000000
#define VM_DONTDUMP	0x04000000
#define VM_SOFTDIRTY	0
#define VM_MIXEDMAP	0x10000000
#define VM_HUGEPAGE	0x20000000
#define VM_NOHUGEPAGE	0x40000000
#define VM_MERGEABLE	0x80000000UL
#define VM_UFFD_MINOR	VM_NONE
#define VM_DROPPABLE	VM_NONE
#define VM_SEALED	VM_NONE		/* CONFIG_64BIT mseal: not simulated */
#define VM_PAT		VM_ARCH_1
#define VM_GROWSUP	VM_NONE
#define VM_STACK	VM_GROWSDOWN
#define VM_STACK_EARLY	0
#define VM_SHADOW_STACK	VM_NONE
#define VM_STACK_INCOMPLETE_SETUP (VM_RAND_READ | VM_SEQ_READ | VM_STACK_EARLY)
#define VM_ACCESS_FLAGS	(VM_READ | VM_WRITE | VM_EXEC)
#define VM_SPECIAL	(VM_IO | VM_DONTEXPAND | VM_PFNMAP | VM_MIXEDMAP)
#define VM_LOCKED_MASK	(VM_LOCKED | VM_LOCKONFAULT)
#define VM_UFFD_FLAGS	(VM_UFFD_MISSING | VM_UFFD_WP | VM_UFFD_MINOR)
#define VM_IGNORE_MERGE	(VM_SOFTDIRTY)
#define VM_DATA_DEFAULT_FLAGS	(VM_READ | VM_WRITE | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC)

#define READ_IMPLIES_EXEC	0x0400000	/* include/uapi/linux/personality.h */
#define ARCH_VM_PKEY_FLAGS	0		/* no protection keys */
#endif /* KSIM_HAVE_VMA_FLAGS_T */

/* MMF_* bits in mm->flags: the tree's own (extract/mmf.txt) */
#include "mm_mmf_gen.h"

#define NUM_MM_FLAG_BITS	64
#define VMA_LOCK_OFFSET	0x40000000
#define SINGLE_DEPTH_NESTING	1
#define MM_MT_FLAGS	(MT_FLAGS_ALLOC_RANGE | MT_FLAGS_LOCK_EXTERN | MT_FLAGS_USE_RCU)

/* ---- simulated page tables (mm-sim/pgtable.c) ---- */
typedef struct { unsigned long pte; } pte_t;
typedef struct { unsigned long pmd; } pmd_t;
typedef struct { unsigned long pud; } pud_t;
typedef struct { unsigned long pgd; } pgd_t;
typedef struct { pgd_t pgd; } p4d_t;		/* folded into the pgd */
typedef void *pgtable_t;

struct mm_struct;
struct vm_area_struct;
struct file;
struct address_space;
struct anon_vma;
struct anon_vma_name;
struct mempolicy;
struct userfaultfd_ctx;
struct vm_fault;

struct vm_userfaultfd_ctx {
	struct userfaultfd_ctx *ctx;
};

struct rb_root_cached;

struct anon_vma {
	struct anon_vma *root;
	struct rw_semaphore rwsem;
	atomic_t refcount;
	unsigned long num_children;
	unsigned long num_active_vmas;
	struct anon_vma *parent;
	struct rb_root_cached rb_root;
	/* Read by the tree's tools/testing/vma tests, set in vma_suite.c */
	bool was_cloned, was_unlinked;
};

struct anon_vma_chain {
	struct vm_area_struct *vma;
	struct anon_vma *anon_vma;
	struct list_head same_vma;
	struct rb_node rb;
	unsigned long rb_subtree_last;
};

struct address_space {
	struct rb_root_cached i_mmap;
	struct rw_semaphore i_mmap_rwsem;
	atomic_t i_mmap_writable;
	unsigned long nrpages;
	unsigned long flags;
};

struct vm_area_desc;
typedef unsigned int fop_flags_t;	/* include/linux/fs.h: FOP_* (mm_sim/mmap.h) */
struct file_operations {
	fop_flags_t fop_flags;			/* do_mmap() reads FOP_MMAP_SYNC: none here */
	unsigned long (*get_unmapped_area)(struct file *, unsigned long, unsigned long,
					   unsigned long, unsigned long);
	int (*mmap)(struct file *, struct vm_area_struct *);	/* not called: mmap_file() simulates it */
	int (*mmap_prepare)(struct vm_area_desc *);		/* sim_driver.c's driver file has one */
};

struct file {
	atomic_long_t f_count;
	fmode_t f_mode;				/* do_mmap() checks FMODE_READ/WRITE */
	const struct file_operations *f_op;	/* ksim_file_ops: only an ->mmap() */
	struct address_space *f_mapping;
	struct address_space ksim_mapping;	/* the inode's mapping */
	const char *ksim_name;
	bool ksim_opened;			/* the test's own reference */
	bool ksim_anon_shmem;			/* shmem_zero_setup()'s: vma_is_anon_shmem() */
	struct list_head ksim_files;		/* every live file, for checks */
	void *ksim_driver;			/* sim_driver.c: the simulated driver's state */
};

struct vm_operations_struct {
	void (*open)(struct vm_area_struct *area);
	void (*close)(struct vm_area_struct *area);
	/* mm/util.c's call_vma_mapped(): after a new VMA from ->mmap_prepare() is mapped */
	int (*mapped)(unsigned long start, unsigned long end, pgoff_t pgoff,
		      const struct file *file, void **vm_private_data);
	int (*access)(struct vm_area_struct *vma, unsigned long addr, void *buf, int len, int write);
	int (*may_split)(struct vm_area_struct *area, unsigned long addr);
	int (*mremap)(struct vm_area_struct *area);
	/* do_mprotect_pkey() asks before mprotect_fixup() */
	int (*mprotect)(struct vm_area_struct *vma, unsigned long start, unsigned long end,
			unsigned long newflags);
	vm_fault_t (*fault)(struct vm_fault *vmf);
	vm_fault_t (*page_mkwrite)(struct vm_fault *vmf);
	vm_fault_t (*pfn_mkwrite)(struct vm_fault *vmf);
	const char *(*name)(struct vm_area_struct *vma);
	unsigned long (*pagesize)(struct vm_area_struct *area);
	struct page *(*find_special_page)(struct vm_area_struct *vma, unsigned long addr);
	int (*set_policy)(struct vm_area_struct *vma, struct mempolicy *new);	/* vma_replace_policy() asks */
};

#if KSIM_HAVE_MM_VMA_INIT_C
typedef struct { unsigned long v; } freeptr_t;	/* include/linux/slab.h */
#endif

struct vm_area_struct {
	union {
		struct {
			unsigned long vm_start;
			unsigned long vm_end;
		};
#if KSIM_HAVE_MM_VMA_INIT_C
		freeptr_t vm_freeptr;	/* SLAB_TYPESAFE_BY_RCU (mm/vma_init.c) */
#endif
	};
	struct mm_struct *vm_mm;
	pgprot_t vm_page_prot;
#if KSIM_HAVE_VMA_FLAGS_T
	union {
		const vm_flags_t vm_flags;	/* a view of the bitmap's first word */
		vma_flags_t flags;
	};
#elif KSIM_HAVE_VM_FLAGS_INIT
	union {
		const vm_flags_t vm_flags;	/* 6.3+: written through vm_flags_*() */
		vm_flags_t __private __vm_flags;
	};
#else
	unsigned long vm_flags;
#endif
#if KSIM_HAVE_MM_VMA_INIT_C
	bool ksim_attached;	/* vm_refcnt != 0: zeroed (detached) by vma_init() */
#else
	bool detached;
#endif
	struct {
		struct rb_node rb;
		unsigned long rb_subtree_last;
	} shared;
	struct list_head anon_vma_chain;
	struct anon_vma *anon_vma;
	const struct vm_operations_struct *vm_ops;
	unsigned long vm_pgoff;
#if KSIM_HAVE_VMA_ANON_PGOFF
	unsigned int __vm_anon_pgoff_lo;
	unsigned int __vm_anon_pgoff_hi;
#endif
	struct file *vm_file;
	void *vm_private_data;
	struct vm_userfaultfd_ctx vm_userfaultfd_ctx;
	struct mempolicy *vm_policy;	/* NUMA policy (mbind), emulated: hooks.h */
#ifdef CONFIG_ANON_VMA_NAME
	struct anon_vma_name *anon_name;	/* a reference, as in the kernel */
#endif
	struct rcu_head vm_rcu;
	/*
	 * Per-VMA lock, emulated (mm_sim/hooks.h): write-locked while
	 * vm_lock_seq == mm->mm_lock_seq; its readers are counted where the
	 * kernel keeps them, never where the kernel copies or clears the VMA
	 * behind our back (6.12's vm_area_dup() copies the whole VMA with
	 * memcpy() while readers of the original come and go).
	 */
	unsigned int vm_lock_seq;
#if KSIM_HAVE_VMA_LOCK_ALLOC
	struct ksim_vma_lock *vm_lock;	/* 6.12: its own object, as the kernel's struct vma_lock */
#elif KSIM_HAVE_PER_VMA_LOCK
	/*
	 * 7.x: the readers' references of vm_refcnt, which the kernel keeps in
	 * the VMA too: vm_area_init_from() copies named fields only, and
	 * vma_lock_init(vma, true) resets it.  ksim_shadow (the VMA's shape at
	 * the last mmap_write_unlock(), 0: new, to catch a change made without
	 * vma_start_write()) is reset there with vm_lock_seq.
	 */
	atomic_t ksim_readers;
	unsigned long ksim_shadow;
#endif
};

#if KSIM_HAVE_VMA_LOCK_ALLOC
/*
 * 6.12's struct vma_lock (an rw_semaphore there): the readers inside, and
 * the VMA's shape at the last mmap_write_unlock() (0: new).  vm_area_dup()
 * copies the pointer and vma_lock_alloc() replaces it, as in the kernel.
 */
struct ksim_vma_lock {
	atomic_t readers;
	unsigned long shadow;
};
#endif

#define KSIM_NR_FD	8	/* mm_struct.ksim_fd[]: open files per simulated process */

struct mm_struct {
	struct maple_tree mm_mt;
	unsigned long mmap_base;
	unsigned long task_size;
	pgd_t *pgd;
	atomic_t mm_users;
	atomic_t mm_count;
	atomic_long_t pgtables_bytes;
	int map_count;
	spinlock_t page_table_lock;
	struct rw_semaphore mmap_lock;
	unsigned long hiwater_rss;
	unsigned long hiwater_vm;
	unsigned long total_vm;
	unsigned long locked_vm;
	atomic64_t pinned_vm;
	unsigned long data_vm;
	unsigned long exec_vm;
	unsigned long stack_vm;
#if KSIM_HAVE_VMA_FLAGS_T
	union {
		vm_flags_t def_flags;
		vma_flags_t def_vma_flags;
	};
#else
	unsigned long def_flags;
#endif
	unsigned long start_code, end_code, start_data, end_data;
	unsigned long start_brk, brk, start_stack;
#if KSIM_HAVE_MM_FLAGS_T
	struct {
		DECLARE_BITMAP(__mm_flags, NUM_MM_FLAG_BITS);
	} flags;
#else
	unsigned long flags;
#endif
	struct file *exe_file;
	struct list_head mmlist;		/* __mmput(): never on the swap list here */
	struct linux_binfmt *binfmt;		/* NULL: no binfmt module */
	unsigned int mm_lock_seq;		/* per-VMA locks: odd while the mmap lock is write-held */
	/* mm-sim: the emulated hooks' state (hooks.c) */
	void *ksim_ksm_slot, *ksim_thp_slot;
	int ksim_notifier_released;
	bool ksim_exited;			/* mmput() done; only held by mmgrab() now */
	int ksim_ranges_active;
	/* mm-sim: page-table pages by level (pte, pmd, pud) and mapped pages */
	long ksim_nr_ptes, ksim_nr_pmds, ksim_nr_puds;
	long ksim_rss;
	struct list_head ksim_mms;	/* every live mm, for checks */
	int ksim_id;
	/* mm-sim: the process's open files, what mmap(2)'s fget(fd) looks up (ksim_fd_install()) */
	struct file *ksim_fd[KSIM_NR_FD];
};

struct task_struct {
	struct mm_struct *mm;
	unsigned int personality;	/* 0: no READ_IMPLIES_EXEC */
	int pid;
	char comm[16];
};
extern __thread struct task_struct *ksim_current;
#define current ksim_current

struct vma_iterator {
	struct ma_state mas;
};
#if KSIM_HAVE_MM_VMA_C
#define VMA_ITERATOR(name, __mm, __addr)				\
	struct vma_iterator name = {					\
		.mas = {						\
			.tree = &(__mm)->mm_mt,				\
			.index = __addr,				\
			.node = NULL,					\
			.status = ma_start,				\
		},							\
	}
static inline void vma_iter_init(struct vma_iterator *vmi,
		struct mm_struct *mm, unsigned long addr)
{
	mas_init(&vmi->mas, &mm->mm_mt, addr);
}
#else
#define VMA_ITERATOR(name, __mm, __addr)				\
	struct vma_iterator name = {					\
		.mas = {						\
			.tree = &(__mm)->mm_mt,				\
			.index = __addr,				\
			.node = MAS_START,				\
		},							\
	}
static inline void vma_iter_init(struct vma_iterator *vmi,
		struct mm_struct *mm, unsigned long addr)
{
	vmi->mas.tree = &mm->mm_mt;
	vmi->mas.index = addr;
	vmi->mas.node = MAS_START;
}
#endif
#define for_each_vma(__vmi, __vma)					\
	while (((__vma) = vma_next(&(__vmi))) != NULL)
#define for_each_vma_range(__vmi, __vma, __end)				\
	while (((__vma) = vma_find(&(__vmi), (__end))) != NULL)

/* ---- the mmu_gather, simulated: collects what a real one would flush ---- */
struct mmu_gather {
	struct mm_struct *mm;
	unsigned long start, end;
	unsigned int fullmm : 1;
	unsigned int freed_tables : 1;
	unsigned long nr_freed_tables;
};
struct zap_details {
	struct folio *single_folio;
	bool even_cows;
	unsigned int zap_flags;
};
typedef unsigned int zap_flags_t;
#define ZAP_FLAG_DROP_MARKER	((zap_flags_t)1 << 0)
#define ZAP_FLAG_UNMAP		((zap_flags_t)1 << 1)


/* ---- locks ---- */
#if !KSIM_HAVE_PER_VMA_LOCK	/* else mm_sim/hooks.h: mm_lock_seq, vma_end_write_all() */
#define mmap_write_lock(mm)		down_write(&(mm)->mmap_lock)
#define mmap_write_lock_nested(mm, c)	down_write_nested(&(mm)->mmap_lock, c)
#define mmap_write_lock_killable(mm)	down_write_killable(&(mm)->mmap_lock)
#define mmap_write_unlock(mm)		up_write(&(mm)->mmap_lock)
#define mmap_write_downgrade(mm)	downgrade_write(&(mm)->mmap_lock)
#endif
#define mmap_read_lock(mm)		down_read(&(mm)->mmap_lock)
#define mmap_read_unlock(mm)		up_read(&(mm)->mmap_lock)
#define mmap_read_lock_killable(mm)	down_read_killable(&(mm)->mmap_lock)
#define mmap_read_trylock(mm)		down_read_trylock(&(mm)->mmap_lock)
/* a page fault from user mode (ksim_touch() passes no registers) */
struct pt_regs;
#define user_mode(regs)			true
#define exception_ip(regs)		0UL
#define search_exception_tables(ip)	((void *)NULL)
struct vm_area_struct *lock_mm_and_find_vma(struct mm_struct *mm, unsigned long addr,
					    struct pt_regs *regs);
int expand_stack_locked(struct vm_area_struct *vma, unsigned long address);
int expand_downwards(struct vm_area_struct *vma, unsigned long address);
#define mmap_assert_locked(mm)		lockdep_assert_held(&(mm)->mmap_lock)
#define mmap_assert_write_locked(mm)	lockdep_assert_held_write(&(mm)->mmap_lock)
#define i_mmap_lock_write(m)		down_write(&(m)->i_mmap_rwsem)
#define i_mmap_unlock_write(m)		up_write(&(m)->i_mmap_rwsem)
#define i_mmap_lock_read(m)		down_read(&(m)->i_mmap_rwsem)
#define i_mmap_unlock_read(m)		up_read(&(m)->i_mmap_rwsem)
#define i_mmap_assert_write_locked(m)	lockdep_assert_held_write(&(m)->i_mmap_rwsem)
static inline void anon_vma_lock_write(struct anon_vma *anon_vma)
{
	down_write(&anon_vma->root->rwsem);
}
static inline void anon_vma_unlock_write(struct anon_vma *anon_vma)
{
	up_write(&anon_vma->root->rwsem);
}
#define anon_vma_lock_read(a)	down_read(&(a)->root->rwsem)
#define anon_vma_unlock_read(a)	up_read(&(a)->root->rwsem)
#define down_write_nest_lock(sem, nest)	down_write(sem)
#define flush_dcache_mmap_lock(m)	do { } while (0)
#define flush_dcache_mmap_unlock(m)	do { } while (0)

/* The emulated hooks and per-VMA locks (replacing "not configured" stubs). */
#include <mm_sim/hooks.h>
#if KSIM_HAVE_PER_VMA_LOCK
/*
 * What CONFIG_PER_VMA_LOCK switches in the kernel text mm-sim compiles:
 * 6.12's vm_area_free() frees through call_rcu() (lockless readers may
 * still look at the VMA), 7.x's check_anon_vma_clone() checks the attach
 * state.  (7.x's vm_area_cachep is SLAB_TYPESAFE_BY_RCU on every config.)
 */
#define CONFIG_PER_VMA_LOCK 1
/*
 * kernel/fork.c's vma_lock_alloc()/vma_lock_free() (6.12: the lock is a
 * separate object from its own cache, so an allocation that can fail);
 * trees with vm_refcnt call vma_lock_init() instead.
 */
bool ksim_vma_lock_alloc(struct vm_area_struct *vma);
void ksim_vma_lock_free(struct vm_area_struct *vma);
#define vma_lock_alloc(v)		ksim_vma_lock_alloc(v)
#define vma_lock_free(v)		ksim_vma_lock_free(v)
/* vm_area_free() calls it on every tree with per-VMA locks: the free check */
#define vma_numab_state_free(v)		ksim_vma_free_check(v, KSIM_SITE)
#else
static inline void vma_start_write(struct vm_area_struct *vma) { }
static inline void vma_assert_write_locked(struct vm_area_struct *vma) { }
static inline bool vma_lock_alloc(struct vm_area_struct *vma) { return true; }
static inline void vma_lock_free(struct vm_area_struct *vma) { }
static inline void vma_numab_state_free(struct vm_area_struct *vma) { }
#endif
static inline void vma_numab_state_init(struct vm_area_struct *vma) { }
#if KSIM_HAVE_MM_VMA_INIT_C
/*
 * The VMA lifecycle of trees with a VMA refcount (vm_refcnt: 0 detached, 1
 * attached), without CONFIG_PER_VMA_LOCK's readers: a VMA is attached when
 * stored in a tree and must be detached before it is freed.  The kernel's
 * CONFIG_PER_VMA_LOCK build checks this with WARN_ON_ONCE on vm_refcnt;
 * here it is the `ksim_attached` flag (false when zeroed, as vm_refcnt 0),
 * checked the same way.
 */
static inline void vma_lock_init(struct vm_area_struct *vma, bool reset_refcnt)
{
	if (reset_refcnt)
		vma->ksim_attached = false;
	ksim_vma_lock_reset(vma, reset_refcnt);	/* vm_lock_seq = UINT_MAX */
}
static inline bool vma_is_attached(struct vm_area_struct *vma) { return vma->ksim_attached; }
static inline void vma_assert_attached(struct vm_area_struct *vma) { WARN_ON_ONCE(!vma->ksim_attached); }
static inline void vma_assert_detached(struct vm_area_struct *vma) { WARN_ON_ONCE(vma->ksim_attached); }
#if KSIM_HAVE_PER_VMA_LOCK
/* as vm_refcnt: readers take a reference only while attached; detach waits for them */
#define vma_mark_attached(v)	do {					\
	vma_assert_write_locked(v);					\
	vma_assert_detached(v);						\
	ksim_vma_set_attached(v, true, KSIM_SITE);			\
} while (0)
#define vma_mark_detached(v)	do {					\
	vma_assert_write_locked(v);					\
	vma_assert_attached(v);						\
	ksim_vma_set_attached(v, false, KSIM_SITE);			\
} while (0)
#else
static inline void vma_mark_attached(struct vm_area_struct *vma)
{
	vma_assert_write_locked(vma);
	vma_assert_detached(vma);
	vma->ksim_attached = true;
}
static inline void vma_mark_detached(struct vm_area_struct *vma)
{
	vma_assert_write_locked(vma);
	vma_assert_attached(vma);
	vma->ksim_attached = false;
}
#endif
#undef vma_assert_can_modify	/* include/linux/mmap_lock.h: only attached VMAs */
#define vma_assert_can_modify(v)	do {			\
	if (vma_is_attached(v))					\
		vma_assert_write_locked(v);			\
} while (0)
#else
static inline void vma_mark_detached(struct vm_area_struct *vma, bool detached)
{
	if (detached)
		vma_assert_write_locked(vma);	/* include/linux/mm.h (6.12) */
	vma->detached = detached;
}
#endif
#define pgtable_supports_soft_dirty()	false

/* ---- out-of-scope subsystems, as a kernel built without them ---- */
#define uprobe_mmap(vma)			do { } while (0)
#define uprobe_munmap(vma, s, e)		do { } while (0)
#define uprobe_start_dup_mmap()			do { } while (0)
#define uprobe_end_dup_mmap()			do { } while (0)
#define uprobe_clear_state(mm)			do { } while (0)	/* no xol area: no uprobe hit */
/* __mmput()'s other callees (kernel/fork.c), as a kernel without them */
#define exit_aio(mm)				do { } while (0)
#define mm_put_huge_zero_page(mm)		do { } while (0)
#define mm_put_huge_zero_folio(mm)		do { } while (0)
#define set_mm_exe_file(mm, f)			((void)0)
#define lru_gen_del_mm(mm)			do { } while (0)
#define futex_hash_free(mm)			do { } while (0)
struct module;
struct linux_binfmt { struct module *module; };
#define module_put(m)				do { } while (0)
extern spinlock_t mmlist_lock;
#define flush_cache_dup_mm(mm)			do { } while (0)
#define flush_cache_mm(mm)			do { } while (0)
#define flush_cache_range(v, s, e)		do { } while (0)
#define flush_tlb_mm(mm)			do { } while (0)
#define flush_tlb_range(v, s, e)		do { } while (0)
#define arch_dup_mmap(o, n)			0
#define arch_exit_mmap(mm)			do { } while (0)
#define arch_unmap(mm, s, e)			do { } while (0)
#define ksm_vma_flags(mm, file, flags)		(flags)
#define ksm_add_vma(v)				do { } while (0)
#define lru_add_drain()				do { } while (0)
#define trace_exit_mmap(mm)			do { } while (0)
#define trace_vma_mas_szero(...)		do { } while (0)
#define trace_vma_store(...)			do { } while (0)
#define perf_event_mmap(v)			do { } while (0)
#define untrack_pfn_clear(v)			do { } while (0)
#define untrack_pfn(...)			do { } while (0)
#define __unmap_hugepage_range_final(...)	do { } while (0)
#define hugetlb_dup_vma_private(v)		do { } while (0)
#define hugetlb_split(v, a)			do { } while (0)
#define hugetlb_zap_begin(v, s, e)		do { } while (0)
#define hugetlb_zap_end(v, d)			do { } while (0)
#define hugetlb_free_pgd_range(t, a, e, f, c)	do { } while (0)
#define vma_adjust_trans_huge(v, s, e, a)	do { } while (0)
#define update_hiwater_rss(mm)			do { } while (0)
#define update_hiwater_vm(mm)			do { } while (0)
#define userfaultfd_wp(v)			false
#define is_hugepage_only_range(mm, a, l)	0
#define fixup_hugetlb_reservations(v)		do { } while (0)
#define shmem_file(f)				false
#define dup_mm_exe_file(mm, old)		do { } while (0)
#ifndef CONFIG_ANON_VMA_NAME
#define anon_vma_name(vma)			((struct anon_vma_name *)NULL)
#define anon_vma_name_eq(a, b)			true
#define dup_anon_vma_name(o, n)			do { } while (0)
#define free_anon_vma_name(v)			do { } while (0)
#endif
#define vma_soft_dirty_enabled(v)		false
#define is_vm_hugetlb_page(v)			false
#define vma_is_dax(v)				false
#define mapping_can_writeback(m)		false
#define vma_is_shmem(v)				false
#define can_modify_mm(mm, s, e)			true
#define mm_wr_locked_dummy			0
#define pgprot_modify(o, n)			(n)
#define vm_get_page_prot(f)			__pgprot((f) & VM_ACCESS_FLAGS)
#define tlb_change_page_size(t, s)		do { } while (0)
#define tlb_start_vma(t, v)			do { } while (0)
#define tlb_end_vma(t, v)			do { } while (0)
#define mmap_min_addr				0UL
extern int sysctl_max_map_count;	/* kernel_mm.c: no practical limit */
#define capable(cap)				true	/* every capability: no CAP_IPC_LOCK limit */
#define rlimit(r)				(~0UL)	/* RLIM_INFINITY: no limit */
#define rlimit_max(r)				(~0UL)
#define __unmap_hugepage_range(t, v, s, e, p, f)	do { } while (0)
#define RLIMIT_DATA				2
#define RLIMIT_MEMLOCK				8
#define RLIMIT_AS				9
#define ignore_rlimit_data			false
#define AS_MM_ALL_LOCKS				2
extern unsigned long stack_guard_gap;

static inline struct file *get_file(struct file *f)
{
	atomic_long_inc(&f->f_count);
	return f;
}
void fput(struct file *f);
void vma_set_file(struct vm_area_struct *vma, struct file *file);	/* mm/util.c, extracted */

/* unmapped_area*() (mm/vma.c, or mm/mmap.c for mremap): include/linux/mm.h's search description */
struct vm_unmapped_area_info {
#define VM_UNMAPPED_AREA_TOPDOWN 1
	unsigned long flags;
	unsigned long length;
	unsigned long low_limit;
	unsigned long high_limit;
	unsigned long align_mask;
	unsigned long align_offset;
	unsigned long start_gap;
};

/* mmap_region()/mprotect_fixup() collaborators (6.12) */
#if !KSIM_HAVE_VMA_FLAGS_T	/* else mm/vma.h's, over its arch hooks */
#define map_deny_write_exec(o, n)		false
#endif
#define arch_validate_flags(f)			true
/*
 * do_mprotect_pkey() (mm/mprotect.c, extracted): the uapi PROT_* bits
 * (asm-generic/mman-common.h), include/linux/mman.h's generic
 * arch_validate_prot() and calc_vm_prot_bits() (PROT_READ/WRITE/EXEC have
 * the values of VM_READ/WRITE/EXEC, so the translation is a mask), and a
 * kernel without protection keys (include/linux/pkeys.h: only pkey 0 is
 * allocated, no override) or an LSM (security_file_mprotect() allows).
 */
#define untagged_addr(a)		(a)	/* x86-64 without LAM */
#ifndef PROT_READ
#define PROT_READ		0x1
#define PROT_WRITE		0x2
#define PROT_EXEC		0x4
#define PROT_SEM		0x8
#define PROT_GROWSDOWN		0x01000000
#define PROT_GROWSUP		0x02000000
#endif
#define arch_validate_prot(prot, addr)	\
	(((prot) & ~(PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM)) == 0)
#define calc_vm_prot_bits(prot, pkey)	((unsigned long)(prot) & (VM_READ | VM_WRITE | VM_EXEC))
#define mm_pkey_is_allocated(mm, pkey)	((pkey) == 0)
#define arch_override_mprotect_pkey(vma, prot, pkey)	0
#define security_file_mprotect(vma, reqprot, prot)	0
#ifndef VM_ARCH_CLEAR
#define VM_ARCH_CLEAR	VM_NONE
#endif
#ifndef VM_FLAGS_CLEAR
#define VM_FLAGS_CLEAR	(ARCH_VM_PKEY_FLAGS | VM_ARCH_CLEAR)
#endif
#define arch_has_pfn_modify_check()		false
/*
 * No page walks (PFNMAP PROT_NONE check: no PFNMAP VMAs; mlock: no folios);
 * statement expressions, since mlock calls them as statements.  mbind's
 * queue_pages_range() gets the VMA-level walk_page_range() of kernel_mm.c
 * (the #undef there: this macro also swallows 6.12 mprotect_fixup()'s
 * prot_none_walk_ops, which mm-sim does not define).
 */
#define walk_page_range(...)			({ 0; })
#define walk_page_range_vma(...)		({ 0; })
/*
 * include/linux/pagewalk.h as far as mm/mlock.c's mlock_vma_pages_range()
 * and mm/mempolicy.c's queue_pages_range() name it.  mlock's pte walker,
 * mlock_pte_range() -> mlock_folio()/munlock_folio(), is not built: mm-sim
 * has no folios or LRU to mlock, so mlock() changes the VMAs and
 * mm->locked_vm only.  No memfd_secret() VMAs either.
 */
struct mm_walk;
struct mm_walk_ops {
	int (*pmd_entry)(pmd_t *pmd, unsigned long addr, unsigned long next, struct mm_walk *walk);
	int (*pte_hole)(unsigned long addr, unsigned long next, int depth, struct mm_walk *walk);
	int (*test_walk)(unsigned long addr, unsigned long next, struct mm_walk *walk);
	int walk_lock;
};
struct mm_walk {
	const struct mm_walk_ops *ops;
	struct mm_struct *mm;
	struct vm_area_struct *vma;
	void *private;
};
enum page_walk_lock {
	PGWALK_RDLOCK = 0,
	PGWALK_WRLOCK = 1,
	PGWALK_WRLOCK_VERIFY = 2,
	PGWALK_VMA_RDLOCK_VERIFY = 3,	/* 7.x */
};
#define mlock_pte_range				NULL
#define vma_is_secretmem(v)			false
#define tlb_free_vmas(tlb)			do { } while (0)
#define is_file_hugepages(f)			false
#define vma_supports_mlock(v)			true
/*
 * mlock(2)/mlock2(2)/munlock(2) and brk(2) (extract/syscalls.txt): the uapi
 * MLOCK_ONFAULT (asm-generic/mman-common.h) and RLIM_INFINITY; rlimit() is
 * RLIM_INFINITY and capable() true above, so do_mlock()'s RLIMIT_MEMLOCK
 * check and brk's RLIMIT_DATA check (check_data_rlimit()) always pass.
 * __mm_populate() faults nothing in: where the kernel's mlock(2) leaves
 * the range's pages present, mm-sim's leaves them as they were.
 * CONFIG_COMPAT_BRK is off (as distribution kernels): brk's floor is
 * start_brk, never end_data.
 */
#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT				0x01
#endif
/*
 * prctl(PR_SET_VMA) (extract/syscalls.txt): the uapi linux/prctl.h values,
 * the same on every tree (the shim has no linux/prctl.h: it would hide the
 * host's from ksim's own code)
 */
#ifndef PR_SET_VMA
#define PR_SET_VMA				0x53564d41
#define PR_SET_VMA_ANON_NAME			0
#endif
/*
 * madvise(2) (extract/syscalls.txt): the uapi asm-generic/mman-common.h
 * advice values (every tree's; the guard ones are 7.x's).  The kernel is
 * one without CONFIG_KSM, CONFIG_TRANSPARENT_HUGEPAGE and
 * CONFIG_MEMORY_FAILURE, so madvise_behavior_valid() refuses MERGEABLE,
 * UNMERGEABLE, HUGEPAGE, NOHUGEPAGE, COLLAPSE, HWPOISON and SOFT_OFFLINE;
 * no block layer (include/linux/blkdev.h without CONFIG_BLOCK: the plug
 * is empty); x86-64 without LAM (no address tags, remote or not) and
 * without protection keys (asm-generic/mm_hooks.h: every access allowed).
 */
#ifndef MADV_NORMAL
#define MADV_NORMAL				0
#define MADV_RANDOM				1
#define MADV_SEQUENTIAL				2
#define MADV_WILLNEED				3
#define MADV_DONTNEED				4
#define MADV_FREE				8
#define MADV_REMOVE				9
#define MADV_DONTFORK				10
#define MADV_DOFORK				11
#define MADV_MERGEABLE				12
#define MADV_UNMERGEABLE			13
#define MADV_HUGEPAGE				14
#define MADV_NOHUGEPAGE				15
#define MADV_DONTDUMP				16
#define MADV_DODUMP				17
#define MADV_WIPEONFORK				18
#define MADV_KEEPONFORK				19
#define MADV_COLD				20
#define MADV_PAGEOUT				21
#define MADV_POPULATE_READ			22
#define MADV_POPULATE_WRITE			23
#define MADV_DONTNEED_LOCKED			24
#define MADV_COLLAPSE				25
#define MADV_HWPOISON				100
#define MADV_SOFT_OFFLINE			101
#define MADV_GUARD_INSTALL			102
#define MADV_GUARD_REMOVE			103
#endif
struct blk_plug {
};
static inline void blk_start_plug(struct blk_plug *plug)
{
}
static inline void blk_finish_plug(struct blk_plug *plug)
{
}
#define untagged_addr_remote(mm, a)		(a)
#define arch_vma_access_permitted(v, w, e, f)	true
#ifndef RLIM_INFINITY
#define RLIM_INFINITY				(~0UL)
#endif
#define __mm_populate(start, len, ignore_errors)	0
/* no pages to fault in: mlock's populate step succeeds at once */
static inline long populate_vma_page_range(struct vm_area_struct *vma, unsigned long start,
					   unsigned long end, int *locked)
{
	return 0;
}
#define MM_CP_TRY_CHANGE_WRITABLE		(1UL << 0)
static inline int mapping_map_writable(struct address_space *mapping)
{
	if (atomic_read(&mapping->i_mmap_writable) < 0)
		return -EPERM;
	atomic_inc(&mapping->i_mmap_writable);
	return 0;
}
/*
 * A file's ->mmap() hook: simulated files do no work there, but the hook
 * can fail, as a driver's can, so it is a fault-injection site: that is
 * what reaches mmap_region()'s unmap_and_free_file_vma error path.
 */
static inline int mmap_file(struct file *file, struct vm_area_struct *vma)
{
	return ksim_should_fail("mmap_file", __FILE__, __LINE__, GFP_KERNEL) ? -ENOMEM : 0;
}
#if KSIM_HAVE_MMAP_PREPARE
/*
 * ->mmap_prepare() and the mmap_action it fills in: vfs_mmap_prepare()
 * (include/linux/fs.h) and mm/util.c's mmap_action_prepare()/_complete()
 * are the tree's, extracted.  The actions other than MMAP_NOTHING map PFNs
 * or kernel pages (remap_pfn_range() & co.): no simulated driver asks for
 * them, reaching one is a simulator bug (sim_driver.c).
 */
int mmap_action_prepare(struct vm_area_desc *desc);
int mmap_action_complete(struct vm_area_struct *vma, struct mmap_action *action, bool is_compat);
int remap_pfn_range_prepare(struct vm_area_desc *desc);
int remap_pfn_range_complete(struct vm_area_struct *vma, struct mmap_action *action);
int simple_ioremap_prepare(struct vm_area_desc *desc);
int map_kernel_pages_prepare(struct vm_area_desc *desc);
int map_kernel_pages_complete(struct vm_area_struct *vma, struct mmap_action *action);
static inline int io_remap_pfn_range_prepare(struct vm_area_desc *desc)
{
	return remap_pfn_range_prepare(desc);
}
int do_munmap(struct mm_struct *mm, unsigned long start, size_t len, struct list_head *uf);
#endif
int shmem_zero_setup(struct vm_area_struct *vma);
long change_protection(struct mmu_gather *tlb, struct vm_area_struct *vma,
		       unsigned long start, unsigned long end, unsigned long cp_flags);
int mprotect_fixup(struct vma_iterator *vmi, struct mmu_gather *tlb,
		   struct vm_area_struct *vma, struct vm_area_struct **pprev,
		   unsigned long start, unsigned long end, unsigned long newflags);
#if !KSIM_HAVE_MMAP_REGION_IN_VMA_C	/* else mm/vma.h */
unsigned long mmap_region(struct file *file, unsigned long addr,
		unsigned long len, vm_flags_t vm_flags, unsigned long pgoff,
		struct list_head *uf);
#endif
void vma_set_page_prot(struct vm_area_struct *vma);
#if KSIM_HAVE_MMAP_REGION_IN_VMA_C	/* mm/mmap.c, extracted; mm/vma.c calls it */
bool mlock_future_ok(const struct mm_struct *mm, bool is_vma_locked, unsigned long bytes);
#elif KSIM_HAVE_MM_VMA_C	/* mm/internal.h's older shape (extract/mremap.txt); acct_stack_growth() calls it */
bool mlock_future_ok(struct mm_struct *mm, unsigned long flags, unsigned long bytes);
#endif
struct anon_vma *find_mergeable_anon_vma(struct vm_area_struct *vma);
void unlink_file_vma(struct vm_area_struct *vma);
#if !KSIM_HAVE_MM_VMA_C
void vma_close(struct vm_area_struct *vma);		/* 6.1: mm/util.c */
#endif

static inline void mapping_allow_writable(struct address_space *mapping)
{
	atomic_inc(&mapping->i_mmap_writable);
}
static inline void mapping_unmap_writable(struct address_space *mapping)
{
	atomic_dec(&mapping->i_mmap_writable);
}

/* Commit accounting (mm/util.c): simulated as one counter, checked to return to zero. */
extern atomic_long_t vm_committed_as;
static inline void vm_acct_memory(long pages)
{
	atomic_long_add(pages, &vm_committed_as);
}
static inline void vm_unacct_memory(long pages)
{
	vm_acct_memory(-pages);
}
static inline int security_vm_enough_memory_mm(struct mm_struct *mm, long pages)
{
	vm_acct_memory(pages);
	return 0;
}

/* ---- interval trees (mm/interval_tree.c, compiled unmodified) ---- */
void vma_interval_tree_insert(struct vm_area_struct *node, struct rb_root_cached *root);
void vma_interval_tree_insert_after(struct vm_area_struct *node,
		struct vm_area_struct *prev, struct rb_root_cached *root);
void vma_interval_tree_remove(struct vm_area_struct *node, struct rb_root_cached *root);
struct vm_area_struct *vma_interval_tree_iter_first(struct rb_root_cached *root,
		unsigned long start, unsigned long last);
struct vm_area_struct *vma_interval_tree_iter_next(struct vm_area_struct *node,
		unsigned long start, unsigned long last);
void anon_vma_interval_tree_insert(struct anon_vma_chain *node, struct rb_root_cached *root);
void anon_vma_interval_tree_remove(struct anon_vma_chain *node, struct rb_root_cached *root);
struct anon_vma_chain *anon_vma_interval_tree_iter_first(struct rb_root_cached *root,
		unsigned long start, unsigned long last);
struct anon_vma_chain *anon_vma_interval_tree_iter_next(struct anon_vma_chain *node,
		unsigned long start, unsigned long last);
#define vma_interval_tree_foreach(vma, root, start, last)		\
	for (vma = vma_interval_tree_iter_first(root, start, last);	\
	     vma; vma = vma_interval_tree_iter_next(vma, start, last))
#define anon_vma_interval_tree_foreach(avc, root, start, last)		 \
	for (avc = anon_vma_interval_tree_iter_first(root, start, last); \
	     avc; avc = anon_vma_interval_tree_iter_next(avc, start, last))

/* ---- rmap (mm/rmap.c functions extracted; these are include/linux/rmap.h's) ---- */
void anon_vma_init(void);
int __anon_vma_prepare(struct vm_area_struct *vma);
void unlink_anon_vmas(struct vm_area_struct *vma);
#if KSIM_HAVE_ANON_VMA_CLONE_OP
int anon_vma_clone(struct vm_area_struct *dst, struct vm_area_struct *src,
		   enum vma_operation operation);
#else
int anon_vma_clone(struct vm_area_struct *dst, struct vm_area_struct *src);
#endif
int anon_vma_fork(struct vm_area_struct *vma, struct vm_area_struct *pvma);
void __put_anon_vma(struct anon_vma *anon_vma);
static inline int anon_vma_prepare(struct vm_area_struct *vma)
{
	if (likely(vma->anon_vma))
		return 0;
	return __anon_vma_prepare(vma);
}
static inline void anon_vma_merge(struct vm_area_struct *vma, struct vm_area_struct *next)
{
	VM_BUG_ON_VMA(vma->anon_vma != next->anon_vma, vma);
	unlink_anon_vmas(next);
}
static inline void get_anon_vma(struct anon_vma *anon_vma)
{
	atomic_inc(&anon_vma->refcount);
}
static inline void put_anon_vma(struct anon_vma *anon_vma)
{
	if (atomic_dec_and_test(&anon_vma->refcount))
		__put_anon_vma(anon_vma);
}

/* ---- fork.c / mmap.c / memory.c functions (extracted) ---- */
struct vm_area_struct *vm_area_alloc(struct mm_struct *mm);
struct vm_area_struct *vm_area_dup(struct vm_area_struct *orig);
void vm_area_free(struct vm_area_struct *vma);
void __vm_area_free(struct vm_area_struct *vma);	/* include/linux/mm.h; mm/vma.c calls it (clang: no implicit declarations) */
void vm_stat_account(struct mm_struct *mm, vm_flags_t flags, long npages);
#if KSIM_HAVE_VMA_FLAGS_T
bool may_expand_vm(struct mm_struct *mm, const vma_flags_t *vma_flags, unsigned long npages);
#else
bool may_expand_vm(struct mm_struct *mm, vm_flags_t flags, unsigned long npages);
#endif
void exit_mmap(struct mm_struct *mm);
void free_pgd_range(struct mmu_gather *tlb, unsigned long addr, unsigned long end,
		    unsigned long floor, unsigned long ceiling);
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr);
struct vm_area_struct *find_vma_intersection(struct mm_struct *mm,
		unsigned long start_addr, unsigned long end_addr);
struct vm_area_struct *find_vma_prev(struct mm_struct *mm, unsigned long addr,
		struct vm_area_struct **pprev);
int copy_page_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma);
void unmap_page_range(struct mmu_gather *tlb, struct vm_area_struct *vma,
		      unsigned long addr, unsigned long end, struct zap_details *details);
#if KSIM_HAVE_UNMAP_DESC
struct unmap_desc;	/* mm/vma.h */
void free_pgtables(struct mmu_gather *tlb, struct unmap_desc *unmap);
void unmap_vmas(struct mmu_gather *tlb, struct unmap_desc *unmap);
#elif KSIM_HAVE_MM_VMA_C
void free_pgtables(struct mmu_gather *tlb, struct ma_state *mas,
		   struct vm_area_struct *vma, unsigned long floor,
		   unsigned long ceiling, bool mm_wr_locked);
void unmap_vmas(struct mmu_gather *tlb, struct ma_state *mas,
		struct vm_area_struct *vma, unsigned long start_addr,
		unsigned long end_addr, unsigned long tree_end, bool mm_wr_locked);
#else
void free_pgtables(struct mmu_gather *tlb, struct maple_tree *mt,
		   struct vm_area_struct *vma, unsigned long floor,
		   unsigned long ceiling);
void unmap_vmas(struct mmu_gather *tlb, struct maple_tree *mt,
		struct vm_area_struct *vma, unsigned long start_addr,
		unsigned long end_addr);
#endif
void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm);
void tlb_gather_mmu_fullmm(struct mmu_gather *tlb, struct mm_struct *mm);
void tlb_finish_mmu(struct mmu_gather *tlb);

#if !KSIM_HAVE_MM_VMA_INIT_C	/* else static in mm/vma_init.c */
extern struct kmem_cache *vm_area_cachep;
#endif
extern const struct vm_operations_struct vma_dummy_vm_ops;

/* CONFIG_DEBUG_VM: the VM_WARN_* forms return the condition, as mmdebug.h's do. */
#undef VM_BUG_ON
#undef VM_BUG_ON_VMA
#undef VM_BUG_ON_MM
#undef VM_WARN_ON
#undef VM_WARN_ON_ONCE
#undef VM_WARN_ON_VMA
#undef VM_WARN_ON_ONCE_VMA
#undef VM_WARN_ON_ONCE_MM
#define VM_BUG_ON(cond)			BUG_ON(cond)
#define VM_BUG_ON_VMA(cond, vma)	BUG_ON(cond)
#define VM_BUG_ON_MM(cond, mm)		BUG_ON(cond)
#define VM_WARN_ON(cond)		(void)WARN_ON(cond)
#define VM_WARN_ON_ONCE(cond)		(void)WARN_ON_ONCE(cond)
#define VM_WARN_ON_VMA(cond, vma)	(void)WARN_ON(cond)
#define VM_WARN_ON_ONCE_VMA(cond, vma)	WARN_ON_ONCE(cond)
#define VM_WARN_ON_ONCE_MM(cond, mm)	WARN_ON_ONCE(cond)
#undef VM_WARN_ON_VMG
#define VM_WARN_ON_VMG(cond, vmg)	WARN_ON(cond)
#define dump_vma(v)			do { } while (0)
#define dump_mm(m)			do { } while (0)
void vma_iter_dump_tree(const struct vma_iterator *vmi);

#ifdef CONFIG_ANON_VMA_NAME
/* include/linux/mm_types.h */
struct anon_vma_name {
	struct kref kref;
	/* The name needs to be at the end because it is dynamically sized. */
	char name[];
};
/* include/linux/mm.h; defined in mm/madvise.c (extracted) */
struct anon_vma_name *anon_vma_name(struct vm_area_struct *vma);
struct anon_vma_name *anon_vma_name_alloc(const char *name);
void anon_vma_name_free(struct kref *kref);
#endif

/* mm/shmem.c: a MAP_SHARED|MAP_ANONYMOUS mapping (shmem_zero_setup()) */
static inline bool vma_is_anon_shmem(struct vm_area_struct *vma)
{
	return vma->vm_file && vma->vm_file->ksim_anon_shmem;
}

/* The kernel's inline helpers from include/linux/mm.h and mm_inline.h, verbatim. */
#include "mm_inline_gen.h"

/* ---- simulated page-table primitives (implemented in pgtable.c) ---- */
#include <mm_sim/pgtable.h>

#endif /* __MM_VMA_INTERNAL_H */
