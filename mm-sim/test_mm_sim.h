/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the mm-sim test files (test_mm_sim.c defines them). */
#ifndef _MM_SIM_TEST_H
#define _MM_SIM_TEST_H

struct mm_struct;

/* ksim_mm_check() on @mm (if any) and ksim_mm_check_global(); a violation fails the test. */
void check(struct mm_struct *mm, const char *what);
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
/* fail allocation N (then N..N+3) of a fork of @parent, N = 1 .. total */
void fork_sweep(const char *shape, struct mm_struct *parent, unsigned long stride);
/* a signal pending from check N of a fork of @parent on (fault class signal): -EINTR, same contract */
void fork_signal_sweep(const char *shape, struct mm_struct *parent);

#endif
