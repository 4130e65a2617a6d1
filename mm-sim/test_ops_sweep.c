// SPDX-License-Identifier: GPL-2.0
/*
 * mprotect, munmap, MAP_FIXED mmap and brk, each failing at every
 * allocation in turn, started from address spaces built to drive mm/vma.c's
 * merge and split cases: merge with prev, next, both; a partial-range
 * change that splits one or both ends or moves a boundary; anon_vma on
 * neither, one or both sides; anonymous and file-backed.  After each run:
 * a per-page model (mapped, access bits, pfn) must show the operation done
 * completely or not at all, the invariants must hold, and at the end
 * nothing may be left.
 */
#include <ksim/test.h>
#include <ksim/fault.h>
#include <mm_sim/sim.h>
#include <mm_sim/query.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "test_mm_sim.h"

#define PG	KSIM_PAGE_SIZE
#define BASE	0x10000000UL
#define NPG	32
#define ACC	(KSIM_VM_READ | KSIM_VM_WRITE | KSIM_VM_EXEC)
#define MAY	(KSIM_VM_MAYREAD | KSIM_VM_MAYWRITE | KSIM_VM_MAYEXEC)
#define RW	(KSIM_VM_READ | KSIM_VM_WRITE)
#define RO	KSIM_VM_READ

struct seg {
	int first, n;		/* pages from BASE */
	unsigned long access;
};
struct shape {
	const char *name;
	struct seg segs[3];
	int nsegs;
	int brk_first, brk_end;	/* brk shapes: the heap [first, end) made by brk() */
};
enum op_kind { OP_MPROTECT, OP_MUNMAP, OP_MMAP, OP_BRK };
struct op {
	enum op_kind kind;
	int first, n;		/* range (brk: first = new break) */
	unsigned long access;
};
struct ops_case {
	const char *what;
	int shape;
	struct op op;
};

static const struct shape shapes[] = {
	{ "prev|target", { { 4, 8, RW }, { 12, 8, RO } }, 2 },
	{ "target|next", { { 4, 8, RO }, { 12, 8, RW } }, 2 },
	{ "prev|target|next", { { 4, 8, RW }, { 12, 8, RO }, { 20, 8, RW } }, 3 },
	{ "one VMA", { { 4, 16, RW } }, 1 },
	{ "heap", { { 0 } }, 0, 4, 12 },
};

static const struct ops_case cases[] = {
	{ "mprotect target as prev: merge prev", 0, { OP_MPROTECT, 12, 8, RW } },
	{ "mprotect target as next: merge next", 1, { OP_MPROTECT, 4, 8, RW } },
	{ "mprotect target as both: merge both", 2, { OP_MPROTECT, 12, 8, RW } },
	{ "mprotect head of target as prev: prev grows", 0, { OP_MPROTECT, 12, 2, RW } },
	{ "mprotect tail of target as next: next grows", 1, { OP_MPROTECT, 10, 2, RW } },
	{ "mprotect middle: split both ends", 3, { OP_MPROTECT, 8, 4, RO } },
	{ "mprotect head: split start", 3, { OP_MPROTECT, 4, 4, RO } },
	{ "mprotect tail: split end", 3, { OP_MPROTECT, 16, 4, RO } },
	{ "munmap middle: split both ends", 3, { OP_MUNMAP, 8, 4 } },
	{ "munmap across two VMAs: split both", 2, { OP_MUNMAP, 10, 12 } },
	{ "munmap a whole VMA between two", 2, { OP_MUNMAP, 12, 8 } },
	{ "mmap over the middle: split, no merge", 3, { OP_MMAP, 8, 4, RO } },
	{ "mmap over a boundary as prev", 0, { OP_MMAP, 10, 4, RW } },
	{ "mmap into the hole between two: merge both", 2, { OP_MMAP, 12, 8, RW } },
	{ "brk grow: the heap expands", 4, { OP_BRK, 16 } },
	{ "brk shrink: the heap splits off its end", 4, { OP_BRK, 8 } },
};

struct page_state {
	unsigned long access, pfn;
	bool mapped;
	const void *file;
};

static void read_model(struct mm_struct *mm, struct page_state *ps)
{
	int i;

	for (i = 0; i < NPG; i++) {
		unsigned long a = BASE + i * PG;
		struct ksim_vma_info vi;

		memset(&ps[i], 0, sizeof(ps[i]));
		if (ksim_mm_find_vma(mm, a, &vi) && vi.start <= a) {
			ps[i].mapped = true;
			ps[i].access = vi.flags & ACC;
			ps[i].file = vi.file;
		}
		ps[i].pfn = ksim_mm_pfn(mm, a);
	}
}

/* anon_vma: 0 none, 1 on the first segment, 2 on the last, 3 both (touch = fault in) */
static struct mm_struct *build(const struct shape *sh, int anon, struct file *f)
{
	struct mm_struct *mm = ksim_mm_new();
	int i;

	if (sh->brk_end) {
		ksim_mm_set_brk(mm, BASE + sh->brk_first * PG);
		KSIM_EXPECT(!ksim_brk(mm, BASE + sh->brk_end * PG));
		if (anon & 1)
			KSIM_EXPECT(!ksim_touch(mm, BASE + sh->brk_first * PG, true));
		if (anon & 2)
			KSIM_EXPECT(!ksim_touch(mm, BASE + (sh->brk_end - 1) * PG, true));
		return mm;
	}
	for (i = 0; i < sh->nsegs; i++) {
		const struct seg *s = &sh->segs[i];

		KSIM_EXPECT(!ksim_mmap(mm, BASE + s->first * PG, s->n * PG, s->access | MAY, f,
				       f ? s->first : 0));
	}
	/* a write fault gives a private mapping its anon_vma; read-only ones get a read fault */
	if (anon & 1)
		KSIM_EXPECT(!ksim_touch(mm, BASE + sh->segs[0].first * PG, sh->segs[0].access & KSIM_VM_WRITE));
	if (anon & 2) {
		const struct seg *s = &sh->segs[sh->nsegs - 1];

		KSIM_EXPECT(!ksim_touch(mm, BASE + (s->first + s->n - 1) * PG, s->access & KSIM_VM_WRITE));
	}
	return mm;
}

static int run_op(struct mm_struct *mm, const struct op *op, struct file *f)
{
	unsigned long a = BASE + op->first * PG, len = op->n * PG;

	switch (op->kind) {
	case OP_MPROTECT:
		return ksim_mprotect(mm, a, len, op->access);
	case OP_MUNMAP:
		return ksim_munmap(mm, a, len);
	case OP_MMAP:	/* MAP_FIXED over what is there; file-backed where the shape is */
		return ksim_mmap(mm, a, len, op->access | MAY, f, f ? op->first : 0);
	case OP_BRK:
		return ksim_brk(mm, a);
	}
	return -EINVAL;
}

/* What the pages must look like after @op succeeded. */
static void apply(const struct op *op, struct page_state *ps, int brk_end, struct file *f)
{
	int i, end = op->first + op->n;

	if (op->kind == OP_BRK) {
		for (i = op->first; i < brk_end; i++)
			memset(&ps[i], 0, sizeof(ps[i]));
		for (i = brk_end; i < op->first; i++) {
			ps[i].mapped = true;
			ps[i].access = RW;
		}
		return;
	}
	for (i = op->first; i < end; i++) {
		switch (op->kind) {
		case OP_MPROTECT:
			ps[i].access = op->access;
			break;
		case OP_MUNMAP:
			memset(&ps[i], 0, sizeof(ps[i]));
			break;
		case OP_MMAP:
			ps[i].mapped = true;
			ps[i].access = op->access;
			ps[i].pfn = 0;
			ps[i].file = f;
			break;
		default:
			break;
		}
	}
}

static bool same(const struct page_state *a, const struct page_state *b, int *at)
{
	int i;

	for (i = 0; i < NPG; i++)
		if (a[i].mapped != b[i].mapped || a[i].access != b[i].access || a[i].pfn != b[i].pfn ||
		    a[i].file != b[i].file) {
			*at = i;
			return false;
		}
	return true;
}

KSIM_TEST(ops_sweep)
{
	struct site_acc acc[64];
	unsigned int nacc = 0, i, sites_failed = 0;
	unsigned long runs = 0, failed = 0, done = 0, cases_run = 0;
	struct file *f = ksim_file_open("lib.so");
	struct ksim_fault_config cfg;
	unsigned int c;

	if (!ksim_mm_has_vma_c()) {
		printf("# skipped: this tree has no mm/vma.c\n");
		ksim_file_close(f);
		return;
	}
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct ops_case *oc = &cases[c];
		const struct shape *sh = &shapes[oc->shape];
		int anon, backing;

		for (backing = 0; backing < (sh->brk_end ? 1 : 2); backing++)
		for (anon = 0; anon < 4; anon++) {
			struct file *bf = backing ? f : NULL;
			struct page_state before[NPG], after[NPG], want[NPG];
			unsigned long total, n;
			struct mm_struct *mm;
			long times;
			int err, at;

			/* the allocations of the operation alone */
			mm = build(sh, anon, bf);
			read_model(mm, before);
			memcpy(want, before, sizeof(want));
			apply(&oc->op, want, sh->brk_end, bf);
			memset(&cfg, 0, sizeof(cfg));
			cfg.nth = ~0UL;
			ksim_fault_set(&cfg);
			err = run_op(mm, &oc->op, bf);
			total = ksim_fault_calls();
			ksim_fault_reset();
			read_model(mm, after);
			KSIM_EXPECT(!err && same(after, want, &at), "%s (%s, anon_vma %d): unfailed: %d",
				    oc->what, backing ? "file" : "anon", anon, err);
			check(mm, oc->what);
			ksim_mm_exit(mm);
			cases_run++;
			for (times = 1; times <= 4; times += 3)
			for (n = 1; n <= total; n++) {
				mm = build(sh, anon, bf);
				read_model(mm, before);
				memset(&cfg, 0, sizeof(cfg));
				cfg.nth = n;
				cfg.times = times;
				ksim_fault_set(&cfg);
				err = run_op(mm, &oc->op, bf);
				acc_sites(acc, &nacc, 64);
				ksim_fault_reset();
				runs++;
				read_model(mm, after);
				if (err) {
					failed++;
					KSIM_EXPECT(err == -ENOMEM, "%s: %d", oc->what, err);
					KSIM_EXPECT(same(after, before, &at),
						    "%s (%s, anon_vma %d) failing at allocation %lu (x%ld): page %d changed",
						    oc->what, backing ? "file" : "anon", anon, n, times, at);
				} else {
					done++;
					KSIM_EXPECT(same(after, want, &at),
						    "%s (%s, anon_vma %d) surviving allocation %lu (x%ld): page %d wrong",
						    oc->what, backing ? "file" : "anon", anon, n, times, at);
				}
				check(mm, oc->what);
				ksim_mm_exit(mm);
				check(NULL, "exit");
				if (ksim_problem_count(KSIM_P_TEST)) {
					printf("# %s (%s, anon_vma %d): first failure at allocation %lu of %lu (x%ld)\n",
					       oc->what, backing ? "file" : "anon", anon, n, total, times);
					goto out;
				}
			}
		}
	}
out:
	for (i = 0; i < nacc; i++)
		sites_failed += acc[i].failed > 0;
	printf("# %u operations x shapes x anon_vma/backing = %lu cases; %lu runs, each failing allocation N "
	       "(then N..N+3): %lu failed, %lu completed; %u allocation sites reached, %u failed\n",
	       c, cases_run, runs, failed, done, nacc, sites_failed);
	for (i = 0; i < nacc; i++)
		printf("#   %-28s reached %8lu  failed %6lu\n", acc[i].name, acc[i].reached, acc[i].failed);
	ksim_file_close(f);
	check(NULL, "end");
	check_all_freed();
}
