// SPDX-License-Identifier: GPL-2.0
/*
 * What drivers hand the VMA code (sim_driver.c): a file's ->mmap_prepare()
 * hook (7.x's __mmap_region() -> call_mmap_prepare() ->
 * mmap_action_prepare(), set_vma_user_defined_fields(),
 * mmap_action_complete()), checked against the contract the tree states
 * (include/linux/mm_types.h's struct vm_area_desc, mm/vma.c's
 * call_mmap_prepare(), include/linux/mm.h's vm_operations_struct::mapped).
 */
#include <ksim/test.h>
#include <ksim/fault.h>
#include <ksim/slab.h>
#include <mm_sim/sim.h>
#include <mm_sim/query.h>
#include <linux/rcupdate.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "test_mm_sim.h"

#define PG		KSIM_PAGE_SIZE
#define FILE_RW		(KSIM_VM_READ | KSIM_VM_WRITE | KSIM_VM_MAYREAD | KSIM_VM_MAYWRITE | KSIM_VM_MAYEXEC)
#define SHARED_RW	(FILE_RW | KSIM_VM_SHARED | KSIM_VM_MAYSHARE)


static unsigned long live_files(void)
{
	struct list_head *head = ksim_file_list(), *p;
	unsigned long n = 0;

	for (p = head->next; p != head; p = p->next)
		n++;
	return n;
}

static int vmas_in(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	struct ksim_vma_info v[64];
	int n = ksim_mm_vmas(mm, v, 64), in = 0;

	for (int i = 0; i < n && i < 64; i++)
		in += v[i].start < end && v[i].end > start;
	return in;
}

static struct file *driver_file(const char *name, struct ksim_driver *drv)
{
	memset(drv, 0, sizeof(*drv));
	return ksim_driver_file_open(name, drv);
}

/* The hook's view, its changes in the VMA, ->mapped() and ->close(). */
static void prepare_fields(struct mm_struct *mm)
{
	static int cookie, cookie2;
	const unsigned long a = 0x10000000UL;
	struct ksim_driver drv;
	struct file *f = driver_file("drv-fields", &drv);
	struct ksim_vma_info vi;
	struct mm_struct *child;
	const void *ops;
	void *priv;

	drv.set_flags = KSIM_VM_DONTCOPY | KSIM_VM_DONTDUMP;
	drv.clear_flags = KSIM_VM_MAYEXEC;
	drv.pgoff_delta = 3;
	drv.ops = KSIM_DRIVER_OPS_CLOSE;
	drv.private_data = &cookie;
	drv.mapped_private = &cookie2;
	KSIM_ASSERT(!ksim_mmap(mm, a, 4 * PG, FILE_RW, f, 10));
	check(mm, "mmap through ->mmap_prepare()");

	/* what __mmap_region() gave the hook: the request, and the defaults of the write-only fields */
	KSIM_EXPECT_EQ(drv.prepare_calls, 1);
	KSIM_EXPECT(drv.seen.mm == mm);
	KSIM_EXPECT_EQ(drv.seen.start, a);
	KSIM_EXPECT_EQ(drv.seen.end, a + 4 * PG);
	KSIM_EXPECT_EQ(drv.seen.pgoff, 10);
	/* a private writable mapping is charged before the hook: VM_ACCOUNT is in what it sees */
	KSIM_EXPECT_EQ(drv.seen.flags, FILE_RW | KSIM_VM_ACCOUNT);
	KSIM_EXPECT(drv.seen.vm_file_is_file);
	KSIM_EXPECT(drv.seen.vm_ops_dummy);
	KSIM_EXPECT(drv.seen.private_null);
	KSIM_EXPECT(drv.seen.action_nothing);

	/* what the hook set is what the VMA has */
	KSIM_ASSERT(ksim_mm_find_vma(mm, a, &vi));
	KSIM_EXPECT_EQ(vi.start, a);
	KSIM_EXPECT_EQ(vi.end, a + 4 * PG);
	KSIM_EXPECT_EQ(vi.pgoff, 13);
	KSIM_EXPECT(vi.file == f);
	KSIM_EXPECT_EQ(vi.flags & (KSIM_VM_DONTCOPY | KSIM_VM_DONTDUMP | KSIM_VM_MAYEXEC),
		       KSIM_VM_DONTCOPY | KSIM_VM_DONTDUMP);
	KSIM_EXPECT_EQ(vi.flags & (FILE_RW | KSIM_VM_ACCOUNT), (FILE_RW & ~KSIM_VM_MAYEXEC) | KSIM_VM_ACCOUNT);
	KSIM_ASSERT(ksim_mm_vma_ops(mm, a, &ops, &priv));
	KSIM_EXPECT(ops == ksim_driver_vm_ops_id(KSIM_DRIVER_OPS_CLOSE));
	/* ->mapped() ran once on the new VMA, saw the hook's private data and replaced it */
	KSIM_EXPECT_EQ(drv.mapped_calls, 1);
	KSIM_EXPECT_EQ(drv.seen.mapped_start, a);
	KSIM_EXPECT_EQ(drv.seen.mapped_end, a + 4 * PG);
	KSIM_EXPECT_EQ(drv.seen.mapped_pgoff, 13);
	KSIM_EXPECT(drv.seen.mapped_private == &cookie);
	KSIM_EXPECT(priv == &cookie2);
	KSIM_EXPECT_EQ(ksim_file_refs(f), 2);	/* the opener's and the VMA's */

	/* the flag the hook set is in force: a fork does not copy the VMA */
	KSIM_ASSERT(!ksim_fork(mm, &child));
	check(child, "fork");
	KSIM_EXPECT_EQ(vmas_in(child, a, a + 4 * PG), 0);
	ksim_mm_exit(child);
	KSIM_EXPECT_EQ(drv.close_calls, 0);

	KSIM_EXPECT(!ksim_munmap(mm, a, 4 * PG));
	check(mm, "munmap");
	KSIM_EXPECT_EQ(drv.close_calls, 1);
	KSIM_EXPECT_EQ(ksim_file_refs(f), 1);
	ksim_file_close(f);
}

/*
 * A failing hook.  Over an existing mapping (MAP_FIXED) the old VMAs are
 * already detached and their page tables cleared when the hook runs
 * (__mmap_setup() -> vms_clean_up_area()), so vms_abort_munmap_vmas()
 * cannot put them back: the range is left unmapped ("the old failure
 * method of leaving a gap").  Either way no VMA of the new mapping, no
 * reference to its file and no charge are left.
 */
static void prepare_fails(struct mm_struct *mm)
{
	const unsigned long a = 0x20000000UL;
	struct ksim_driver drv;
	struct file *f = driver_file("drv-fails", &drv);
	struct ksim_mm_info i0, i1;

	KSIM_ASSERT(!ksim_mmap(mm, a, 4 * PG, FILE_RW, NULL, 0));
	KSIM_ASSERT(!ksim_touch(mm, a + PG, true));
	KSIM_ASSERT(ksim_mm_pfn(mm, a + PG));
	ksim_mm_info(mm, &i0);

	/* into a hole: nothing changes */
	drv.prepare_err = -EACCES;
	drv.ops = KSIM_DRIVER_OPS_CLOSE;
	KSIM_EXPECT_EQ(ksim_mmap(mm, a + 8 * PG, 4 * PG, SHARED_RW, f, 0), -EACCES);
	check(mm, "mmap whose ->mmap_prepare() failed");
	ksim_mm_info(mm, &i1);
	KSIM_EXPECT_EQ(i1.map_count, i0.map_count);
	KSIM_EXPECT_EQ(i1.total_vm, i0.total_vm);
	KSIM_EXPECT_EQ(ksim_file_refs(f), 1);

	/* MAP_FIXED over the anonymous mapping: the hook refuses, a gap is left */
	KSIM_EXPECT_EQ(ksim_mmap(mm, a, 4 * PG, SHARED_RW, f, 0), -EACCES);
	check(mm, "MAP_FIXED mmap whose ->mmap_prepare() failed");
	KSIM_EXPECT_EQ(drv.prepare_calls, 2);
	KSIM_EXPECT_EQ(drv.mapped_calls, 0);
	KSIM_EXPECT_EQ(drv.close_calls, 0);
	KSIM_EXPECT_EQ(vmas_in(mm, a, a + 4 * PG), 0);
	KSIM_EXPECT_EQ(ksim_mm_pfn(mm, a + PG), 0);
	ksim_mm_info(mm, &i1);
	KSIM_EXPECT_EQ(i1.map_count, i0.map_count - 1);
	KSIM_EXPECT_EQ(i1.total_vm, i0.total_vm - 4);
	KSIM_EXPECT_EQ(ksim_file_refs(f), 1);

	/* the hook succeeds, ->mapped() fails: the new VMA is unmapped again */
	drv.prepare_err = 0;
	drv.mapped_err = -EIO;
	KSIM_EXPECT_EQ(ksim_mmap(mm, a, 4 * PG, SHARED_RW, f, 0), -EIO);
	check(mm, "mmap whose ->mapped() failed");
	KSIM_EXPECT_EQ(drv.mapped_calls, 1);
	KSIM_EXPECT_EQ(drv.close_calls, 1);	/* do_munmap() of the new VMA */
	KSIM_EXPECT_EQ(vmas_in(mm, a, a + 4 * PG), 0);
	KSIM_EXPECT_EQ(ksim_file_refs(f), 1);

	/* ... and the action's error_override replaces its error */
	drv.error_override = -EPERM;
	KSIM_EXPECT_EQ(ksim_mmap(mm, a, 4 * PG, SHARED_RW, f, 0), -EPERM);
	check(mm, "mmap whose ->mapped() failed, error overridden");
	KSIM_EXPECT_EQ(vmas_in(mm, a, a + 4 * PG), 0);
	KSIM_EXPECT_EQ(ksim_file_refs(f), 1);
	ksim_file_close(f);
}

/* A mapping that merges with its neighbour gets no ->mapped() (the VMA is not new). */
static void prepare_merges(struct mm_struct *mm)
{
	static int cookie1, cookie2;
	const unsigned long a = 0x30000000UL;
	struct ksim_driver drv;
	struct file *f = driver_file("drv-merge", &drv);
	struct ksim_vma_info vi;
	const void *ops;
	void *priv;

	drv.ops = KSIM_DRIVER_OPS_MAPPED;	/* no ->close(): may merge */
	drv.private_data = &cookie1;
	KSIM_ASSERT(!ksim_mmap(mm, a, 2 * PG, SHARED_RW, f, 0));
	drv.private_data = &cookie2;
	KSIM_ASSERT(!ksim_mmap(mm, a + 2 * PG, 2 * PG, SHARED_RW, f, 2));
	check(mm, "two adjacent ->mmap_prepare() mappings");
	KSIM_EXPECT_EQ(drv.prepare_calls, 2);
	KSIM_EXPECT_EQ(vmas_in(mm, a, a + 4 * PG), 1);
	KSIM_ASSERT(ksim_mm_find_vma(mm, a, &vi));
	KSIM_EXPECT(vi.start == a && vi.end == a + 4 * PG, "[%#lx, %#lx)", vi.start, vi.end);
	KSIM_EXPECT_EQ(drv.mapped_calls, 1);
	KSIM_ASSERT(ksim_mm_vma_ops(mm, a + 3 * PG, &ops, &priv));
	KSIM_EXPECT(ops == ksim_driver_vm_ops_id(KSIM_DRIVER_OPS_MAPPED));
	KSIM_EXPECT(priv == &cookie1);	/* the first VMA's, expanded */
	KSIM_EXPECT_EQ(ksim_file_refs(f), 2);

	/* a merge that expands the first VMA drops the second hook's ops and data */
	drv.ops = KSIM_DRIVER_OPS_CLOSE;
	drv.private_data = &cookie2;
	KSIM_ASSERT(!ksim_mmap(mm, a + 4 * PG, 2 * PG, SHARED_RW, f, 4));
	check(mm, "a ->mmap_prepare() mapping merged into its predecessor");
	KSIM_EXPECT_EQ(vmas_in(mm, a, a + 6 * PG), 1);
	KSIM_EXPECT_EQ(drv.mapped_calls, 1);
	KSIM_ASSERT(ksim_mm_vma_ops(mm, a + 5 * PG, &ops, &priv));
	KSIM_EXPECT(ops == ksim_driver_vm_ops_id(KSIM_DRIVER_OPS_MAPPED) && priv == &cookie1);

	/*
	 * Filling the hole between two VMAs: the next one is removed by the
	 * merge only if it has no ->close() (can_merge_remove_vma()); here
	 * it has, so the new range only extends the previous VMA.
	 */
	KSIM_ASSERT(!ksim_mmap(mm, a + 8 * PG, 2 * PG, SHARED_RW, f, 8));
	KSIM_EXPECT_EQ(drv.mapped_calls, 2);
	drv.ops = KSIM_DRIVER_OPS_MAPPED;
	KSIM_ASSERT(!ksim_mmap(mm, a + 6 * PG, 2 * PG, SHARED_RW, f, 6));
	check(mm, "a ->mmap_prepare() mapping between two");
	KSIM_EXPECT_EQ(vmas_in(mm, a, a + 10 * PG), 2);
	KSIM_ASSERT(ksim_mm_find_vma(mm, a, &vi));
	KSIM_EXPECT(vi.start == a && vi.end == a + 8 * PG, "[%#lx, %#lx)", vi.start, vi.end);
	KSIM_EXPECT_EQ(drv.mapped_calls, 2);
	KSIM_EXPECT(!ksim_munmap(mm, a, 10 * PG));
	check(mm, "munmap");
	KSIM_EXPECT_EQ(drv.close_calls, 1);	/* the one VMA with the ->close() ops */
	KSIM_EXPECT_EQ(ksim_file_refs(f), 1);
	ksim_file_close(f);
}

/*
 * The hook maps a file of its own (desc->vm_file, as shmem_zero_setup_desc()):
 * the VMA holds that file with the reference the hook handed over, the
 * opened file gains none; with allocation N of the mmap failed (N = 1 ..
 * all), a failed mmap leaves no VMA, no file and no object behind.
 */
static void prepare_new_file(void)
{
	const unsigned long a = 0x40000000UL;
	unsigned long total = 0, failed = 0;

	for (unsigned long n = 0; ; n++) {
		struct ksim_driver drv;
		struct file *f = driver_file("drv-new-file", &drv);
		struct mm_struct *mm = ksim_mm_new();
		unsigned long live0 = live_objects(), files0 = live_files();
		struct ksim_fault_config cfg;
		struct ksim_vma_info vi;
		long r;

		drv.new_file = true;
		drv.ops = KSIM_DRIVER_OPS_CLOSE;
		memset(&cfg, 0, sizeof(cfg));
		cfg.nth = n ? n : ~0UL;	/* n = 0: count the allocations of an unfailed call */
		ksim_fault_set(&cfg);
		r = ksim_mmap(mm, a, 4 * PG, SHARED_RW, f, 0);
		if (!n)
			total = ksim_fault_calls();
		ksim_fault_reset();
		check(mm, "mmap of a hook's own file");
		KSIM_EXPECT_EQ(ksim_file_refs(f), 1);
		if (r) {
			failed++;
			KSIM_EXPECT(n && r == -ENOMEM, "allocation %lu failed: mmap = %ld", n, r);
			KSIM_EXPECT_EQ(vmas_in(mm, a, a + 4 * PG), 0);
			/* the hook's file went with the failed mmap (abort_munmap's fput()) */
			KSIM_EXPECT(live_files() == files0, "allocation %lu failed: %lu files, %lu before",
				    n, live_files(), files0);
		} else {
			KSIM_ASSERT(drv.made);
			KSIM_ASSERT(ksim_mm_find_vma(mm, a, &vi));
			KSIM_EXPECT(vi.file == drv.made && vi.file != f);
			KSIM_EXPECT_EQ(ksim_file_refs(drv.made), 1);	/* the VMA's, handed over */
			KSIM_EXPECT_EQ(live_files(), files0 + 1);
			KSIM_EXPECT(!ksim_munmap(mm, a, 4 * PG));
			KSIM_EXPECT_EQ(drv.close_calls, 1);
			KSIM_EXPECT_EQ(live_files(), files0);	/* the last reference went with the VMA */
		}
		ksim_mm_exit(mm);
		KSIM_EXPECT(live_objects() == live0, "allocation %lu failed: %lu objects leaked",
			    n, live_objects() - live0);
		ksim_file_close(f);
		check(NULL, "exit");
		if (ksim_problem_count(KSIM_P_TEST) || n >= total)
			break;
	}
	printf("# mmap of a hook's own file: %lu allocations, each failed in turn: %lu mmaps failed\n",
	       total, failed);
	KSIM_EXPECT(failed > 0);
}

KSIM_TEST(mmap_prepare)
{
	struct ksim_driver probe;
	struct file *f = driver_file("probe", &probe);
	struct mm_struct *mm;

	/* registered only where the tree has the hook (KSIM_HAVE_MMAP_PREPARE) */
	KSIM_ASSERT(f, "this tree's mmap has no f_op->mmap_prepare()");
	ksim_file_close(f);
	mm = ksim_mm_new();
	prepare_fields(mm);
	prepare_fails(mm);
	prepare_merges(mm);
	ksim_mm_exit(mm);
	prepare_new_file();
	check(NULL, "end");
	check_all_freed();
}

/*
 * A private writable file mapping that its driver refuses after
 * __mmap_setup() charged it (VM_ACCOUNT): on 7.x through ->mmap_prepare()
 * (call_mmap_prepare() failing: the simulated driver returns -EACCES), on
 * a tree without that hook through ->mmap() (mmap_file() failing at its
 * fault site, which is what a driver's refusal looks like to the VMA code).
 * No allocation fails.  Into a hole, the new mapping's charge must be
 * returned; MAP_FIXED over an accounted mapping, whose charge the new
 * mapping took over (vms->nr_accounted = 0), the range is left unmapped
 * and the old charge must be returned too.  check() compares
 * vm_committed_as with what the VM_ACCOUNT VMAs hold.  The hole case also
 * guards the ->mmap_prepare() error path itself: 7.2.13 and 7.3.4 send it
 * to unacct_error (Debian's 7.2 changelog lists "mm/vma: correctly
 * unaccount on mmap_prepare() failure" in the 7.2.8 stable update); a jump
 * to abort_munmap instead leaves the new charge behind, which this test
 * reports (a scratch 7.3.4 mutant: committed 8 pages, VM_ACCOUNT VMAs
 * hold 4).
 */
static long mmap_refused(struct mm_struct *mm, unsigned long addr, unsigned long len,
			 struct file *f, bool prepare)
{
	struct ksim_fault_config cfg = { .nth = 1, .nr_sites = 1, .sites = { "mmap_file" } };
	long r;

	if (prepare)
		return ksim_mmap(mm, addr, len, FILE_RW, f, 0);
	ksim_fault_set(&cfg);
	r = ksim_mmap(mm, addr, len, FILE_RW, f, 0);
	KSIM_EXPECT_EQ(ksim_fault_failures(), 1);
	ksim_fault_reset();
	return r;
}

KSIM_TEST(mmap_hook_fails_accounted)
{
	const unsigned long a = 0x50000000UL;
	struct ksim_driver drv;
	struct file *f = driver_file("drv-refuses", &drv);
	const bool prepare = f != NULL;
	const long err = prepare ? -EACCES : -ENOMEM;
	struct mm_struct *mm = ksim_mm_new();
	struct ksim_mm_info i0, i1;

	if (!prepare)
		f = ksim_file_open("refuses");	/* no ->mmap_prepare(): its ->mmap() fails */
	drv.prepare_err = -EACCES;
	KSIM_ASSERT(!ksim_mmap(mm, a, 4 * PG, FILE_RW & ~KSIM_VM_MAYEXEC, NULL, 0));
	KSIM_ASSERT(!ksim_touch(mm, a + PG, true));
	check(mm, "an accounted anonymous mapping");
	ksim_mm_info(mm, &i0);

	KSIM_EXPECT_EQ(mmap_refused(mm, a + 8 * PG, 4 * PG, f, prepare), err);
	check(mm, "a private writable mmap its driver refused, into a hole");
	ksim_mm_info(mm, &i1);
	KSIM_EXPECT_EQ(i1.map_count, i0.map_count);
	KSIM_EXPECT_EQ(i1.total_vm, i0.total_vm);

	KSIM_EXPECT_EQ(mmap_refused(mm, a, 4 * PG, f, prepare), err);
	check(mm, "a MAP_FIXED private writable mmap its driver refused, over an accounted mapping");
	KSIM_EXPECT_EQ(vmas_in(mm, a, a + 4 * PG), 0);
	ksim_mm_info(mm, &i1);
	KSIM_EXPECT_EQ(i1.map_count, i0.map_count - 1);
	KSIM_EXPECT_EQ(ksim_file_refs(f), 1);
	if (prepare)
		KSIM_EXPECT_EQ(drv.prepare_calls, 2);
	ksim_mm_exit(mm);
	ksim_file_close(f);
	check(NULL, "end");
	check_all_freed();
}

/*
 * A vdso-like special mapping (__install_special_mapping() ->
 * insert_vm_struct()): the VMA has the flags given plus VM_DONTEXPAND, the
 * ops and private data given, pgoff 0; it is counted in total_vm/exec_vm;
 * an overlapping install fails with -ENOMEM and leaves nothing behind; it
 * cannot be split; a fork copies it unless VM_DONTCOPY; exit closes each.
 */
#define VDSO	(KSIM_VM_READ | KSIM_VM_EXEC | KSIM_VM_MAYREAD | KSIM_VM_MAYEXEC)

KSIM_TEST(special_mapping)
{
	const unsigned long a = 0x7ff000000000UL, b = a + 16 * PG;
	struct ksim_special vdso = { .name = "[vdso]" }, vvar = { .name = "[vvar]" }, other = { "x" };
	struct ksim_mm_info i0, i1;
	struct mm_struct *mm, *child;
	struct ksim_vma_info vi;
	unsigned long live0;
	const void *ops;
	void *priv;

	mm = ksim_mm_new();
	/* registered only where mm/vma.c has it (KSIM_HAVE_INSTALL_SPECIAL_MAPPING_IN_VMA_C) */
	KSIM_ASSERT(ksim_install_special_mapping(mm, a, 2 * PG, VDSO, &vdso) != -ENOSYS,
		    "this tree's __install_special_mapping() is not in mm/vma.c");
	check(mm, "install [vdso]");
	KSIM_ASSERT(ksim_mm_find_vma(mm, a, &vi));
	KSIM_EXPECT(vi.start == a && vi.end == a + 2 * PG, "[%#lx, %#lx)", vi.start, vi.end);
	KSIM_EXPECT_EQ(vi.flags, VDSO | KSIM_VM_DONTEXPAND);
	KSIM_EXPECT_EQ(vi.pgoff, 0);
	KSIM_EXPECT(vi.file == NULL);
	KSIM_ASSERT(ksim_mm_vma_ops(mm, a, &ops, &priv));
	KSIM_EXPECT(ops == ksim_special_vm_ops_id() && priv == &vdso);
	ksim_mm_info(mm, &i0);
	KSIM_EXPECT_EQ(i0.total_vm, 2);
	KSIM_EXPECT_EQ(i0.exec_vm, 2);

	/* a second one that overlaps: insert_vm_struct() refuses, nothing leaks */
	live0 = live_objects();
	KSIM_EXPECT_EQ(ksim_install_special_mapping(mm, a + PG, 2 * PG, VDSO, &other), -ENOMEM);
	check(mm, "overlapping install");
	KSIM_EXPECT_EQ(live_objects(), live0);
	ksim_mm_info(mm, &i1);
	KSIM_EXPECT_EQ(i1.map_count, i0.map_count);
	KSIM_EXPECT_EQ(i1.total_vm, i0.total_vm);

	/* an allocation failure: ERR_PTR(-ENOMEM), nothing installed */
	{
		struct ksim_fault_config cfg = { .nth = 1 };

		ksim_fault_set(&cfg);
		KSIM_EXPECT_EQ(ksim_install_special_mapping(mm, b + 4 * PG, PG, VDSO, &other), -ENOMEM);
		ksim_fault_reset();
		check(mm, "install with its allocation failed");
		KSIM_EXPECT_EQ(vmas_in(mm, b + 4 * PG, b + 5 * PG), 0);
		KSIM_EXPECT_EQ(live_objects(), live0);
	}

	/* not to be split: unmapping one page of it fails (->may_split()) */
	KSIM_EXPECT_EQ(ksim_munmap(mm, a + PG, PG), -EINVAL);
	check(mm, "munmap of half the [vdso]");
	KSIM_EXPECT_EQ(vmas_in(mm, a, a + 2 * PG), 1);

	/* a VM_DONTCOPY one beside it: the fork copies the first only */
	KSIM_ASSERT(!ksim_install_special_mapping(mm, b, 2 * PG, KSIM_VM_READ | KSIM_VM_MAYREAD | KSIM_VM_DONTCOPY,
						  &vvar));
	check(mm, "install [vvar]");
	KSIM_ASSERT(!ksim_fork(mm, &child));
	check(child, "fork");
	KSIM_ASSERT(ksim_mm_find_vma(child, a, &vi));
	KSIM_EXPECT(vi.start == a && vi.end == a + 2 * PG && vi.flags == (VDSO | KSIM_VM_DONTEXPAND));
	KSIM_ASSERT(ksim_mm_vma_ops(child, a, &ops, &priv));
	KSIM_EXPECT(ops == ksim_special_vm_ops_id() && priv == &vdso);
	KSIM_EXPECT_EQ(vmas_in(child, b, b + 2 * PG), 0);

	/* exit closes every special VMA, the child's copy too */
	ksim_mm_exit(child);
	KSIM_EXPECT_EQ(vdso.close_calls, 1);
	KSIM_EXPECT_EQ(vvar.close_calls, 0);
	ksim_mm_exit(mm);
	KSIM_EXPECT_EQ(vdso.close_calls, 2);
	KSIM_EXPECT_EQ(vvar.close_calls, 1);
	KSIM_EXPECT_EQ(other.close_calls, 0);
	check(NULL, "end");
	check_all_freed();
}
