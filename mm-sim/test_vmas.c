// SPDX-License-Identifier: GPL-2.0
/*
 * The whole VMA list a test step must leave, compared at once: ranges in
 * pages from the test's base, plus the one property a test file is about
 * (a userfaultfd context, a NUMA policy), so that a wrong split or merge
 * shows as the list the kernel left.
 */
#include <mm_sim/kernel.h>
#include <mm_sim/sim.h>
#include <ksim/test.h>
#include <stdio.h>
#include <string.h>
#include "test_mm_sim.h"

#if KSIM_HAVE_MM_VMA_C
bool vma_list_is(struct mm_struct *mm, const char *what, unsigned long base,
		 const struct vma_prop *prop, const void *wants, int n)
{
	struct vm_area_struct *vma;
	VMA_ITERATOR(vmi, mm, base);
	char got[1024];
	int i = 0, len = 0;
	bool ok = true;

	got[0] = 0;
	mmap_read_lock(mm);
	for_each_vma_range(vmi, vma, base + VMA_LIST_PAGES * KSIM_PAGE_SIZE) {
		const int *w = i < n ? (const void *)((const char *)wants + i * prop->want_size) : NULL;

		if (len < (int)sizeof(got) - 64)
			len += snprintf(got + len, sizeof(got) - len, " [%lu,%lu)",
					(vma->vm_start - base) / KSIM_PAGE_SIZE,
					(vma->vm_end - base) / KSIM_PAGE_SIZE);
		/* the property is printed after the range, and compared */
		if (!prop->match(vma, w, got + len, len < (int)sizeof(got) - 64 ? sizeof(got) - len : 0))
			ok = false;
		len += strlen(got + len);
		if (!w || vma->vm_start != base + w[0] * KSIM_PAGE_SIZE ||
		    vma->vm_end != base + w[1] * KSIM_PAGE_SIZE)
			ok = false;
		i++;
	}
	mmap_read_unlock(mm);
	if (i != n)
		ok = false;
	KSIM_EXPECT(ok, "%s: VMAs%s%s; expected %d VMAs starting [%d,%d)", what, prop->legend, got, n,
		    n ? ((const int *)wants)[0] : 0, n ? ((const int *)wants)[1] : 0);
	check(mm, what);
	return ok;
}

void touch_pages(struct mm_struct *mm, unsigned long base, int start, int end, int step)
{
	for (int p = start; p < end; p += step)
		KSIM_EXPECT(!ksim_touch(mm, base + p * KSIM_PAGE_SIZE, true));
}
#endif
