/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What mm/mremap.c (and the mm/mmap.c, mm/memory.c helpers it reaches)
 * compiles against in mm-sim, 6.12: the page-table primitives it calls,
 * on the simulated tables of pgtable.h, and the subsystems it touches that
 * are not configured here (THP, hugetlb, userfaultfd, KSM, mlock
 * populate, mseal, mmu notifiers, soft-dirty), stubbed as a kernel built
 * without them behaves.  Included by kernel_mm.c right before the
 * extracted mremap code; see mm-sim/README.md for real vs simulated.
 */
#ifndef _MM_SIM_MREMAP_H
#define _MM_SIM_MREMAP_H

#include <linux/syscalls.h>

/* x86-64 selects both: moving whole pte tables (pmd entries) and pmd tables (pud entries) */
#define CONFIG_HAVE_MOVE_PMD	1
#define CONFIG_HAVE_MOVE_PUD	1
#define CONFIG_PGTABLE_LEVELS	4

/*
 * get_extent()'s default: branch is a BUILD_BUG() that the kernel's
 * compiler proves unreachable (every caller passes a constant).  Here it is
 * a run-time BUG, so the text compiles at any optimisation level.
 */
#undef BUILD_BUG
#define BUILD_BUG()	BUG()

/* include/uapi/linux/mman.h, asm-generic/mman-common.h */
#define MREMAP_MAYMOVE		1
#define MREMAP_FIXED		2
#define MREMAP_DONTUNMAP	4
#ifndef MAP_SHARED
#define MAP_SHARED		0x01
#endif
#ifndef MAP_FIXED
#define MAP_FIXED		0x10
#endif

/* ---- page-table primitives on the simulated tables ---- */
/*
 * Split page-table locks are not configured (as with
 * !USE_SPLIT_PTE_PTLOCKS): every pte/pmd/pud lock is mm->page_table_lock,
 * so move_ptes()/move_normal_pmd() see old_ptl == new_ptl.
 */
static inline spinlock_t *pmd_lockptr(struct mm_struct *mm, pmd_t *pmd) { return &mm->page_table_lock; }
static inline spinlock_t *pud_lockptr(struct mm_struct *mm, pud_t *pud) { return &mm->page_table_lock; }
static inline spinlock_t *pmd_lock(struct mm_struct *mm, pmd_t *pmd)
{
	spin_lock(&mm->page_table_lock);
	return &mm->page_table_lock;
}
static inline spinlock_t *pud_lock(struct mm_struct *mm, pud_t *pud)
{
	spin_lock(&mm->page_table_lock);
	return &mm->page_table_lock;
}
/* NULL when there is no pte table (the kernel's "retry" case, -EAGAIN in move_ptes()). */
static inline pte_t *pte_offset_map_nolock(struct mm_struct *mm, pmd_t *pmd, unsigned long addr,
					   spinlock_t **ptlp)
{
	if (pmd_none(*pmd) || pmd_bad(*pmd))
		return NULL;
	*ptlp = &mm->page_table_lock;
	return pte_offset_kernel(pmd, addr);
}
static inline pte_t *pte_offset_map_lock(struct mm_struct *mm, pmd_t *pmd, unsigned long addr,
					 spinlock_t **ptlp)
{
	pte_t *pte = pte_offset_map_nolock(mm, pmd, addr, ptlp);

	if (pte)
		spin_lock(*ptlp);
	return pte;
}
#define pte_unmap(pte)			do { (void)(pte); } while (0)
#define pte_unmap_unlock(pte, ptl)	do { (void)(pte); spin_unlock(ptl); } while (0)

static inline pte_t ptep_get(pte_t *ptep) { return *ptep; }
static inline pte_t ptep_get_and_clear(struct mm_struct *mm, unsigned long addr, pte_t *ptep)
{
	pte_t pte = *ptep;

	ptep->pte = 0;
	return pte;
}
static inline void set_pte_at(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte)
{
	*ptep = pte;
}
static inline void pte_clear(struct mm_struct *mm, unsigned long addr, pte_t *ptep) { ptep->pte = 0; }
#define move_pte(pte, old_addr, new_addr)	(pte)

/*
 * Installing a table in an upper-level entry: the table must be a live
 * page-table page of this mm at the level below, or the move put a table
 * where it does not belong (reported where it happens).
 */
void ksim_pt_check_populate(struct mm_struct *mm, void *table, enum ksim_pt_level level,
			    const char *file, int line);
#define p4d_populate(mm_, p4d_, t_) do {					\
	ksim_pt_check_populate(mm_, t_, KSIM_PT_PUD, __FILE__, __LINE__);	\
	(p4d_)->pgd.pgd = (unsigned long)(t_) | _KSIM_TABLE; } while (0)
#define pud_populate(mm_, pud_, t_) do {					\
	ksim_pt_check_populate(mm_, t_, KSIM_PT_PMD, __FILE__, __LINE__);	\
	(pud_)->pud = (unsigned long)(t_) | _KSIM_TABLE; } while (0)
#define pmd_populate(mm_, pmd_, t_) do {					\
	ksim_pt_check_populate(mm_, t_, KSIM_PT_PTE, __FILE__, __LINE__);	\
	(pmd_)->pmd = (unsigned long)(t_) | _KSIM_TABLE; } while (0)
#define pud_pgtable(pud)	((pmd_t *)pud_ksim_table(pud))

/* Table allocation for __pud_alloc()/__pmd_alloc()/__pte_alloc(): fault-injection sites. */
#define pud_alloc_one(mm, addr)	((pud_t *)ksim_pt_alloc(mm, KSIM_PT_PUD, "pud_alloc_one", __FILE__, __LINE__))
#define pmd_alloc_one(mm, addr)	((pmd_t *)ksim_pt_alloc(mm, KSIM_PT_PMD, "pmd_alloc_one", __FILE__, __LINE__))
#define pte_alloc_one(mm)	((pgtable_t)ksim_pt_alloc(mm, KSIM_PT_PTE, "pte_alloc_one", __FILE__, __LINE__))
#define pud_free(mm, t)		ksim_pt_free(t, KSIM_PT_PUD, __FILE__, __LINE__)
#define pmd_free(mm, t)		ksim_pt_free(t, KSIM_PT_PMD, __FILE__, __LINE__)
#define pte_free(mm, t)		ksim_pt_free(t, KSIM_PT_PTE, __FILE__, __LINE__)
#define __p4d_alloc(mm, pgd, addr)	0	/* p4d folded into the pgd */
#define pte_alloc(mm, pmd)	(unlikely(pmd_none(*(pmd))) && __pte_alloc(mm, pmd))

#define flush_tlb_batched_pending(mm)	do { } while (0)
#define arch_enter_lazy_mmu_mode()	do { } while (0)
#define arch_leave_lazy_mmu_mode()	do { } while (0)
#define flush_pud_tlb_range(v, s, e)	do { } while (0)

/* ---- not configured: THP, hugetlb, swap, userfaultfd, KSM, mseal, mlock populate ---- */
#define pmd_leaf(pmd)			0
#define pmd_trans_huge(pmd)		0
#define pud_trans_huge(pud)		0
#define pmd_devmap(pmd)			0
#define pud_devmap(pud)			0
#define is_swap_pmd(pmd)		0
#define is_swap_pte(pte)		false
#define HPAGE_PMD_SIZE			PMD_SIZE
#define HPAGE_PUD_SIZE			PUD_SIZE
#define move_huge_pmd(v, oa, na, op, np)	false
#define split_huge_pmd(v, pmd, a)	do { } while (0)
#define move_hugetlb_page_tables(v, nv, oa, na, l)	0UL
#define clear_vma_resv_huge_pages(v)	do { } while (0)
struct hstate;
#define hstate_vma(v)			((struct hstate *)NULL)
#define huge_page_size(h)		PAGE_SIZE
#define huge_page_mask(h)		PAGE_MASK
#define pte_marker_uffd_wp(pte)		false
#define pte_clear_uffd_wp(pte)		(pte)
#define pte_swp_clear_uffd_wp(pte)	(pte)
#define NULL_VM_UFFD_CTX		((struct vm_userfaultfd_ctx) { NULL, })
/*
 * fs/userfaultfd.c mremap_userfaultfd_prep(): a context without
 * UFFD_FEATURE_EVENT_REMAP is dropped from the moving VMA; REMAP events
 * themselves are not emulated (no test context asks for them: hooks.c).
 */
void ksim_mremap_userfaultfd_prep(struct vm_area_struct *vma, struct vm_userfaultfd_ctx *uf,
				  KSIM_SITE_ARGS);
#define mremap_userfaultfd_prep(v, uf)	ksim_mremap_userfaultfd_prep(v, uf, KSIM_SITE)
#define mremap_userfaultfd_complete(uf, a, r, l)	do { } while (0)
#define ksm_madvise(v, s, e, adv, flags)	0
#define can_modify_vma(v)		true
#define mm_populate(a, l)		do { } while (0)

/*
 * get_unmapped_area(): no file has its own ->get_unmapped_area; the generic
 * (not x86's) arch_get_unmapped_area*(), bottom-up from mmap_base or, with
 * MMF_TOPDOWN, top-down below it.
 */
#define TASK_UNMAPPED_BASE		(TASK_SIZE / 3)
#define arch_get_mmap_end(addr, len, flags)	TASK_SIZE
#define arch_get_mmap_base(addr, base)	(base)
#define arch_mmap_check(addr, len, flags)	0
#define security_mmap_addr(addr)	0
#define trace_vm_unmapped_area(addr, info)	do { } while (0)
#define thp_get_unmapped_area_vmflags(f, a, l, p, fl, vf)	0UL
#define thp_get_unmapped_area_vmaflags(f, a, l, p, fl, vf)	0UL
#define thp_get_unmapped_area		NULL	/* as huge_mm.h without THP */
#define huge_page_mask_align(file)	0UL	/* as hugetlb.h without hugetlb */
#ifndef VM_STARTGAP_FLAGS
#define VM_STARTGAP_FLAGS		(VM_GROWSDOWN | VM_SHADOW_STACK)
#endif
#if KSIM_HAVE_MM_GET_UNMAPPED_AREA_NO_MM
unsigned long mm_get_unmapped_area(struct file *file, unsigned long addr,
				   unsigned long len, unsigned long pgoff, unsigned long flags);
#define ksim_mm_get_unmapped_area(mm, f, a, l, p, fl)	mm_get_unmapped_area(f, a, l, p, fl)
#else
unsigned long mm_get_unmapped_area(struct mm_struct *mm, struct file *file, unsigned long addr,
				   unsigned long len, unsigned long pgoff, unsigned long flags);
#define ksim_mm_get_unmapped_area	mm_get_unmapped_area
#endif
/* mm/shmem.c without THP: the mm's own layout */
static inline unsigned long shmem_get_unmapped_area(struct file *file, unsigned long addr,
		unsigned long len, unsigned long pgoff, unsigned long flags)
{
	return ksim_mm_get_unmapped_area(current->mm, file, addr, len, pgoff, flags);
}

#if KSIM_HAVE_MREMAP_VRM
/* ---- mm/mremap.c driven by vma_remap_struct: what it adds ---- */
/* batching over large folios: no folios here, one pte at a time */
#define pte_batch_hint(ptep, pte)	1
#define vm_normal_folio(v, a, pte)	((struct folio *)NULL)
#define folio_test_large(f)		false
#define folio_pte_batch_flags(f, v, p, ptep, max, fl)	1
static inline pte_t *pte_offset_map_rw_nolock(struct mm_struct *mm, pmd_t *pmd, unsigned long addr,
					      pmd_t *pmdvalp, spinlock_t **ptlp)
{
	pte_t *pte = pte_offset_map_nolock(mm, pmd, addr, ptlp);

	if (pte)
		*pmdvalp = *pmd;
	return pte;
}
static inline pte_t get_and_clear_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
				       unsigned int nr)
{
	WARN_ON_ONCE(nr != 1);	/* no batches: see pte_batch_hint() */
	return ptep_get_and_clear(mm, addr, ptep);
}
static inline void set_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte,
			    unsigned int nr)
{
	WARN_ON_ONCE(nr != 1);
	set_pte_at(mm, addr, ptep, pte);
}
#define lazy_mmu_mode_enable()		do { } while (0)
#define lazy_mmu_mode_disable()		do { } while (0)
#define pmd_is_huge(pmd)		0
/* soft-dirty and uffd-wp ptes not configured (userfaultfd_armed(): hooks.h) */
#define pte_mksoft_dirty(pte)		(pte)
#define pte_swp_mksoft_dirty(pte)	(pte)
#define pte_is_uffd_wp_marker(pte)	false
#define userfaultfd_rwp(v)		false
#define pte_uffd(pte)			false
#define pte_modify(pte, prot)		(pte)
#define pte_clear_uffd(pte)		(pte)
#define pte_swp_clear_uffd(pte)		(pte)
#define mremap_userfaultfd_fail(uf)	do { } while (0)
#endif

#endif
