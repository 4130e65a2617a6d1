// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target `mm`: simulated processes (mm-sim: mm/vma.c, dup_mmap(),
 * exit_mmap(), mmap_region(), mprotect_fixup(), do_brk_flags(), rmap,
 * page-table teardown, all unmodified) against a per-page reference model.
 *
 * Input: byte 0 configures (bits 0-1: processes created at the start, 1-4);
 * then each op is [opcode][flags][fault][args...]:
 *
 *   mmap      prot:u8 addr:u16 len:u8 pgoff:u8
 *             prot bit 0 R, 1 W, 2 X, 3 MAP_SHARED, 4 file-backed, 5 which
 *             file, 6 VM_DONTCOPY, 7 VM_WIPEONFORK (private anonymous only,
 *             as madvise allows); flags bit 2 VM_NORESERVE, 3 no VM_MAYWRITE,
 *             4 no VM_MAYEXEC.  Private writable without NORESERVE gets
 *             VM_ACCOUNT from the kernel (accountable_mapping()).
 *   munmap    addr:u16 len:u8
 *             flags bit 4: the length passed short of its last page by
 *             PAGE_SIZE - 1 bytes, garbage the contract ignores
 *             (mm_sim/contract.h); the model gets the canonical length.
 *   mprotect  prot:u8 addr:u16 len:u8
 *             prot bits 0-2 READ, WRITE, EXEC; bits 3-4 garbage the
 *             contract ignores (mm_sim/contract.h): 3 PROT_SEM, 4 a length
 *             short of its last page by PAGE_SIZE - 1 bytes.  The kernel
 *             gets the raw arguments, the model the canonical ones.
 *             With flags bits 5-7 all set it is madvise/naming instead
 *             (trees with mm/vma.c): prot % 12 picks MADV_NORMAL, RANDOM,
 *             SEQUENTIAL, DONTFORK, DOFORK, DONTDUMP, DODUMP, WIPEONFORK,
 *             KEEPONFORK, or PR_SET_VMA_ANON_NAME "a", "b", or clearing it;
 *             flags bit 4 passes the length short of its last page by
 *             PAGE_SIZE - 1 bytes (both round up; the model gets the
 *             canonical length), bit 3 an argument the contract refuses:
 *             madvise advice (prot % 12 below 9) prot % 8 of -1, 5, 6,
 *             7, 26, 27, 99, 1000 (values the uapi does not define), the
 *             name "a$" (naming): -EINVAL and nothing changed.
 *             With flags bits 5-7 and 2 set it is mbind(2) instead (trees
 *             with mm/vma.c; op_mbind()): prot bits 0-2 the mode (DEFAULT,
 *             BIND, INTERLEAVE, PREFERRED, LOCAL, MPOL_MAX (invalid), BIND,
 *             INTERLEAVE), bits 3-4 the nodes (node 0, node 1), bits 5-6
 *             garbage the contract ignores (the mode's upper 32 bits, mask
 *             bits past maxnode - 1), flags bit 4 a length short of its
 *             last page; the model is ksim_mbind_contract() on its pages.
 *             With flags bits 5-7, 3 and 2 set it is UFFDIO_REGISTER
 *             (MISSING) / UFFDIO_UNREGISTER (op_uffd()): prot bit 0
 *             unregister, bit 1 the process's second context (each opened
 *             with no features by the first op naming it, closed when the
 *             process exits), bit 2 garbage in REGISTER's ioctls (ignored),
 *             bit 3 mode MISSING|WP (refused); flags bit 4 a length short
 *             of its last page (refused); the model is ksim_uffd_contract().
 *   brk       delta:s8 (pages)
 *             flags bit 4: the break passed PAGE_SIZE - 1 bytes short of
 *             the page boundary (not at start_brk, which it would fall
 *             below): the kernel keeps it in mm->brk, the heap's mapping
 *             ends on the boundary, as the contract says; the model gets
 *             the boundary.  The kernel's brk(2) refuses (returns the old
 *             break) a growth that would come within a page of a mapping
 *             and a shrink with no mapping in [new, old) to unmap.
 *   touch     addr:u16 n:u8 (count (n & 15) + 1, stride (n >> 4) + 1 pages;
 *             flags bit 2: write)
 *   fork      (flags bits 2-3: child slot)
 *   exit, new, unmap_all
 *   mremap    addr:u16 old_len:u8 new_len:u8 new_addr:u16 (6.12; flags bits
 *             2-3: 0 in place (no flags), 1 MREMAP_MAYMOVE|FIXED to new_addr,
 *             2 the same with MREMAP_DONTUNMAP (new_len = old_len), 3 in
 *             place with new_len = old_len).  Moves stay in the windows:
 *             a MAYMOVE without FIXED would go to mmap_base, outside them.
 *             Bits 4-6 put garbage where the contract says it makes no
 *             difference (mm_sim/contract.h): 4 old_len short of its last
 *             page by PAGE_SIZE - 1 bytes, 5 new_len by PAGE_SIZE / 2 (both
 *             not with DONTUNMAP, whose length check differs by tree), 6 an
 *             unaligned new_addr where no flag uses it.  The kernel gets the
 *             raw arguments, the model the canonical ones.
 *
 * flags bits 0-1 pick the process (4 slots).  addr bit 15 picks one of two
 * windows of 1,280 pages: 2 MiB below the 1 GiB boundary (a pud boundary)
 * and 2 MiB below 512 GiB (a pgd boundary); bits 0-9 the page.  len is
 * (byte + 1) pages.  The heap (brk) starts at page 768 of window 0.
 *
 * Oracles, after every op:
 *   - the return value equals the model's (-ENOMEM or the ->mmap hook's
 *     error only when an allocation was failed on purpose);
 *   - every live process's mappings equal the model page by page: mapped
 *     or not, vm_flags (access, MAY*, shared, DONTCOPY, WIPEONFORK,
 *     DONTDUMP, SEQ/RAND_READ, ACCOUNT, NORESERVE), file, file offset,
 *     anonymous name, NUMA policy (mode and nodes; none for
 *     MPOL_DEFAULT: fork copies it, mremap moves it, a new mapping has
 *     none, merges keep it) and userfaultfd context (the fork child and
 *     an mremap move lose it: no EVENT_FORK, no EVENT_REMAP).  The kernel merges and
 *     splits VMAs as it likes; pages are what it promises;
 *   - ksim_mm_check() on every live process and ksim_mm_check_global()
 *     (tree, counters, anon_vma, i_mmap, commit accounting, page tables);
 *   - a failed op leaves the process as it was: fork and 6.1's direct
 *     insert by snapshot (VMAs, anon_vmas, ptes, counters); munmap, brk by
 *     page and counters (a failed munmap may leave its VMA splits, as the
 *     kernel does); mprotect, madvise and naming changed a prefix of the
 *     range (they stop at the VMA they failed on, like the kernel), and
 *     so did mbind (mbind_range()) and uffd registration; a failed MAP_FIXED mmap leaves
 *     the range as it was or unmapped (vms_abort_munmap_vmas() leaves a
 *     hole once the old ptes are gone);
 *   - mremap: the kernel's result decides the path, the model checks it:
 *     a success moved the model's pages (flags, file; pgoff carried, or the
 *     new address for an anonymous VMA never faulted, as copy_vma() does)
 *     and left the old range unmapped (DONTUNMAP: mapped, as it was, and
 *     empty of pages; under an injected failure it may stay mapped without
 *     VM_ACCOUNT), grew in place into unmapped pages only, or shrank;
 *     the page contents (pfns) moved with their addresses.  A failure is
 *     -EFAULT/-EINVAL/-ENOMEM; it changed nothing but what mremap_to()
 *     unmaps first (the destination, the tail of a shrink);
 *   - at the end: every process exits, nothing is left (mms, page tables,
 *     files, commit charge), and the framework's slab leak check.
 *
 * A tree without mm/vma.c (6.1) has no mmap_region/munmap/mprotect/brk in
 * mm-sim: mmap becomes a direct insert (-EEXIST over a mapping) and the
 * others are skipped (the mprotect op's madvise, naming, mbind, uffd too); fork, exit and touch run as on 6.12.
 */
#include <mm_sim/sim.h>
#include <mm_sim/contract.h>
#include <mm_sim/query.h>
#include <ksim/fuzz.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPS		256
#define NPROC		4
#define NWIN		2
#define WIN_PAGES	1280
#define NPAGES		(NWIN * WIN_PAGES)
#define PG		KSIM_PAGE_SIZE
#define BRK_START_PAGE	768
#define MAX_VMAS	(NPAGES + 8)

static const unsigned long win_base[NWIN] = { 0x3fe00000UL, 0x7fffe00000UL };

#define VM_RWX		(KSIM_VM_READ | KSIM_VM_WRITE | KSIM_VM_EXEC)
#define VM_MAY		(KSIM_VM_MAYREAD | KSIM_VM_MAYWRITE | KSIM_VM_MAYEXEC)
#define CMP_MASK	(VM_RWX | VM_MAY | KSIM_VM_SHARED | KSIM_VM_MAYSHARE | KSIM_VM_DONTCOPY | \
			 KSIM_VM_ACCOUNT | KSIM_VM_NORESERVE | KSIM_VM_WIPEONFORK | KSIM_MADV_VM_FLAGS)
#define BRK_FLAGS	(KSIM_VM_READ | KSIM_VM_WRITE | VM_MAY | KSIM_VM_ACCOUNT)

enum {
	OP_MMAP, OP_MUNMAP, OP_MPROTECT, OP_BRK, OP_TOUCH, OP_FORK, OP_EXIT, OP_NEW,
	OP_UNMAP_ALL, OP_MREMAP, OP_NR,
};

static const char *const op_names[OP_NR] = {
	"mmap", "munmap", "mprotect", "brk", "touch", "fork", "exit", "new", "unmap_all", "mremap",
};

/* One page of the model: flags == 0 means unmapped (mapped pages have VM_MAYREAD). */
struct mpage {
	unsigned long flags, pgoff;
	const void *file;
	bool anon_vma;		/* kernel view only (read_kernel), never compared */
	uint8_t name;		/* anonymous name: 0 none, 1 "a", 2 "b" (3: another, in the kernel's view) */
	uint8_t pmode;		/* NUMA policy: 0 none (MPOL_DEFAULT), else its mode + 1 */
	uint8_t pnodes;		/* ... and its nodes (ksim's machine has nodes 0 and 1) */
	uint8_t uffd;		/* userfaultfd registration: 0 none, 1 or 2 the process's context (3: another) */
};

/* as long as ksim_anon_name_contract() reads (strnlen()) */
static const char anon_names[][KSIM_ANON_VMA_NAME_MAX_LEN] = { "", "a", "b" };

struct proc {
	struct mm_struct *mm;
	struct userfaultfd_ctx *uctx[2];	/* opened by the first uffd op that names it, features 0 */
	unsigned long brk;		/* page-aligned; start_brk is fixed */
	struct mpage pg[NPAGES];
};

static struct proc procs[NPROC];
static struct file *files[2];
static struct mpage before[NPAGES], kpages[NPAGES];
static struct ksim_vma_info vmas[MAX_VMAS];
static struct ksim_vma_info vmas_before[MAX_VMAS];	/* op_mremap(): the VMAs before the call */
static int nvmas_before;
static bool vma_c;

static unsigned long start_brk(void)
{
	return win_base[0] + BRK_START_PAGE * PG;
}

/* Model page index of an address, -1 outside the windows. */
static long page_index(unsigned long addr)
{
	for (int w = 0; w < NWIN; w++)
		if (addr >= win_base[w] && addr < win_base[w] + WIN_PAGES * PG)
			return w * WIN_PAGES + (long)((addr - win_base[w]) / PG);
	return -1;
}

static unsigned long page_addr(long i)
{
	return win_base[i / WIN_PAGES] + (unsigned long)(i % WIN_PAGES) * PG;
}

/* ---- decoding ---- */

/* Argument bytes per op: skipped ops consume theirs, so the layout is fixed. */
static const int op_args[OP_NR] = { 5, 3, 4, 1, 3, 0, 0, 0, 0, 6 };
static size_t fault_pos;
static unsigned long last_failures;

/* Arm the fault engine from the op's fault byte (it precedes the args). */
static bool arm(struct ksim_fuzz_in *in)
{
	size_t save = in->pos;
	bool r;

	in->pos = fault_pos;
	last_failures = 0;
	r = ksim_fuzz_fault_arm(in);
	in->pos = save;
	return r;
}

static unsigned long dec_addr(struct ksim_fuzz_in *in)
{
	uint16_t v = ksim_fuzz_u16(in);

	return win_base[v >> 15] + (unsigned long)(v & 1023) * PG;
}

static unsigned long dec_len(struct ksim_fuzz_in *in)
{
	return ((unsigned long)ksim_fuzz_u8(in) + 1) * PG;
}

/* ---- the kernel's view, page by page ---- */

static void read_kernel(struct proc *p, struct mpage *out)
{
	int n = ksim_mm_vmas(p->mm, vmas, MAX_VMAS);

	KSIM_FUZZ_CHECK(n <= MAX_VMAS, "%d VMAs", n);
	memset(out, 0, sizeof(*out) * NPAGES);
	for (int v = 0; v < n; v++) {
		unsigned short pmode = 0;
		unsigned long pnodes = 0;

#if KSIM_HAVE_MM_VMA_C
		if (ksim_vma_policy_at(p->mm, vmas[v].start, &pmode, &pnodes)) {
			KSIM_FUZZ_CHECK(pmode < KSIM_MPOL_MAX && pnodes < 4, "VMA [%#lx, %#lx): policy %u nodes %#lx",
					vmas[v].start, vmas[v].end, pmode, pnodes);
			pmode++;
		}
#endif
		for (unsigned long a = vmas[v].start; a < vmas[v].end; a += PG) {
			long i = page_index(a);

			KSIM_FUZZ_CHECK(i >= 0, "VMA [%#lx, %#lx) maps %#lx, outside everything mapped",
					vmas[v].start, vmas[v].end, a);
			out[i].flags = vmas[v].flags & CMP_MASK;
			out[i].pgoff = vmas[v].pgoff + (a - vmas[v].start) / PG;
			out[i].file = vmas[v].file;
			out[i].anon_vma = vmas[v].anon_vma;
			out[i].name = 3;
			for (int k = 0; k < 3; k++)
				if (!strcmp(vmas[v].name, anon_names[k]))
					out[i].name = k;
			out[i].pmode = pmode;
			out[i].pnodes = pnodes;
			out[i].uffd = !vmas[v].uffd_ctx ? 0 : vmas[v].uffd_ctx == (void *)p->uctx[0] ? 1 :
				      vmas[v].uffd_ctx == (void *)p->uctx[1] ? 2 : 3;
		}
	}
}

static bool page_eq(const struct mpage *a, const struct mpage *b)
{
	if (a->flags != b->flags)
		return false;
	return !a->flags || (a->pgoff == b->pgoff && a->file == b->file && a->name == b->name &&
			     a->pmode == b->pmode && a->pnodes == b->pnodes && a->uffd == b->uffd);
}

/* Names a lone VM_ACCOUNT difference, so that triage can match it. */
static const char *page_diff(const struct mpage *k, const struct mpage *m)
{
	if ((k->flags ^ m->flags) != KSIM_VM_ACCOUNT || k->pgoff != m->pgoff || k->file != m->file)
		return "";
	return (m->flags & KSIM_VM_ACCOUNT) ? " (only VM_ACCOUNT differs: the kernel's VMA lost it)" :
					      " (only VM_ACCOUNT differs: the kernel's VMA gained it)";
}

static void compare(int slot, const char *what)
{
	struct proc *p = &procs[slot];

	read_kernel(p, kpages);
	for (long i = 0; i < NPAGES; i++)
		KSIM_FUZZ_CHECK(page_eq(&kpages[i], &p->pg[i]),
				"%s: process %d page %#lx: kernel flags %#lx pgoff %#lx file %p name %d policy %d/%#x uffd %d, "
				"model flags %#lx pgoff %#lx file %p name %d policy %d/%#x uffd %d%s", what, slot,
				page_addr(i), kpages[i].flags, kpages[i].pgoff, kpages[i].file, kpages[i].name,
				kpages[i].pmode - 1, kpages[i].pnodes, kpages[i].uffd, p->pg[i].flags, p->pg[i].pgoff,
				p->pg[i].file, p->pg[i].name, p->pg[i].pmode - 1, p->pg[i].pnodes, p->pg[i].uffd,
				page_diff(&kpages[i], &p->pg[i]));
}

static void check_all(const char *what)
{
	for (int s = 0; s < NPROC; s++) {
		unsigned long bad;

		if (!procs[s].mm)
			continue;
		bad = ksim_mm_check(procs[s].mm);
		KSIM_FUZZ_CHECK(bad == 0, "%s: %lu invariant violations in process %d", what, bad, s);
		compare(s, what);
	}
	KSIM_FUZZ_CHECK(ksim_mm_check_global() == 0, "%s: global invariants", what);
	ksim_fuzz_check_problems(what);
}

/* ---- helpers ---- */

static bool range_any_mapped(struct proc *p, unsigned long a, unsigned long end)
{
	for (; a < end; a += PG) {
		long i = page_index(a);

		if (i >= 0 && p->pg[i].flags)
			return true;
	}
	return false;
}

static void set_range(struct proc *p, unsigned long a, unsigned long end, unsigned long flags,
		      const void *file, unsigned long pgoff)
{
	for (; a < end; a += PG, pgoff++) {
		long i = page_index(a);

		if (i < 0)
			continue;
		p->pg[i] = flags ? (struct mpage){ flags & CMP_MASK, pgoff, file } : (struct mpage){ 0 };
	}
}

/* End the op's fault window, remembering whether it failed anything. */
static void disarm(void)
{
	last_failures = ksim_fuzz_fault_failures();
	ksim_fuzz_fault_disarm();
}

/* An error is fine only when the input failed an allocation, and then only -ENOMEM. */
static bool fault_error(long r)
{
	return r == -ENOMEM && (last_failures || ksim_fuzz_fault_failures());
}

static void same_info(const struct ksim_mm_info *a, const struct ksim_mm_info *b, const char *what)
{
	KSIM_FUZZ_CHECK(a->total_vm == b->total_vm && a->data_vm == b->data_vm &&
			a->exec_vm == b->exec_vm && a->stack_vm == b->stack_vm && a->rss == b->rss,
			"%s failed but changed the process: total_vm %lu -> %lu, rss %ld -> %ld",
			what, a->total_vm, b->total_vm, a->rss, b->rss);
}

/* ---- ops ---- */

/*
 * mmap(2) itself (ksim_sys_mmap(): the tree's ksys_mmap_pgoff() ->
 * do_mmap()) with MAP_FIXED, for a mapping mmap(2) can express (every
 * VM_MAY* bit, no VM_DONTCOPY/WIPEONFORK): op flag bits 0x20 and 0x40 pass
 * a garbage fd and a garbage page-aligned offset with MAP_ANONYMOUS, 0x80
 * a length short of its last page; the model judges the canonical call
 * (ksim_mmap_contract()).  0 or a negative errno, as ksim_mmap().
 */
static long sys_mmap_fixed(struct proc *p, uint8_t flags, unsigned long addr, unsigned long len,
			   unsigned long vmf, struct file *file, unsigned long pgoff)
{
	struct ksim_mmap_args raw = { addr, len, vmf & VM_RWX, KSIM_MAP_FIXED, ~0UL, pgoff * PG }, canon;
	long r;
	int fd = -1;

	raw.flags |= vmf & KSIM_VM_SHARED ? KSIM_MAP_SHARED : KSIM_MAP_PRIVATE;
	if (vmf & KSIM_VM_NORESERVE)
		raw.flags |= KSIM_MAP_NORESERVE;
	if (file) {
		fd = ksim_fd_install(p->mm, file);
		raw.fd = fd;
	} else {
		raw.flags |= KSIM_MAP_ANONYMOUS;
		raw.off = 0;
		if (flags & 0x20)
			raw.fd = 0x5a5a0000UL + pgoff * 0x01000193UL;
		if (flags & 0x40)
			raw.off = ((pgoff + 1) * 0x9e3779b97f4a7c15UL >> 1) & ~(PG - 1);
	}
	if (flags & 0x80)
		raw.len -= PG - 1;
	canon = raw;
	/* The garbage is chosen so that the contract maps it back (a harness check). */
	KSIM_FUZZ_CHECK(!ksim_mmap_contract(&canon) && canon.len == len && canon.addr == addr &&
			canon.off == (file ? pgoff * PG : 0) && (file || canon.fd == ~0UL),
			"mmap garbage the contract does not undo");
	KSIM_FUZZ_TRACE("    mmap(2) (%#lx, %#lx, %#lx, %#lx, %#lx, %#lx)\n", raw.addr, raw.len, raw.prot,
			raw.flags, raw.fd, raw.off);
	r = ksim_sys_mmap(p->mm, raw.addr, raw.len, raw.prot, raw.flags, raw.fd, raw.off);
	if (fd >= 0)
		ksim_fd_close(p->mm, fd);
	KSIM_FUZZ_CHECK(r == (long)addr || (r < 0 && r >= -4095), "mmap(MAP_FIXED %#lx) = %#lx", addr, r);
	return r == (long)addr ? 0 : r;
}

static void op_mmap(struct ksim_fuzz_in *in, struct proc *p, uint8_t flags)
{
	uint8_t prot = ksim_fuzz_u8(in);
	unsigned long addr = dec_addr(in), len = dec_len(in), end = addr + len;
	unsigned long pgoff = ksim_fuzz_u8(in);
	unsigned long vmf = prot & VM_RWX;
	struct file *file = (prot & 0x10) ? files[(prot >> 5) & 1] : NULL;
	const void *fid = file;
	bool armed;
	long r;

	vmf |= VM_MAY;
	if (flags & 0x08)
		vmf &= ~KSIM_VM_MAYWRITE;
	if (flags & 0x10)
		vmf &= ~KSIM_VM_MAYEXEC;
	if (vmf & KSIM_VM_WRITE)
		vmf |= KSIM_VM_MAYWRITE;	/* PROT_WRITE needs MAYWRITE, as do_mmap() ensures */
	if (vmf & KSIM_VM_EXEC)
		vmf |= KSIM_VM_MAYEXEC;
	if (prot & 0x08)
		vmf |= KSIM_VM_SHARED | KSIM_VM_MAYSHARE;
	if (flags & 0x04)
		vmf |= KSIM_VM_NORESERVE;
	if (prot & 0x40)
		vmf |= KSIM_VM_DONTCOPY;
	if ((prot & 0x80) && !file && !(vmf & KSIM_VM_SHARED))
		vmf |= KSIM_VM_WIPEONFORK;
	if (!file)	/* do_mmap()'s rule; a direct insert (6.1) uses addr for any anonymous VMA */
		pgoff = (vmf & KSIM_VM_SHARED) && vma_c ? 0 : addr / PG;
	/* accountable_mapping(): private writable, not NORESERVE */
	bool acct = (vmf & (KSIM_VM_NORESERVE | KSIM_VM_SHARED | KSIM_VM_WRITE)) == KSIM_VM_WRITE;

	KSIM_FUZZ_TRACE("  mmap [%#lx, %#lx) flags %#lx %s pgoff %#lx\n", addr, end, vmf,
			file ? (file == files[0] ? "file a" : "file b") : "anon", pgoff);
	memcpy(before, p->pg, sizeof(before));
	armed = arm(in);
	if (vma_c) {
		struct ksim_vma_info vi;

		if ((vmf & VM_MAY) == VM_MAY && !(vmf & (KSIM_VM_DONTCOPY | KSIM_VM_WIPEONFORK)))
			r = sys_mmap_fixed(p, flags, addr, len, vmf, file, pgoff);
		else
			r = ksim_mmap(p->mm, addr, len, vmf, file, pgoff);
		disarm();
		KSIM_FUZZ_TRACE("    = %ld\n", r);
		if (r) {
			KSIM_FUZZ_CHECK(fault_error(r), "mmap [%#lx, %#lx) = %ld, model 0", addr, end, r);
			/* unchanged, or the range left unmapped (vms_abort_munmap_vmas) */
			read_kernel(p, kpages);
			bool same = true, hole = true;

			for (long i = 0; i < NPAGES; i++) {
				unsigned long a = page_addr(i);

				if (a >= addr && a < end) {
					same &= page_eq(&kpages[i], &before[i]);
					hole &= !kpages[i].flags;
				} else {
					KSIM_FUZZ_CHECK(page_eq(&kpages[i], &before[i]),
							"failed mmap [%#lx, %#lx) changed page %#lx", addr, end, a);
				}
			}
			KSIM_FUZZ_CHECK(same || hole, "failed mmap [%#lx, %#lx): range neither as before nor unmapped",
					addr, end);
			memcpy(p->pg, kpages, sizeof(kpages));
			return;
		}
		if (vmf & KSIM_VM_SHARED && !file) {
			/* shmem_zero_setup() gave the mapping a fresh file */
			KSIM_FUZZ_CHECK(ksim_mm_find_vma(p->mm, addr, &vi) && vi.start <= addr,
					"shared anonymous mmap at %#lx: no VMA", addr);
			KSIM_FUZZ_CHECK(vi.file, "shared anonymous mmap at %#lx: no shmem file", addr);
			for (int s = 0; s < NPROC; s++)
				for (long i = 0; procs[s].mm && i < NPAGES; i++)
					KSIM_FUZZ_CHECK(procs[s].pg[i].file != vi.file,
							"a new shmem file is already mapped (process %d)", s);
			fid = vi.file;
		}
		set_range(p, addr, end, vmf | (acct ? KSIM_VM_ACCOUNT : 0), fid, pgoff);
	} else {
		struct ksim_mm_snapshot *snap = armed ? ksim_mm_snapshot(p->mm) : NULL;
		bool exists = range_any_mapped(p, addr, end);

		if (acct)
			vmf |= KSIM_VM_ACCOUNT;
		r = ksim_map_direct(p->mm, addr, end, vmf, file, pgoff);
		disarm();
		KSIM_FUZZ_TRACE("    = %ld\n", r);
		if (exists) {
			KSIM_FUZZ_CHECK(r == -EEXIST, "direct insert over a mapping = %ld", r);
		} else if (r) {
			KSIM_FUZZ_CHECK(fault_error(r), "direct insert [%#lx, %#lx) = %ld", addr, end, r);
			KSIM_FUZZ_CHECK(ksim_mm_snapshot_compare(snap, p->mm) == 0, "failed direct insert changed it");
		} else {
			set_range(p, addr, end, vmf, fid, pgoff);
		}
		if (snap)
			ksim_mm_snapshot_free(snap);
	}
}

/* munmap [addr, end); @garbage: the length passed short of its last page (flags bit 4) */
static void op_munmap_range(struct ksim_fuzz_in *in, struct proc *p, unsigned long addr,
			    unsigned long end, bool garbage)
{
	struct ksim_munmap_args raw = { addr, end - addr - (garbage ? PG - 1 : 0) }, canon = raw;
	struct ksim_mm_info i0, i1;
	int r;

	/* The garbage is chosen so that the contract maps it back (a harness check). */
	KSIM_FUZZ_CHECK(!ksim_munmap_contract(&canon) && canon.addr == addr && canon.len == end - addr,
			"munmap garbage the contract does not undo");
	KSIM_FUZZ_TRACE("  munmap [%#lx, %#lx)%s\n", addr, end, garbage ? " (length short)" : "");
	ksim_mm_info(p->mm, &i0);
	arm(in);
	r = ksim_munmap(p->mm, raw.addr, raw.len);
	disarm();
	KSIM_FUZZ_TRACE("    = %d\n", r);
	if (r) {
		KSIM_FUZZ_CHECK(fault_error(r), "munmap [%#lx, %#lx) = %d, model 0", addr, end, r);
		ksim_mm_info(p->mm, &i1);
		same_info(&i0, &i1, "munmap");
		return;		/* the model stays; check_all() compares */
	}
	set_range(p, addr, end, 0, NULL, 0);
}

/*
 * A call that failed part-way (mprotect, madvise, naming, mbind and the
 * uffd ioctls stop at the VMA they failed on, like the kernel): [@addr, b)
 * changed as the model says, for some b <= @stop, and [b, @end) is as
 * before; then the model takes the kernel's pages.  Pages outside the
 * windows (index -1) are not modelled: skipped.
 */
static void check_prefix(struct proc *p, const char *what, unsigned long addr, unsigned long stop,
			 unsigned long end)
{
	unsigned long a;

	read_kernel(p, kpages);
	for (a = addr; a < stop; a += PG) {
		long i = page_index(a);

		if (i >= 0 && !page_eq(&kpages[i], &p->pg[i]))
			break;
	}
	for (; a < end; a += PG) {
		long i = page_index(a);

		KSIM_FUZZ_CHECK(i < 0 || page_eq(&kpages[i], &before[i]),
				"failed %s [%#lx, %#lx): page %#lx neither new (before it) nor old", what, addr,
				end, a);
	}
	memcpy(p->pg, kpages, sizeof(kpages));
}

static void op_mprotect(struct ksim_fuzz_in *in, struct proc *p)
{
	unsigned long prot = ksim_fuzz_u8(in), access = prot & VM_RWX;
	unsigned long addr = dec_addr(in), len = dec_len(in), end = addr + len, a, stop = addr;
	struct ksim_mprotect_args raw = { addr, len, access }, canon;
	long expect = 0;
	int r;

	if (prot & 0x8)
		raw.prot |= KSIM_PROT_SEM;
	if ((prot & 0x10) && len)
		raw.len -= PG - 1;
	canon = raw;
	/* The garbage is chosen so that the contract maps it back (a harness check). */
	KSIM_FUZZ_CHECK(!ksim_mprotect_contract(&canon) && canon.len == len && canon.prot == access,
			"mprotect garbage the contract does not undo");

	KSIM_FUZZ_TRACE("  mprotect [%#lx, %#lx) %#lx\n", addr, end, access);
	memcpy(before, p->pg, sizeof(before));
	read_kernel(p, kpages);		/* which VMAs have an anon_vma (below) */
	/* do_mprotect_pkey(): VMA by VMA from @addr; stop at a hole or a VMA lacking VM_MAY* */
	for (a = addr; a < end; a += PG) {
		long i = page_index(a);
		struct mpage *pg = &p->pg[i < 0 ? 0 : i];
		unsigned long nf;

		if (!pg->flags) {
			expect = -ENOMEM;
			break;
		}
		nf = access | (pg->flags & ~VM_RWX);
		if ((nf & ~(nf >> 4)) & VM_RWX) {
			expect = -EACCES;
			break;
		}
		/* mprotect_fixup(): a private mapping made writable is charged once */
		if ((nf & KSIM_VM_WRITE) && !(pg->flags & (KSIM_VM_ACCOUNT | KSIM_VM_WRITE |
							   KSIM_VM_SHARED | KSIM_VM_NORESERVE)))
			nf |= KSIM_VM_ACCOUNT;
		/*
		 * ... and one made read-only again is uncharged if it is
		 * anonymous with no anon_vma yet (6.12; whether it has one
		 * is the kernel's view: merges share anon_vmas)
		 */
		if (!(nf & KSIM_VM_WRITE) && (pg->flags & KSIM_VM_ACCOUNT) && !pg->file &&
		    !kpages[i].anon_vma)
			nf &= ~KSIM_VM_ACCOUNT;
		pg->flags = nf;
	}
	stop = a;
	arm(in);
	r = ksim_mprotect(p->mm, raw.addr, raw.len, raw.prot);
	disarm();
	KSIM_FUZZ_TRACE("    = %d (model %ld)\n", r, expect);
	/*
	 * -ENOMEM for a hole may also be an injected failure that stopped
	 * the kernel before the hole: then check the partial progress too.
	 */
	if (r == expect && !(r == -ENOMEM && fault_error(r)))
		return;
	KSIM_FUZZ_CHECK(fault_error(r), "mprotect [%#lx, %#lx) = %d, model %ld", addr, end, r, expect);
	check_prefix(p, "mprotect", addr, stop, end);
}

/*
 * madvise(2)'s VMA-flag advice and PR_SET_VMA_ANON_NAME (madvise_walk_vmas():
 * VMA by VMA from @addr, holes skipped and reported as -ENOMEM at the end,
 * the first VMA that refuses stops the walk with its error).  The model's
 * new flags are mm-sim's (ksim_madv_model_flags(), the same the sweeps use).
 * @flags bit 4: the length passed short of its last page by PAGE_SIZE - 1
 * bytes (both round up: ksim_madvise_contract(), ksim_anon_name_contract());
 * bit 3: an argument the contract refuses (advice from bad_advice[], a
 * name with a '$'): its errno, nothing changed.
 */
static void op_madvise(struct ksim_fuzz_in *in, struct proc *p, uint8_t flags)
{
	static const int advice[] = {
		KSIM_MADV_NORMAL, KSIM_MADV_RANDOM, KSIM_MADV_SEQUENTIAL, KSIM_MADV_DONTFORK,
		KSIM_MADV_DOFORK, KSIM_MADV_DONTDUMP, KSIM_MADV_DODUMP, KSIM_MADV_WIPEONFORK,
		KSIM_MADV_KEEPONFORK,
	};
	/* values the uapi does not define: the gaps, past the end, negative */
	static const int bad_advice[] = { -1, 5, 6, 7, 26, 27, 99, 1000 };
	/* a character a name may not have */
	static const char bad_name[KSIM_ANON_VMA_NAME_MAX_LEN] = "a$";
	uint8_t selb = ksim_fuzz_u8(in);
	unsigned int sel = selb % 12;
	unsigned long addr = dec_addr(in), len = dec_len(in), end = addr + len, a;
	bool naming = sel >= 9, bad = flags & 0x08;
	uint8_t name = sel == 9 ? 1 : sel == 10 ? 2 : 0;
	const char *kname = name ? anon_names[name] : NULL;
	int behavior = naming ? 0 : bad ? bad_advice[selb % 8] : advice[sel];
	unsigned long raw_len = len - (flags & 0x10 ? PG - 1 : 0);
	long expect = 0, hole = 0, refused;
	int r;

	static const char *const advice_names[] = {
		"NORMAL", "RANDOM", "SEQUENTIAL", "DONTFORK", "DOFORK", "DONTDUMP", "DODUMP",
		"WIPEONFORK", "KEEPONFORK",
	};

	if (naming && bad)
		kname = bad_name;
	/* The contract judges the raw call: the garbage maps back, the refused values are refused. */
	if (naming) {
		struct ksim_anon_name_args c = { KSIM_PR_SET_VMA_ANON_NAME, addr, raw_len, kname };

		refused = ksim_anon_name_contract(&c);
		KSIM_FUZZ_CHECK(refused ? bad && refused == -EINVAL : !bad && c.size == len,
				"naming garbage the contract does not undo (%ld)", refused);
	} else {
		struct ksim_madvise_args c = { addr, raw_len, behavior };

		refused = ksim_madvise_contract(&c);
		KSIM_FUZZ_CHECK(refused ? bad && refused == -EINVAL : !bad && c.len == len,
				"madvise garbage the contract does not undo (%ld)", refused);
	}
	KSIM_FUZZ_TRACE("  %s [%#lx, %#lx) %s%s\n", naming ? "name" : "madvise", addr, end,
			naming ? (kname ? kname : "(clear)") : bad ? "(invalid advice)" : advice_names[sel],
			flags & 0x10 ? " (length short)" : "");
	if (bad && !naming)
		KSIM_FUZZ_TRACE("    advice %d\n", behavior);
	memcpy(before, p->pg, sizeof(before));
	for (a = addr; a < end && !refused; a += PG) {
		struct mpage *pg = &p->pg[page_index(a)];

		if (!pg->flags) {
			hole = -ENOMEM;
			continue;
		}
		/* only anonymous memory is named, shared anonymous (shmem) too */
		if (naming && pg->file && (pg->file == files[0] || pg->file == files[1])) {
			expect = -EBADF;
			break;
		}
		if (!naming && behavior == KSIM_MADV_WIPEONFORK &&
		    (pg->file || (pg->flags & KSIM_VM_SHARED))) {
			expect = -EINVAL;
			break;
		}
		if (naming)
			pg->name = name;
		else
			pg->flags = ksim_madv_model_flags(behavior, pg->flags);
	}
	if (!expect)
		expect = refused ? refused : hole;
	arm(in);
	if (naming)
		r = ksim_set_anon_name(p->mm, addr, raw_len, kname);
	else
		r = ksim_madvise(p->mm, addr, raw_len, behavior);
	disarm();
	KSIM_FUZZ_TRACE("    = %d (model %ld)\n", r, expect);
	if (r == expect && !last_failures)
		return;
	/*
	 * With an allocation failed on purpose: -EAGAIN from the walk, or
	 * naming's -ENOMEM for the name itself; a prefix of the range changed.
	 * The same result as the model's is fine if the pages agree.
	 */
	KSIM_FUZZ_CHECK(r == expect || (last_failures && (r == -EAGAIN || r == -ENOMEM)),
			"%s [%#lx, %#lx) = %d, model %ld", naming ? "name" : "madvise", addr, end, r, expect);
	check_prefix(p, naming ? "name" : "madvise", addr, end, end);
}

/* What the model maps of [start, end), for ksim_mbind_contract() (@ctx: the process). */
static enum ksim_cover mbind_cover(void *ctx, unsigned long start, unsigned long end)
{
	struct proc *p = ctx;
	bool any = false, all = true;

	for (unsigned long a = start; a < end; a += PG) {
		long i = page_index(a);
		bool mapped = i >= 0 && p->pg[i].flags;

		any |= mapped;
		all &= mapped;
	}
	return !any ? KSIM_COVER_NONE : all ? KSIM_COVER_ALL : KSIM_COVER_PART;
}

/*
 * mbind(2) through the tree's syscall (ksim_sys_call_mbind()): @sel bits
 * 0-2 the mode (DEFAULT, BIND, INTERLEAVE, PREFERRED, LOCAL, MPOL_MAX
 * (invalid), BIND, INTERLEAVE), bits 3-4 the nodes (bit 0: node 0, bit 1:
 * node 1), one word read whole (maxnode 65); garbage the contract ignores:
 * @sel bit 5 in the mode's upper half (an int), bit 6 in the mask past
 * maxnode - 1 (maxnode 3), @flags bit 4 a length short of its last page.
 * The model is ksim_mbind_contract() on the model's pages: its errno and
 * nothing changed, or every mapped page of the range gets the canonical
 * policy (MPOL_DEFAULT: none); under an injected failure a prefix of the
 * range changed (mbind_range() splits VMA by VMA), as madvise.
 */
static void op_mbind(struct ksim_fuzz_in *in, struct proc *p, uint8_t flags)
{
	static const unsigned long modes[8] = {
		KSIM_MPOL_DEFAULT, KSIM_MPOL_BIND, KSIM_MPOL_INTERLEAVE, KSIM_MPOL_PREFERRED,
		KSIM_MPOL_LOCAL, KSIM_MPOL_MAX, KSIM_MPOL_BIND, KSIM_MPOL_INTERLEAVE,
	};
	uint8_t sel = ksim_fuzz_u8(in);
	unsigned long addr = dec_addr(in), len = dec_len(in), end = addr + len, a;
	struct ksim_mbind_args raw = { addr, len, modes[sel & 7], 65, { (sel >> 3) & 3UL } }, canon, clean;
	long expect, r;

	if (flags & 0x10)
		raw.len -= PG - 1;
	if (sel & 0x20)
		raw.mode |= 0x5a5a5a5a00000000UL;
	if (sel & 0x40) {
		raw.maxnode = 3;		/* get_nodes() reads bits 0 and 1 */
		raw.mask[0] |= 0xa5a5a5a5a5a5a5a4UL;
	}
	canon = raw;
	expect = ksim_mbind_contract(&canon, mbind_cover, p);
	/* The garbage is chosen so that the contract maps it back (a harness check). */
	clean = (struct ksim_mbind_args){ addr, len, modes[sel & 7], 65, { (sel >> 3) & 3UL } };
	KSIM_FUZZ_CHECK(ksim_mbind_contract(&clean, mbind_cover, p) == expect &&
			(expect || (canon.len == len && canon.mode == clean.mode &&
				    canon.mask[0] == clean.mask[0])),
			"mbind garbage the contract does not undo");
	KSIM_FUZZ_TRACE("  mbind [%#lx, %#lx) mode %#lx nodes %#lx maxnode %lu%s (contract %ld: mode %#lx nodes %#lx)\n",
			addr, end, raw.mode, raw.mask[0], raw.maxnode, flags & 0x10 ? " (length short)" : "",
			expect, canon.mode, canon.mask[0]);
	memcpy(before, p->pg, sizeof(before));
	for (a = addr; a < end && !expect; a += PG) {
		struct mpage *pg = &p->pg[page_index(a)];

		if (!pg->flags)
			continue;
		pg->pmode = canon.mode == KSIM_MPOL_DEFAULT ? 0 : canon.mode + 1;
		pg->pnodes = canon.mode == KSIM_MPOL_DEFAULT ? 0 : canon.mask[0];
	}
	arm(in);
	r = ksim_sys_call_mbind(p->mm, raw.start, raw.len, raw.mode, raw.mask, raw.maxnode, raw.flags);
	disarm();
	KSIM_FUZZ_TRACE("    = %ld (model %ld)\n", r, expect);
	if (r == expect && !last_failures)
		return;
	KSIM_FUZZ_CHECK(r == expect || (last_failures && r == -ENOMEM),
			"mbind [%#lx, %#lx) = %ld, model %ld", addr, end, r, expect);
	check_prefix(p, "mbind", addr, end, end);
}

/*
 * UFFDIO_REGISTER (MISSING) / UFFDIO_UNREGISTER through the tree's ioctls
 * (ksim_uffd_ioctl_register()/_unregister()) on one of the process's two
 * contexts: @sel bit 0 unregister, bit 1 the second context, bit 2 garbage
 * in REGISTER's ioctls (an output the kernel never reads), bit 3 a mode the
 * contract refuses (MISSING | WP); @flags bit 4 a length short of its last
 * page (refused: the ioctls take page multiples only).  The model is
 * ksim_uffd_contract() (it reads the range's VMAs, the same as the model's
 * pages): its errno and nothing changed, or every mapped page of the range
 * registered with the context (unregistered); a REGISTER that succeeded
 * wrote the ioctls of a MISSING range, one that failed left the field
 * alone.  Under an injected failure a prefix of the range changed.
 */
static void op_uffd(struct ksim_fuzz_in *in, struct proc *p, uint8_t flags)
{
	uint8_t sel = ksim_fuzz_u8(in);
	unsigned long addr = dec_addr(in), len = dec_len(in), end = addr + len, a;
	int which = (sel >> 1) & 1;
	bool reg = !(sel & 1);
	struct ksim_uffd_args raw = { reg ? KSIM_UFFD_REGISTER : KSIM_UFFD_UNREGISTER, which,
				      { { addr, len }, reg ? KSIM_UFFDIO_REGISTER_MODE_MISSING : 0, 0 } }, canon;
	unsigned long ioctls_in;
	long expect;
	int r;

	if (reg && (sel & 4))
		raw.uffdio.ioctls = 0xa5a5a5a5a5a5a5a5UL ^ addr;
	if (reg && (sel & 8))
		raw.uffdio.mode |= KSIM_UFFDIO_REGISTER_MODE_WP;
	if (flags & 0x10)
		raw.uffdio.range.len -= PG - 1;
	ioctls_in = raw.uffdio.ioctls;
	if (!p->uctx[which]) {
		p->uctx[which] = ksim_uffd_open(p->mm, 0);
		KSIM_FUZZ_CHECK(p->uctx[which], "ksim_uffd_open() failed without a fault");
	}
	canon = raw;
	expect = ksim_uffd_contract(p->mm, p->uctx[which], &canon);
	/* The contract refuses what it should and maps the ioctls garbage back (a harness check). */
	if ((flags & 0x10) || (reg && (sel & 8))) {
		KSIM_FUZZ_CHECK(expect == -EINVAL, "uffd: the contract takes a refused argument (%ld)", expect);
	} else {
		struct ksim_uffd_args clean = raw;

		clean.uffdio.ioctls = 0;
		KSIM_FUZZ_CHECK(ksim_uffd_contract(p->mm, p->uctx[which], &clean) == expect &&
				(expect || (canon.uffdio.ioctls == 0 && canon.uffdio.range.len == len)),
				"uffd garbage the contract does not undo (%ld)", expect);
	}
	KSIM_FUZZ_TRACE("  uffd %s [%#lx, %#lx) context %d mode %#lx ioctls %#lx%s (contract %ld)\n",
			reg ? "register" : "unregister", addr, end, which, raw.uffdio.mode, raw.uffdio.ioctls,
			flags & 0x10 ? " (length short)" : "", expect);
	memcpy(before, p->pg, sizeof(before));
	for (a = addr; a < end && !expect; a += PG) {
		struct mpage *pg = &p->pg[page_index(a)];

		if (pg->flags)
			pg->uffd = reg ? which + 1 : 0;
	}
	arm(in);
	if (reg)
		r = ksim_uffd_ioctl_register(p->uctx[which], &raw.uffdio);
	else
		r = ksim_uffd_ioctl_unregister(p->uctx[which], &raw.uffdio.range);
	disarm();
	KSIM_FUZZ_TRACE("    = %d (model %ld), ioctls %#lx\n", r, expect, raw.uffdio.ioctls);
	if (reg)
		KSIM_FUZZ_CHECK(raw.uffdio.ioctls == (r ? ioctls_in : KSIM_UFFD_IOCTLS_MISSING),
				"UFFDIO_REGISTER = %d wrote ioctls %#lx (passed %#lx)", r, raw.uffdio.ioctls,
				ioctls_in);
	if (r == expect && !last_failures)
		return;
	KSIM_FUZZ_CHECK(r == expect || (last_failures && r == -ENOMEM),
			"uffd %s [%#lx, %#lx) = %d, model %ld", reg ? "register" : "unregister", addr, end, r,
			expect);
	check_prefix(p, reg ? "uffd register" : "uffd unregister", addr, end, end);
}

/* @garbage (flags bit 4): the break passed unaligned, PAGE_SIZE - 1 bytes short */
static void op_brk(struct ksim_fuzz_in *in, struct proc *p, bool garbage)
{
	long delta = (int8_t)ksim_fuzz_u8(in);
	unsigned long oldbrk = p->brk, newbrk, lo = start_brk(), hi = win_base[0] + WIN_PAGES * PG;
	unsigned long raw, canon;
	struct ksim_mm_info i0, i1;
	long expect = 0;
	int r;

	newbrk = oldbrk + delta * (long)PG;
	if (newbrk < lo)
		newbrk = lo;
	if (newbrk > hi - PG)
		newbrk = hi - PG;
	/* below start_brk the kernel refuses it: no garbage at the heap's start */
	raw = canon = newbrk - (garbage && newbrk > lo ? PG - 1 : 0);
	KSIM_FUZZ_CHECK(!ksim_brk_contract(&canon, lo) && canon == newbrk,
			"brk garbage the contract does not undo");
	if (newbrk > oldbrk && range_any_mapped(p, oldbrk, newbrk + PG))
		expect = -ENOMEM;	/* sys_brk(): the new heap would touch a mapping */
	if (newbrk < oldbrk && !range_any_mapped(p, newbrk, oldbrk))
		expect = -ENOMEM;	/* sys_brk(): no VMA in [newbrk, oldbrk) to shrink */
	KSIM_FUZZ_TRACE("  brk %#lx -> %#lx (%#lx)\n", oldbrk, newbrk, raw);
	ksim_mm_info(p->mm, &i0);
	arm(in);
	r = ksim_brk(p->mm, raw);
	disarm();
	KSIM_FUZZ_TRACE("    = %d (model %ld)\n", r, expect);
	if (r != expect) {
		KSIM_FUZZ_CHECK(fault_error(r) && !expect, "brk %#lx -> %#lx = %d, model %ld",
				oldbrk, newbrk, r, expect);
		ksim_mm_info(p->mm, &i1);
		same_info(&i0, &i1, "brk");
		return;
	}
	if (r)
		return;
	if (newbrk > oldbrk)
		set_range(p, oldbrk, newbrk, BRK_FLAGS, NULL, oldbrk / PG);
	else
		set_range(p, newbrk, oldbrk, 0, NULL, 0);
	p->brk = newbrk;
}

static void op_touch(struct ksim_fuzz_in *in, struct proc *p, bool write)
{
	unsigned long addr = dec_addr(in);
	uint8_t n = ksim_fuzz_u8(in);
	int count = (n & 15) + 1, stride = (n >> 4) + 1;

	KSIM_FUZZ_TRACE("  touch %s %#lx x%d stride %d\n", write ? "write" : "read", addr, count, stride);
	arm(in);
	for (int k = 0; k < count; k++, addr += stride * PG) {
		long i = page_index(addr);
		unsigned long need = write ? KSIM_VM_WRITE : KSIM_VM_READ;
		long expect = (i >= 0 && (p->pg[i].flags & need)) ? 0 : -EFAULT;
		int r = ksim_touch(p->mm, addr, write);

		if (r != expect)
			KSIM_FUZZ_CHECK(fault_error(r) && !expect, "touch %#lx = %d, model %ld", addr, r, expect);
	}
	disarm();
}

static void op_fork(struct ksim_fuzz_in *in, struct proc *p, int slot, uint8_t flags)
{
	int cs = (flags >> 2) & 3;
	struct proc *c = &procs[cs];
	struct ksim_mm_snapshot *snap;
	struct mm_struct *child;
	int r;

	if (c->mm) {
		KSIM_FUZZ_TRACE("  fork %d -> %d: slot taken, skipped\n", slot, cs);
		return;
	}
	KSIM_FUZZ_TRACE("  fork %d -> %d\n", slot, cs);
	snap = ksim_mm_snapshot(p->mm);
	arm(in);
	r = ksim_fork(p->mm, &child);
	disarm();
	KSIM_FUZZ_TRACE("    = %d\n", r);
	if (r) {
		KSIM_FUZZ_CHECK(fault_error(r), "fork = %d", r);
		KSIM_FUZZ_CHECK(!child, "failed fork returned a child");
		KSIM_FUZZ_CHECK(ksim_mm_snapshot_compare(snap, p->mm) == 0, "failed fork changed the parent");
	} else {
		c->mm = child;
		c->brk = p->brk;
		c->uctx[0] = c->uctx[1] = NULL;
		for (long i = 0; i < NPAGES; i++) {
			c->pg[i] = (p->pg[i].flags & KSIM_VM_DONTCOPY) ? (struct mpage){ 0 } : p->pg[i];
			c->pg[i].uffd = 0;	/* dup_userfaultfd(): contexts without EVENT_FORK dropped */
		}
	}
	ksim_mm_snapshot_free(snap);
}

static void proc_exit(int slot)
{
	/* the monitor closes its contexts first (it would hold them, and the mm, otherwise) */
	for (int k = 0; k < 2; k++) {
		if (procs[slot].uctx[k])
			ksim_uffd_close(procs[slot].uctx[k]);
		procs[slot].uctx[k] = NULL;
	}
	ksim_mm_exit(procs[slot].mm);
	procs[slot].mm = NULL;
}

static void op_new(struct ksim_fuzz_in *in, int slot)
{
	struct proc *p = &procs[slot];

	arm(in);
	p->mm = ksim_mm_new();
	disarm();
	KSIM_FUZZ_TRACE("  new %d = %s\n", slot, p->mm ? "ok" : "NULL");
	if (!p->mm) {
		KSIM_FUZZ_CHECK(fault_error(-ENOMEM), "ksim_mm_new() failed without a fault");
		return;
	}
	ksim_mm_set_brk(p->mm, start_brk());
	p->brk = start_brk();
	memset(p->pg, 0, sizeof(p->pg));
}

/*
 * A page that move_vma()'s OOM paths ("OOM: unable to split vma") leave
 * mapped: as it was, with VM_ACCOUNT cleared (the trees' behaviour:
 * mm-mremap-oom-split-account-cleared) or kept (that finding's fix); the
 * global check judges the commit charge either way.
 */
static bool kept_mapped(const struct mpage *k, struct mpage was)
{
	if (k->flags && page_eq(k, &was))
		return true;
	was.flags &= ~KSIM_VM_ACCOUNT;
	return k->flags && page_eq(k, &was);
}

#if KSIM_HAVE_MREMAP_MULTI_VMA
/*
 * remap_move(): a move-only mremap (MREMAP_FIXED, old_len == new_len) may
 * span several VMAs (no gap at the start).  Each is moved to the same
 * offset from new_addr; the gaps between them stay gaps in the source and
 * are left alone in the destination (each VMA's own destination is unmapped
 * first, nothing else).  Per page: a mapped source page moves with its
 * mapping (pgoff carried, or the new address for an unfaulted anonymous
 * VMA, as for one VMA).  kbefore: the kernel's view before the call.
 */
static struct mpage kbefore[NPAGES];

static bool mremap_one_mapping(unsigned long addr, unsigned long n)
{
	struct mpage first = before[page_index(addr)];

	for (unsigned long k = 0; k < n; k++)
		if (!page_eq(&before[page_index(addr + k * PG)],
			     &(struct mpage){ first.flags, first.pgoff + k, first.file, .name = first.name,
					  .pmode = first.pmode, .pnodes = first.pnodes, .uffd = first.uffd }))
			return false;
	return true;
}

static void mremap_multi_moved(struct proc *p, unsigned long addr, unsigned long r,
			       unsigned long n, unsigned long mf)
{
	read_kernel(p, kpages);
	for (unsigned long k = 0; k < n; k++) {
		unsigned long src = addr + k * PG, dst = r + k * PG;
		long is = page_index(src), id = page_index(dst);

		if (is < 0 || !before[is].flags)
			continue;	/* a gap: the destination page is left alone */
		if (id >= 0) {
			p->pg[id] = before[is];
			p->pg[id].uffd = 0;	/* mremap_userfaultfd_prep(): no EVENT_REMAP */
			if (!before[is].file && !kbefore[is].anon_vma)
				p->pg[id].pgoff = dst / PG;
		}
		if (!(mf & KSIM_MREMAP_DONTUNMAP)) {
			p->pg[is] = (struct mpage){ 0 };
			/* the OOM path of one VMA's move: see op_mremap() */
			if (last_failures && kept_mapped(&kpages[is], before[is]))
				p->pg[is] = kpages[is];
		} else {
			KSIM_FUZZ_CHECK(ksim_mm_pfn(p->mm, src) == 0, "DONTUNMAP left a page at %#lx", src);
			if (!before[is].file && kpages[is].pgoff == src / PG)
				p->pg[is].pgoff = kpages[is].pgoff;
		}
	}
}
#endif

static void op_mremap(struct ksim_fuzz_in *in, struct proc *p, uint8_t flags)
{
	static const unsigned long modes[4] = { 0, KSIM_MREMAP_MAYMOVE | KSIM_MREMAP_FIXED,
		KSIM_MREMAP_MAYMOVE | KSIM_MREMAP_FIXED | KSIM_MREMAP_DONTUNMAP, 0 };
	int mode = (flags >> 2) & 3;
	unsigned long addr = dec_addr(in), old_len = dec_len(in), new_len = dec_len(in);
	unsigned long new_addr = dec_addr(in), mf = modes[mode], n, k;
	static unsigned long pfn[256];
	struct ksim_mremap_args raw;
	long r;

	if (mode >= 2)
		new_len = old_len;
	raw = (struct ksim_mremap_args){ addr, old_len, new_len, mf, new_addr };
	if ((flags & 0x10) && mode != 2)
		raw.old_len -= PG - 1;
	if ((flags & 0x20) && mode != 2)
		raw.new_len -= PG / 2;
	if ((flags & 0x40) && !(mf & KSIM_MREMAP_FIXED))
		raw.new_addr ^= 0x5a5;
	{
		struct ksim_mremap_args canon = raw;

		/* The garbage is chosen so that the contract maps it back (a harness check). */
		KSIM_FUZZ_CHECK(!ksim_mremap_contract(&canon) && canon.old_len == old_len &&
				canon.new_len == new_len, "mremap garbage the contract does not undo");
	}
	n = (old_len < new_len ? old_len : new_len) / PG;
	KSIM_FUZZ_TRACE("  mremap [%#lx, +%#lx) -> %#lx bytes, flags %#lx, new_addr %#lx\n",
			addr, old_len, new_len, mf, new_addr);
	if (flags & 0x70)
		KSIM_FUZZ_TRACE("    passed as old_len %#lx, new_len %#lx, new_addr %#lx\n",
				raw.old_len, raw.new_len, raw.new_addr);
	memcpy(before, p->pg, sizeof(before));
	nvmas_before = ksim_mm_vmas(p->mm, vmas_before, MAX_VMAS);
	read_kernel(p, kpages);		/* anon_vma: an unfaulted anonymous VMA moves its pgoff */
#if KSIM_HAVE_MREMAP_MULTI_VMA
	memcpy(kbefore, kpages, sizeof(kbefore));
#endif
	for (k = 0; k < n; k++)
		pfn[k] = ksim_mm_pfn(p->mm, addr + k * PG);
	arm(in);
	r = ksim_mremap(p->mm, raw.addr, raw.old_len, raw.new_len, raw.flags, raw.new_addr);
	disarm();
	KSIM_FUZZ_TRACE("    = %#lx\n", r);
	if (r < 0) {
		KSIM_FUZZ_CHECK(r == -EFAULT || r == -EINVAL || r == -ENOMEM, "mremap = %ld", r);
		KSIM_FUZZ_CHECK(r != -EFAULT || !before[page_index(addr)].flags || mode != 3,
				"mremap of a mapped page = -EFAULT");
		read_kernel(p, kpages);
		for (long i = 0; i < NPAGES; i++) {
			unsigned long a = page_addr(i);
			bool may_go = (mf & KSIM_MREMAP_FIXED) &&
				((a >= new_addr && a < new_addr + new_len) ||
				 (a >= addr + new_len && a < addr + old_len));
			/*
			 * move_vma(): when moving the page tables fails they move
			 * back and the new VMA is unmapped instead; when that
			 * munmap fails too ("OOM: unable to split vma") the new
			 * VMA stays, a copy of the mapping at new_addr (its
			 * VM_ACCOUNT cleared on the trees: kept_mapped()).
			 */
			bool stayed = (mf & KSIM_MREMAP_FIXED) && a >= new_addr &&
				      a < new_addr + n * PG &&
				      kept_mapped(&kpages[i],
						  before[page_index(addr + (a - new_addr))]);

#if KSIM_HAVE_MREMAP_MULTI_VMA
			/*
			 * remap_move() moves VMA by VMA: a failure may come after
			 * some of them moved (source pages gone, their copies at
			 * the same offset from new_addr).
			 */
			if ((mf & KSIM_MREMAP_FIXED) && old_len == new_len) {
				long src = page_index(addr + (a - new_addr));

				if (a >= addr && a < addr + old_len && !kpages[i].flags)
					may_go = true;
				if (a >= new_addr && a < new_addr + new_len && src >= 0 && kpages[i].flags &&
				    kpages[i].flags == before[src].flags && kpages[i].file == before[src].file)
					stayed = true;
			}
#endif
			KSIM_FUZZ_CHECK(page_eq(&kpages[i], &before[i]) || (may_go && !kpages[i].flags) ||
					stayed,
					"failed mremap changed page %#lx: flags %#lx pgoff %#lx, was %#lx pgoff %#lx",
					a, kpages[i].flags, kpages[i].pgoff, before[i].flags, before[i].pgoff);
		}
		memcpy(p->pg, kpages, sizeof(kpages));
		return;
	}
	if ((unsigned long)r == addr) {
		/* in place: shrink, or grow into unmapped pages with the last page's mapping */
		struct mpage last = before[page_index(addr + old_len - PG)];

		KSIM_FUZZ_CHECK(!(mf & KSIM_MREMAP_FIXED), "MREMAP_FIXED mremap stayed in place");
		if (new_len < old_len)
			set_range(p, addr + new_len, addr + old_len, 0, NULL, 0);
		for (unsigned long a = addr + old_len; a < addr + new_len; a += PG) {
			KSIM_FUZZ_CHECK(!before[page_index(a)].flags, "grew in place over page %#lx", a);
			last.pgoff++;
			p->pg[page_index(a)] = last;
		}
	} else {
		struct mpage first = before[page_index(addr)];
		bool unfaulted = !first.file && !kpages[page_index(addr)].anon_vma;

		KSIM_FUZZ_CHECK((mf & KSIM_MREMAP_FIXED) && (unsigned long)r == new_addr,
				"mremap moved to %#lx (flags %#lx, new_addr %#lx)", r, mf, new_addr);
		KSIM_FUZZ_CHECK(first.flags, "mremap moved an unmapped page %#lx", addr);
#if KSIM_HAVE_MREMAP_MULTI_VMA
		if ((mf & KSIM_MREMAP_FIXED) && old_len == new_len && !mremap_one_mapping(addr, n)) {
			mremap_multi_moved(p, addr, r, n, mf);
			goto pfns;
		}
#endif
		/*
		 * What moves is one VMA: consecutive pgoffs.  A shrinking move
		 * first unmaps the tail (mremap_to(): do_munmap() of
		 * [addr + new_len, addr + old_len), any number of VMAs), so
		 * only the first n pages must be one mapping.
		 */
		for (k = 0; k < n; k++)
			KSIM_FUZZ_CHECK(page_eq(&before[page_index(addr + k * PG)],
						&(struct mpage){ first.flags, first.pgoff + k, first.file, .name = first.name,
					  .pmode = first.pmode, .pnodes = first.pnodes, .uffd = first.uffd }),
					"mremap moved [%#lx, +%#lx), not one mapping", addr, old_len);
		set_range(p, new_addr, new_addr + new_len, 0, NULL, 0);
		if (!(mf & KSIM_MREMAP_DONTUNMAP))
			set_range(p, addr, addr + old_len, 0, NULL, 0);
		set_range(p, r, r + new_len, first.flags, first.file,
			  unfaulted ? (unsigned long)r / PG : first.pgoff);
		for (k = 0; k < new_len / PG; k++) {	/* copy_vma(): the name and policy go with the VMA */
			struct mpage *d = &p->pg[page_index(r + k * PG)];

			d->name = first.name;
			d->pmode = first.pmode;
			d->pnodes = first.pnodes;
		}
		if (!(mf & KSIM_MREMAP_DONTUNMAP) && last_failures) {
			/*
			 * move_vma(): when unmapping the old range fails after
			 * the move ("OOM: unable to split vma, just get accounts
			 * right") the old VMA stays (VM_ACCOUNT cleared on the
			 * trees), its pages gone with the page tables; mremap
			 * succeeds.
			 */
			unsigned long stayed = 0;

			read_kernel(p, kpages);
			for (k = 0; k < n; k++) {
				long i = page_index(addr + k * PG);

				if (kept_mapped(&kpages[i], before[i])) {
					p->pg[i] = kpages[i];
					stayed++;
				} else {
					KSIM_FUZZ_TRACE("    page %#lx: was flags %#lx pgoff %#lx file %p, "
							"now flags %#lx pgoff %#lx file %p\n",
							addr + k * PG, before[i].flags, before[i].pgoff,
							before[i].file, kpages[i].flags, kpages[i].pgoff,
							kpages[i].file);
				}
			}
			/*
			 * Per source VMA: remap_move() (7.x) moves VMA by VMA,
			 * and the range may be two VMAs the pages do not tell
			 * apart (one faulted, one not); each VMA's own unmap
			 * either failed (all its pages stay) or not (none).
			 */
			for (int v = 0; v < nvmas_before; v++) {
				unsigned long s = vmas_before[v].start > addr ? vmas_before[v].start : addr;
				unsigned long e = vmas_before[v].end < addr + n * PG ?
						  vmas_before[v].end : addr + n * PG;
				unsigned long in = 0;

				for (unsigned long a = s; a < e; a += PG)
					in += kept_mapped(&kpages[page_index(a)], before[page_index(a)]);
				KSIM_FUZZ_CHECK(s >= e || in == 0 || in == (e - s) / PG,
						"mremap moved [%#lx, +%#lx) and left %lu of the %lu pages of "
						"its VMA [%#lx, %#lx) mapped (%lu of %lu in all)", addr, old_len,
						in, (e - s) / PG, vmas_before[v].start, vmas_before[v].end,
						stayed, n);
			}
			/*
			 * That path also drops account_start/end, so the rest of
			 * the old VMA, around the range, keeps VM_ACCOUNT cleared:
			 * accept it on the pages of the same mapping either side.
			 */
			for (int dir = -1; stayed && dir <= 1; dir += 2) {
				unsigned long a = dir < 0 ? addr - PG : addr + old_len;

				for (; page_index(a) >= 0; a += dir * PG) {
					long i = page_index(a);
					struct mpage same = { first.flags,
							      first.pgoff + (long)(a - addr) / (long)PG,
							      first.file, .name = first.name,
							      .pmode = first.pmode, .pnodes = first.pnodes, .uffd = first.uffd };

					if (!page_eq(&before[i], &same))
						break;
					if (kept_mapped(&kpages[i], same))
						p->pg[i] = kpages[i];
				}
			}
		}
		if (mf & KSIM_MREMAP_DONTUNMAP) {
			/* the old VMA stays; an anonymous one that was exactly the range gets pgoff = start */
			read_kernel(p, kpages);
			for (k = 0; k < n; k++) {
				long i = page_index(addr + k * PG);

				KSIM_FUZZ_CHECK(ksim_mm_pfn(p->mm, addr + k * PG) == 0,
						"DONTUNMAP left a page at %#lx", addr + k * PG);
				if (!first.file && kpages[i].pgoff == (addr + k * PG) / PG)
					p->pg[i].pgoff = kpages[i].pgoff;
			}
		}
	}
#if KSIM_HAVE_MREMAP_MULTI_VMA
pfns:
#endif
	for (k = 0; k < n; k++)
		KSIM_FUZZ_CHECK(!before[page_index(addr + k * PG)].flags ||
				ksim_mm_pfn(p->mm, r + k * PG) == pfn[k],
				"mremap to %#lx: page %lu holds pfn %#lx, was %#lx", r, k,
				ksim_mm_pfn(p->mm, r + k * PG), pfn[k]);
}

static void run_op(struct ksim_fuzz_in *in)
{
	uint8_t opc = ksim_fuzz_u8(in) % OP_NR, flags = ksim_fuzz_u8(in);
	int slot = flags & 3;
	struct proc *p = &procs[slot];
	size_t args;

	fault_pos = in->pos;
	ksim_fuzz_u8(in);
	args = in->pos;
	KSIM_FUZZ_TRACE("op %lu: %s process %d (flags %#x)\n", in->nr_ops, op_names[opc], slot, flags);
	if (opc == OP_NEW ? p->mm != NULL : p->mm == NULL) {
		KSIM_FUZZ_TRACE("  %s, skipped\n", p->mm ? "slot taken" : "no process");
		goto out;
	}
	if (!vma_c && (opc == OP_MUNMAP || opc == OP_MPROTECT || opc == OP_BRK || opc == OP_UNMAP_ALL ||
		       opc == OP_MREMAP)) {
		KSIM_FUZZ_TRACE("  no mm/vma.c in this tree: skipped\n");
		goto out;
	}
	if (opc == OP_MREMAP && !ksim_mm_has_mremap()) {
		KSIM_FUZZ_TRACE("  mremap not built for this tree: skipped\n");
		goto out;
	}
	switch (opc) {
	case OP_MMAP:
		op_mmap(in, p, flags);
		break;
	case OP_MUNMAP: {
		unsigned long addr = dec_addr(in);

		op_munmap_range(in, p, addr, addr + dec_len(in), flags & 0x10);
		break;
	}
	case OP_MPROTECT:
		if ((flags & 0xec) == 0xec)
			op_uffd(in, p, flags);
		else if ((flags & 0xe4) == 0xe4)
			op_mbind(in, p, flags);
		else if ((flags & 0xe0) == 0xe0)
			op_madvise(in, p, flags);
		else
			op_mprotect(in, p);
		break;
	case OP_BRK:
		op_brk(in, p, flags & 0x10);
		break;
	case OP_TOUCH:
		op_touch(in, p, flags & 4);
		break;
	case OP_FORK:
		op_fork(in, p, slot, flags);
		break;
	case OP_EXIT:
		KSIM_FUZZ_TRACE("  exit %d\n", slot);
		proc_exit(slot);
		break;
	case OP_NEW:
		op_new(in, slot);
		break;
	case OP_MREMAP:
		op_mremap(in, p, flags);
		break;
	case OP_UNMAP_ALL:
		for (int w = 0; w < NWIN; w++)
			op_munmap_range(in, p, win_base[w], win_base[w] + WIN_PAGES * PG, false);
		break;
	}
	check_all(opc != OP_MPROTECT || (flags & 0xe0) != 0xe0 ? op_names[opc] :
		  (flags & 0x0c) == 0x0c ? "uffd" : (flags & 0x04) ? "mbind" : "madvise");
out:
	in->pos = args + op_args[opc];
}

static void mm_run(struct ksim_fuzz_in *in)
{
	uint8_t cfg = ksim_fuzz_u8(in);

	vma_c = ksim_mm_has_vma_c();
	memset(procs, 0, sizeof(procs));
	files[0] = ksim_file_open("a");
	files[1] = ksim_file_open("b");
	for (int s = 0; s <= (cfg & 3); s++) {
		procs[s].mm = ksim_mm_new();
		KSIM_FUZZ_CHECK(procs[s].mm, "ksim_mm_new() at the start");
		ksim_mm_set_brk(procs[s].mm, start_brk());
		procs[s].brk = start_brk();
	}
	while (ksim_fuzz_more(in) && in->nr_ops < MAX_OPS) {
		run_op(in);
		in->nr_ops++;
	}
	for (int s = 0; s < NPROC; s++) {
		if (procs[s].mm) {
			proc_exit(s);
			KSIM_FUZZ_CHECK(ksim_mm_check_global() == 0, "global invariants after exit");
		}
	}
	ksim_file_close(files[0]);
	ksim_file_close(files[1]);
	KSIM_FUZZ_CHECK(ksim_mm_check_all_freed() == 0, "everything freed at the end");
}

static void mm_init(void)
{
	/* maple_tree_init() ran when ksim_maple loaded (maple/maple_tree.c). */
	ksim_mm_sim_init();
}

KSIM_FUZZ_TARGET(mm, mm_init, mm_run);
