// SPDX-License-Identifier: GPL-2.0
/*
 * mm-sim tests: simulated processes driving the kernel's VMA code, with the
 * invariants checked after every operation, and the fork failure-path
 * sweeps.  One binary, the ksim test convention (ksim/test.h).
 */
#include <ksim/test.h>
#include <ksim/fault.h>
#include <ksim/slab.h>
#include <mm_sim/sim.h>
#include <mm_sim/query.h>
#include <linux/rcupdate.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PG		KSIM_PAGE_SIZE
#define ANON_RW		(KSIM_VM_READ | KSIM_VM_WRITE | KSIM_VM_MAYREAD | KSIM_VM_MAYWRITE | KSIM_VM_MAYEXEC)
#define TEXT		(KSIM_VM_READ | KSIM_VM_EXEC | KSIM_VM_MAYREAD | KSIM_VM_MAYWRITE | KSIM_VM_MAYEXEC)
#define SHARED_RW	(ANON_RW | KSIM_VM_SHARED | KSIM_VM_MAYSHARE)
#define STACK		(ANON_RW | KSIM_VM_GROWSDOWN)

#include "test_mm_sim.h"

/* Check one mm and the global state; a violation fails the test. */
void check(struct mm_struct *mm, const char *what)
{
	unsigned long bad = mm ? ksim_mm_check(mm) : 0;

	bad += ksim_mm_check_global();
	if (bad)
		ksim_test_fail(__FILE__, __LINE__, "invariants", "%lu violations after %s", bad, what);
}

unsigned long live_objects(void)
{
	struct ksim_slab_stats st;

	rcu_barrier();	/* VMAs and maple nodes go after a grace period */
	ksim_slab_totals(&st);
	return st.live;
}

void check_all_freed(void)
{
	KSIM_EXPECT(ksim_mm_check_all_freed() == 0);
}

static void setup(void)
{
}

void maple_tree_init(void);

/* The operations below fork/exit need mm/vma.c (6.12 and later): else the test is skipped. */
static bool skip_without_vma_c(void)
{
	setup();
	if (ksim_mm_has_vma_c())
		return false;
	printf("# skipped: this tree has no mm/vma.c\n");
	return true;
}


/* The caches (maple nodes, vm_area_struct, anon_vma, anon_vma_chain) live
 * for the whole run, as the kernel's do: created before any test starts. */
int main(int argc, char **argv)
{
	ksim_init();
	maple_tree_init();
	ksim_mm_sim_init();
	return ksim_test_main(argc, argv);
}

/* A small address space: text, data, a file mapping, shared memory, stack. */
struct mm_struct *build_small(struct file *f, unsigned long extra_flags)
{
	struct mm_struct *mm = ksim_mm_new();
	unsigned long a;

	KSIM_EXPECT(!ksim_map_direct(mm, 0x400000, 0x400000 + 16 * PG, TEXT, f, 0));
	KSIM_EXPECT(!ksim_map_direct(mm, 0x600000, 0x600000 + 64 * PG,
				     ANON_RW | KSIM_VM_ACCOUNT | extra_flags, NULL, 0));
	KSIM_EXPECT(!ksim_map_direct(mm, 0x7f0000000000UL, 0x7f0000000000UL + 32 * PG,
				     ANON_RW | KSIM_VM_ACCOUNT, NULL, 0));
	KSIM_EXPECT(!ksim_map_direct(mm, 0x7f0000100000UL, 0x7f0000100000UL + 8 * PG,
				     SHARED_RW, f, 4));
	KSIM_EXPECT(!ksim_map_direct(mm, 0x7ffff0000000UL, 0x7ffff0000000UL + 32 * PG,
				     STACK | KSIM_VM_ACCOUNT, NULL, 0));
	for (a = 0x600000; a < 0x600000 + 64 * PG; a += 3 * PG)
		KSIM_EXPECT(!ksim_touch(mm, a, true));
	for (a = 0x400000; a < 0x400000 + 16 * PG; a += PG)
		KSIM_EXPECT(!ksim_touch(mm, a, false));
	KSIM_EXPECT(!ksim_touch(mm, 0x7f0000000000UL, true));
	KSIM_EXPECT(!ksim_touch(mm, 0x7f0000100000UL + PG, true));
	KSIM_EXPECT(!ksim_touch(mm, 0x7ffff0000000UL + 31 * PG, true));
	return mm;
}

KSIM_TEST(fork_exit_small)
{
	struct file *f;
	struct mm_struct *p, *c, *gc;

	setup();
	f = ksim_file_open("libc.so");
	p = build_small(f, 0);
	check(p, "build");
	KSIM_ASSERT(!ksim_fork(p, &c));
	check(c, "fork");
	check(p, "fork (parent)");
	/* COW in the child, then a grandchild, then teardown in odd order */
	KSIM_EXPECT(!ksim_touch(c, 0x600000, true));
	KSIM_EXPECT(!ksim_touch(c, 0x600000 + PG, true));
	check(c, "touch after fork");
	KSIM_ASSERT(!ksim_fork(c, &gc));
	check(gc, "fork of the child");
	ksim_mm_exit(c);
	check(gc, "exit of the middle process");
	check(p, "exit of the middle process");
	ksim_mm_exit(p);
	check(gc, "exit of the parent");
	ksim_mm_exit(gc);
	ksim_file_close(f);
	check(NULL, "all exited");
	check_all_freed();
}

/* Leaving out VM_DONTCOPY VMAs and wiping VM_WIPEONFORK ones. */
KSIM_TEST(fork_dontcopy_wipeonfork)
{
	struct mm_struct *p, *c;
	struct ksim_mm_info pi, ci;

	setup();
	p = ksim_mm_new();
	KSIM_EXPECT(!ksim_map_direct(p, 0x10000000, 0x10000000 + 8 * PG, ANON_RW | KSIM_VM_DONTCOPY, NULL, 0));
	KSIM_EXPECT(!ksim_map_direct(p, 0x20000000, 0x20000000 + 8 * PG, ANON_RW | KSIM_VM_WIPEONFORK, NULL, 0));
	KSIM_EXPECT(!ksim_map_direct(p, 0x30000000, 0x30000000 + 8 * PG, ANON_RW, NULL, 0));
	KSIM_EXPECT(!ksim_touch(p, 0x10000000, true));
	KSIM_EXPECT(!ksim_touch(p, 0x20000000, true));
	KSIM_EXPECT(!ksim_touch(p, 0x30000000, true));
	check(p, "build");
	KSIM_ASSERT(!ksim_fork(p, &c));
	check(c, "fork");
	ksim_mm_info(p, &pi);
	ksim_mm_info(c, &ci);
	KSIM_EXPECT_EQ(pi.map_count, 3);
	KSIM_EXPECT_EQ(ci.map_count, 2);		/* DONTCOPY left out */
	KSIM_EXPECT_EQ(ci.total_vm, 16);
	KSIM_EXPECT_EQ(ci.rss, 1);			/* WIPEONFORK not copied */
	KSIM_EXPECT_EQ(pi.rss, 3);
	ksim_mm_exit(p);
	ksim_mm_exit(c);
	check(NULL, "exit");
	check_all_freed();
}

/* The 6.12 operations through the kernel's own entry points. */
KSIM_TEST(ops_vma_c)
{
	struct mm_struct *mm, *c;
	struct file *f;
	struct ksim_mm_info in;

	if (skip_without_vma_c())
		return;
	f = ksim_file_open("data.bin");
	mm = ksim_mm_new();
	/* three adjacent anonymous mmaps merge into one VMA (vma_merge_new_range) */
	KSIM_EXPECT(!ksim_mmap(mm, 0x1000000, 4 * PG, ANON_RW, NULL, 0));
	KSIM_EXPECT(!ksim_mmap(mm, 0x1000000 + 4 * PG, 4 * PG, ANON_RW, NULL, 0));
	KSIM_EXPECT(!ksim_mmap(mm, 0x1000000 + 8 * PG, 4 * PG, ANON_RW, NULL, 0));
	check(mm, "mmap x3");
	ksim_mm_info(mm, &in);
	KSIM_EXPECT_EQ(in.map_count, 1);
	KSIM_EXPECT_EQ(in.data_vm, 12);
	KSIM_EXPECT(!ksim_touch(mm, 0x1000000 + 5 * PG, true));
	/* mprotect the middle: split into three */
	KSIM_EXPECT(!ksim_mprotect(mm, 0x1000000 + 4 * PG, 4 * PG, KSIM_VM_READ));
	check(mm, "mprotect split");
	ksim_mm_info(mm, &in);
	KSIM_EXPECT_EQ(in.map_count, 3);
	KSIM_EXPECT(ksim_touch(mm, 0x1000000 + 5 * PG, true) == -EFAULT);
	/* and back: merge again */
	KSIM_EXPECT(!ksim_mprotect(mm, 0x1000000 + 4 * PG, 4 * PG, KSIM_VM_READ | KSIM_VM_WRITE));
	check(mm, "mprotect merge");
	ksim_mm_info(mm, &in);
	KSIM_EXPECT_EQ(in.map_count, 1);
	/* file and shared anonymous mappings, a hole punched by munmap */
	KSIM_EXPECT(!ksim_mmap(mm, 0x40000000, 16 * PG, SHARED_RW, f, 0));
	KSIM_EXPECT(!ksim_mmap(mm, 0x50000000, 16 * PG, SHARED_RW, NULL, 0));
	KSIM_EXPECT(!ksim_touch(mm, 0x40000000 + 3 * PG, true));
	KSIM_EXPECT(!ksim_touch(mm, 0x50000000 + 3 * PG, true));
	check(mm, "mmap file/shared");
	KSIM_EXPECT(!ksim_munmap(mm, 0x40000000 + 2 * PG, 4 * PG));
	check(mm, "munmap hole");
	ksim_mm_info(mm, &in);
	KSIM_EXPECT_EQ(in.map_count, 4);
	/* MAP_FIXED over existing mappings */
	KSIM_EXPECT(!ksim_mmap(mm, 0x40000000, 32 * PG, ANON_RW, NULL, 0));
	check(mm, "mmap fixed over");
	/* brk */
	ksim_mm_set_brk(mm, 0x2000000);		/* a heap at 32 MiB */
	KSIM_EXPECT(!ksim_brk(mm, 0x2000000 + 10 * PG));
	KSIM_EXPECT(!ksim_touch(mm, 0x2000000 + 9 * PG, true));
	KSIM_EXPECT(!ksim_brk(mm, 0x2000000 + 20 * PG));
	check(mm, "brk grow");
	KSIM_EXPECT(!ksim_brk(mm, 0x2000000 + 5 * PG));
	check(mm, "brk shrink");
	/* unmap everything page-table-wise interesting, fork, exit */
	KSIM_ASSERT(!ksim_fork(mm, &c));
	check(c, "fork");
	KSIM_EXPECT(!ksim_munmap(c, 0x1000000, 0x60000000 - 0x1000000));
	check(c, "munmap all");
	ksim_mm_info(c, &in);
	KSIM_EXPECT_EQ(in.map_count, 0);
	KSIM_EXPECT_EQ(in.nr_ptes, 0);
	KSIM_EXPECT_EQ(in.nr_pmds, 0);
	KSIM_EXPECT_EQ(in.nr_puds, 0);
	ksim_mm_exit(c);
	ksim_mm_exit(mm);
	ksim_file_close(f);
	check(NULL, "exit");
	check_all_freed();
}

/*
 * One random mremap (in place, MAYMOVE, FIXED, DONTUNMAP) in the windows;
 * on success the pages moved with their addresses: the pfn at the result
 * + k is the one that was at @addr + k, and a moved-from range is unmapped
 * (DONTUNMAP: mapped and empty).  Errors must be ones the syscall returns.
 */
static unsigned long mremap_moved, mremap_in_place;

static void random_mremap(struct ksim_rng *rng, struct mm_struct *mm, unsigned long addr,
			  unsigned long old_len)
{
	static const unsigned long modes[] = { 0, KSIM_MREMAP_MAYMOVE,
		KSIM_MREMAP_MAYMOVE | KSIM_MREMAP_FIXED,
		KSIM_MREMAP_MAYMOVE | KSIM_MREMAP_FIXED | KSIM_MREMAP_DONTUNMAP,
		KSIM_MREMAP_MAYMOVE | KSIM_MREMAP_DONTUNMAP };
	unsigned long flags = modes[ksim_rng_below(rng, 5)];
	unsigned long new_len = (1 + ksim_rng_below(rng, 600)) * PG, n, k, *before;
	unsigned long base = ksim_rng_below(rng, 2) ? 0x3fe00000UL : 0x7fffe00000UL;
	unsigned long new_addr = base + ksim_rng_below(rng, 1024) * PG;
	long r;

	struct ksim_vma_info vi;

	/* mostly a range inside one VMA (the rest: whatever the address hits) */
	if (ksim_rng_below(rng, 4) && ksim_mm_find_vma(mm, addr, &vi)) {
		unsigned long pages = (vi.end - vi.start) / PG, off = ksim_rng_below(rng, 2) ?
			0 : ksim_rng_below(rng, pages);

		addr = vi.start + off * PG;
		old_len = (ksim_rng_below(rng, 2) ? pages - off : 1 + ksim_rng_below(rng, pages - off)) * PG;
	}
	if (flags & KSIM_MREMAP_DONTUNMAP)
		new_len = old_len;
	n = (old_len < new_len ? old_len : new_len) / PG;
	before = calloc(n, sizeof(*before));
	for (k = 0; k < n; k++) {
		before[k] = ksim_mm_pfn(mm, addr + k * PG);
		/*
		 * A move-only mremap (MREMAP_FIXED, old_len == new_len):
		 * remap_move() (7.x) moves VMA by VMA, unmapping each one's own
		 * destination only: where the source has a gap (not at its
		 * start) the destination keeps what it had (fuzz/mm.c's model
		 * says the same).  Older trees refuse a source with a gap.
		 */
		if (KSIM_HAVE_MREMAP_MULTI_VMA && (flags & KSIM_MREMAP_FIXED) && old_len == new_len &&
		    !(ksim_mm_find_vma(mm, addr + k * PG, &vi) && vi.start <= addr + k * PG))
			before[k] = ksim_mm_pfn(mm, new_addr + k * PG);
	}
	r = ksim_mremap(mm, addr, old_len, new_len, flags, new_addr);
	KSIM_EXPECT(r >= 0 || r == -EINVAL || r == -EFAULT || r == -ENOMEM, "mremap: %ld", r);
	if (r >= 0) {
		if ((unsigned long)r == addr)
			mremap_in_place++;
		else
			mremap_moved++;
		for (k = 0; k < n; k++)
			KSIM_EXPECT(ksim_mm_pfn(mm, r + k * PG) == before[k],
				    "mremap(%#lx, %#lx, %#lx, %#lx, %#lx) = %#lx: page %lu holds pfn %#lx, was %#lx",
				    addr, old_len, new_len, flags, new_addr, r, k, ksim_mm_pfn(mm, r + k * PG),
				    before[k]);
		if ((unsigned long)r != addr) {
			for (k = 0; k < old_len / PG; k++)
				KSIM_EXPECT(!ksim_mm_pfn(mm, addr + k * PG), "moved-from page %#lx still mapped",
					    addr + k * PG);
			KSIM_EXPECT(!(flags & KSIM_MREMAP_FIXED) || (unsigned long)r == new_addr);
		}
	}
	free(before);
}

/* Random operations on a handful of processes, invariants after each. */
#define NPROC 6
KSIM_TEST(random_ops)
{
	struct ksim_rng *rng = ksim_test_rng();
	struct mm_struct *procs[NPROC] = { 0 };
	struct file *files[2];
	unsigned long step, nsteps = 1500, counts[9] = { 0 };
	int i;

	setup();
	files[0] = ksim_file_open("a");
	files[1] = ksim_file_open("b");
	procs[0] = ksim_mm_new();
	for (step = 0; step < nsteps; step++) {
		int p = ksim_rng_below(rng, NPROC);
		unsigned int op = ksim_rng_below(rng, 9);
		/* a 64 MiB window with 2 MiB and 1 GiB boundaries nearby */
		unsigned long base = (ksim_rng_below(rng, 2) ? 0x3fe00000UL : 0x7fffe00000UL);
		unsigned long addr = base + ksim_rng_below(rng, 1024) * PG;
		unsigned long len = (1 + ksim_rng_below(rng, 600)) * PG;
		unsigned long flags = ANON_RW;
		struct mm_struct *mm = procs[p];
		int r;

		if (!mm) {
			if (op < 2)
				procs[p] = ksim_mm_new();
			continue;
		}
		switch (ksim_rng_below(rng, 8)) {
		case 0: flags |= KSIM_VM_DONTCOPY; break;
		case 1: flags |= KSIM_VM_WIPEONFORK; break;
		case 2: flags = SHARED_RW; break;
		case 3: flags = TEXT; break;
		default: break;
		}
		switch (op) {
		case 0:	/* mmap (merging) or a direct insert on older trees */
			if (ksim_mm_has_vma_c()) {
				struct file *f = ksim_rng_below(rng, 3) ? NULL : files[ksim_rng_below(rng, 2)];

				r = ksim_mmap(mm, addr, len, flags, f, f ? ksim_rng_below(rng, 64) : 0);
			} else {
				r = ksim_map_direct(mm, addr, addr + len, flags | (flags & KSIM_VM_WRITE &&
						    !(flags & KSIM_VM_SHARED) ? KSIM_VM_ACCOUNT : 0), NULL, 0);
				if (r == -EEXIST)
					r = 0;
			}
			KSIM_EXPECT(r == 0, "mmap: %d", r);
			break;
		case 1:
			if (ksim_mm_has_vma_c())
				KSIM_EXPECT(!ksim_munmap(mm, addr, len));
			break;
		case 2:
			if (ksim_mm_has_vma_c()) {
				r = ksim_mprotect(mm, addr, len, ksim_rng_below(rng, 8) & 3);
				KSIM_EXPECT(r == 0 || r == -ENOMEM || r == -EACCES, "mprotect: %d", r);
			}
			break;
		case 3:
		case 4: {
			int k;

			for (k = 0; k < 16; k++) {
				r = ksim_touch(mm, addr + ksim_rng_below(rng, 64) * PG, ksim_rng_below(rng, 2));
				KSIM_EXPECT(r == 0 || r == -EFAULT, "touch: %d", r);
			}
			break;
		}
		case 5: {
			int q;

			for (q = 0; q < NPROC && procs[q]; q++)
				;
			if (q < NPROC)
				KSIM_EXPECT(!ksim_fork(mm, &procs[q]));
			break;
		}
		case 6:
			ksim_mm_exit(mm);
			procs[p] = NULL;
			mm = NULL;
			break;
		case 7:
			if (ksim_mm_has_vma_c())
				KSIM_EXPECT(!ksim_munmap(mm, base, 1024 * PG + 600 * PG));
			break;
		case 8:
			if (ksim_mm_has_mremap())
				random_mremap(rng, mm, addr, len);
			break;
		}
		counts[op % 9]++;	/* op < 9: says so to gcc's -Warray-bounds */
		if (mm)
			check(mm, "random op");
		else
			check(NULL, "random exit");
		if (ksim_problem_count(KSIM_P_TEST)) {
			printf("# stopped at step %lu (op %u on process %d)\n", step, op, p);
			break;
		}
	}
	for (i = 0; i < NPROC; i++)
		if (procs[i])
			ksim_mm_exit(procs[i]);
	ksim_file_close(files[0]);
	ksim_file_close(files[1]);
	check(NULL, "final exit");
	check_all_freed();
	if (ksim_mm_has_vma_c())
		printf("# %lu steps: mmap %lu munmap %lu mprotect %lu touch %lu fork %lu exit %lu munmap-window %lu "
		       "mremap %lu (%lu moved, %lu in place)\n", step, counts[0], counts[1], counts[2],
		       counts[3] + counts[4], counts[5], counts[6], counts[7], counts[8], mremap_moved,
		       mremap_in_place);
	else
		printf("# %lu steps: direct insert %lu touch %lu fork %lu exit %lu "
		       "(no mm/vma.c: munmap/mprotect steps skipped)\n",
		       step, counts[0], counts[3] + counts[4], counts[5], counts[6]);
}

/* ---- fork failure-path sweeps ---- */

void acc_sites(struct site_acc *acc, unsigned int *nacc, unsigned int max)
{
	struct ksim_fault_site_stats st[64];
	unsigned int n = ksim_fault_sites(st, 64), i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < *nacc; j++)
			if (!strcmp(acc[j].name, st[i].func))
				break;
		if (j == *nacc) {
			if (*nacc == max)
				continue;
			snprintf(acc[j].name, sizeof(acc[j].name), "%s", st[i].func);
			acc[j].reached = acc[j].failed = 0;
			(*nacc)++;
		}
		acc[j].reached += st[i].reached;
		acc[j].failed += st[i].failed;
	}
}

/*
 * The fork's layout model: what dup_mmap() must give a child it returns.
 * Every parent VMA without VM_DONTCOPY, and no other, at the same range
 * (dup_mmap() copies one to one and merges nothing), with the same flags
 * but VM_LOCKED/VM_LOCKONFAULT ("mlock is not inherited") and the
 * userfaultfd bits (a context without UFFD_FEATURE_EVENT_FORK is dropped:
 * the hook rules check which), pgoff, file, name and policy (an object of
 * its own, equal); an anon_vma of its own iff the parent's VMA has one and
 * is not VM_WIPEONFORK, its chain the parent's links plus that one
 * (anon_vma_fork()); a userfaultfd context never the parent's; and the
 * parent's pages wherever copy_page_range() runs (not VM_WIPEONFORK, and
 * vma_needs_copy(): an anon_vma), else none (file pages fault back in).
 * The invariants (check()) cannot see a child that is consistent but
 * wrong: a VMA left out, one copied with the wrong offset, a policy or a
 * name not carried over, an anon_vma the child shares with its parent.
 */
void check_fork_child(struct mm_struct *parent, struct mm_struct *child, const char *what)
{
	const unsigned long lk = KSIM_VM_LOCKED | KSIM_VM_LOCKONFAULT;
	/* VM_UFFD_MISSING and VM_UFFD_WP (x86-64 bits); MINOR and RWP are not simulated */
	const unsigned long uffd = 0x200UL | 0x1000UL;
	int np = ksim_mm_vmas(parent, NULL, 0), nc = ksim_mm_vmas(child, NULL, 0), i, j = 0;
	struct ksim_vma_info *pv = calloc(np + 1, sizeof(*pv)), *cv = calloc(nc + 1, sizeof(*cv));

	KSIM_ASSERT(pv && cv);
	np = ksim_mm_vmas(parent, pv, np);
	nc = ksim_mm_vmas(child, cv, nc);
	for (i = 0; i < np && !ksim_problem_count(KSIM_P_TEST); i++) {
		const struct ksim_vma_info *a = &pv[i], *b = &cv[j];
		struct ksim_anon_chain pc, cc;
		bool copied = a->anon_vma && !(a->flags & KSIM_VM_WIPEONFORK);

		if (a->flags & KSIM_VM_DONTCOPY)
			continue;
		if (j >= nc) {
			KSIM_EXPECT(0, "%s: the child lacks VMA [%#lx, %#lx) flags %#lx", what, a->start, a->end,
				    a->flags);
			break;
		}
		j++;
		KSIM_EXPECT(b->start == a->start && b->end == a->end && b->pgoff == a->pgoff &&
			    b->file == a->file && b->named == a->named && !strcmp(b->name, a->name) &&
			    (b->flags & ~lk & ~uffd) == (a->flags & ~lk & ~uffd) && !(b->flags & lk),
			    "%s: the child's VMA [%#lx, %#lx) flags %#lx pgoff %#lx name \"%s\" copies the "
			    "parent's [%#lx, %#lx) flags %#lx pgoff %#lx name \"%s\"", what, b->start, b->end,
			    b->flags, b->pgoff, b->name, a->start, a->end, a->flags, a->pgoff, a->name);
		ksim_mm_anon_chain(parent, a->start, &pc);
		ksim_mm_anon_chain(child, b->start, &cc);
		KSIM_EXPECT(copied ? cc.anon_vma && cc.anon_vma != pc.anon_vma && cc.links == pc.links + 1 :
				     !cc.anon_vma,
			    "%s: the child's VMA [%#lx, %#lx): anon_vma %p with %u links, the parent's %p with %u%s",
			    what, b->start, b->end, cc.anon_vma, cc.links, pc.anon_vma, pc.links,
			    a->flags & KSIM_VM_WIPEONFORK ? " (VM_WIPEONFORK)" : "");
		KSIM_EXPECT(!ksim_uffd_ctx_at(child, b->start) ||
			    ksim_uffd_ctx_at(child, b->start) != ksim_uffd_ctx_at(parent, a->start),
			    "%s: the child's VMA [%#lx, %#lx) has its parent's userfaultfd context", what,
			    b->start, b->end);
#if KSIM_HAVE_MM_VMA_C
		{
			unsigned short pm = 0, cm = 0;
			unsigned long pn = 0, cn = 0;
			const void *pp = ksim_vma_policy_at(parent, a->start, &pm, &pn);
			const void *cp = ksim_vma_policy_at(child, b->start, &cm, &cn);

			KSIM_EXPECT(!pp == !cp && (!pp || (pp != cp && pm == cm && pn == cn)),
				    "%s: the child's VMA [%#lx, %#lx) policy %p %u/%#lx, the parent's %p %u/%#lx",
				    what, b->start, b->end, cp, cm, cn, pp, pm, pn);
		}
#endif
		for (unsigned long addr = a->start; addr < a->end && !ksim_problem_count(KSIM_P_TEST);
		     addr += PG) {
			unsigned long pfn = ksim_mm_pfn(parent, addr);

			KSIM_EXPECT(ksim_mm_pfn(child, addr) == (copied ? pfn : 0),
				    "%s: the child's page %#lx pfn %#lx, the parent's %#lx (%s)", what, addr,
				    ksim_mm_pfn(child, addr), pfn, copied ? "copied" : "not copied");
		}
	}
	KSIM_EXPECT(j == nc || ksim_problem_count(KSIM_P_TEST), "%s: the child has %d VMAs, the parent %d to copy",
		    what, nc, j);
	free(pv);
	free(cv);
}

/*
 * Fail the Nth allocation of a fork of @parent, for N = 1 .. total (every
 * one up to 200 and the last 200, every @stride-th between), then exit the
 * child: nothing may leak, the parent must be unchanged, every invariant
 * must hold.
 */
static void fork_sweep_pass(const char *shape, struct mm_struct *parent, unsigned long stride,
			    long times, unsigned int cls);

/*
 * Two passes: fail only allocation N (times=1), then allocations N to N+3
 * (times=4), which also defeats the kernel's retries (GFP_NOWAIT then
 * GFP_KERNEL in anon_vma_clone()) and so reaches their error paths.
 *
 * Not "every allocation from N on" (times=-1): mas_store_gfp() retries
 * while mas_nomem() reports that *some* nodes were allocated, so when a
 * multi-node preallocation partly succeeds and every later allocation
 * fails, it loops for ever (vma_iter_clear_gfp() in dup_mmap(), seen on
 * 6.12.117).  The kernel relies on GFP_KERNEL node allocations not failing
 * persistently; see README.md.
 */
void fork_sweep(const char *shape, struct mm_struct *parent, unsigned long stride)
{
	fork_sweep_pass(shape, parent, stride, 1, KSIM_FAULT_ALLOC);
	if (!ksim_problem_count(KSIM_P_TEST))
		fork_sweep_pass(shape, parent, stride * 5, 4, KSIM_FAULT_ALLOC);
}

/*
 * @cls KSIM_FAULT_ALLOC: allocation N of the fork fails (-ENOMEM);
 * KSIM_FAULT_SIGNAL: a signal is pending from the Nth look at one on
 * (dup_mmap()'s killable mmap lock, its fatal_signal_pending() per VMA):
 * -EINTR, with the same contract.
 */
static void fork_sweep_pass(const char *shape, struct mm_struct *parent, unsigned long stride,
			    long times, unsigned int cls)
{
	const char *what = cls == KSIM_FAULT_SIGNAL ? "signal check" : "allocation";
	struct site_acc acc[64];
	unsigned int nacc = 0, i, sites_failed = 0;
	unsigned long total, n, runs = 0, failed_runs = 0, swallowed = 0;
	struct ksim_fault_config cfg;
	struct mm_struct *child;
	int err, nvmas;

	check(parent, "shape");
	nvmas = ksim_mm_vmas(parent, NULL, 0);
	/* count the allocations of one fork: armed, but never reaching N */
	memset(&cfg, 0, sizeof(cfg));
	cfg.nth = ~0UL;
	cfg.classes = cls;
	ksim_fault_set(&cfg);
	err = ksim_fork(parent, &child);
	total = ksim_fault_calls();
	KSIM_ASSERT(!err, "unfailed fork of %s: %d", shape, err);
	ksim_fault_reset();
	check(child, "unfailed fork");
	check_fork_child(parent, child, shape);
	ksim_mm_exit(child);

	for (n = 1; n <= total; n += (n < 200 || n + 200 >= total) ? 1 : stride) {
		struct ksim_mm_snapshot *snap = ksim_mm_snapshot(parent);
		unsigned long failures;

		memset(&cfg, 0, sizeof(cfg));
		cfg.nth = n;
		cfg.times = times;
		cfg.classes = cls;
		ksim_fault_set(&cfg);
		err = ksim_fork(parent, &child);
		failures = ksim_fault_failures();
		acc_sites(acc, &nacc, 64);
		ksim_fault_reset();
		runs++;
		KSIM_EXPECT(failures >= 1, "%s: %s %lu of %lu was not reached", shape, what, n, total);
		if (err) {
			failed_runs++;
			KSIM_EXPECT(err == (cls == KSIM_FAULT_SIGNAL ? -EINTR : -ENOMEM),
				    "%s: fork failed with %d", shape, err);
			KSIM_EXPECT(child == NULL);
		} else {
			swallowed++;	/* a failure the kernel retried past (GFP_NOWAIT first) */
			check(child, "fork that survived an allocation failure");
			/* the model walks every VMA and page: each 32nd such child of a big parent */
			if (nvmas <= 256 || swallowed % 32 == 1)
				check_fork_child(parent, child, shape);
			ksim_mm_exit(child);
		}
		KSIM_EXPECT(ksim_mm_snapshot_compare(snap, parent) == 0,
			    "%s: parent changed by a fork failing at %s %lu", shape, what, n);
		ksim_mm_snapshot_free(snap);
		check(parent, "failed fork");
		if (ksim_problem_count(KSIM_P_TEST)) {
			printf("# %s: first failure at %s %lu of %lu (times=%ld)\n",
			       shape, what, n, total, times);
			break;
		}
	}
	for (i = 0; i < nacc; i++)
		sites_failed += acc[i].failed > 0;
	printf("# %s, %s: %lu %ss per fork, %lu failed in turn (stride %lu): %lu forks failed, "
	       "%lu recovered; %u %s sites reached, %u failed\n",
	       shape, cls == KSIM_FAULT_SIGNAL ? "signal pending from check N on" :
	       times == 1 ? "fail allocation N only" : "fail allocations N..N+3",
	       total, what, runs, stride, failed_runs, swallowed, nacc, what, sites_failed);
	for (i = 0; i < nacc; i++)
		printf("#   %-28s reached %8lu  failed %6lu\n", acc[i].name, acc[i].reached, acc[i].failed);
}

KSIM_TEST(fork_sweep_small)
{
	struct file *f;
	struct mm_struct *p;

	setup();
	f = ksim_file_open("libc.so");
	p = build_small(f, 0);
	fork_sweep("small", p, 1);
	if (!ksim_problem_count(KSIM_P_TEST))
		fork_signal_sweep("small", p);
	ksim_mm_exit(p);
	ksim_file_close(f);
	check(NULL, "exit");
	check_all_freed();
}

KSIM_TEST(fork_sweep_dontcopy_wipe)
{
	struct file *f;
	struct mm_struct *p, *c;
	unsigned long a;
	int i;

	setup();
	f = ksim_file_open("shm");
	p = build_small(f, KSIM_VM_WIPEONFORK);
	/* a mix: every third DONTCOPY, every fourth WIPEONFORK, some shared */
	for (i = 0, a = 0x100000000UL; i < 40; i++, a += 0x200000) {
		unsigned long fl = ANON_RW | KSIM_VM_ACCOUNT;

		if (i % 3 == 0)
			fl |= KSIM_VM_DONTCOPY;
		if (i % 4 == 0)
			fl |= KSIM_VM_WIPEONFORK;
		if (i % 5 == 0)
			fl = SHARED_RW;
		KSIM_EXPECT(!ksim_map_direct(p, a, a + 4 * PG, fl, (i % 5 == 0) ? f : NULL, i));
		KSIM_EXPECT(!ksim_touch(p, a + PG, true));
	}
	/* a second generation, so anon_vma chains are two deep */
	KSIM_ASSERT(!ksim_fork(p, &c));
	KSIM_EXPECT(!ksim_touch(c, 0x100000000UL + 0x200000 + PG, true));
	fork_sweep("dontcopy-wipeonfork", c, 1);
	ksim_mm_exit(c);
	ksim_mm_exit(p);
	ksim_file_close(f);
	check(NULL, "exit");
	check_all_freed();
}

/* Thousands of VMAs: the tree is several levels deep; sweep strided. */
KSIM_TEST(fork_sweep_many)
{
	unsigned long nr = 2000, i, a;
	struct mm_struct *p;

	setup();
	p = ksim_mm_new();
	for (i = 0, a = 0x10000000UL; i < nr; i++, a += 2 * PG) {
		unsigned long fl = ANON_RW | (i % 2 ? KSIM_VM_ACCOUNT : 0);

		if (i % 97 == 0)
			fl |= KSIM_VM_DONTCOPY;
		if (i % 89 == 0)
			fl |= KSIM_VM_WIPEONFORK;
		KSIM_ASSERT(!ksim_map_direct(p, a, a + PG, fl, NULL, 0));
		if (i % 7 == 0)
			KSIM_EXPECT(!ksim_touch(p, a, true));
	}
	fork_sweep("many (2000 VMAs)", p, 1);
	ksim_mm_exit(p);
	check(NULL, "exit");
	check_all_freed();
}

/*
 * mmap_region() failing at each allocation (and at the file's ->mmap hook)
 * while MAP_FIXED replaces touched mappings: the error paths unmap what
 * was gathered and free page tables between the neighbours.  After each:
 * invariants, and at the end nothing leaked.
 */
KSIM_TEST(mmap_sweep)
{
	struct ksim_fault_config cfg;
	unsigned long n, failed = 0, ok = 0;
	struct file *f;

	if (skip_without_vma_c())
		return;
	f = ksim_file_open("lib.so");
	for (n = 1; ; n++) {
		struct mm_struct *mm = ksim_mm_new();
		unsigned long a, calls;
		long r;

		/* neighbours in the same pte table and pmd table as the target */
		KSIM_EXPECT(!ksim_mmap(mm, 0x40000000 - 8 * PG, 4 * PG, ANON_RW, NULL, 0));
		KSIM_EXPECT(!ksim_mmap(mm, 0x40000000, 64 * PG, ANON_RW, NULL, 0));
		KSIM_EXPECT(!ksim_mmap(mm, 0x40000000 + 64 * PG, 64 * PG, TEXT, f, 0));
		KSIM_EXPECT(!ksim_mmap(mm, 0x40000000 + 0x400000, 4 * PG, ANON_RW, NULL, 0));
		for (a = 0x40000000 - 8 * PG; a < 0x40000000 + 128 * PG; a += 5 * PG)
			ksim_touch(mm, a, false);
		ksim_touch(mm, 0x40000000 + 0x400000, true);
		check(mm, "mmap sweep shape");
		memset(&cfg, 0, sizeof(cfg));
		cfg.nth = n;
		ksim_fault_set(&cfg);
		r = ksim_mmap(mm, 0x40000000 + 16 * PG, 96 * PG, SHARED_RW, f, 3);
		calls = ksim_fault_calls();
		if (ksim_fault_failures())
			failed += r != 0;
		ksim_fault_reset();
		if (r)
			KSIM_EXPECT(r == -ENOMEM, "mmap failing at allocation %lu: %ld", n, r);
		else
			ok++;
		check(mm, "mmap with a failed allocation");
		ksim_mm_exit(mm);
		check(NULL, "exit");
		if (ksim_problem_count(KSIM_P_TEST)) {
			printf("# first failure with allocation %lu failed\n", n);
			break;
		}
		if (n > calls)
			break;
	}
	ksim_file_close(f);
	check_all_freed();
	printf("# mmap over 3 VMAs: %lu allocations (incl. the ->mmap hook), each failed in turn: "
	       "%lu mmaps failed, %lu succeeded\n", n - 1, failed, ok);
}

/* The name of the VMA at @addr ("" if none, "-" if unmapped). */
static const char *name_at(struct mm_struct *mm, unsigned long addr, struct ksim_vma_info *vi)
{
	if (!ksim_mm_find_vma(mm, addr, vi) || vi->start > addr)
		return "-";
	return vi->name;
}

/*
 * Anonymous VMA names (PR_SET_VMA_ANON_NAME) and madvise's flag advice: the
 * kernel's contract for each, then names through fork, mremap and exit.
 * Every check() counts each name's references against the VMAs naming it.
 */
KSIM_TEST(anon_names)
{
	struct mm_struct *mm, *c;
	struct ksim_mm_info in;
	struct ksim_vma_info vi;
	struct file *f;
	const unsigned long A = 0x10000000, F = 0x20000000, S = 0x30000000;

	if (skip_without_vma_c())
		return;
	f = ksim_file_open("data.bin");
	mm = ksim_mm_new();
	KSIM_EXPECT(!ksim_mmap(mm, A, 16 * PG, ANON_RW, NULL, 0));
	KSIM_EXPECT(!ksim_touch(mm, A + 3 * PG, true));
	KSIM_EXPECT(!ksim_mmap(mm, F, 8 * PG, ANON_RW, f, 0));
	KSIM_EXPECT(!ksim_mmap(mm, S, 8 * PG, SHARED_RW, NULL, 0));
	/* name the middle: three VMAs, the middle named */
	KSIM_EXPECT_EQ(ksim_set_anon_name(mm, A + 4 * PG, 4 * PG, "heap"), 0);
	check(mm, "name the middle");
	KSIM_EXPECT(!strcmp(name_at(mm, A + 5 * PG, &vi), "heap") && vi.start == A + 4 * PG &&
		    vi.end == A + 8 * PG, "named [%#lx, %#lx) \"%s\"", vi.start, vi.end, vi.name);
	KSIM_EXPECT(!strcmp(name_at(mm, A, &vi), ""));
	/* the same name on the next range: a new object, equal by string, merges */
	KSIM_EXPECT_EQ(ksim_set_anon_name(mm, A + 8 * PG, 4 * PG, "heap"), 0);
	check(mm, "name the next range the same");
	KSIM_EXPECT(!strcmp(name_at(mm, A + 9 * PG, &vi), "heap") && vi.start == A + 4 * PG &&
		    vi.end == A + 12 * PG, "merged [%#lx, %#lx)", vi.start, vi.end);
	ksim_mm_info(mm, &in);
	KSIM_EXPECT_EQ(in.map_count, 5);
	/* a file mapping cannot be named: -EBADF, nothing changed */
	KSIM_EXPECT_EQ(ksim_set_anon_name(mm, F, 8 * PG, "file"), -EBADF);
	KSIM_EXPECT(!strcmp(name_at(mm, F, &vi), ""));
	/* shared anonymous memory can */
	KSIM_EXPECT_EQ(ksim_set_anon_name(mm, S, 8 * PG, "shm"), 0);
	KSIM_EXPECT(!strcmp(name_at(mm, S, &vi), "shm"));
	/* a range with a hole: the mapped part is named, then -ENOMEM */
	KSIM_EXPECT_EQ(ksim_set_anon_name(mm, A + 14 * PG, 4 * PG, "tail"), -ENOMEM);
	KSIM_EXPECT(!strcmp(name_at(mm, A + 15 * PG, &vi), "tail"));
	check(mm, "names");
	/*
	 * prctl's own checks: "" is a name, not a clear (named "", kept apart
	 * from the unnamed); a refused character or 80 characters: -EINVAL
	 */
	KSIM_EXPECT_EQ(ksim_set_anon_name(mm, S, 2 * PG, ""), 0);
	check(mm, "the empty name");
	KSIM_EXPECT(!strcmp(name_at(mm, S, &vi), "") && vi.named && vi.end == S + 2 * PG,
		    "named \"\": [%#lx, %#lx) named %d", vi.start, vi.end, vi.named);
	KSIM_EXPECT_EQ(ksim_set_anon_name(mm, S, 8 * PG, "shm"), 0);
	KSIM_EXPECT_EQ(ksim_set_anon_name(mm, S, 8 * PG, "[shm]"), -EINVAL);
	KSIM_EXPECT_EQ(ksim_set_anon_name(mm, S, 8 * PG, "sh\tm"), -EINVAL);
	KSIM_EXPECT_EQ(ksim_set_anon_name(mm, S, 8 * PG,
					  "0123456789012345678901234567890123456789012345678901234567890123456789012345678"), 0);
	KSIM_EXPECT_EQ(ksim_set_anon_name(mm, S, 8 * PG,
					  "01234567890123456789012345678901234567890123456789012345678901234567890123456789"), -EINVAL);
	KSIM_EXPECT_EQ(ksim_prctl_set_vma(mm, KSIM_PR_SET_VMA_ANON_NAME + 1, S, 8 * PG, "shm"), -EINVAL);
	KSIM_EXPECT_EQ(ksim_set_anon_name(mm, S, 8 * PG, "shm"), 0);
	KSIM_EXPECT(!strcmp(name_at(mm, S, &vi), "shm"));
	/* madvise: WIPEONFORK is for private anonymous memory only */
	KSIM_EXPECT_EQ(ksim_madvise(mm, S, 8 * PG, KSIM_MADV_WIPEONFORK), -EINVAL);
	KSIM_EXPECT_EQ(ksim_madvise(mm, F, 8 * PG, KSIM_MADV_WIPEONFORK), -EINVAL);
	/* DONTFORK inside the named range keeps the name on both sides of the splits */
	KSIM_EXPECT_EQ(ksim_madvise(mm, A + 6 * PG, 2 * PG, KSIM_MADV_DONTFORK), 0);
	check(mm, "madvise DONTFORK in a named range");
	KSIM_EXPECT(!strcmp(name_at(mm, A + 6 * PG, &vi), "heap") && (vi.flags & KSIM_VM_DONTCOPY));
	KSIM_EXPECT(!strcmp(name_at(mm, A + 4 * PG, &vi), "heap") && !(vi.flags & KSIM_VM_DONTCOPY));
	KSIM_EXPECT(!strcmp(name_at(mm, A + 8 * PG, &vi), "heap") && !(vi.flags & KSIM_VM_DONTCOPY));
	KSIM_EXPECT_EQ(ksim_madvise(mm, A + 14 * PG, 4 * PG, KSIM_MADV_DONTDUMP), -ENOMEM);
	/* fork: the child's VMAs share the parent's name objects (one reference each) */
	KSIM_ASSERT(!ksim_fork(mm, &c));
	check(c, "fork");
	KSIM_EXPECT(!strcmp(name_at(c, A + 5 * PG, &vi), "heap"));
	KSIM_EXPECT(!strcmp(name_at(c, A + 6 * PG, &vi), "-"), "DONTCOPY range in the child: [%#lx, %#lx) \"%s\" flags %#lx",
		    vi.start, vi.end, vi.name, vi.flags);
	KSIM_EXPECT(!strcmp(name_at(c, S, &vi), "shm"));
	/* rename in the child: the parent keeps its name */
	KSIM_EXPECT_EQ(ksim_set_anon_name(c, A + 4 * PG, 2 * PG, "child"), 0);
	check(c, "rename in the child");
	KSIM_EXPECT(!strcmp(name_at(mm, A + 4 * PG, &vi), "heap"));
	KSIM_EXPECT(!strcmp(name_at(c, A + 4 * PG, &vi), "child"));
	/* mremap moves a named VMA with its name */
	KSIM_EXPECT_EQ(ksim_mremap(c, A + 8 * PG, 4 * PG, 4 * PG, KSIM_MREMAP_MAYMOVE | KSIM_MREMAP_FIXED,
				   0x40000000), 0x40000000);
	check(c, "mremap a named VMA");
	KSIM_EXPECT(!strcmp(name_at(c, 0x40000000, &vi), "heap"), "moved: \"%s\"", vi.name);
	/* clear the names in the parent: unnamed neighbours merge back */
	KSIM_EXPECT_EQ(ksim_set_anon_name(mm, A, 16 * PG, NULL), 0);
	check(mm, "clear the names");
	ksim_mm_exit(mm);
	check(c, "the parent exited");
	KSIM_EXPECT(!strcmp(name_at(c, A + 5 * PG, &vi), "child"));
	ksim_mm_exit(c);
	ksim_file_close(f);
	check(NULL, "exit");
	check_all_freed();
}

/* A fork sweep of an mm whose VMAs are named, some sharing one name object (a split). */
KSIM_TEST(fork_sweep_anon_names)
{
	struct file *f;
	struct mm_struct *p;
	unsigned long a;
	int i;

	if (skip_without_vma_c())
		return;
	f = ksim_file_open("libc.so");
	p = build_small(f, 0);
	for (i = 0, a = 0x100000000UL; i < 12; i++, a += 0x200000) {
		static const char *names[] = { "a", "b", "anon: c" };

		KSIM_EXPECT(!ksim_mmap(p, a, 8 * PG, i % 4 == 3 ? SHARED_RW : ANON_RW, NULL, 0));
		KSIM_EXPECT(!ksim_touch(p, a + PG, true));
		KSIM_EXPECT(!ksim_set_anon_name(p, a, 8 * PG, names[i % 3]));
		if (i % 2)	/* split the named VMA: two VMAs, one name object */
			KSIM_EXPECT(!ksim_mprotect(p, a + 4 * PG, 4 * PG, KSIM_VM_READ));
		if (i % 5 == 4)
			KSIM_EXPECT(!ksim_madvise(p, a, 2 * PG, KSIM_MADV_WIPEONFORK));
	}
	check(p, "build");
	fork_sweep("anon names", p, 1);
	ksim_mm_exit(p);
	ksim_file_close(f);
	check(NULL, "exit");
	check_all_freed();
}

/*
 * A pending signal during fork (the fault engine's class signal): dup_mmap()
 * takes the old mm's lock killably and, per VMA, checks fatal_signal_pending()
 * (6.x) or takes the VMA's write lock killably (7.x), leaving by the same
 * path as a failed allocation, -EINTR.  From the Nth check on a signal is
 * pending (times=-1: it stays pending).
 */
void fork_signal_sweep(const char *shape, struct mm_struct *parent)
{
	fork_sweep_pass(shape, parent, 1, -1, KSIM_FAULT_SIGNAL);
}


/*
 * Stack growth through the page fault's own lookup (lock_mm_and_find_vma()
 * -> expand_stack_locked() -> expand_downwards(), acct_stack_growth()): a
 * touch below a VM_GROWSDOWN VMA grows it, unless an accessible VMA below
 * is closer than stack_guard_gap (256 pages) to the new start; the counters
 * (stack_vm, total_vm, locked_vm for a VM_LOCKED stack) follow, faulted
 * stacks keep their anon_vma tree right (ksim_mm_check()).  Then every
 * allocation of a growing fault fails in turn, and a signal at the lock
 * upgrade: a refused growth fails the fault (-EFAULT: SIGSEGV) and changes
 * nothing; a failure after the growth (the fault's own allocations) leaves
 * the stack grown.
 */
KSIM_TEST(stack_growth)
{
	const unsigned long S = 0x7f0000000000UL, GAP = 256 * PG;
	struct mm_struct *mm, *c;
	struct ksim_vma_info vi;
	struct ksim_mm_info in0, in;
	struct ksim_fault_config cfg;
	unsigned long n, total, failed = 0, refused = 0;

	if (skip_without_vma_c())
		return;
	mm = ksim_mm_new();
	KSIM_EXPECT(!ksim_mmap(mm, S, 16 * PG, STACK, NULL, 0));
	KSIM_EXPECT(!ksim_touch(mm, S + 15 * PG, true));
	ksim_mm_info(mm, &in0);
	/* one page below: the stack grows by one page */
	KSIM_EXPECT_EQ(ksim_touch(mm, S - PG, true), 0);
	check(mm, "stack grown by a page");
	KSIM_EXPECT(ksim_mm_find_vma(mm, S - PG, &vi) && vi.start == S - PG && vi.end == S + 16 * PG,
		    "stack [%#lx, %#lx)", vi.start, vi.end);
	ksim_mm_info(mm, &in);
	KSIM_EXPECT_EQ(in.stack_vm, in0.stack_vm + 1);
	KSIM_EXPECT_EQ(in.total_vm, in0.total_vm + 1);
	/* far below (no VMA under it): grows all the way */
	KSIM_EXPECT_EQ(ksim_touch(mm, S - 300 * PG, false), 0);
	check(mm, "stack grown by 300 pages");
	KSIM_EXPECT(ksim_mm_find_vma(mm, S - 300 * PG, &vi) && vi.start == S - 300 * PG);
	/* a mapping below: the guard gap holds the stack 256 pages above it */
	KSIM_EXPECT(!ksim_mmap(mm, S - 600 * PG, 8 * PG, ANON_RW, NULL, 0));
	KSIM_EXPECT_EQ(ksim_touch(mm, S - 592 * PG + GAP - PG, true), -EFAULT);
	KSIM_EXPECT(ksim_mm_find_vma(mm, S - 400 * PG, &vi) && vi.start == S - 300 * PG,
		    "a refused growth moved the stack to %#lx", vi.start);
	KSIM_EXPECT_EQ(ksim_touch(mm, S - 592 * PG + GAP, true), 0);
	check(mm, "stack grown to the guard gap");
	/* a PROT_NONE mapping below is no reason for a gap */
	KSIM_EXPECT(!ksim_munmap(mm, S - 600 * PG, 8 * PG));
	KSIM_EXPECT(!ksim_mmap(mm, S - 400 * PG, 8 * PG, KSIM_VM_MAYREAD | KSIM_VM_MAYWRITE, NULL, 0));
	KSIM_EXPECT_EQ(ksim_touch(mm, S - 392 * PG, true), 0);
	check(mm, "stack grown onto a PROT_NONE mapping");
	/* the child's stack is the grown one, and grows on its own */
	KSIM_ASSERT(!ksim_fork(mm, &c));
	KSIM_EXPECT_EQ(ksim_touch(c, S - 393 * PG, true), -EFAULT);	/* the PROT_NONE mapping */
	ksim_mm_exit(c);

	/* a VM_LOCKED stack: locked_vm grows with it (ksim_mm_check()) */
	KSIM_EXPECT(!ksim_mmap(mm, S + 0x100000000UL, 4 * PG, STACK | KSIM_VM_LOCKED, NULL, 0));
	KSIM_EXPECT_EQ(ksim_touch(mm, S + 0x100000000UL - 10 * PG, true), 0);
	check(mm, "locked stack grown");

	/*
	 * every allocation of a growing fault on a never-touched stack (its
	 * anon_vma comes with the growth) fails in turn; then a signal at the
	 * lock upgrade.  A fresh stack each time, at its own address.
	 */
#define T(k)	(S + 0x200000000UL + (unsigned long)(k) * 0x1000000UL)
	memset(&cfg, 0, sizeof(cfg));
	cfg.nth = ~0UL;
	KSIM_EXPECT(!ksim_mmap(mm, T(0), 4 * PG, STACK, NULL, 0));
	ksim_fault_set(&cfg);
	KSIM_EXPECT_EQ(ksim_touch(mm, T(0) - 2 * PG, true), 0);
	total = ksim_fault_calls();
	ksim_fault_reset();
	KSIM_EXPECT(!ksim_munmap(mm, T(0) - 2 * PG, 6 * PG));
	for (n = 1; n <= total + 1; n++) {
		struct ksim_mm_snapshot *snap;
		unsigned int cls = n <= total ? KSIM_FAULT_ALLOC : KSIM_FAULT_SIGNAL;
		int r;

		KSIM_EXPECT(!ksim_mmap(mm, T(n), 4 * PG, STACK, NULL, 0));
		snap = ksim_mm_snapshot(mm);
		memset(&cfg, 0, sizeof(cfg));
		cfg.nth = n <= total ? n : 1;
		cfg.classes = cls;
		ksim_fault_set(&cfg);
		r = ksim_touch(mm, T(n) - 2 * PG, true);
		ksim_fault_reset();
		check(mm, "a growing fault with a failure");
		/*
		 * -EFAULT: the growth was refused (SIGSEGV), nothing changed;
		 * -ENOMEM: the stack grew, then the fault itself ran out of
		 * memory (VM_FAULT_OOM): the growth stays, as in the kernel.
		 */
		if (r) {
			failed++;
			KSIM_EXPECT(r == -EFAULT || r == -ENOMEM, "a growing fault: %d", r);
			KSIM_EXPECT(r != -EFAULT || ksim_mm_snapshot_compare(snap, mm) == 0,
				    "a refused growth (%s %lu) changed the process",
				    cls == KSIM_FAULT_SIGNAL ? "signal" : "allocation", n);
		}
		refused += r == -EFAULT;
		KSIM_EXPECT(!ksim_munmap(mm, T(n) - 2 * PG, 6 * PG));
		ksim_mm_snapshot_free(snap);
	}
#undef T
	printf("# a growing fault: %lu allocations, each failed in turn, then a signal: %lu faults failed, "
	       "%lu of them refusing the growth\n", total, failed, refused);
	KSIM_EXPECT(failed >= 1, "no growing fault failed");
	ksim_mm_exit(mm);
	check(NULL, "exit");
	check_all_freed();
}

struct all_locks_seen {
	unsigned long mappings, mappings_locked, roots, roots_locked;
};

static void all_locks_held(struct mm_struct *mm, void *arg)
{
	struct all_locks_seen *s = arg;

	ksim_mm_all_locks_count(mm, &s->mappings, &s->mappings_locked, &s->roots, &s->roots_locked);
}

/*
 * mm_take_all_locks()/mm_drop_all_locks() (mmu_notifier_register()'s):
 * every file mapping and every anon_vma root of the mm locked once (shared
 * roots after fork, several VMAs of one file), all released after, with the
 * marker bits they set (AS_MM_ALL_LOCKS, the anon_vma tree root's low bit)
 * cleared: ksim_mm_check() walks those trees.  Then a signal at each of its
 * checks in turn: -EINTR, and whatever it took is dropped again.
 */
KSIM_TEST(mm_take_all_locks)
{
	struct all_locks_seen seen;
	struct mm_struct *p, *c;
	struct ksim_fault_config cfg;
	struct file *f;
	unsigned long n, total, eintr = 0;
	int r;

	if (skip_without_vma_c())
		return;
	f = ksim_file_open("libc.so");
	p = build_small(f, 0);
	KSIM_EXPECT(!ksim_mmap(p, 0x60000000, 8 * PG, TEXT, f, 100));	/* the same file again */
	KSIM_ASSERT(!ksim_fork(p, &c));
	KSIM_EXPECT(!ksim_touch(c, 0x60000000, false));
	memset(&seen, 0, sizeof(seen));
	KSIM_EXPECT_EQ(ksim_mm_take_all_locks(c, all_locks_held, &seen), 0);
	KSIM_EXPECT(seen.mappings >= 1 && seen.mappings_locked == seen.mappings,
		    "%lu of %lu file mappings locked", seen.mappings_locked, seen.mappings);
	KSIM_EXPECT(seen.roots >= 1 && seen.roots_locked == seen.roots,
		    "%lu of %lu anon_vma roots locked", seen.roots_locked, seen.roots);
	check(c, "after mm_drop_all_locks()");
	check(p, "the parent, sharing the anon_vma roots");
	all_locks_held(c, &seen);
	KSIM_EXPECT(!seen.mappings_locked && !seen.roots_locked, "%lu mappings, %lu roots still locked",
		    seen.mappings_locked, seen.roots_locked);
	/* a signal pending from check N on */
	memset(&cfg, 0, sizeof(cfg));
	cfg.nth = ~0UL;
	cfg.classes = KSIM_FAULT_SIGNAL;
	ksim_fault_set(&cfg);
	KSIM_EXPECT_EQ(ksim_mm_take_all_locks(c, NULL, NULL), 0);
	total = ksim_fault_calls();
	ksim_fault_reset();
	for (n = 1; n <= total; n++) {
		cfg.nth = n;
		cfg.times = -1;
		ksim_fault_set(&cfg);
		r = ksim_mm_take_all_locks(c, NULL, NULL);
		ksim_fault_reset();
		eintr += r == -EINTR;
		KSIM_EXPECT(r == -EINTR, "signal at check %lu of %lu: %d", n, total, r);
		check(c, "after an interrupted mm_take_all_locks()");
		all_locks_held(c, &seen);
		KSIM_EXPECT(!seen.mappings_locked && !seen.roots_locked,
			    "signal at check %lu: %lu mappings, %lu roots left locked", n,
			    seen.mappings_locked, seen.roots_locked);
	}
	printf("# mm_take_all_locks: %lu file mappings, %lu anon_vma roots; %lu signal checks, "
	       "each interrupting it (%lu -EINTR)\n", seen.mappings, seen.roots, total, eintr);
	ksim_mm_exit(c);
	ksim_mm_exit(p);
	ksim_file_close(f);
	check(NULL, "exit");
	check_all_freed();
}

/*
 * The top-down layout (MMF_TOPDOWN, as x86-64 gives every process):
 * mmap(NULL, len) goes to the highest gap below mmap_base that fits
 * (generic_get_unmapped_area_topdown() -> vm_unmapped_area() ->
 * unmapped_area_topdown(), the maple tree's reverse gap search).  Oracle:
 * the gap computed from the VMA list, with the stack guard gap below a
 * VM_GROWSDOWN VMA (vm_start_gap()).  Random maps of two flag sets (so
 * neighbours do not always merge) and random unmaps punch holes of every
 * size; every map is checked, and the invariants after every operation.
 */
static unsigned long topdown_expect(struct mm_struct *mm, unsigned long len)
{
	static struct ksim_vma_info v[1024];
	unsigned long high = KSIM_MMAP_BASE_TOPDOWN, low = PG;
	int n = ksim_mm_vmas(mm, v, 1024), i;

	if (n > 1024) {
		ksim_test_fail(__FILE__, __LINE__, "n <= 1024", "%d VMAs: more than the oracle holds", n);
		return 0;
	}
	/* from the top: each gap is [end of the previous VMA, start gap of the next) */
	for (i = n; i >= 0; i--) {
		unsigned long gap_end = i == n ? high : v[i].start;
		unsigned long gap_start = i ? v[i - 1].end : low;

		if (i < n && (v[i].flags & KSIM_VM_GROWSDOWN))
			gap_end = gap_end > 256 * PG ? gap_end - 256 * PG : 0;	/* stack_guard_gap */
		if (gap_end > high)
			gap_end = high;
		if (gap_start < low)
			gap_start = low;
		if (gap_end > gap_start && gap_end - gap_start >= len)
			return gap_end - len;
	}
	return -ENOMEM;
}

KSIM_TEST(mmap_topdown)
{
	struct ksim_rng *rng = ksim_test_rng();
	struct mm_struct *mm;
	unsigned long stack = KSIM_MMAP_BASE_TOPDOWN - 300 * PG;
	int step, maps = 0;

	if (skip_without_vma_c())
		return;
	mm = ksim_mm_new();
	ksim_mm_set_topdown(mm);
	/* a stack just below mmap_base: maps keep its guard gap free */
	KSIM_EXPECT(!ksim_mmap(mm, stack, 16 * PG, STACK, NULL, 0));
	for (step = 0; step < 400; step++) {
		struct ksim_vma_info v[1024];
		int n = ksim_mm_vmas(mm, v, 1024);

		if (n < 2 || ksim_rng_below(rng, 3)) {
			unsigned long len = (1 + ksim_rng_below(rng, 24)) * PG;
			unsigned long flags = ksim_rng_below(rng, 2) ? ANON_RW : (ANON_RW & ~KSIM_VM_WRITE);
			unsigned long want = topdown_expect(mm, len);
			long got = ksim_mmap_anywhere(mm, len, flags);

			KSIM_EXPECT((unsigned long)got == want, "step %d: mmap(NULL, %lu pages) = %#lx, expected %#lx",
				    step, len / PG, (unsigned long)got, want);
			maps++;
		} else {
			/* unmap some pages of a VMA other than the stack */
			int i = ksim_rng_below(rng, n);
			unsigned long pages, off, cnt;

			if (v[i].flags & KSIM_VM_GROWSDOWN)
				continue;
			pages = (v[i].end - v[i].start) / PG;
			off = ksim_rng_below(rng, pages);
			cnt = 1 + ksim_rng_below(rng, pages - off);
			KSIM_EXPECT(!ksim_munmap(mm, v[i].start + off * PG, cnt * PG));
		}
		check(mm, "mmap_topdown step");
	}
	KSIM_EXPECT(maps > 100);
	ksim_mm_exit(mm);
	check_all_freed();
}
