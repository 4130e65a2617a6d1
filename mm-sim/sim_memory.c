// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated side of mm-sim's memory management: page-table pages
 * (allocated, registered and checked here), the page-table walks that stand
 * in for mm/memory.c's copy/zap code, the mmu_gather, files, and the
 * commit accounting.  What is simulated and why is in mm-sim/README.md.
 */
#include <mm_sim/kernel.h>
#include <mm_sim/mmap.h>	/* FMODE_*, fget() */
#include <mm_sim/sim.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

const char *const ksim_pt_level_names[KSIM_PT_NR] = { "pgd", "pud", "pmd", "pte" };
const struct vm_operations_struct vma_dummy_vm_ops;
atomic_long_t vm_committed_as;
unsigned long stack_guard_gap = 256UL << PAGE_SHIFT;	/* mm/mmap.c's default */
__thread struct task_struct *ksim_current;

/*
 * The registry of live page-table pages: open hashing on the page address,
 * under one mutex (the stress program's threads allocate tables for
 * different mms at once).  The file list has its own.
 */
static pthread_mutex_t ksim_pt_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t ksim_files_lock = PTHREAD_MUTEX_INITIALIZER;
struct ksim_pt_entry {
	struct ksim_pt_entry *next;
	void *table;
	struct mm_struct *mm;
	enum ksim_pt_level level;
};
#define KSIM_PT_HASH_BITS	16
static struct ksim_pt_entry *ksim_pt_hash[1 << KSIM_PT_HASH_BITS];
static unsigned long ksim_pt_nr_live;

static inline unsigned long ksim_pt_bucket(const void *table)
{
	return ((unsigned long)table >> PAGE_SHIFT) * 0x9E3779B97F4A7C15UL >> (64 - KSIM_PT_HASH_BITS);
}

void *ksim_pt_alloc(struct mm_struct *mm, enum ksim_pt_level level,
		    const char *func, const char *file, int line)
{
	struct ksim_pt_entry *e;
	void *table;

	if (ksim_should_fail(func, file, line, GFP_KERNEL))
		return NULL;
	table = aligned_alloc(PAGE_SIZE, PAGE_SIZE);
	e = malloc(sizeof(*e));
	if (!table || !e)
		ksim_bug(file, line, "out of memory for a page-table page");
	memset(table, 0, PAGE_SIZE);
	e->table = table;
	e->mm = mm;
	e->level = level;
	pthread_mutex_lock(&ksim_pt_lock);
	e->next = ksim_pt_hash[ksim_pt_bucket(table)];
	ksim_pt_hash[ksim_pt_bucket(table)] = e;
	ksim_pt_nr_live++;
	pthread_mutex_unlock(&ksim_pt_lock);
	return table;
}

void ksim_pt_free(void *table, enum ksim_pt_level level, const char *file, int line)
{
	struct ksim_pt_entry **pp, *e;

	pthread_mutex_lock(&ksim_pt_lock);
	for (pp = &ksim_pt_hash[ksim_pt_bucket(table)]; (e = *pp); pp = &e->next)
		if (e->table == table)
			break;
	if (!e) {
		pthread_mutex_unlock(&ksim_pt_lock);
		ksim_problem(KSIM_P_TEST, file, line,
			     "page-table page %p (%s) freed but not live: double free or never allocated",
			     table, ksim_pt_level_names[level]);
		return;
	}
	if (e->level != level)
		ksim_problem(KSIM_P_TEST, file, line, "page-table page %p allocated as %s, freed as %s",
			     table, ksim_pt_level_names[e->level], ksim_pt_level_names[level]);
	*pp = e->next;
	ksim_pt_nr_live--;
	pthread_mutex_unlock(&ksim_pt_lock);
	free(e);
	/* Poison, so a stale walk reads garbage entries rather than old ones. */
	memset(table, 0x6b, PAGE_SIZE);
	free(table);
}

bool ksim_pt_lookup(const void *table, struct mm_struct **mm, enum ksim_pt_level *level)
{
	struct ksim_pt_entry *e;
	bool found = false;

	pthread_mutex_lock(&ksim_pt_lock);
	for (e = ksim_pt_hash[ksim_pt_bucket(table)]; e; e = e->next) {
		if (e->table != table)
			continue;
		if (mm)
			*mm = e->mm;
		if (level)
			*level = e->level;
		found = true;
		break;
	}
	pthread_mutex_unlock(&ksim_pt_lock);
	return found;
}

unsigned long ksim_pt_live(void)
{
	unsigned long n;

	pthread_mutex_lock(&ksim_pt_lock);
	n = ksim_pt_nr_live;
	pthread_mutex_unlock(&ksim_pt_lock);
	return n;
}

unsigned long ksim_pt_live_mm(const struct mm_struct *mm)
{
	unsigned long i, n = 0;
	struct ksim_pt_entry *e;

	pthread_mutex_lock(&ksim_pt_lock);
	for (i = 0; i < ARRAY_SIZE(ksim_pt_hash); i++)
		for (e = ksim_pt_hash[i]; e; e = e->next)
			n += e->mm == mm;
	pthread_mutex_unlock(&ksim_pt_lock);
	return n;
}

/* An upper-level entry about to point at @table (mremap moves tables between slots). */
void ksim_pt_check_populate(struct mm_struct *mm, void *table, enum ksim_pt_level level,
			    const char *file, int line)
{
	struct mm_struct *owner;
	enum ksim_pt_level found;

	if (!ksim_pt_lookup(table, &owner, &found))
		ksim_problem(KSIM_P_TEST, file, line, "%s table %p installed but not a live page-table page",
			     ksim_pt_level_names[level], table);
	else if (owner != mm || found != level)
		ksim_problem(KSIM_P_TEST, file, line, "table %p installed as %s of mm %d, it is a %s of mm %d",
			     table, ksim_pt_level_names[level], mm->ksim_id, ksim_pt_level_names[found],
			     owner->ksim_id);
}

void ksim_pt_bad(const char *level, unsigned long val, const char *file, int line)
{
	ksim_problem(KSIM_P_TEST, file, line, "bad %s entry %#lx", level, val);
}

pgd_t *pgd_alloc(struct mm_struct *mm)
{
	return ksim_pt_alloc(mm, KSIM_PT_PGD, "pgd_alloc", __FILE__, __LINE__);
}

void pgd_free(struct mm_struct *mm, pgd_t *pgd)
{
	ksim_pt_free(pgd, KSIM_PT_PGD, __FILE__, __LINE__);
}

/* ---- walks ---- */

pte_t *ksim_pte_lookup(struct mm_struct *mm, unsigned long addr)
{
	p4d_t *p4d = p4d_offset(pgd_offset(mm, addr), addr);
	pud_t *pud;
	pmd_t *pmd;

	if (p4d_none(*p4d))
		return NULL;
	pud = pud_offset(p4d, addr);
	if (pud_none(*pud))
		return NULL;
	pmd = pmd_offset(pud, addr);
	if (pmd_none(*pmd))
		return NULL;
	return pte_offset_kernel(pmd, addr);
}

/*
 * Allocate the missing levels down to the pte table, as __pud_alloc(),
 * __pmd_alloc() and __pte_alloc() do; each is a fault-injection site under
 * the kernel function's name.  NULL: -ENOMEM.
 */
pte_t *ksim_pte_alloc(struct mm_struct *mm, unsigned long addr)
{
	p4d_t *p4d = p4d_offset(pgd_offset(mm, addr), addr);
	pud_t *pud;
	pmd_t *pmd;
	void *t;

	if (p4d_none(*p4d)) {
		t = ksim_pt_alloc(mm, KSIM_PT_PUD, "__pud_alloc", __FILE__, __LINE__);
		if (!t)
			return NULL;
		mm_inc_nr_puds(mm);
		p4d->pgd.pgd = (unsigned long)t | _KSIM_TABLE;
	}
	pud = pud_offset(p4d, addr);
	if (pud_none(*pud)) {
		t = ksim_pt_alloc(mm, KSIM_PT_PMD, "__pmd_alloc", __FILE__, __LINE__);
		if (!t)
			return NULL;
		mm_inc_nr_pmds(mm);
		pud->pud = (unsigned long)t | _KSIM_TABLE;
	}
	pmd = pmd_offset(pud, addr);
	if (pmd_none(*pmd)) {
		t = ksim_pt_alloc(mm, KSIM_PT_PTE, "__pte_alloc", __FILE__, __LINE__);
		if (!t)
			return NULL;
		mm_inc_nr_ptes(mm);
		pmd->pmd = (unsigned long)t | _KSIM_TABLE;
	}
	return pte_offset_kernel(pmd, addr);
}

/*
 * mm/memory.c's unmap_page_range(), simulated: clear every pte in range
 * (there are no struct pages to release); page tables stay for
 * free_pgtables().
 */
void unmap_page_range(struct mmu_gather *tlb, struct vm_area_struct *vma,
		      unsigned long addr, unsigned long end, struct zap_details *details)
{
	struct mm_struct *mm = vma->vm_mm;

	BUG_ON(addr >= end);
	tlb_start_vma(tlb, vma);
	while (addr < end) {
		unsigned long next = pmd_addr_end(addr, end);
		pte_t *pte = ksim_pte_lookup(mm, addr);

		if (pte) {
			for (; addr < next; addr += PAGE_SIZE, pte++) {
				if (pte_none(*pte))
					continue;
				pte->pte = 0;
				mm->ksim_rss--;
			}
		}
		addr = next;
	}
	tlb_end_vma(tlb, vma);
}

void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm)
{
	memset(tlb, 0, sizeof(*tlb));
	tlb->mm = mm;
}

void tlb_gather_mmu_fullmm(struct mmu_gather *tlb, struct mm_struct *mm)
{
	tlb_gather_mmu(tlb, mm);
	tlb->fullmm = 1;
}

void tlb_finish_mmu(struct mmu_gather *tlb)
{
}

/* ---- files ---- */
static LIST_HEAD(ksim_files);
/*
 * A simulated file's ->mmap() does nothing (mmap_file(), the fault site,
 * stands for it); it is there because do_mmap() refuses a file without
 * ->mmap or ->mmap_prepare (-ENODEV).
 */
static int ksim_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	return 0;
}
static const struct file_operations ksim_file_ops = { .mmap = ksim_file_mmap };

struct file *ksim_file_open(const char *name)
{
	struct file *f = calloc(1, sizeof(*f));

	BUG_ON(!f);
	atomic_long_set(&f->f_count, 1);
	f->f_mode = FMODE_READ | FMODE_WRITE;	/* opened O_RDWR */
	f->f_op = &ksim_file_ops;
	f->f_mapping = &f->ksim_mapping;
	f->ksim_mapping.i_mmap = RB_ROOT_CACHED;
	init_rwsem(&f->ksim_mapping.i_mmap_rwsem);
	f->ksim_name = name;
	f->ksim_opened = true;
	pthread_mutex_lock(&ksim_files_lock);
	list_add_tail(&f->ksim_files, &ksim_files);
	pthread_mutex_unlock(&ksim_files_lock);
	return f;
}

void fput(struct file *f)
{
	if (atomic_long_dec_and_test(&f->f_count)) {
		WARN_ON(!RB_EMPTY_ROOT(&f->f_mapping->i_mmap.rb_root));
		pthread_mutex_lock(&ksim_files_lock);
		list_del(&f->ksim_files);
		pthread_mutex_unlock(&ksim_files_lock);
		free(f);
	}
}

void ksim_file_close(struct file *f)
{
	WARN_ON(!f->ksim_opened);
	f->ksim_opened = false;
	fput(f);
}

/*
 * The per-process fd table mmap(2)'s fget() reads: a process is an mm here
 * (no files_struct, not inherited by fork).  The table holds a reference.
 */
int ksim_fd_install(struct mm_struct *mm, struct file *file)
{
	int fd;

	for (fd = 0; fd < KSIM_NR_FD; fd++)
		if (!mm->ksim_fd[fd]) {
			mm->ksim_fd[fd] = get_file(file);
			return fd;
		}
	return -EMFILE;
}

int ksim_fd_close(struct mm_struct *mm, int fd)
{
	struct file *file;

	if (fd < 0 || fd >= KSIM_NR_FD || !mm->ksim_fd[fd])
		return -EBADF;
	file = mm->ksim_fd[fd];
	mm->ksim_fd[fd] = NULL;
	fput(file);
	return 0;
}

/* fs/file.c: the file of @fd in current's table, with a reference (fput() it), or NULL */
struct file *fget(unsigned int fd)
{
	struct mm_struct *mm = current ? current->mm : NULL;

	if (!mm || fd >= KSIM_NR_FD || !mm->ksim_fd[fd])
		return NULL;
	return get_file(mm->ksim_fd[fd]);
}

struct list_head *ksim_file_list(void)
{
	return &ksim_files;
}

/* mm/debug.c's vma_iter_dump_tree(): what validate_mm() prints on a failure. */
void vma_iter_dump_tree(const struct vma_iterator *vmi)
{
	pr_err("vmi %p [%lx, %lx]\n", vmi, vmi->mas.index, vmi->mas.last);
#if KSIM_HAVE_MT_DUMP_FORMAT
	mt_dump(vmi->mas.tree, mt_dump_hex);
#else
	mt_dump(vmi->mas.tree);
#endif
}
