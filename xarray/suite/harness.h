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

#define printv(verbosity_level, fmt, ...)				\
	if (test_verbose >= (verbosity_level))				\
		printf(fmt, ##__VA_ARGS__)

#endif
