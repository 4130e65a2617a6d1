// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_selftests: the parts of the kernel's map selftests (selftests.h) on
 * ksim's test runner (ksim/test.h: -t NAME, --seed, --fault, the end-of-test
 * checks for leaks, WARNs, locks and RCU), plus:
 *
 *   --list             every part, the skipped ones too (CTest runs one test
 *                      each), but the long ones (KSIM_SELFTEST_LONG)
 *   --list-long        the long ones (CTest configuration "long")
 *   --list-tsan        the parts the TSan stress tier runs (threads on one
 *                      map, batch ops), but the long ones
 *   --list-tsan-long   the long ones of those
 *   --list-fault       the parts the fault sweeps run (not skipped, not long,
 *                      not KSIM_SELFTEST_NO_SWEEP)
 *   --skipped          the skipped parts and why, one a line
 *   -t NAME            of a skipped part: its reason, exit 77 (CTest: skipped)
 *   --fault-sweep N    with -t NAME: the part with one allocation failing, for
 *                      N allocation numbers spread over the ones it makes (3
 *                      for a part that makes more than 5000; each
 *                      run in a forked child: a failed check ends a selftest);
 *                      each run must pass or stop at a test-code limit (an
 *                      -ENOMEM the selftest does not expect, listed with its
 *                      place at the end); a crash, leak, other failed check
 *                      or shim problem fails the sweep.
 *
 * rand() is seeded from the part's seed (test_maps.c's main() seeds it from
 * the clock), so a run replays from --seed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <ksim/test.h>
#include <ksim/fault.h>
#include <ksim/run.h>
#include <ksim/slab.h>
#include "selftests.h"

#define SKIP_CODE	77

static void seed_rand(void)
{
	srand((unsigned int)ksim_test_seed());
}

/* ksim_test_seed() of a part run by the runner (shim/ksim/test.c), for the sweep's runs */
static uint64_t part_seed(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ ksim_seed();

	while (*name)
		h = (h ^ (unsigned char)*name++) * 0x100000001b3ULL;
	return h;
}

struct sweep_run {
	const struct ksim_selftest *t;
	unsigned long nth;
};

/* In the child: the part with the nth allocation failing, then the end-of-test checks. */
static void sweep_child(void *arg)
{
	struct sweep_run *r = arg;
	struct ksim_fault_config cfg = { .nth = r->nth, .times = 1 };
	unsigned long problems;

	ksim_problems_reset();
	ksim_slab_mark();
	srand((unsigned int)part_seed(r->t->name));
	ksim_fault_set(&cfg);
	r->t->fn();
	problems = ksim_run_check(r->t->name, __FILE__, KSIM_RUN_ALWAYS_WALK, NULL);
	_exit(problems ? 1 : 0);
}

static int fault_sweep(const struct ksim_selftest *t, unsigned long samples, const char *prog)
{
	struct ksim_fault_config count = { .nth = ~0UL };
	unsigned long total, nth, runs = 0, limits = 0, passed = 0;
	char *limit_lines[64];
	unsigned int nr_lines = 0;
	int failed = 0;

	/* the allocations it makes: one plain run, counted */
	ksim_problems_reset();
	ksim_slab_mark();
	srand((unsigned int)part_seed(t->name));
	ksim_fault_set(&count);
	t->fn();
	total = ksim_fault_calls();
	ksim_fault_reset();
	if (ksim_run_check(t->name, __FILE__, KSIM_RUN_ALWAYS_WALK, NULL)) {
		printf("not ok - %s: the run without failures failed\n", t->name);
		return 1;
	}
	if (!total || !samples) {
		printf("ok - %s: no allocation to fail\n", t->name);
		return 0;
	}
	/* a part of many similar steps (a 10,000-entry walk): a few points of it */
	if (total > 5000 && samples > 3)
		samples = 3;
	if (samples > total)
		samples = total;
	printf("# %s: %lu allocations; failing %lu of them, one per run\n", t->name, total, samples);
	for (unsigned long k = 0; k < samples && !failed; k++) {
		struct sweep_run r = { .t = t };
		char *out, *lim;
		int status;

		nth = samples == 1 ? 1 : 1 + k * (total - 1) / (samples - 1);
		r.nth = nth;
		out = ksim_test_capture_in_child(sweep_child, &r, &status);
		runs++;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			passed++;
		} else if (WIFEXITED(status) && WEXITSTATUS(status) == KSIM_SELFTEST_LIMIT &&
			   (lim = strstr(out, "ksim-selftest: test-code limit: "))) {
			char *end = strchr(lim, '\n'), *sig = lim + strlen("ksim-selftest: test-code limit: ");
			bool seen = false;

			limits++;
			if (end)
				*end = 0;
			/* the signature: the place of the check (file:line function) */
			end = strchr(sig, ':');
			end = end ? strchr(end + 1, ' ') : NULL;
			end = end ? strchr(end + 1, ' ') : NULL;
			if (end)
				*end = 0;
			for (unsigned int i = 0; i < nr_lines; i++)
				seen |= !strcmp(limit_lines[i], sig);
			if (!seen && nr_lines < sizeof(limit_lines) / sizeof(limit_lines[0]))
				limit_lines[nr_lines++] = strdup(sig);
		} else {
			failed = 1;
			printf("not ok - %s nth=%lu: %s %d\n%s", t->name, nth,
			       WIFEXITED(status) ? "exit status" : "signal",
			       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), out);
			printf("# replay: %s -t '%s' --seed %" PRIu64 " --fault nth=%lu\n", prog, t->name,
			       ksim_seed(), nth);
		}
		free(out);
	}
	for (unsigned int i = 0; i < nr_lines; i++) {
		printf("# test-code limit: %s\n", limit_lines[i]);
		free(limit_lines[i]);
	}
	printf("%s - %s: %lu runs, %lu passed, %lu stopped at a test-code limit\n",
	       failed ? "not ok" : "ok", t->name, runs, passed, limits);
	return failed;
}

int main(int argc, char **argv)
{
	static struct ksim_test *tests;
	unsigned int n = ksim_selftest_count(), i;
	const char *name = NULL;
	unsigned long sweep = 0;

	for (int a = 1; a < argc; a++) {
		static const struct {
			const char *opt;
			unsigned int want, not;
			bool skipped, runnable;
		} lists[] = {
			{ "--list", 0, KSIM_SELFTEST_LONG, true, true },
			{ "--list-long", KSIM_SELFTEST_LONG, 0, false, true },
			{ "--list-tsan", KSIM_SELFTEST_TSAN, KSIM_SELFTEST_LONG, false, true },
			{ "--list-tsan-long", KSIM_SELFTEST_TSAN | KSIM_SELFTEST_LONG, 0, false, true },
			{ "--list-fault", 0, KSIM_SELFTEST_LONG | KSIM_SELFTEST_NO_SWEEP, false, true },
			{ "--skipped", 0, 0, true, false },
		};

		for (unsigned int l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
			if (strcmp(argv[a], lists[l].opt))
				continue;
			for (i = 0; i < n; i++) {
				const struct ksim_selftest *t = ksim_selftest_get(i);

				if (t->skip ? !lists[l].skipped : !lists[l].runnable)
					continue;
				if ((t->flags & lists[l].want) != lists[l].want || (t->flags & lists[l].not))
					continue;
				if (t->skip && !lists[l].runnable)
					printf("%s: %s\n", t->name, t->skip);
				else
					printf("%s\n", t->name);
			}
			return 0;
		}
		if (!strcmp(argv[a], "-t") && a + 1 < argc)
			name = argv[a + 1];
		if (!strcmp(argv[a], "--fault-sweep") && a + 1 < argc) {
			sweep = strtoul(argv[a + 1], NULL, 0);
			/* the rest of the command line is the runner's */
			memmove(&argv[a], &argv[a + 2], (argc - a - 1) * sizeof(*argv));
			argc -= 2;
			a--;
		}
	}
	if (name) {
		const struct ksim_selftest *t = ksim_selftest_find(name);

		if (t && t->skip) {
			printf("SKIP %s: %s\n", t->name, t->skip);
			return SKIP_CODE;
		}
		if (t && sweep) {
			static struct ksim_options opts = { .mode = KSIM_RUN_TEST };
			int status;

			if (!ksim_options_parse(&opts, argc, argv, &status))
				return status;
			printf("# seed %" PRIu64 "\n", ksim_seed());
			return fault_sweep(t, sweep, opts.prog);
		}
	}
	tests = calloc(n, sizeof(*tests));
	for (i = 0; i < n; i++) {
		const struct ksim_selftest *t = ksim_selftest_get(i);

		if (t->skip)
			continue;
		tests[i] = (struct ksim_test){ .name = t->name, .fn = t->fn, .file = "selftests" };
		ksim_test_register(&tests[i]);
	}
	ksim_test_setup_hook = seed_rand;
	return ksim_test_main(argc, argv);
}
