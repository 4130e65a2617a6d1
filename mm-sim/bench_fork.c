// SPDX-License-Identifier: GPL-2.0
/*
 * mm_sim_bench: fork throughput in VMAs duplicated per second, on the
 * kernel tree this binary was built from (the 6.12 path is __mt_dup() plus
 * the per-VMA walk; the 6.1 path stores VMA by VMA).  scripts/ksimlib/
 * bench_mm_fork.py runs the binaries of both trees in one run and makes
 * the table and the plot.
 *
 *   mm_sim_bench --vmas N [--reps R] [--mode fork|tree] [--touch] [--checks]
 *
 * A parent with N one-page anonymous VMAs (gaps between them, so nothing
 * merges) is built once; each repetition times dup_mmap() (through
 * ksim_fork()) and, separately, the child's exit.  --mode tree times the
 * tree copy alone on the same parent tree: __mt_dup() (6.12 only) and
 * store-by-store (mas_store_gfp() per VMA, as the 6.1 dup_mmap() does).
 * Small N repeats the operation in a batch so one sample lasts >= ~20 ms.
 * mm-sim's own checks (ksim_mm_checks_off: the page-table and leak checks
 * at exit, the VMA-lock rule at every mmap_write_unlock()) are off unless
 * --checks: the bench measures the kernel's path; --checks prices them.
 * Output, one line per sample: path<TAB>N<TAB>op<TAB>seconds-per-op.
 */
#include <ksim/ksim.h>
#include <ksim/fault.h>
#include <mm_sim/sim.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void maple_tree_init(void);

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s --vmas N [--reps R] [--mode fork|tree] [--touch] [--checks]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long nr = 0, reps = 5, i, r, batch, b;
	const char *mode = "fork", *path;
	bool touch = false, checks = false;
	struct mm_struct *parent;

	for (i = 1; i < (unsigned long)argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--vmas") && i + 1 < (unsigned long)argc) {
			nr = strtoul(argv[++i], &end, 0);
			if (*end || !nr) {
				fprintf(stderr, "mm_sim_bench: --vmas %s: not a positive number\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--reps") && i + 1 < (unsigned long)argc) {
			reps = strtoul(argv[++i], &end, 0);
			if (*end || !reps) {
				fprintf(stderr, "mm_sim_bench: --reps %s: not a positive number\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--mode") && i + 1 < (unsigned long)argc) {
			mode = argv[++i];
			if (strcmp(mode, "fork") && strcmp(mode, "tree")) {
				fprintf(stderr, "mm_sim_bench: --mode %s: expected fork or tree\n", mode);
				return 2;
			}
		} else if (!strcmp(argv[i], "--checks")) {
			checks = true;
		} else if (!strcmp(argv[i], "--touch")) {
			touch = true;
		} else {
			usage(argv[0]);
		}
	}
	if (!nr)
		usage(argv[0]);
	if (nr > (1UL << 30) / 2) {
		fprintf(stderr, "mm_sim_bench: --vmas %lu: too many for the address space layout\n", nr);
		return 2;
	}

	ksim_init();
	maple_tree_init();
	ksim_mm_sim_init();
	/* The parent is built without the checks: the VMA-lock rule walks every
	 * VMA at each unlock, quadratic over N one-VMA maps (--checks at 327k
	 * VMAs ran for 15 minutes before the first fork). */
	ksim_mm_checks_off = true;
	path = ksim_mm_has_vma_c() ? "6.12" : "6.1";
	if (ksim_mm_kver() != 0x060c00 && ksim_mm_kver() != 0x060100)
		path = "other";

	parent = ksim_mm_new();
	for (i = 0; i < nr; i++) {
		unsigned long a = 0x10000000UL + i * 2 * KSIM_PAGE_SIZE;

		if (ksim_map_direct(parent, a, a + KSIM_PAGE_SIZE,
				    KSIM_VM_READ | KSIM_VM_WRITE | KSIM_VM_MAYREAD | KSIM_VM_MAYWRITE,
				    NULL, 0)) {
			fprintf(stderr, "mm_sim_bench: building the parent failed at VMA %lu\n", i);
			return 1;
		}
		if (touch)
			ksim_touch(parent, a, true);
	}
	ksim_mm_checks_off = !checks;
	batch = nr >= 200000 ? 1 : 200000 / nr;

	for (r = 0; r < reps; r++) {
		if (!strcmp(mode, "fork")) {
			struct mm_struct **kids = calloc(batch, sizeof(*kids));
			double t0, t1, t2;

			t0 = now();
			for (b = 0; b < batch; b++)
				if (ksim_fork(parent, &kids[b])) {
					fprintf(stderr, "mm_sim_bench: fork failed\n");
					return 1;
				}
			t1 = now();
			for (b = 0; b < batch; b++)
				ksim_mm_exit(kids[b]);
			t2 = now();
			printf("%s\t%lu\tfork\t%.9f\n", path, nr, (t1 - t0) / batch);
			printf("%s\t%lu\texit\t%.9f\n", path, nr, (t2 - t1) / batch);
			free(kids);
		} else {
			struct mm_struct *dst = ksim_mm_new();
			double t0, t1;
			int err = 0;

			if (ksim_mm_has_vma_c()) {
				t0 = now();
				for (b = 0; b < batch && !err; b++) {
					err = ksim_tree_dup_mt(parent, dst);
					ksim_tree_destroy(dst);
				}
				t1 = now();
				printf("%s\t%lu\ttree-mt_dup\t%.9f\n", path, nr, (t1 - t0) / batch);
			}
			t0 = now();
			for (b = 0; b < batch && !err; b++) {
				err = ksim_tree_dup_store(parent, dst);
				ksim_tree_destroy(dst);
			}
			t1 = now();
			printf("%s\t%lu\ttree-store\t%.9f\n", path, nr, (t1 - t0) / batch);
			if (err) {
				fprintf(stderr, "mm_sim_bench: tree copy failed: %d\n", err);
				return 1;
			}
			ksim_mm_exit(dst);
		}
		fflush(stdout);
	}
	ksim_mm_exit(parent);
	return 0;
}
