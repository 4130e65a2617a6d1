// SPDX-License-Identifier: GPL-2.0
/*
 * Read-only views of a simulated process (include/mm_sim/query.h) for the
 * model-based checkers: the VMAs under mmap_read_lock, find_vma(), and a
 * lockless RCU walk of the VMA tree that never dereferences a VMA.
 */
#include <stdio.h>
#include <string.h>
#include <mm_sim/kernel.h>
#include <mm_sim/query.h>
#include <mm_sim/sim.h>

static void ksim_vma_info_fill(struct vm_area_struct *vma, struct ksim_vma_info *out)
{
	out->start = vma->vm_start;
	out->end = vma->vm_end;
	out->flags = vma->vm_flags;
	out->pgoff = vma->vm_pgoff;
	out->file = vma->vm_file;
	out->uffd_ctx = vma->vm_userfaultfd_ctx.ctx;
	/* set under mmap_read_lock by a concurrent fault (__anon_vma_prepare): READ_ONCE */
	out->anon_vma = READ_ONCE(vma->anon_vma) != NULL;
	out->name[0] = 0;
	out->named = false;
#ifdef CONFIG_ANON_VMA_NAME
	out->named = vma->anon_name;
	if (vma->anon_name)
		snprintf(out->name, sizeof(out->name), "%s", vma->anon_name->name);
#endif
}

int ksim_mm_vmas(struct mm_struct *mm, struct ksim_vma_info *out, int max)
{
	struct vm_area_struct *vma;
	VMA_ITERATOR(vmi, mm, 0);
	int n = 0;

	mmap_read_lock(mm);
	for_each_vma(vmi, vma) {
		if (xa_is_zero(vma))
			break;
		if (n < max)
			ksim_vma_info_fill(vma, &out[n]);
		n++;
	}
	mmap_read_unlock(mm);
	return n;
}

bool ksim_mm_find_vma(struct mm_struct *mm, unsigned long addr, struct ksim_vma_info *out)
{
	struct vm_area_struct *vma;

	mmap_read_lock(mm);
	vma = find_vma(mm, addr);
	if (vma)
		ksim_vma_info_fill(vma, out);
	mmap_read_unlock(mm);
	return vma != NULL;
}

bool ksim_mm_anon_chain(struct mm_struct *mm, unsigned long addr, struct ksim_anon_chain *out)
{
	struct anon_vma_chain *avc;
	struct vm_area_struct *vma;

	memset(out, 0, sizeof(*out));
	mmap_read_lock(mm);
	vma = find_vma(mm, addr);
	if (vma && vma->vm_start <= addr) {
		out->anon_vma = vma->anon_vma;
		list_for_each_entry(avc, &vma->anon_vma_chain, same_vma) {
			/* order-independent: a chain rebuilt in another order is the same chain */
			out->hash += ((unsigned long)avc->anon_vma >> 4) * 0x9e3779b97f4a7c15UL;
			out->links++;
		}
	}
	mmap_read_unlock(mm);
	return vma && vma->vm_start <= addr;
}

bool ksim_mm_lock_vma(struct mm_struct *mm, unsigned long addr, struct ksim_vma_info *out)
{
#if KSIM_HAVE_PER_VMA_LOCK
	struct vm_area_struct *vma = ksim_lock_vma_under_rcu(mm, addr);

	if (!vma)
		return false;
	ksim_vma_info_fill(vma, out);
	ksim_vma_end_read(vma);
	return true;
#else
	return false;
#endif
}

/*
 * /proc/PID/maps without per-VMA locks (the trees without lock_next_vma()):
 * fs/proc/task_mmu.c's m_start() takes the mmap read lock and the walk goes
 * with the tree's own iterator; here the whole file is one read() chunk.
 */
long ksim_mm_maps_walk_locked(struct mm_struct *mm, struct ksim_vma_info *out, int max)
{
	struct vm_area_struct *vma;
	long n = 0;
	VMA_ITERATOR(vmi, mm, 0);

	mmap_read_lock(mm);
	for_each_vma(vmi, vma) {
		if (n < max)
			ksim_vma_info_fill(vma, &out[n]);
		n++;
	}
	mmap_read_unlock(mm);
	return n;
}

/*
 * /proc/PID/maps under per-VMA locks (7.x): fs/proc/task_mmu.c's walk, its
 * glue simulated, its core the tree's lock_next_vma() (extracted): under
 * RCU, each VMA read-locked in turn from the end of the previous one, the
 * previous one's lock dropped first (get_next_vma()); lock_next_vma()
 * falls back to the mmap read lock itself.
 */
long ksim_mm_maps_walk(struct mm_struct *mm, struct ksim_vma_info *out, int max)
{
#if KSIM_HAVE_LOCK_NEXT_VMA
	struct vm_area_struct *vma, *locked = NULL;
	unsigned long last_pos = 0;
	long n = 0;

	if (!mm)
		return 0;	/* the caller asks whether the walk exists */
	VMA_ITERATOR(vmi, mm, 0);
	rcu_read_lock();
	for (;;) {
		if (locked)
			vma_end_read(locked);
		locked = NULL;
		vma = lock_next_vma(mm, &vmi, last_pos);
		if (IS_ERR_OR_NULL(vma))
			break;
		locked = vma;
		if (n < max)
			ksim_vma_info_fill(vma, &out[n]);
		n++;
		last_pos = vma->vm_end;
	}
	rcu_read_unlock();
	return IS_ERR(vma) ? PTR_ERR(vma) : n;
#else
	return -ENOSYS;
#endif
}

long ksim_mm_rcu_walk(struct mm_struct *mm, unsigned long start, unsigned long end,
		      void (*fn)(void *arg, unsigned long first, unsigned long last, const void *entry),
		      void *arg)
{
	MA_STATE(mas, &mm->mm_mt, start, start);
	long n = 0;
	void *entry;

	rcu_read_lock();
	mas_for_each(&mas, entry, end) {
		/* mas_find() retries on a dead node itself; ranges come from the walk */
		if (fn)
			fn(arg, mas.index, mas.last, entry);
		n++;
		if (mas.last == ULONG_MAX)
			break;
	}
	rcu_read_unlock();
	return n;
}

/* The page mapped at @addr (its fake pfn), 0 if none; under mmap_read_lock. */
unsigned long ksim_mm_pfn(struct mm_struct *mm, unsigned long addr)
{
	pte_t *ksim_pte_lookup(struct mm_struct *mm, unsigned long addr);
	unsigned long pfn = 0;
	pte_t *pte;

	mmap_read_lock(mm);
	spin_lock(&mm->page_table_lock);
	pte = ksim_pte_lookup(mm, addr & PAGE_MASK);
	if (pte && !pte_none(*pte))
		pfn = pte_pfn(*pte);
	spin_unlock(&mm->page_table_lock);
	mmap_read_unlock(mm);
	return pfn;
}

/* The page-table page covering @addr at @level (0 pud table, 1 pmd table, 2 pte table), or NULL. */
const void *ksim_mm_pt_table(struct mm_struct *mm, unsigned long addr, int level)
{
	p4d_t *p4d = p4d_offset(pgd_offset(mm, addr), addr);
	const void *t = NULL;
	pud_t *pud;
	pmd_t *pmd;

	mmap_read_lock(mm);
	if (p4d_none(*p4d))
		goto out;
	if (level == 0) {
		t = p4d_ksim_table(*p4d);
		goto out;
	}
	pud = pud_offset(p4d, addr);
	if (pud_none(*pud))
		goto out;
	if (level == 1) {
		t = pud_ksim_table(*pud);
		goto out;
	}
	pmd = pmd_offset(pud, addr);
	if (!pmd_none(*pmd))
		t = pmd_ksim_table(*pmd);
out:
	mmap_read_unlock(mm);
	return t;
}
