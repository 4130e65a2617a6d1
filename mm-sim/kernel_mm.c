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
 *
 * Static kernel functions the simulator drives (dup_mmap) get a ksim_
 * wrapper at the end; the kernel's static caches are defined here, as the
 * files they come from define them.
 */
#include <mm_sim/kernel.h>
#include <lib/rbtree.c>
#include <mm/interval_tree.c>

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

#include "mm_extract_gen.c"

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
	if (vma->vm_file)
		fput(vma->vm_file);
	vma->vm_file = file;
	return 0;
}

#if KSIM_HAVE_MM_VMA_C
/* mlock(2)'s VMA loop (extracted apply_vma_lock_flags()); flags as vm_flags_t */
int ksim_apply_vma_lock_flags(unsigned long start, size_t len, unsigned long flags)
{
#if KSIM_HAVE_APPLY_VMA_LOCK_FLAGS_PTR
	vma_flags_t vf = legacy_to_vma_flags(flags);

	return apply_vma_lock_flags(start, len, &vf);
#else
	return apply_vma_lock_flags(start, len, flags);
#endif
}

int ksim_do_brk_flags(struct vma_iterator *vmi, struct vm_area_struct *vma,
		      unsigned long addr, unsigned long len, unsigned long flags)
{
#if KSIM_HAVE_MMAP_REGION_IN_VMA_C	/* do_brk_flags() takes vma_flags_t there */
	return do_brk_flags(vmi, vma, addr, len, legacy_to_vma_flags(flags));
#else
	return do_brk_flags(vmi, vma, addr, len, flags);
#endif
}
#endif
