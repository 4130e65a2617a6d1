// SPDX-License-Identifier: GPL-2.0
/*
 * The page-table checks themselves: a double free, a free at the wrong
 * level and a leaked table must each be reported, or the sweeps prove
 * nothing about page tables.
 */
#include <mm_sim/kernel.h>
#include <mm_sim/sim.h>
#include <ksim/test.h>

pte_t *ksim_pte_alloc(struct mm_struct *mm, unsigned long addr);

KSIM_TEST(pgtable_checks_fire)
{
	struct mm_struct *mm = ksim_mm_new();
	void *t;

	/* double free */
	t = ksim_pt_alloc(mm, KSIM_PT_PTE, __func__, __FILE__, __LINE__);
	ksim_pt_free(t, KSIM_PT_PTE, __FILE__, __LINE__);
	ksim_pt_free(t, KSIM_PT_PTE, __FILE__, __LINE__);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_TEST), 1);
	/* wrong level */
	t = ksim_pt_alloc(mm, KSIM_PT_PMD, __func__, __FILE__, __LINE__);
	ksim_pt_free(t, KSIM_PT_PTE, __FILE__, __LINE__);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_TEST), 2);
	/* a pte table hooked into the tree behind the kernel's back: leaked at exit */
	KSIM_EXPECT(ksim_pte_alloc(mm, 0x40000000UL) != NULL);
	KSIM_EXPECT(ksim_mm_check(mm) > 0);	/* tables outside every VMA */
	{
		p4d_t *p4d = p4d_offset(pgd_offset(mm, 0x40000000UL), 0x40000000UL);
		pud_t *pud = pud_offset(p4d, 0x40000000UL);
		pmd_t *pmd = pmd_offset(pud, 0x40000000UL);
		void *tables[3] = { pmd_ksim_table(*pmd), pud_ksim_table(*pud), p4d_ksim_table(*p4d) };

		ksim_mm_exit(mm);
		KSIM_EXPECT(ksim_problem_count(KSIM_P_TEST) >= 5);
		KSIM_EXPECT(ksim_pt_live() == 3, "%lu", ksim_pt_live());
		/* clean up the leak by hand, so later tests start from nothing */
		ksim_pt_free(tables[0], KSIM_PT_PTE, __FILE__, __LINE__);
		ksim_pt_free(tables[1], KSIM_PT_PMD, __FILE__, __LINE__);
		ksim_pt_free(tables[2], KSIM_PT_PUD, __FILE__, __LINE__);
		KSIM_EXPECT(ksim_pt_live() == 0, "%lu", ksim_pt_live());
	}
	/* every problem so far was provoked on purpose */
	ksim_expect_problems(KSIM_P_TEST, ksim_problem_count(KSIM_P_TEST));
}
