/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel's tools/testing/radix-tree tests expect from their
 * harness headers (tools/testing/shared/linux/radix-tree.h and linux.c)
 * beyond the kernel API: verbosity knobs and printv().  Force-included
 * into every file of the xarray suite; the kernel API itself is the shim's.
 */
#ifndef _KSIM_XARRAY_SUITE_HARNESS_H
#define _KSIM_XARRAY_SUITE_HARNESS_H
#include <assert.h>
#include <stdio.h>
#include <time.h>

/* The harness's linux/kernel.h defines the page size (the shim has no
 * page-size header: mm-sim brings its own). */
#ifndef PAGE_SHIFT
#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#endif

extern int kmalloc_verbose;
extern int test_verbose;
/* The harness's own preemption counter, printed by main.c's progress lines. */
extern int preempt_count;
extern int nr_allocated;

/*
 * idr-test.c's loops run until time(NULL) passes a fixed length:
 * idr_find_test_1() 11 s (twice), ida_check_random() 10 s (alone, then
 * in 20 threads), ida_leak_fn() 2 s: 44 of `single`'s 52 s, on both
 * cores.  Their clock is ksim_suite_time() (suite_main.c), which runs
 * 10 / KSIM_ITERATION_SECONDS times as fast: the same loops and checks
 * on fewer rounds, as the iteration part's threads.  <time.h> is in
 * first, so its declaration keeps the name.
 */
time_t ksim_suite_time(time_t *t);
#define time(t)	ksim_suite_time(t)

#define printv(verbosity_level, fmt, ...)				\
	if (test_verbose >= (verbosity_level))				\
		printf(fmt, ##__VA_ARGS__)

#endif
