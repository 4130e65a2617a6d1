// SPDX-License-Identifier: GPL-2.0
/*
 * Runner for the kernel's xarray/radix-tree/IDR tests (xarray/suite): the
 * ksim test runner plus the kernel harness's environment (linux.c's
 * counters, its failing non-blocking slab allocations), and the kernel's
 * closing lines "XArray: N of M tests passed" / "IDA: ..." for the parts
 * this process ran.
 */
#include <stdio.h>
#include <stdlib.h>
#include <ksim/ksim.h>
#include <ksim/slab.h>
#include <ksim/test.h>

int nr_allocated;
int preempt_count;
int test_verbose;
int kmalloc_verbose;

void ksim_xarray_suite_counts(unsigned int *run, unsigned int *passed);
void ksim_ida_suite_counts(unsigned int *run, unsigned int *passed);

static void setup(void)
{
	/*
	 * The kernel harness fails a non-blocking node allocation
	 * (tools/testing/shared/linux.c); test_xarray.c's check_xa_err()
	 * expects -ENOMEM from a GFP_NOWAIT store.
	 */
	ksim_slab_set_strict_nowait(true);
}

static void summary(void)
{
	unsigned int run = 0, passed = 0;

	ksim_xarray_suite_counts(&run, &passed);
	ksim_ida_suite_counts(&run, &passed);
	printf("xarray suite: %u of %u tests passed\n", passed, run);
}

int main(int argc, char **argv)
{
	ksim_test_setup_hook = setup;
	ksim_test_summary_hook = summary;
	return ksim_test_main(argc, argv);
}
