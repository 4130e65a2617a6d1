/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Simulated x86-64 4-level page tables: the pgd/p4d/pud/pmd/pte accessors
 * that mm/memory.c's free_pgd_range() family calls, on tables that are
 * real 4 KiB allocations.  The p4d level is folded into the pgd, as on a
 * 4-level x86-64 kernel (asm-generic/pgtable-nop4d.h): pgd_none() is 0,
 * p4d_offset() returns the pgd slot, p4d_free_tlb() frees nothing.
 *
 * An upper-level entry holds the next table's address | _KSIM_TABLE; a pte
 * holds a fake pfn << PAGE_SHIFT | flags.  Every table page is registered
 * (owner mm and level) by ksim_pt_alloc() and checked by ksim_pt_free(): a
 * page-table page freed twice, freed at the wrong level or never allocated
 * is a ksim problem; one never freed shows up in the per-mm counters and in
 * the global live count (ksim_pt_live()).
 */
#ifndef _MM_SIM_PGTABLE_H
#define _MM_SIM_PGTABLE_H

#define _PAGE_PRESENT	0x001UL
#define _PAGE_RW	0x002UL
#define _PAGE_USER	0x004UL
#define _PAGE_ACCESSED	0x020UL
#define _PAGE_DIRTY	0x040UL
#define _KSIM_TABLE	(_PAGE_PRESENT | _PAGE_RW | _PAGE_USER | _PAGE_ACCESSED | _PAGE_DIRTY)

enum ksim_pt_level { KSIM_PT_PGD, KSIM_PT_PUD, KSIM_PT_PMD, KSIM_PT_PTE, KSIM_PT_NR };
extern const char *const ksim_pt_level_names[KSIM_PT_NR];

void *ksim_pt_alloc(struct mm_struct *mm, enum ksim_pt_level level,
		    const char *func, const char *file, int line);
void ksim_pt_free(void *table, enum ksim_pt_level level, const char *file, int line);
/* Owner and level of a live table page; false if @table is not one. */
bool ksim_pt_lookup(const void *table, struct mm_struct **mm, enum ksim_pt_level *level);
unsigned long ksim_pt_live(void);
unsigned long ksim_pt_live_mm(const struct mm_struct *mm);

#define pgd_index(a)	(((a) >> PGDIR_SHIFT) & (PTRS_PER_PGD - 1))
#define pud_index(a)	(((a) >> PUD_SHIFT) & (PTRS_PER_PUD - 1))
#define pmd_index(a)	(((a) >> PMD_SHIFT) & (PTRS_PER_PMD - 1))
#define pte_index(a)	(((a) >> PAGE_SHIFT) & (PTRS_PER_PTE - 1))

#define __ksim_addr_end(addr, end, size, mask)				\
({	unsigned long __boundary = ((addr) + (size)) & (mask);		\
	(__boundary - 1 < (end) - 1) ? __boundary : (end);		\
})
#define pgd_addr_end(addr, end)	__ksim_addr_end(addr, end, PGDIR_SIZE, PGDIR_MASK)
#define p4d_addr_end(addr, end)	(end)
#define pud_addr_end(addr, end)	__ksim_addr_end(addr, end, PUD_SIZE, PUD_MASK)
#define pmd_addr_end(addr, end)	__ksim_addr_end(addr, end, PMD_SIZE, PMD_MASK)

void ksim_pt_bad(const char *level, unsigned long val, const char *file, int line);

/* pgd (the p4d folded into it) */
static inline pgd_t *pgd_offset(struct mm_struct *mm, unsigned long addr)
{
	return mm->pgd + pgd_index(addr);
}
static inline int pgd_none(pgd_t pgd) { return 0; }
static inline int pgd_bad(pgd_t pgd) { return 0; }
static inline void pgd_clear(pgd_t *pgd) { }
#define pgd_none_or_clear_bad(pgd)	0
static inline p4d_t *p4d_offset(pgd_t *pgd, unsigned long addr)
{
	return (p4d_t *)pgd;
}

#define __KSIM_LEVEL(lvl, type, val)					\
static inline int lvl##_none(type e) { return (val) == 0; }		\
static inline int lvl##_present(type e) { return ((val) & _PAGE_PRESENT) != 0; } \
static inline int lvl##_bad(type e)					\
{ return ((val) & ~PAGE_MASK) != _KSIM_TABLE || !ksim_pt_lookup((void *)((val) & PAGE_MASK), NULL, NULL); } \
static inline void lvl##_clear(type *ep) { type e = *ep; (void)e; memset(ep, 0, sizeof(*ep)); } \
static inline void *lvl##_ksim_table(type e) { return (void *)((val) & PAGE_MASK); } \
static inline int __ksim_##lvl##_none_or_clear_bad(type *ep, const char *file, int line) \
{									\
	type e = *ep;							\
	if (lvl##_none(e))						\
		return 1;						\
	if (unlikely(lvl##_bad(e))) {					\
		ksim_pt_bad(#lvl, (val), file, line);			\
		lvl##_clear(ep);					\
		return 1;						\
	}								\
	return 0;							\
}
__KSIM_LEVEL(p4d, p4d_t, e.pgd.pgd)
__KSIM_LEVEL(pud, pud_t, e.pud)
__KSIM_LEVEL(pmd, pmd_t, e.pmd)
#define p4d_none_or_clear_bad(p)	__ksim_p4d_none_or_clear_bad(p, __FILE__, __LINE__)
#define pud_none_or_clear_bad(p)	__ksim_pud_none_or_clear_bad(p, __FILE__, __LINE__)
#define pmd_none_or_clear_bad(p)	__ksim_pmd_none_or_clear_bad(p, __FILE__, __LINE__)

static inline pud_t *pud_offset(p4d_t *p4d, unsigned long addr)
{
	return (pud_t *)p4d_ksim_table(*p4d) + pud_index(addr);
}
static inline pmd_t *pmd_offset(pud_t *pud, unsigned long addr)
{
	return (pmd_t *)pud_ksim_table(*pud) + pmd_index(addr);
}
static inline pte_t *pte_offset_kernel(pmd_t *pmd, unsigned long addr)
{
	return (pte_t *)pmd_ksim_table(*pmd) + pte_index(addr);
}
#define pmd_pgtable(pmd)	((pgtable_t)pmd_ksim_table(pmd))

static inline int pte_none(pte_t pte) { return pte.pte == 0; }
static inline int pte_present(pte_t pte) { return (pte.pte & _PAGE_PRESENT) != 0; }
static inline int pte_write(pte_t pte) { return (pte.pte & _PAGE_RW) != 0; }
static inline unsigned long pte_pfn(pte_t pte) { return pte.pte >> PAGE_SHIFT; }

/* Freeing through the mmu_gather: the table goes at once (no RCU table free). */
#define pte_free_tlb(tlb, pte, addr)	do { (tlb)->freed_tables = 1; (tlb)->nr_freed_tables++; \
	ksim_pt_free((pte), KSIM_PT_PTE, __FILE__, __LINE__); } while (0)
#define pmd_free_tlb(tlb, pmd, addr)	do { (tlb)->freed_tables = 1; (tlb)->nr_freed_tables++; \
	ksim_pt_free((pmd), KSIM_PT_PMD, __FILE__, __LINE__); } while (0)
#define pud_free_tlb(tlb, pud, addr)	do { (tlb)->freed_tables = 1; (tlb)->nr_freed_tables++; \
	ksim_pt_free((pud), KSIM_PT_PUD, __FILE__, __LINE__); } while (0)
#define p4d_free_tlb(tlb, p4d, addr)	do { } while (0)

static inline void mm_inc_nr_ptes(struct mm_struct *mm) { mm->ksim_nr_ptes++; }
static inline void mm_dec_nr_ptes(struct mm_struct *mm) { mm->ksim_nr_ptes--; }
static inline void mm_inc_nr_pmds(struct mm_struct *mm) { mm->ksim_nr_pmds++; }
static inline void mm_dec_nr_pmds(struct mm_struct *mm) { mm->ksim_nr_pmds--; }
static inline void mm_inc_nr_puds(struct mm_struct *mm) { mm->ksim_nr_puds++; }
static inline void mm_dec_nr_puds(struct mm_struct *mm) { mm->ksim_nr_puds--; }

pgd_t *pgd_alloc(struct mm_struct *mm);
void pgd_free(struct mm_struct *mm, pgd_t *pgd);

#endif
