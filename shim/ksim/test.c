// SPDX-License-Identifier: GPL-2.0
/* The ksim test runner (see ksim/test.h). */
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ksim/fault.h>
#include <ksim/rcu.h>
#include <ksim/run.h>
#include <ksim/slab.h>
#include <ksim/test.h>

#define MAX_TESTS	1024

static const struct ksim_test *tests[MAX_TESTS];
static int nr_tests;
static const struct ksim_test *running;
static struct ksim_rng test_rng;
static uint64_t test_seed;

void (*ksim_test_setup_hook)(void);
void (*ksim_test_summary_hook)(void);

void ksim_test_register(const struct ksim_test *t)
{
	if (nr_tests >= MAX_TESTS) {
		fprintf(stderr, "ksim: too many tests\n");
		exit(2);
	}
	tests[nr_tests++] = t;
}

void ksim_test_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ksim_vfail(file, line, cond, fmt, ap);
	va_end(ap);
}

struct ksim_rng *ksim_test_rng(void)
{
	return &test_rng;
}

uint64_t ksim_test_seed(void)
{
	return test_seed;
}

const char *ksim_test_name(void)
{
	return running ? running->name : "";
}

static uint64_t fnv1a(const char *s, uint64_t h)
{
	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static bool run_one(const struct ksim_test *t, int idx)
{
	double t0 = now(), dt;
	unsigned long problems;
	char what[300], replay[1024];
	bool ok;

	running = t;
	test_seed = fnv1a(t->name, 0xcbf29ce484222325ULL ^ ksim_seed());
	ksim_rng_seed(&test_rng, test_seed);
	ksim_problems_reset();
	ksim_run_fault_arm();
	ksim_slab_mark();
	if (ksim_test_setup_hook)
		ksim_test_setup_hook();

	t->fn();

	snprintf(what, sizeof(what), "test %s", t->name);
	problems = ksim_run_check(what, t->file, KSIM_RUN_ALWAYS_WALK, NULL);
	ksim_fault_reset();

	ok = problems == 0;
	dt = now() - t0;
	fflush(stderr);
	printf("%s %d - %s # %.2fs\n", ok ? "ok" : "not ok", idx, t->name, dt);
	ksim_run_fault_summary(stdout);
	if (!ok) {
		printf("# %s: %lu problem(s):", t->name, problems);
		for (int k = 0; k < KSIM_P_NR; k++)
			if (ksim_problem_count(k))
				printf(" %s=%lu", ksim_problem_names[k], ksim_problem_count(k));
		ksim_run_replay(t->name, replay, sizeof(replay));
		printf("\n# replay: %s\n", replay);
	}
	fflush(stdout);
	running = NULL;
	return ok;
}

/* Forks, runs @fn(@arg) with the child's stderr on @err_fd (/dev/null if < 0). */
static int run_in_child(void (*fn)(void *arg), void *arg, int err_fd)
{
	int status = -1;
	pid_t pid;

	ksim_rcu_quiesce();
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct rlimit none = { 0, 0 };
		int fd = err_fd >= 0 ? err_fd : open("/dev/null", O_WRONLY);

		setrlimit(RLIMIT_CORE, &none);
		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		fn(arg);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

int ksim_test_run_in_child(void (*fn)(void *arg), void *arg)
{
	return run_in_child(fn, arg, -1);
}

char *ksim_test_capture_in_child(void (*fn)(void *arg), void *arg, int *status)
{
	char path[] = "/tmp/ksim-test-child-XXXXXX";
	int fd = mkstemp(path);
	char *buf = calloc(1, 65536);
	ssize_t n;

	if (fd < 0 || !buf) {
		perror("ksim: capture of a child's stderr");
		abort();
	}
	unlink(path);
	*status = run_in_child(fn, arg, fd);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, 65535);
	buf[n > 0 ? n : 0] = 0;
	close(fd);
	return buf;
}

static int cmp_test(const void *a, const void *b)
{
	const struct ksim_test *x = *(const struct ksim_test *const *)a;
	const struct ksim_test *y = *(const struct ksim_test *const *)b;

	return strcmp(x->file, y->file);
}

void rcu_barrier(void);	/* linux/rcupdate.h (not included: kernel namespace) */

unsigned long ksim_test_fault_sweep(const char *name, unsigned int classes,
				    bool (*run)(void *arg, unsigned long nth), void *arg,
				    unsigned long *injected)
{
	struct ksim_fault_config count = { .nth = ~0UL, .classes = classes };
	struct ksim_slab_stats before, after;
	unsigned long total;

	*injected = 0;
	ksim_fault_set(&count);
	run(arg, 0);
	total = ksim_fault_calls();
	if (ksim_verbose > 2)	/* -v -v -v: the sites the sequence reaches */
		ksim_fault_report(stdout);
	ksim_fault_reset();
	for (unsigned long nth = 1; nth <= total; nth++) {
		struct ksim_fault_config cfg = { .nth = nth, .times = 1, .classes = classes };
		bool ok;

		rcu_barrier();
		ksim_slab_totals(&before);
		ksim_fault_set(&cfg);
		ok = run(arg, nth);
		*injected += ksim_fault_failures();
		ksim_fault_reset();
		rcu_barrier();
		ksim_slab_totals(&after);
		KSIM_EXPECT(after.live == before.live, "%s nth=%lu: %ld objects leaked", name, nth,
			    (long)(after.live - before.live));
		if (!ok || after.live != before.live)
			break;
	}
	return total;
}

int ksim_test_main(int argc, char **argv)
{
	static struct ksim_options opts = {
		.mode = KSIM_RUN_TEST,
		.what = "Runs this binary's tests (TAP); a failing test prints the command that replays it.",
	};
	int idx = 0, failed = 0, planned = 0, status;
	char replay[1024];

	if (!ksim_options_parse(&opts, argc, argv, &status))
		return status;
	/* Stable order: registration order within a file, files by name. */
	qsort(tests, nr_tests, sizeof(tests[0]), cmp_test);
	if (opts.list) {
		for (int i = 0; i < nr_tests; i++)
			printf("%s\n", tests[i]->name);
		return 0;
	}
	for (int i = 0; i < nr_tests; i++)
		planned += ksim_run_selected(&opts, tests[i]->name);
	for (int i = 0; i < opts.nr_names; i++) {
		struct ksim_options one = { .nr_names = 1, .names = &opts.names[i] };
		bool any = false;

		for (int j = 0; j < nr_tests; j++)
			any |= ksim_run_selected(&one, tests[j]->name);
		if (!any) {
			fprintf(stderr, "%s: no test matches '%s' (try --list)\n", opts.prog, opts.names[i]);
			return 2;
		}
	}
	ksim_run_replay(NULL, replay, sizeof(replay));
	printf("TAP version 13\n1..%d\n# seed %" PRIu64 " (replay: %s)\n", planned, ksim_seed(), replay);
	fflush(stdout);
	for (int i = 0; i < nr_tests; i++) {
		if (!ksim_run_selected(&opts, tests[i]->name))
			continue;
		failed += !run_one(tests[i], ++idx);
	}
	if (ksim_test_summary_hook)
		ksim_test_summary_hook();
	printf("# %d passed, %d failed\n", idx - failed, failed);

	return failed ? 1 : 0;
}
