/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the mm-sim test files (test_mm_sim.c defines them). */
#ifndef _MM_SIM_TEST_H
#define _MM_SIM_TEST_H

struct mm_struct;

/* ksim_mm_check() on @mm (if any) and ksim_mm_check_global(); a violation fails the test. */
void check(struct mm_struct *mm, const char *what);
/* Slab objects live now, after the RCU callbacks in flight (sweeps compare). */
unsigned long live_objects(void);
/* No mm, page-table page, file or commit charge left. */
void check_all_freed(void);

/* Fault sites reached/failed, summed over the runs of a sweep. */
struct site_acc {
	char name[64];
	unsigned long reached, failed;
};
void acc_sites(struct site_acc *acc, unsigned int *nacc, unsigned int max);
struct file;
/* text, data, a file mapping (@f), shared memory, stack; each touched */
struct mm_struct *build_small(struct file *f, unsigned long extra_flags);
/* the fork's layout model: @child is what dup_mmap() must make of @parent */
void check_fork_child(struct mm_struct *parent, struct mm_struct *child, const char *what);
/* fail allocation N (then N..N+3) of a fork of @parent, N = 1 .. total */
void fork_sweep(const char *shape, struct mm_struct *parent, unsigned long stride);
/* a signal pending from check N of a fork of @parent on (fault class signal): -EINTR, same contract */
void fork_signal_sweep(const char *shape, struct mm_struct *parent);
struct ksim_fault_config;
/* N..N+3 failures of a mremap: only at its own allocation sites (test_mremap.c says why) */
void mremap_own_sites(struct ksim_fault_config *cfg);

/*
 * The argument-contract tests (test_mremap.c): a layout drawn from @seed in
 * the window [CW, CW + 64 pages) = [0x60000000, ...), and whether two
 * processes are alike (VMAs, pages, counters; @why says how not).
 */
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
struct mm_struct *contract_layout(uint64_t seed);
bool contract_same(struct mm_struct *a, struct mm_struct *b, char *why, size_t len);
struct ksim_rng;
/*
 * One argument-contract test (test_mremap.c, contract_run()): a call drawn
 * with garbage, run as drawn on one process and canonicalised on an
 * identical one.  @run returns 0, an address or -errno.  The caller
 * checks that everything was freed (check_all_freed()) after its own teardown.
 */
struct contract_test {
	const char *call;
	size_t size;				/* of the argument struct */
	struct mm_struct *(*layout)(uint64_t seed);
	void (*draw)(struct ksim_rng *rng, struct mm_struct *mm, void *args);
	long (*contract)(struct mm_struct *mm, void *args);	/* canonicalise in place */
	long (*run)(struct mm_struct *mm, const void *args);
	int (*show)(char *buf, size_t len, const void *args);	/* "name(args)" */
	const char *garbage;			/* what garbage the kernel must ignore */
	bool exact;				/* the contract decides success too: a call it takes must succeed */
};
void contract_run(const struct contract_test *t);

/*
 * The VMAs of @mm in [@base, @base + VMA_LIST_PAGES pages) are exactly the
 * @n entries of @wants, in order (test_vmas.c).  Each entry starts with
 * `int start, end;` (pages from @base); @prop->match() appends the VMA's
 * property to its buffer (@len 0: no room) and says whether it is the
 * entry's (the entry is NULL past the last).  A mismatch fails the test
 * with the whole list; the invariants are checked either way.
 */
#include <stdbool.h>
#include <stddef.h>
struct vm_area_struct;
#define VMA_LIST_PAGES	128
struct vma_prop {
	const char *legend;		/* after "VMAs" in the message, e.g. " (R: registered)" */
	size_t want_size;
	bool (*match)(struct vm_area_struct *vma, const void *want, char *buf, size_t len);
};
bool vma_list_is(struct mm_struct *mm, const char *what, unsigned long base,
		 const struct vma_prop *prop, const void *wants, int n);
#define VMA_LIST_IS(mm, what, base, prop, type, ...) ({				\
	const type __w[] = { __VA_ARGS__ };					\
	vma_list_is(mm, what, base, prop, __w, sizeof(__w) / sizeof(__w[0]));	\
})
/* write-fault pages @start, @start + @step, ... below @end (pages from @base) */
void touch_pages(struct mm_struct *mm, unsigned long base, int start, int end, int step);

#endif
