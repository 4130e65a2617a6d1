// SPDX-License-Identifier: GPL-2.0
/*
 * The process simulator: mm_structs created, changed, forked and torn down
 * through the kernel's own functions, and the invariants checked after
 * every operation (mm-sim/README.md lists them).
 *
 * The syscall layer above the kernel functions is ours and kept thin:
 * ksim_mmap() is mmap(2) (real from ksys_mmap_pgoff() down) with MAP_FIXED,
 * or mmap_region() (real) for flags mmap(2) cannot ask for; ksim_munmap(),
 * ksim_mprotect(), ksim_mlock(), ksim_brk() and ksim_mremap() are the
 * kernel's own syscall bodies (__vm_munmap(), do_mprotect_pkey(),
 * SYSCALL_DEFINE*(mlock, mlock2, munlock, brk, mremap)); ksim_fork()
 * is dup_mm(): a new mm, dup_mmap() (real), and mmput() -> exit_mmap()
 * (real) if it failed.  ksim_touch() is the page-fault path, simulated:
 * anon_vma_prepare() (real) and the page-table walk that allocates tables.
 */
#include <mm_sim/kernel.h>
#include <mm_sim/sim.h>
#if KSIM_HAVE_MM_VMA_C
#include <mm/vma.h>
#endif
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

bool ksim_mm_checks_off;
static LIST_HEAD(ksim_mms);
static int ksim_mm_next_id;
/*
 * Global simulator state is shared by the stress program's threads: the mm
 * list under this mutex, the fake pfn counter atomic, and one task_struct
 * per thread (current->mm is the mm a thread operates on).
 */
static pthread_mutex_t ksim_mms_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread struct task_struct ksim_task_struct = { .comm = "ksim-mm" };
static unsigned long ksim_next_pfn = 0x1000;

int ksim_dup_mmap(struct mm_struct *mm, struct mm_struct *oldmm);
void ksim_mm_caches_init(void);
pte_t *ksim_pte_lookup(struct mm_struct *mm, unsigned long addr);
pte_t *ksim_pte_alloc(struct mm_struct *mm, unsigned long addr);

#define CHECK(cond, ...) do {							\
	if (unlikely(!(cond))) {						\
		ksim_problem(KSIM_P_TEST, __FILE__, __LINE__, __VA_ARGS__);	\
		bad++;								\
	}									\
} while (0)

/* references to @f from the fd tables of the live processes (ksim_fd_install()) */
static unsigned long ksim_fd_refs(struct file *f)
{
	struct mm_struct *mm;
	unsigned long n = 0;

	pthread_mutex_lock(&ksim_mms_lock);
	list_for_each_entry(mm, &ksim_mms, ksim_mms)
		for (int fd = 0; fd < KSIM_NR_FD; fd++)
			n += mm->ksim_fd[fd] == f;
	pthread_mutex_unlock(&ksim_mms_lock);
	return n;
}

bool ksim_mm_has_vma_c(void)
{
	return KSIM_HAVE_MM_VMA_C;
}

bool ksim_mm_has_mremap(void)
{
	return KSIM_MMSIM_MREMAP;
}

unsigned int ksim_mm_kver(void)
{
	return KSIM_KVER_CODE;
}

void ksim_mm_sim_init(void)
{
	ksim_mm_caches_init();
	ksim_current = &ksim_task_struct;
}

/* The mm_init() part that matters here, on a zeroed mm. */
int ksim_mm_init(struct mm_struct *mm)
{
	mt_init_flags(&mm->mm_mt, MM_MT_FLAGS);
	init_rwsem(&mm->mmap_lock);
	mt_set_external_lock(&mm->mm_mt, &mm->mmap_lock);
	spin_lock_init(&mm->page_table_lock);
	atomic_set(&mm->mm_users, 1);
	atomic_set(&mm->mm_count, 1);
	mm->task_size = TASK_SIZE;
	mm->mmap_base = KSIM_MMAP_BASE;		/* bottom-up layout from here (get_unmapped_area) */
	INIT_LIST_HEAD(&mm->mmlist);
	mm->pgd = pgd_alloc(mm);
	return mm->pgd ? 0 : -ENOMEM;
}

/* mm_alloc(): a new mm, on the list of live mms the checks walk. */
struct mm_struct *ksim_mm_new(void)
{
	struct mm_struct *mm = calloc(1, sizeof(*mm));

	BUG_ON(!mm);
	if (ksim_mm_init(mm)) {
		free(mm);
		return NULL;
	}
	pthread_mutex_lock(&ksim_mms_lock);
	mm->ksim_id = ++ksim_mm_next_id;
	list_add_tail(&mm->ksim_mms, &ksim_mms);
	pthread_mutex_unlock(&ksim_mms_lock);
	return mm;
}

void ksim_set_current(struct mm_struct *mm)	/* also sim_driver.c */
{
	ksim_current = &ksim_task_struct;
	ksim_task_struct.mm = mm;
}

/* After exit_mmap() or a test's teardown: no page-table page, no page left. */
void ksim_mm_check_torn_down(struct mm_struct *mm, const char *what)
{
	if (mm->ksim_nr_ptes || mm->ksim_nr_pmds || mm->ksim_nr_puds)
		ksim_problem(KSIM_P_TEST, __FILE__, __LINE__,
			     "mm %d %s with page tables left: %ld pte, %ld pmd, %ld pud tables",
			     mm->ksim_id, what, mm->ksim_nr_ptes, mm->ksim_nr_pmds, mm->ksim_nr_puds);
	if (mm->ksim_rss)
		ksim_problem(KSIM_P_TEST, __FILE__, __LINE__,
			     "mm %d %s with %ld pages still mapped", mm->ksim_id, what, mm->ksim_rss);
}

/*
 * mmput() (real, kernel/fork.c): __mmput() runs ksm_exit(),
 * khugepaged_exit(), exit_mmap() and mmdrop(); the last mmdrop() frees the
 * mm (ksim_mm_free()).  A reference held across the call checks what
 * exit_mmap() left and whether anything besides a userfaultfd context
 * still holds the mm.
 */
void ksim_mm_exit(struct mm_struct *mm)
{
	ksim_set_current(mm);
	mmgrab(mm);
	mmput(mm);
	for (int fd = 0; fd < KSIM_NR_FD; fd++)	/* exit_files(), after the mm */
		ksim_fd_close(mm, fd);
	ksim_mm_check_torn_down(mm, "exited");
	if (!mtree_empty(&mm->mm_mt))
		ksim_problem(KSIM_P_TEST, __FILE__, __LINE__, "mm %d: VMA tree not empty after exit_mmap",
			     mm->ksim_id);
	ksim_hooks_mm_put_done(mm);
	mm->ksim_exited = true;
	ksim_set_current(NULL);
	mmdrop(mm);
}

/* The last mmdrop(): __mmdrop()'s pgd free, then the mm itself. */
void ksim_mm_free(struct mm_struct *mm)
{
	ksim_hooks_mm_free(mm);
	pgd_free(mm, mm->pgd);
	if (!ksim_mm_checks_off && ksim_pt_live_mm(mm))
		ksim_problem(KSIM_P_TEST, __FILE__, __LINE__,
			     "mm %d: %lu page-table pages leaked (still registered to it)",
			     mm->ksim_id, ksim_pt_live_mm(mm));
	pthread_mutex_lock(&ksim_mms_lock);
	list_del(&mm->ksim_mms);
	pthread_mutex_unlock(&ksim_mms_lock);
	free(mm);
}

/* dup_mm(): copy the address space; on failure the half-built mm is put. */
int ksim_fork(struct mm_struct *parent, struct mm_struct **childp)
{
	struct mm_struct *child = ksim_mm_new();
	int err;

	*childp = NULL;
	if (!child)
		return -ENOMEM;
	ksim_set_current(parent);
	child->def_flags = parent->def_flags;
	child->start_brk = parent->start_brk;
	child->brk = parent->brk;
	ksim_hooks_fork_begin();
	err = ksim_dup_mmap(child, parent);
	ksim_hooks_fork_end(child, parent, err);
	/*
	 * The child's mmap lock is free from here on (until mmput() on
	 * failure): ksmd and khugepaged may scan it if dup_mmap() put it on
	 * their lists.
	 */
	ksim_daemons_visit(child);
	ksim_set_current(NULL);
	if (err) {
		ksim_mm_exit(child);
		return err;
	}
	*childp = child;
	return 0;
}

#if KSIM_HAVE_MM_VMA_C
/* mmap_region() with legacy vm_flags, whichever type the tree's takes. */
static long mmap_region_flags(struct file *file, unsigned long addr, unsigned long len,
			      unsigned long vm_flags, unsigned long pgoff, struct list_head *uf)
{
#if KSIM_HAVE_MMAP_REGION_VMA_FLAGS	/* mmap_region() takes vma_flags_t there */
	return mmap_region(file, addr, len, legacy_to_vma_flags(vm_flags), pgoff, uf);
#else
	return mmap_region(file, addr, len, vm_flags, pgoff, uf);
#endif
}
#endif

#if KSIM_HAVE_MM_VMA_C
/*
 * The mmap(2) protection and flags from which do_mmap() builds exactly
 * @vm_flags, if there are any: every VM_MAY* bit (do_mmap() sets them all;
 * a simulated file is open read-write, so a shared one keeps them),
 * VM_SHARED together with VM_MAYSHARE, VM_GROWSDOWN on a private anonymous
 * mapping only, VM_ACCOUNT only where mmap_region() charges anyway, and no
 * other bit mmap(2) cannot ask for (VM_DONTCOPY, VM_WIPEONFORK, ...).
 */
static bool ksim_mmap_args(unsigned long vm_flags, struct file *file, unsigned long *prot,
			   unsigned long *flags)
{
	const unsigned long may = VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC, share = VM_SHARED | VM_MAYSHARE;
	const unsigned long known = VM_READ | VM_WRITE | VM_EXEC | may | share | VM_GROWSDOWN |
				    VM_LOCKED | VM_NORESERVE | VM_ACCOUNT;

	if ((vm_flags & may) != may || (vm_flags & ~known) || ((vm_flags & share) && (vm_flags & share) != share))
		return false;
	if ((vm_flags & VM_GROWSDOWN) && (file || (vm_flags & VM_SHARED)))
		return false;
	if ((vm_flags & VM_ACCOUNT) && (vm_flags & (VM_NORESERVE | VM_SHARED | VM_WRITE)) != VM_WRITE)
		return false;
	*prot = vm_flags & (VM_READ | VM_WRITE | VM_EXEC);	/* PROT_* have the VM_* values */
	*flags = KSIM_MAP_FIXED | (vm_flags & VM_SHARED ? KSIM_MAP_SHARED : KSIM_MAP_PRIVATE) |
		 (file ? 0 : KSIM_MAP_ANONYMOUS) | (vm_flags & VM_GROWSDOWN ? KSIM_MAP_GROWSDOWN : 0) |
		 (vm_flags & VM_LOCKED ? KSIM_MAP_LOCKED : 0) | (vm_flags & VM_NORESERVE ? KSIM_MAP_NORESERVE : 0);
	return true;
}
#endif

/*
 * mmap(MAP_FIXED) by vm_flags: through mmap(2) itself (ksim_sys_mmap(),
 * the file on a temporary fd) where the flags are what mmap(2) can ask
 * for; else, and on a tree without mm/vma.c, mmap_region() (or a direct
 * insert) with the flags as given.
 */
long ksim_mmap(struct mm_struct *mm, unsigned long addr, unsigned long len,
	       unsigned long vm_flags, struct file *file, unsigned long pgoff)
{
	long ret;

	if (!len || (addr | len) & ~PAGE_MASK || addr + len > TASK_SIZE || addr + len < addr)
		return -EINVAL;
#if KSIM_HAVE_MM_VMA_C
	{
		unsigned long prot, flags;
		int fd = file ? ksim_fd_install(mm, file) : -1;

		if ((!file || fd >= 0) && ksim_mmap_args(vm_flags, file, &prot, &flags)) {
			ret = ksim_sys_mmap(mm, addr, len, prot, flags, fd, file ? pgoff << PAGE_SHIFT : 0);
			if (file)
				ksim_fd_close(mm, fd);
			return IS_ERR_VALUE(ret) ? ret : 0;
		}
		if (fd >= 0)
			ksim_fd_close(mm, fd);
	}
#endif
	/* do_mmap(): anonymous shared mappings start at pgoff 0, private ones at addr */
	if (!file)
		pgoff = (vm_flags & VM_SHARED) ? 0 : addr >> PAGE_SHIFT;
#if KSIM_HAVE_MM_VMA_C
	{
		LIST_HEAD(uf);

		ksim_set_current(mm);
		mmap_write_lock(mm);
		ret = mmap_region_flags(file, addr, len, vm_flags, pgoff, &uf);
		mmap_write_unlock(mm);
		userfaultfd_unmap_complete(mm, &uf);	/* vm_mmap_pgoff(), after the unlock */
		ksim_hooks_uf_done(mm, &uf, "mmap");
		ksim_set_current(NULL);
		return IS_ERR_VALUE(ret) ? ret : 0;
	}
#else
	ret = ksim_map_direct(mm, addr, addr + len, vm_flags, file, pgoff);
	return ret;
#endif
}

/*
 * mmap(2) without MAP_FIXED for an anonymous private mapping: where
 * get_unmapped_area() says (the mm's layout).  Through ksim_sys_mmap()
 * where the vm_flags are what mmap(2) can ask for, else (as before)
 * get_unmapped_area() and mmap_region() with the flags as given.  Returns
 * the address or a negative errno.
 */
long ksim_mmap_anywhere(struct mm_struct *mm, unsigned long len, unsigned long vm_flags)
{
#if KSIM_HAVE_MM_VMA_C
	LIST_HEAD(uf);
	unsigned long prot, flags;
	long addr;

	if (!len || len & ~PAGE_MASK)
		return -EINVAL;
	/* mmap(NULL, len, prot, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) itself where the flags allow */
	if (!(vm_flags & VM_SHARED) && ksim_mmap_args(vm_flags, NULL, &prot, &flags))
		return ksim_sys_mmap(mm, 0, len, prot, flags & ~KSIM_MAP_FIXED, -1, 0);
	ksim_set_current(mm);
	mmap_write_lock(mm);
	addr = ksim_get_unmapped_area(mm, len);
	if (!IS_ERR_VALUE(addr)) {
		long ret = mmap_region_flags(NULL, addr, len, vm_flags, addr >> PAGE_SHIFT, &uf);

		if (IS_ERR_VALUE(ret))
			addr = ret;
	}
	mmap_write_unlock(mm);
	userfaultfd_unmap_complete(mm, &uf);
	ksim_hooks_uf_done(mm, &uf, "mmap");
	ksim_set_current(NULL);
	return addr;
#else
	return -ENOSYS;
#endif
}

int ksim_vm_munmap(unsigned long start, size_t len, bool unlock);	/* kernel_mm.c */
int ksim_munmap(struct mm_struct *mm, unsigned long addr, unsigned long len)
{
#if KSIM_HAVE_MM_VMA_C
	int ret;

	/*
	 * SYSCALL_DEFINE2(munmap): the tree's __vm_munmap(addr, len, true),
	 * which takes the mmap lock (killable: -EINTR under the fault class
	 * signal), downgrades it to read for the page-table teardown and
	 * completes the userfaultfd unmap events after the unlock.
	 */
	ksim_set_current(mm);
	ret = ksim_vm_munmap(addr, len, true);
	ksim_set_current(NULL);
	return ret;
#else
	return -ENOSYS;
#endif
}

/*
 * mlock(2), mlock2(2) and munlock(2): the syscall bodies (mm/mlock.c,
 * extract/syscalls.txt) on current->mm, so the start is rounded down and
 * the length up over its offset by the kernel, as mlock(2) says ("all
 * pages that contain a part of the specified address range").  Where
 * ksim differs: no RLIMIT_MEMLOCK (rlimit() is RLIM_INFINITY), and
 * __mm_populate() faults nothing in (mm_sim/kernel.h).
 */
long ksim_sys_mlock(unsigned long start, size_t len);
long ksim_sys_mlock2(unsigned long start, size_t len, int flags);
long ksim_sys_munlock(unsigned long start, size_t len);

long ksim_sys_call_mlock2(struct mm_struct *mm, unsigned long start, unsigned long len, int flags)
{
#if KSIM_HAVE_MM_VMA_C
	long ret;

	ksim_set_current(mm);
	ret = ksim_sys_mlock2(start, len, flags);
	ksim_set_current(NULL);
	return ret;
#else
	return -ENOSYS;
#endif
}

/* @flags: 0 munlock(2), VM_LOCKED mlock(2), VM_LOCKED | VM_LOCKONFAULT mlock2(MLOCK_ONFAULT) */
int ksim_mlock(struct mm_struct *mm, unsigned long start, unsigned long len, unsigned long flags)
{
#if KSIM_HAVE_MM_VMA_C
	long ret;

	if (flags == (VM_LOCKED | VM_LOCKONFAULT))
		return ksim_sys_call_mlock2(mm, start, len, MLOCK_ONFAULT);
	if (flags && flags != VM_LOCKED)
		return -EINVAL;
	ksim_set_current(mm);
	ret = flags ? ksim_sys_mlock(start, len) : ksim_sys_munlock(start, len);
	ksim_set_current(NULL);
	return ret;
#else
	return -ENOSYS;
#endif
}

/*
 * mbind(2): the syscall body (mm/mempolicy.c, extract/mempolicy.txt) on
 * current->mm, with the node mask read from where @nmask points (@maxnode
 * bits, the kernel's count: get_nodes() uses maxnode - 1 of them).  Where
 * ksim differs: nodes 0 and 1 exist (mm_sim/hooks.h), no page is checked
 * or moved (no page has a node: MPOL_MF_STRICT and MPOL_MF_MOVE* find
 * nothing misplaced), capable() is true.
 */
long ksim_sys_mbind(unsigned long start, unsigned long len, unsigned long mode,
		    const unsigned long *nmask, unsigned long maxnode, unsigned int flags);

long ksim_sys_call_mbind(struct mm_struct *mm, unsigned long start, unsigned long len,
			 unsigned long mode, const unsigned long *nmask, unsigned long maxnode,
			 unsigned int flags)
{
#if KSIM_HAVE_MM_VMA_C
	long ret;

	ksim_set_current(mm);
	ret = ksim_sys_mbind(start, len, mode, nmask, maxnode, flags);
	ksim_set_current(NULL);
	return ret;
#else
	return -ENOSYS;
#endif
}

/* mbind(start, len, mode, &nodes, BITS_PER_LONG + 1, 0): one word of nodes, no flags */
int ksim_mbind(struct mm_struct *mm, unsigned long start, unsigned long len,
	       unsigned short mode, unsigned long nodes)
{
	return ksim_sys_call_mbind(mm, start, len, mode, &nodes, BITS_PER_LONG + 1, 0);
}

#if KSIM_MMSIM_ANON_NAME
long ksim_sys_madvise(unsigned long start, size_t len_in, int behavior);
long ksim_sys_prctl_set_vma(unsigned long opt, unsigned long addr, unsigned long size, unsigned long arg);
#endif

/*
 * madvise(2): the tree's SYSCALL_DEFINE3(madvise) and do_madvise()
 * (extract/syscalls.txt) on @mm, every argument as given: the advice, the
 * range checks, the lock, the walk and madvise_vma_behavior().  Advice
 * that is not about VMA flags fails with -ENOSYS where it reaches a VMA
 * (POPULATE_READ/WRITE: for any range; kernel_mm.c: not simulated).  Left
 * out: process_madvise.
 */
int ksim_madvise(struct mm_struct *mm, unsigned long start, unsigned long len, int behavior)
{
#if KSIM_MMSIM_ANON_NAME
	long err;

	ksim_set_current(mm);
	err = ksim_sys_madvise(start, len, behavior);
	ksim_set_current(NULL);
	return (int)err;
#else
	return -ENOSYS;
#endif
}

/*
 * prctl(PR_SET_VMA, @opt, @addr, @size, @name): the tree's prctl_set_vma()
 * (extract/syscalls.txt) on @mm: the option, the name copied with
 * strndup_user() (at most 79 characters) and checked character by
 * character, allocated (anon_vma_name_alloc(), the caller's reference
 * dropped after the walk), then madvise_set_anon_name()'s range checks
 * and walk under the mmap write lock (prctl_set_vma() on 6.12,
 * madvise_lock() on 7.x).  A NULL @name clears.
 */
int ksim_prctl_set_vma(struct mm_struct *mm, unsigned long opt, unsigned long addr, unsigned long size,
		       const char *name)
{
#if KSIM_MMSIM_ANON_NAME
	long err;

	ksim_set_current(mm);
	err = ksim_sys_prctl_set_vma(opt, addr, size, (unsigned long)name);
	ksim_set_current(NULL);
	return (int)err;
#else
	return -ENOSYS;
#endif
}

/* prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, @start, @len, @name) */
int ksim_set_anon_name(struct mm_struct *mm, unsigned long start, unsigned long len, const char *name)
{
	return ksim_prctl_set_vma(mm, KSIM_PR_SET_VMA_ANON_NAME, start, len, name);
}

int ksim_mm_take_all_locks(struct mm_struct *mm, void (*held)(struct mm_struct *mm, void *arg),
			   void *arg)
{
#if KSIM_HAVE_MM_VMA_C
	int ret;

	ksim_set_current(mm);
	mmap_write_lock(mm);
	ret = mm_take_all_locks(mm);
	if (!ret) {
		if (held)
			held(mm, arg);
		mm_drop_all_locks(mm);
	}
	mmap_write_unlock(mm);
	ksim_set_current(NULL);
	return ret;
#else
	return -ENOSYS;
#endif
}

/* Distinct file mappings and anon_vma roots of @mm's VMAs, and how many of each are write-locked. */
void ksim_mm_all_locks_count(struct mm_struct *mm, unsigned long *mappings, unsigned long *mappings_locked,
			     unsigned long *anon_roots, unsigned long *anon_roots_locked)
{
	struct vm_area_struct *vma;
	VMA_ITERATOR(vmi, mm, 0);
	void *seen[512];
	unsigned int n = 0;

	bool lock = !lockdep_is_held(&mm->mmap_lock);

	*mappings = *mappings_locked = *anon_roots = *anon_roots_locked = 0;
	if (lock)
		mmap_read_lock(mm);
	for_each_vma(vmi, vma) {
		struct anon_vma_chain *avc;
		struct address_space *m = vma->vm_file ? vma->vm_file->f_mapping : NULL;
		unsigned int i;

		for (i = 0; m && i < n && seen[i] != m; i++)
			;
		if (m && i == n && n < 512) {
			seen[n++] = m;
			(*mappings)++;
			*mappings_locked += rwsem_is_locked(&m->i_mmap_rwsem) &&
					    test_bit(AS_MM_ALL_LOCKS, &m->flags);
		}
		list_for_each_entry(avc, &vma->anon_vma_chain, same_vma) {
			struct anon_vma *root = avc->anon_vma->root;

			for (i = 0; i < n && seen[i] != root; i++)
				;
			if (i == n && n < 512) {
				seen[n++] = root;
				(*anon_roots)++;
				*anon_roots_locked += rwsem_is_locked(&root->rwsem);
			}
		}
	}
	if (lock)
		mmap_read_unlock(mm);
}

/*
 * mprotect(2): the tree's do_mprotect_pkey() (extracted; kernel_mm.c), its
 * argument checks and its walk over the VMAs in range, on current->mm;
 * @access is the PROT_* bits (READ, WRITE, EXEC: the VM_* values; also
 * PROT_GROWSDOWN/UP), no protection key.
 */
int ksim_do_mprotect(unsigned long start, size_t len, unsigned long prot);
int ksim_mprotect(struct mm_struct *mm, unsigned long start, unsigned long len,
		  unsigned long access)
{
#if KSIM_HAVE_MM_VMA_C
	int error;

	ksim_set_current(mm);
	error = ksim_do_mprotect(start, len, access);
	ksim_set_current(NULL);
	return error;
#else
	return -ENOSYS;
#endif
}

/*
 * mremap(2): the syscall body itself (SYSCALL_DEFINE5(mremap), extracted
 * from mm/mremap.c) takes mmap_write_lock(current->mm) and returns the new
 * address or -errno.  Built where KSIM_MMSIM_MREMAP (mm_sim/kernel.h):
 * mm/vma.c (copy_vma(), vma_merge_extend()) and the mremap.c shape of
 * extract/mremap.txt; -ENOSYS elsewhere.
 */
long ksim_do_mremap(unsigned long addr, unsigned long old_len, unsigned long new_len,
		    unsigned long flags, unsigned long new_addr);
long ksim_mremap(struct mm_struct *mm, unsigned long old_addr, unsigned long old_len,
		 unsigned long new_len, unsigned long flags, unsigned long new_addr)
{
#if KSIM_MMSIM_MREMAP
	long ret;

	ksim_set_current(mm);
	ret = ksim_do_mremap(old_addr, old_len, new_len, flags, new_addr);
	ksim_set_current(NULL);
	return ret;
#else
	return -ENOSYS;
#endif
}

void ksim_mm_set_brk(struct mm_struct *mm, unsigned long start)
{
	mm->start_brk = mm->brk = start;
}

/*
 * brk(2): the syscall body (mm/mmap.c, extract/syscalls.txt) on
 * current->mm.  It returns the new break on success and the current one
 * on failure (a value below start_brk included), or -EINTR when the mmap
 * lock wait is interrupted.  CONFIG_COMPAT_BRK off, no RLIMIT_DATA
 * (mm_sim/kernel.h).
 */
long ksim_sys_brk(unsigned long brk);
unsigned long ksim_sys_call_brk(struct mm_struct *mm, unsigned long brk)
{
#if KSIM_HAVE_MM_VMA_C
	unsigned long ret;

	ksim_set_current(mm);
	ret = ksim_sys_brk(brk);
	ksim_set_current(NULL);
	return ret;
#else
	return -ENOSYS;
#endif
}

/*
 * brk(2) as glibc's brk() reports it: 0 when the kernel returned @newbrk,
 * else -ENOMEM (it returned the old break; -EINTR passes through).
 */
int ksim_brk(struct mm_struct *mm, unsigned long newbrk)
{
#if KSIM_HAVE_MM_VMA_C
	unsigned long ret = ksim_sys_call_brk(mm, newbrk);

	if (IS_ERR_VALUE(ret))
		return (int)ret;
	return ret == newbrk ? 0 : -ENOMEM;
#else
	return -ENOSYS;
#endif
}

/* Shape building on any tree: one VMA straight into the tree, no merging. */
int ksim_map_direct(struct mm_struct *mm, unsigned long start, unsigned long end,
		    unsigned long vm_flags, struct file *file, unsigned long pgoff)
{
	struct vm_area_struct *vma;
	MA_STATE(mas, &mm->mm_mt, start, end - 1);
	int ret = 0;

	ksim_set_current(mm);
	mmap_write_lock(mm);
	if (find_vma_intersection(mm, start, end)) {
		ret = -EEXIST;
		goto out;
	}
	vma = vm_area_alloc(mm);
	if (!vma) {
		ret = -ENOMEM;
		goto out;
	}
	vma->vm_start = start;
	vma->vm_end = end;
	vma->vm_pgoff = file ? pgoff : start >> PAGE_SHIFT;
#if KSIM_HAVE_VMA_ANON_PGOFF	/* as __mmap_region(): the address's page offset */
	vma_set_anon_pgoff(vma, start >> PAGE_SHIFT);	/* mm/vma.h */
#endif
#if KSIM_HAVE_VM_FLAGS_INIT
	vm_flags_init(vma, vm_flags);
#else
	vma->vm_flags = vm_flags;
#endif
	vma->vm_page_prot = vm_get_page_prot(vm_flags);
	if (file)
		vma->vm_file = get_file(file);
	else
		vma_set_anonymous(vma);
	vma_start_write(vma);	/* as vma_link() before the store */
	if (mas_store_gfp(&mas, vma, GFP_KERNEL)) {
		if (file)
			fput(file);
		vm_area_free(vma);
		ret = -ENOMEM;
		goto out;
	}
#if KSIM_HAVE_MM_VMA_INIT_C
	vma_mark_attached(vma);	/* in the tree, as vma_iter_store_new() marks it */
#endif
	if (file) {
		struct address_space *mapping = file->f_mapping;

		i_mmap_lock_write(mapping);
		if (vma_is_shared_maywrite(vma))
			mapping_allow_writable(mapping);
#if KSIM_HAVE_MAPPING_RMAP_TREE
		mapping_rmap_tree_insert(vma, mapping);
#else
		vma_interval_tree_insert(vma, &mapping->i_mmap);
#endif
		i_mmap_unlock_write(mapping);
	}
	mm->map_count++;
	vm_stat_account(mm, vm_flags, (end - start) >> PAGE_SHIFT);
	if (vm_flags & VM_ACCOUNT)
		security_vm_enough_memory_mm(mm, (end - start) >> PAGE_SHIFT);
out:
	mmap_write_unlock(mm);
	ksim_set_current(NULL);
	return ret;
}

/*
 * The page-fault path, simulated: find the VMA, check access, give
 * anonymous private memory its anon_vma (anon_vma_prepare(), real), walk
 * and allocate the page tables, map a fresh page (or break COW on write).
 */
int ksim_touch(struct mm_struct *mm, unsigned long addr, bool write)
{
	struct vm_area_struct *vma;
	pte_t *pte;
	int ret = 0;

	ksim_set_current(mm);
#if KSIM_HAVE_MM_VMA_C
	/*
	 * The tree's own lookup of a page fault (x86's do_user_addr_fault()
	 * after the per-VMA lock attempt): below a VM_GROWSDOWN VMA it takes
	 * the mmap lock for writing and grows the stack (expand_stack_locked()),
	 * then holds it for reading; NULL (mmap lock dropped) is SIGSEGV.
	 */
	vma = lock_mm_and_find_vma(mm, addr, NULL);
	if (!vma) {
		ksim_set_current(NULL);
		return -EFAULT;
	}
#else
	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
#endif
	if (!vma || !(vma->vm_flags & (write ? VM_WRITE : VM_READ))) {
		ret = -EFAULT;
		goto out;
	}
	if (!(vma->vm_flags & VM_SHARED) && anon_vma_prepare(vma)) {
		ret = -ENOMEM;
		goto out;
	}
	spin_lock(&mm->page_table_lock);
	pte = ksim_pte_alloc(mm, addr & PAGE_MASK);
	if (!pte) {
		ret = -ENOMEM;
	} else if (pte_none(*pte)) {
		pte->pte = (__atomic_fetch_add(&ksim_next_pfn, 1, __ATOMIC_RELAXED) << PAGE_SHIFT) | _PAGE_PRESENT | _PAGE_USER |
			   ((write || (vma->vm_flags & VM_SHARED)) && (vma->vm_flags & VM_WRITE) ? _PAGE_RW : 0);
		mm->ksim_rss++;
	} else if (write && !pte_write(*pte)) {
		/* COW break (private) or write-enable (shared): a new page for private */
		if (!(vma->vm_flags & VM_SHARED))
			pte->pte = (__atomic_fetch_add(&ksim_next_pfn, 1, __ATOMIC_RELAXED) << PAGE_SHIFT) |
				   (pte->pte & ~PAGE_MASK);
		pte->pte |= _PAGE_RW;
	}
	spin_unlock(&mm->page_table_lock);
out:
	mmap_read_unlock(mm);
	ksim_set_current(NULL);
	return ret;
}

void ksim_mm_info(struct mm_struct *mm, struct ksim_mm_info *out)
{
	out->map_count = mm->map_count;
	out->locked_vm = mm->locked_vm;
	out->start_brk = mm->start_brk;
	out->brk = mm->brk;
	out->total_vm = mm->total_vm;
	out->data_vm = mm->data_vm;
	out->exec_vm = mm->exec_vm;
	out->stack_vm = mm->stack_vm;
	out->nr_ptes = mm->ksim_nr_ptes;
	out->nr_pmds = mm->ksim_nr_pmds;
	out->nr_puds = mm->ksim_nr_puds;
	out->rss = mm->ksim_rss;
}

/* ---- invariants ---- */

static unsigned long ksim_rb_count(struct rb_root_cached *root)
{
	struct rb_node *n;
	unsigned long c = 0;

	for (n = rb_first(&root->rb_root); n; n = rb_next(n))
		c++;
	return c;
}

static unsigned long vma_last_pgoff_ksim(struct vm_area_struct *v)
{
	return v->vm_pgoff + vma_pages(v) - 1;
}

/* Page tables: every table registered to this mm at the right level, each
 * covering some VMA, every pte inside a VMA, counts matching. */
static unsigned long ksim_check_pgtables(struct mm_struct *mm)
{
	long nr_puds = 0, nr_pmds = 0, nr_ptes = 0, rss = 0;
	unsigned long bad = 0, i, j, k, l;
	struct mm_struct *owner;
	enum ksim_pt_level level;

	CHECK(ksim_pt_lookup(mm->pgd, &owner, &level) && owner == mm && level == KSIM_PT_PGD,
	      "mm %d: pgd %p not a live pgd of this mm", mm->ksim_id, mm->pgd);
	for (i = 0; i < PTRS_PER_PGD; i++) {
		unsigned long a1 = i << PGDIR_SHIFT;
		p4d_t *p4d = (p4d_t *)&mm->pgd[i];
		pud_t *pud;

		if (p4d_none(*p4d))
			continue;
		pud = p4d_ksim_table(*p4d);
		CHECK(!p4d_bad(*p4d) && ksim_pt_lookup(pud, &owner, &level) && owner == mm &&
		      level == KSIM_PT_PUD, "mm %d: pgd[%lu] -> %p is not a live pud table of this mm",
		      mm->ksim_id, i, pud);
		if (bad)
			return bad;
		nr_puds++;
		CHECK(find_vma_intersection(mm, a1, a1 + PGDIR_SIZE),
		      "mm %d: pud table for [%#lx, %#lx) outside every VMA", mm->ksim_id, a1, a1 + PGDIR_SIZE);
		for (j = 0; j < PTRS_PER_PUD; j++) {
			unsigned long a2 = a1 + (j << PUD_SHIFT);
			pmd_t *pmd;

			if (pud_none(pud[j]))
				continue;
			pmd = pud_ksim_table(pud[j]);
			CHECK(!pud_bad(pud[j]) && ksim_pt_lookup(pmd, &owner, &level) && owner == mm &&
			      level == KSIM_PT_PMD, "mm %d: pud entry for %#lx -> %p is not a live pmd table of this mm",
			      mm->ksim_id, a2, pmd);
			if (bad)
				return bad;
			nr_pmds++;
			CHECK(find_vma_intersection(mm, a2, a2 + PUD_SIZE),
			      "mm %d: pmd table for [%#lx, %#lx) outside every VMA", mm->ksim_id, a2, a2 + PUD_SIZE);
			for (k = 0; k < PTRS_PER_PMD; k++) {
				unsigned long a3 = a2 + (k << PMD_SHIFT);
				pte_t *pte;

				if (pmd_none(pmd[k]))
					continue;
				pte = pmd_ksim_table(pmd[k]);
				CHECK(!pmd_bad(pmd[k]) && ksim_pt_lookup(pte, &owner, &level) && owner == mm &&
				      level == KSIM_PT_PTE, "mm %d: pmd entry for %#lx -> %p is not a live pte table of this mm",
				      mm->ksim_id, a3, pte);
				if (bad)
					return bad;
				nr_ptes++;
				CHECK(find_vma_intersection(mm, a3, a3 + PMD_SIZE),
				      "mm %d: pte table for [%#lx, %#lx) outside every VMA", mm->ksim_id, a3, a3 + PMD_SIZE);
				for (l = 0; l < PTRS_PER_PTE; l++) {
					unsigned long a4 = a3 + (l << PAGE_SHIFT);
					struct vm_area_struct *vma;

					if (pte_none(pte[l]))
						continue;
					rss++;
					vma = vma_lookup(mm, a4);
					CHECK(vma, "mm %d: page mapped at %#lx outside every VMA", mm->ksim_id, a4);
					if (vma)
						CHECK(!pte_write(pte[l]) || (vma->vm_flags & VM_WRITE),
						      "mm %d: writable pte at %#lx in a VMA without VM_WRITE",
						      mm->ksim_id, a4);
				}
			}
		}
	}
	CHECK(nr_puds == mm->ksim_nr_puds && nr_pmds == mm->ksim_nr_pmds && nr_ptes == mm->ksim_nr_ptes,
	      "mm %d: page-table counters %ld/%ld/%ld (pud/pmd/pte), tables found %ld/%ld/%ld",
	      mm->ksim_id, mm->ksim_nr_puds, mm->ksim_nr_pmds, mm->ksim_nr_ptes, nr_puds, nr_pmds, nr_ptes);
	CHECK(rss == mm->ksim_rss, "mm %d: rss counter %ld, ptes mapped %ld", mm->ksim_id, mm->ksim_rss, rss);
	return bad;
}

unsigned long ksim_mm_check(struct mm_struct *mm)
{
	unsigned long total = 0, locked = 0, data = 0, exec = 0, stack = 0, bad = 0, prev_end = 0;
	struct vm_area_struct *vma;
	int count = 0;
	MA_STATE(mas, &mm->mm_mt, 0, 0);

	if (ksim_mm_checks_off)
		return 0;
	mmap_read_lock(mm);
	mt_validate(&mm->mm_mt);
	rcu_read_lock();
	mas_for_each(&mas, vma, ULONG_MAX) {
		unsigned long pages, f;
		struct anon_vma_chain *avc;
		bool own = false;

		CHECK(!xa_is_zero(vma), "mm %d: XA_ZERO_ENTRY at [%#lx, %#lx] in a live mm",
		      mm->ksim_id, mas.index, mas.last);
		if (xa_is_zero(vma))
			continue;
		count++;
		CHECK(vma->vm_mm == mm, "mm %d: VMA [%#lx, %#lx) belongs to another mm",
		      mm->ksim_id, vma->vm_start, vma->vm_end);
		CHECK(vma->vm_start < vma->vm_end && !(vma->vm_start & ~PAGE_MASK) && !(vma->vm_end & ~PAGE_MASK),
		      "mm %d: VMA [%#lx, %#lx) empty or unaligned", mm->ksim_id, vma->vm_start, vma->vm_end);
		CHECK(mas.index == vma->vm_start && mas.last == vma->vm_end - 1,
		      "mm %d: VMA [%#lx, %#lx) stored at [%#lx, %#lx]", mm->ksim_id,
		      vma->vm_start, vma->vm_end, mas.index, mas.last);
		CHECK(vma->vm_start >= prev_end, "mm %d: VMA [%#lx, %#lx) overlaps the previous (end %#lx)",
		      mm->ksim_id, vma->vm_start, vma->vm_end, prev_end);
		prev_end = vma->vm_end;
		pages = vma_pages(vma);
		f = vma->vm_flags;
		total += pages;
		if (f & VM_LOCKED)
			locked += pages;
		if ((f & (VM_EXEC | VM_WRITE | VM_STACK)) == VM_EXEC)
			exec += pages;
		else if ((f & VM_STACK) == VM_STACK)
			stack += pages;
		else if ((f & (VM_WRITE | VM_SHARED | VM_STACK)) == VM_WRITE)
			data += pages;
		list_for_each_entry(avc, &vma->anon_vma_chain, same_vma) {
			struct anon_vma_chain *it;
			bool found = false;

			CHECK(avc->vma == vma, "mm %d: VMA [%#lx, %#lx) chains an avc of another VMA",
			      mm->ksim_id, vma->vm_start, vma->vm_end);
			if (avc->anon_vma == vma->anon_vma)
				own = true;
#if KSIM_HAVE_MAPPING_RMAP_TREE
			anon_rmap_tree_foreach(it, avc->anon_vma, vma_start_anon_pgoff(vma),
					       vma_last_anon_pgoff(vma))
#else
			anon_vma_interval_tree_foreach(it, &avc->anon_vma->rb_root,
						       vma->vm_pgoff, vma_last_pgoff_ksim(vma))
#endif
				if (it == avc)
					found = true;
			CHECK(found, "mm %d: VMA [%#lx, %#lx): avc not in its anon_vma's interval tree",
			      mm->ksim_id, vma->vm_start, vma->vm_end);
		}
		CHECK(!vma->anon_vma || own, "mm %d: VMA [%#lx, %#lx): anon_vma not on its own chain",
		      mm->ksim_id, vma->vm_start, vma->vm_end);
		CHECK(vma->anon_vma || list_empty(&vma->anon_vma_chain),
		      "mm %d: VMA [%#lx, %#lx): no anon_vma but a non-empty chain",
		      mm->ksim_id, vma->vm_start, vma->vm_end);
#ifdef CONFIG_ANON_VMA_NAME
		/*
		 * only anonymous memory is named (madvise_vma_anon_name()), each
		 * name a live reference; "" is a name too (prctl allocates it)
		 */
		CHECK(!vma->anon_name || ((int)kref_read(&vma->anon_name->kref) > 0 &&
					  (!vma->vm_file || vma_is_anon_shmem(vma))),
		      "mm %d: VMA [%#lx, %#lx): anon_name %p with refcount %d on a %s VMA",
		      mm->ksim_id, vma->vm_start, vma->vm_end, vma->anon_name,
		      vma->anon_name ? (int)kref_read(&vma->anon_name->kref) : 0,
		      vma->vm_file ? "file" : "anonymous");
#endif
		/*
		 * userfaultfd: a context iff a registration mode (what
		 * userfaultfd_release_all() and the ioctls VM_WARN on), and that
		 * context a live one of this mm's monitor
		 */
		CHECK(!vma->vm_userfaultfd_ctx.ctx == !(f & VM_UFFD_FLAGS),
		      "mm %d: VMA [%#lx, %#lx): userfaultfd ctx %p with uffd flags %#lx",
		      mm->ksim_id, vma->vm_start, vma->vm_end, (void *)vma->vm_userfaultfd_ctx.ctx,
		      f & VM_UFFD_FLAGS);
		CHECK(!vma->vm_userfaultfd_ctx.ctx || ksim_uffd_ctx_live(vma->vm_userfaultfd_ctx.ctx, mm),
		      "mm %d: VMA [%#lx, %#lx): userfaultfd ctx %p is not a live context of this mm",
		      mm->ksim_id, vma->vm_start, vma->vm_end, (void *)vma->vm_userfaultfd_ctx.ctx);
		if (vma->vm_file) {
			struct vm_area_struct *it;
			bool found = false;

#if KSIM_HAVE_MAPPING_RMAP_TREE
			mapping_rmap_tree_foreach(it, vma->vm_file->f_mapping,
						  vma_start_pgoff(vma), vma_last_pgoff(vma))
#else
			vma_interval_tree_foreach(it, &vma->vm_file->f_mapping->i_mmap,
						  vma->vm_pgoff, vma_last_pgoff_ksim(vma))
#endif
				if (it == vma)
					found = true;
			CHECK(found, "mm %d: file VMA [%#lx, %#lx) not in its file's i_mmap",
			      mm->ksim_id, vma->vm_start, vma->vm_end);
		}
	}
	rcu_read_unlock();
	CHECK(count == mm->map_count, "mm %d: map_count %d, VMAs in the tree %d",
	      mm->ksim_id, mm->map_count, count);
	CHECK(total == mm->total_vm && data == mm->data_vm && exec == mm->exec_vm && stack == mm->stack_vm,
	      "mm %d: counters total/data/exec/stack %lu/%lu/%lu/%lu, VMAs add up to %lu/%lu/%lu/%lu",
	      mm->ksim_id, mm->total_vm, mm->data_vm, mm->exec_vm, mm->stack_vm, total, data, exec, stack);
	/* mmap, munmap, mlock and mremap keep locked_vm to the VM_LOCKED pages */
	CHECK(locked == mm->locked_vm, "mm %d: locked_vm %lu, VM_LOCKED VMAs hold %lu",
	      mm->ksim_id, mm->locked_vm, locked);
	bad += ksim_check_pgtables(mm);
	mmap_read_unlock(mm);
	return bad;
}

/*
 * Across every live mm: anon_vma counts (num_active_vmas, num_children, the
 * avcs in each interval tree), files (i_mmap size, references, writable
 * count), commit accounting.
 */
struct ksim_av_count {
	struct anon_vma *av;
	unsigned long active, avcs, children;
};

static struct ksim_av_count *ksim_av_find(struct ksim_av_count *t, unsigned long n, struct anon_vma *av)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		if (t[i].av == av)
			return &t[i];
	return NULL;
}

/* A table of counts by object (anon_vmas; anonymous VMA names), and what the walk adds up. */
struct ksim_av_table {
	struct ksim_av_count *t;
	unsigned long n, cap;
	unsigned long accounted;	/* pages of VM_ACCOUNT VMAs */
};

static struct ksim_av_count *ksim_av_get(struct ksim_av_table *tab, void *obj)
{
	struct ksim_av_count *c = ksim_av_find(tab->t, tab->n, obj);

	if (c)
		return c;
	if (tab->n == tab->cap)
		tab->t = realloc(tab->t, (tab->cap = tab->cap ? 2 * tab->cap : 64) * sizeof(*tab->t));
	c = &tab->t[tab->n++];
	memset(c, 0, sizeof(*c));
	c->av = obj;
	return c;
}

/* @fn on every VMA of every live mm, each mm under its mmap read lock */
static void ksim_for_each_live_vma(void (*fn)(struct vm_area_struct *vma, void *arg), void *arg)
{
	struct mm_struct *mm;

	list_for_each_entry(mm, &ksim_mms, ksim_mms) {
		struct vm_area_struct *vma;
		VMA_ITERATOR(vmi, mm, 0);

		if (mm->ksim_exited)	/* only its mm_struct is left (a uffd context holds it) */
			continue;
		mmap_read_lock(mm);
		for_each_vma(vmi, vma) {
			if (xa_is_zero(vma))
				break;
			fn(vma, arg);
		}
		mmap_read_unlock(mm);
	}
}

#ifdef CONFIG_ANON_VMA_NAME
/*
 * Anonymous VMA names: one reference per VMA naming it
 * (dup_anon_vma_name(), free_anon_vma_name()) and no other holder between
 * calls.  Where VMAs are freed after a grace period (6.12's vm_area_free()
 * under CONFIG_PER_VMA_LOCK: call_rcu()), a VMA already removed still holds
 * its reference until then: a count that does not add up is taken again
 * after rcu_barrier() before it is reported.
 */
static void ksim_anon_name_count(struct vm_area_struct *vma, void *arg)
{
	if (vma->anon_name)
		ksim_av_get(arg, (void *)vma->anon_name)->active++;
}

static unsigned long ksim_anon_name_check(bool report)
{
	struct ksim_av_table tab = { 0 };
	struct ksim_av_count *t;
	unsigned long bad = 0, n, i;

	ksim_for_each_live_vma(ksim_anon_name_count, &tab);
	t = tab.t;
	n = tab.n;
	for (i = 0; i < n; i++) {
		struct anon_vma_name *an = (void *)t[i].av;

		if (kref_read(&an->kref) == t[i].active)
			continue;
		if (!report) {
			bad++;
			continue;
		}
		CHECK(false, "anon_vma_name %p \"%s\": refcount %u, VMAs naming it %lu",
		      an, an->name, kref_read(&an->kref), t[i].active);
	}
	free(t);
	return bad;
}
#endif

struct ksim_file_count {
	struct file *f;
	unsigned long vmas, writable;
};

static void ksim_file_count(struct vm_area_struct *vma, void *arg)
{
	struct ksim_file_count *fc = arg;

	if (vma->vm_file != fc->f)
		return;
	fc->vmas++;
	fc->writable += vma_is_shared_maywrite(vma);
}

/* per VMA: its VM_ACCOUNT pages, its chain's avcs per anon_vma, its own anon_vma */
static void ksim_av_count_vma(struct vm_area_struct *vma, void *arg)
{
	struct ksim_av_table *tab = arg;
	struct anon_vma_chain *avc;
	struct ksim_av_count *c;

	if (vma->vm_flags & VM_ACCOUNT)
		tab->accounted += vma_pages(vma);
	list_for_each_entry(avc, &vma->anon_vma_chain, same_vma)
		ksim_av_get(tab, avc->anon_vma)->avcs++;
	if (vma->anon_vma) {
		c = ksim_av_find(tab->t, tab->n, vma->anon_vma);
		if (c)
			c->active++;
	}
}

static void ksim_mpol_count_vma(struct vm_area_struct *vma, void *arg)
{
	ksim_mpol_count(vma, arg);
}

unsigned long ksim_mm_check_global(void)
{
	struct ksim_av_table tab = { 0 };
	unsigned long bad = 0, n, i, accounted;
	struct ksim_av_count *t;
	struct file *f;

	if (ksim_mm_checks_off)
		return 0;
	ksim_for_each_live_vma(ksim_av_count_vma, &tab);
	t = tab.t;
	n = tab.n;
	accounted = tab.accounted;
	for (i = 0; i < n; i++) {
		struct ksim_av_count *p = ksim_av_find(t, n, t[i].av->parent);

		if (p)
			p->children++;
	}
	for (i = 0; i < n; i++) {
		struct anon_vma *av = t[i].av;

		CHECK(av->num_active_vmas == t[i].active,
		      "anon_vma %p: num_active_vmas %lu, VMAs using it %lu", av, av->num_active_vmas, t[i].active);
		CHECK(av->num_children == t[i].children,
		      "anon_vma %p: num_children %lu, linked anon_vmas naming it parent %lu",
		      av, av->num_children, t[i].children);
		CHECK(ksim_rb_count(&av->rb_root) == t[i].avcs,
		      "anon_vma %p: %lu avcs in its tree, %lu chained from VMAs",
		      av, ksim_rb_count(&av->rb_root), t[i].avcs);
		CHECK(av->root && av->root->root == av->root, "anon_vma %p: bad root", av);
		CHECK(atomic_read(&av->refcount) > 0, "anon_vma %p: live with refcount %d",
		      av, atomic_read(&av->refcount));
	}
	free(t);
	list_for_each_entry(f, ksim_file_list(), ksim_files) {
		struct ksim_file_count fc = { f };
		unsigned long vmas, writable;

		ksim_for_each_live_vma(ksim_file_count, &fc);
		vmas = fc.vmas;
		writable = fc.writable;
		CHECK(ksim_rb_count(&f->f_mapping->i_mmap) == vmas,
		      "file %s: %lu VMAs in i_mmap, %lu VMAs map it", f->ksim_name,
		      ksim_rb_count(&f->f_mapping->i_mmap), vmas);
		CHECK(atomic_long_read(&f->f_count) == (long)(vmas + f->ksim_opened + ksim_fd_refs(f)),
		      "file %s: f_count %ld, references %lu", f->ksim_name,
		      atomic_long_read(&f->f_count), vmas + f->ksim_opened + ksim_fd_refs(f));
		CHECK(atomic_read(&f->f_mapping->i_mmap_writable) == (int)writable,
		      "file %s: i_mmap_writable %d, shared writable VMAs %lu", f->ksim_name,
		      atomic_read(&f->f_mapping->i_mmap_writable), writable);
	}
	CHECK(atomic_long_read(&vm_committed_as) == (long)accounted,
	      "committed %ld pages, VM_ACCOUNT VMAs hold %lu", atomic_long_read(&vm_committed_as), accounted);
#ifdef CONFIG_ANON_VMA_NAME
	if (ksim_anon_name_check(false)) {
		rcu_barrier();
		bad += ksim_anon_name_check(true);
	}
#endif
	ksim_mpol_count(NULL, &bad);
	ksim_for_each_live_vma(ksim_mpol_count_vma, &bad);
	bad += ksim_mpol_check_done();
	bad += ksim_hooks_check_global();
	return bad;
}

unsigned long ksim_mm_check_all_freed(void)
{
	unsigned long bad = 0;

	CHECK(list_empty(&ksim_mms), "mms still live at the end");
	CHECK(ksim_pt_live() == 0, "%lu page-table pages still live at the end", ksim_pt_live());
	CHECK(list_empty(ksim_file_list()), "files still open at the end");
	CHECK(atomic_long_read(&vm_committed_as) == 0, "%ld pages still committed at the end",
	      atomic_long_read(&vm_committed_as));
	bad += ksim_hooks_check_all_freed();
	return bad;
}

/* ---- parent-unchanged snapshots ---- */
struct ksim_vma_snap {
	unsigned long start, end, flags, pgoff;
	struct file *file;
	struct anon_vma *anon_vma;
	unsigned long chain;
	const void *anon_name;	/* the name object: a refused prctl leaves it */
	const void *uffd_ctx;	/* the userfaultfd context: a refused UFFDIO_(UN)REGISTER leaves it */
	const void *policy;	/* the NUMA policy object: a refused mbind leaves it */
};
struct ksim_pte_snap {
	unsigned long addr, pfn;
};
struct ksim_mm_snapshot {
	struct ksim_mm_info info;
	unsigned long nr_vmas, nr_ptes;
	struct ksim_vma_snap *vmas;
	struct ksim_pte_snap *ptes;
	unsigned long committed;
};

static unsigned long ksim_snap_ptes(struct mm_struct *mm, struct ksim_pte_snap *out)
{
	struct vm_area_struct *vma;
	unsigned long n = 0, a;
	VMA_ITERATOR(vmi, mm, 0);

	for_each_vma(vmi, vma) {
		for (a = vma->vm_start; a < vma->vm_end; ) {
			pte_t *pte = ksim_pte_lookup(mm, a);

			if (!pte) {
				a = pmd_addr_end(a, vma->vm_end);
				continue;
			}
			if (!pte_none(*pte)) {
				if (out) {
					out[n].addr = a;
					out[n].pfn = pte_pfn(*pte);
				}
				n++;
			}
			a += PAGE_SIZE;
		}
	}
	return n;
}

struct ksim_mm_snapshot *ksim_mm_snapshot(struct mm_struct *mm)
{
	struct ksim_mm_snapshot *s = calloc(1, sizeof(*s));
	struct vm_area_struct *vma;
	VMA_ITERATOR(vmi, mm, 0);
	unsigned long i = 0;

	mmap_read_lock(mm);
	ksim_mm_info(mm, &s->info);
	s->vmas = calloc(mm->map_count + 1, sizeof(*s->vmas));
	for_each_vma(vmi, vma) {
		struct list_head *p;

		if (i == (unsigned long)mm->map_count)
			break;
		s->vmas[i] = (struct ksim_vma_snap){ vma->vm_start, vma->vm_end, vma->vm_flags,
			vma->vm_pgoff, vma->vm_file, vma->anon_vma, 0, NULL,
			vma->vm_userfaultfd_ctx.ctx };
#ifdef CONFIG_ANON_VMA_NAME
		s->vmas[i].anon_name = vma->anon_name;
#endif
		s->vmas[i].policy = vma->vm_policy;
		list_for_each(p, &vma->anon_vma_chain)
			s->vmas[i].chain++;
		i++;
	}
	s->nr_vmas = i;
	s->nr_ptes = ksim_snap_ptes(mm, NULL);
	s->ptes = calloc(s->nr_ptes + 1, sizeof(*s->ptes));
	ksim_snap_ptes(mm, s->ptes);
	s->committed = atomic_long_read(&vm_committed_as);
	mmap_read_unlock(mm);
	return s;
}

unsigned long ksim_mm_snapshot_compare(struct ksim_mm_snapshot *s, struct mm_struct *mm)
{
	struct ksim_mm_snapshot *now = ksim_mm_snapshot(mm);
	unsigned long bad = 0, i;

	CHECK(!memcmp(&s->info, &now->info, sizeof(s->info)),
	      "mm %d changed: map_count %d -> %d, total_vm %lu -> %lu, data_vm %lu -> %lu, rss %ld -> %ld, "
	      "pte/pmd/pud tables %ld/%ld/%ld -> %ld/%ld/%ld",
	      mm->ksim_id, s->info.map_count, now->info.map_count, s->info.total_vm, now->info.total_vm,
	      s->info.data_vm, now->info.data_vm, s->info.rss, now->info.rss, s->info.nr_ptes,
	      s->info.nr_pmds, s->info.nr_puds, now->info.nr_ptes, now->info.nr_pmds, now->info.nr_puds);
	CHECK(s->nr_vmas == now->nr_vmas, "mm %d: %lu VMAs before, %lu after", mm->ksim_id,
	      s->nr_vmas, now->nr_vmas);
	for (i = 0; !bad && i < s->nr_vmas; i++)
		CHECK(!memcmp(&s->vmas[i], &now->vmas[i], sizeof(s->vmas[i])),
		      "mm %d: VMA %lu [%#lx, %#lx) changed (flags %#lx -> %#lx, chain %lu -> %lu)",
		      mm->ksim_id, i, s->vmas[i].start, s->vmas[i].end, s->vmas[i].flags,
		      now->vmas[i].flags, s->vmas[i].chain, now->vmas[i].chain);
	CHECK(s->nr_ptes == now->nr_ptes && !memcmp(s->ptes, now->ptes, s->nr_ptes * sizeof(*s->ptes)),
	      "mm %d: mapped pages changed (%lu -> %lu ptes)", mm->ksim_id, s->nr_ptes, now->nr_ptes);
	CHECK(s->committed == (unsigned long)atomic_long_read(&vm_committed_as),
	      "committed pages %lu -> %ld", s->committed, atomic_long_read(&vm_committed_as));
	ksim_mm_snapshot_free(now);
	return bad;
}

void ksim_mm_snapshot_free(struct ksim_mm_snapshot *s)
{
	free(s->vmas);
	free(s->ptes);
	free(s);
}

/* ---- the tree copy alone (benchmark) ---- */
int ksim_tree_dup_mt(struct mm_struct *src, struct mm_struct *dst)
{
	int ret = -ENOSYS;

#if KSIM_HAVE_MM_VMA_C
	mmap_write_lock(src);
	mmap_write_lock_nested(dst, SINGLE_DEPTH_NESTING);
	ret = __mt_dup(&src->mm_mt, &dst->mm_mt, GFP_KERNEL);
	mmap_write_unlock(dst);
	mmap_write_unlock(src);
#endif
	return ret;
}

int ksim_tree_dup_store(struct mm_struct *src, struct mm_struct *dst)
{
	MA_STATE(old_mas, &src->mm_mt, 0, 0);
	MA_STATE(mas, &dst->mm_mt, 0, 0);
	void *entry;
	int ret = 0;

	mmap_write_lock(src);
	mmap_write_lock_nested(dst, SINGLE_DEPTH_NESTING);
	mt_clear_in_rcu(&dst->mm_mt);
	mas_for_each(&old_mas, entry, ULONG_MAX) {
		mas.index = old_mas.index;
		mas.last = old_mas.last;
		if (mas_store_gfp(&mas, entry, GFP_KERNEL)) {
			ret = -ENOMEM;
			break;
		}
	}
	mas_destroy(&mas);
	mmap_write_unlock(dst);
	mmap_write_unlock(src);
	return ret;
}

void ksim_tree_destroy(struct mm_struct *mm)
{
	mmap_write_lock(mm);
	__mt_destroy(&mm->mm_mt);
	mmap_write_unlock(mm);
	/* __mt_destroy() clears the tree's flags: make it an empty mm tree again */
	mt_init_flags(&mm->mm_mt, MM_MT_FLAGS);
	mt_set_external_lock(&mm->mm_mt, &mm->mmap_lock);
}
