// SPDX-License-Identifier: GPL-2.0
/* The ksim test runner (see ksim/test.h). */
#include <fnmatch.h>
#include <stdarg.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/rcupdate.h>
#include <ksim/fault.h>
#include <ksim/rcu.h>
#include <ksim/slab.h>
#include <ksim/task.h>
#include <ksim/test.h>

#define MAX_TESTS	1024

static const struct ksim_test *tests[MAX_TESTS];
static int nr_tests;
static const struct ksim_test *running;
static struct ksim_rng test_rng;
static uint64_t test_seed;
static const char *prog;

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
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ksim_problem(KSIM_P_TEST, file, line, "expected %s%s%s", cond, *msg ? ": " : "", msg);
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

static void usage(FILE *out)
{
	fprintf(out,
		"usage: %s [--list] [-t NAME]... [--seed N] [--fault SPEC] [-v|-q]\n"
		"  -l, --list        list the tests\n"
		"  -t, --test NAME   run only NAME (shell glob; repeatable)\n"
		"  -s, --seed N      seed for this run (default: random, printed)\n"
		"  -f, --fault SPEC  fault injection for every test, e.g. p=0.01 or nth=5\n"
		"                    (keys: nth, p, times, seed, sites, nowait; also KSIM_FAULT)\n"
		"  -v, --verbose     more output; -q, --quiet less\n"
		"environment: KSIM_SEED, KSIM_FAULT, KSIM_VERBOSE, KSIM_LOGLEVEL\n",
		prog);
}

static bool selected(const struct ksim_test *t, char **names, int nr_names)
{
	if (!nr_names)
		return true;
	for (int i = 0; i < nr_names; i++)
		if (!fnmatch(names[i], t->name, 0))
			return true;
	return false;
}

/* The --fault spec (or KSIM_FAULT) this run uses, for replay lines. */
static const char *replay_fault;

static bool run_one(const struct ksim_test *t, int idx, const struct ksim_fault_config *fault)
{
	struct ksim_task *task = ksim_task();
	double t0 = now(), dt;
	unsigned long problems;
	bool ok;

	running = t;
	test_seed = fnv1a(t->name, 0xcbf29ce484222325ULL ^ ksim_seed());
	ksim_rng_seed(&test_rng, test_seed);
	ksim_problems_reset();
	if (fault)
		ksim_fault_set(fault);
	else
		ksim_fault_reset();
	ksim_slab_mark();
	if (ksim_test_setup_hook)
		ksim_test_setup_hook();

	t->fn();

	ksim_fault_suspend();
	rcu_barrier();
	if (task->rcu_urcu_nesting) {
		ksim_problem(KSIM_P_RCU, t->file, 0, "test %s returned inside an RCU read-side critical section", t->name);
		task->rcu_urcu_nesting = 0;
	}
	if (task->nr_held) {
		ksim_problem(KSIM_P_LOCKDEP, t->file, 0, "test %s returned holding %d lock(s)", t->name, task->nr_held);
		ksim_lockdep_print_held_locks();
		task->nr_held = 0;
	}
	if (task->preempt_count || task->irqs_off || task->softirq_count) {
		ksim_problem(KSIM_P_LOCKDEP, t->file, 0,
			     "test %s returned with preempt_count %d, irqs_off %d, softirq %d",
			     t->name, task->preempt_count, task->irqs_off, task->softirq_count);
		task->preempt_count = task->irqs_off = task->softirq_count = 0;
	}
	ksim_slab_leak_check(stderr);
	ksim_fault_resume();
	ksim_fault_reset();

	problems = ksim_problem_total();
	ok = problems == 0;
	dt = now() - t0;
	fflush(stderr);
	printf("%s %d - %s # %.2fs\n", ok ? "ok" : "not ok", idx, t->name, dt);
	if (!ok) {
		printf("# %s: %lu problem(s):", t->name, problems);
		for (int k = 0; k < KSIM_P_NR; k++)
			if (ksim_problem_count(k))
				printf(" %s=%lu", ksim_problem_names[k], ksim_problem_count(k));
		printf("\n# replay: %s -t '%s' --seed %" PRIu64 "%s%s%s\n", prog, t->name, ksim_seed(),
		       replay_fault ? " --fault '" : "", replay_fault ? replay_fault : "",
		       replay_fault ? "'" : "");
	}
	fflush(stdout);
	running = NULL;
	return ok;
}

int ksim_test_run_in_child(void (*fn)(void *arg), void *arg)
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
		int fd = open("/dev/null", O_WRONLY);

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

static int cmp_test(const void *a, const void *b)
{
	const struct ksim_test *x = *(const struct ksim_test *const *)a;
	const struct ksim_test *y = *(const struct ksim_test *const *)b;

	return strcmp(x->file, y->file);
}

int ksim_test_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "test", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 's' },
		{ "fault", required_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ksim_fault_config fault_cfg, *fault = NULL;
	const char *fault_spec = NULL;
	static char *names[MAX_TESTS];
	int nr_names = 0, c, idx = 0, failed = 0, planned = 0;
	bool list = false;
	char err[160];

	prog = argv[0];
	while ((c = getopt_long(argc, argv, "lt:s:f:vqh", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			list = true;
			break;
		case 't':
			if (nr_names < MAX_TESTS)
				names[nr_names++] = optarg;
			break;
		case 's':
			if (ksim_parse_seed(prog, optarg))
				return 2;
			break;
		case 'f':
			/* Parsed once the seed is final: a spec without seed= takes the run's. */
			fault_spec = optarg;
			break;
		case 'v':
			ksim_verbose++;
			break;
		case 'q':
			ksim_verbose = 0;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "%s: bad option (try --help)\n", prog);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (try --help)\n", prog, argv[optind]);
		return 2;
	}
	ksim_seed_default();
	ksim_init();
	if (!fault_spec && getenv("KSIM_FAULT") && *getenv("KSIM_FAULT"))
		fault_spec = getenv("KSIM_FAULT");
	if (fault_spec) {
		if (ksim_fault_parse(fault_spec, &fault_cfg, err, sizeof(err))) {
			fprintf(stderr, "%s: --fault %s: %s\n", prog, fault_spec, err);
			return 2;
		}
		fault = &fault_cfg;
		replay_fault = fault_spec;
	}
	/* Stable order: registration order within a file, files by name. */
	qsort(tests, nr_tests, sizeof(tests[0]), cmp_test);
	if (list) {
		for (int i = 0; i < nr_tests; i++)
			printf("%s\n", tests[i]->name);
		return 0;
	}
	for (int i = 0; i < nr_tests; i++)
		planned += selected(tests[i], names, nr_names);
	for (int i = 0; i < nr_names; i++) {
		bool any = false;

		for (int j = 0; j < nr_tests; j++)
			any |= !fnmatch(names[i], tests[j]->name, 0);
		if (!any) {
			fprintf(stderr, "%s: no test matches '%s' (try --list)\n", prog, names[i]);
			return 2;
		}
	}
	printf("TAP version 13\n1..%d\n# seed %" PRIu64 " (replay: %s --seed %" PRIu64 ")\n",
	       planned, ksim_seed(), prog, ksim_seed());
	fflush(stdout);
	for (int i = 0; i < nr_tests; i++) {
		if (!selected(tests[i], names, nr_names))
			continue;
		failed += !run_one(tests[i], ++idx, fault);
	}
	if (ksim_test_summary_hook)
		ksim_test_summary_hook();
	printf("# %d passed, %d failed\n", idx - failed, failed);

	return failed ? 1 : 0;
}
