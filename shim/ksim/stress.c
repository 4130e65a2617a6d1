// SPDX-License-Identifier: GPL-2.0
/*
 * The stress runner (see ksim/stress.h): command line, threads, progress,
 * the SUMMARY line and the exit status.
 */
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/rcupdate.h>
#include <ksim/fault.h>
#include <ksim/sched.h>
#include <ksim/slab.h>
#include <ksim/stress.h>

int ksim_stress_stop;
static unsigned long failures;
static int nr_threads[KSIM_STRESS_MAX_ROLES];
static double duration = 10;
static const char *prog;
static char replay[512];

int ksim_stress_threads(int role)
{
	return role < KSIM_STRESS_MAX_ROLES ? nr_threads[role] : 0;
}

double ksim_stress_duration(void)
{
	return duration;
}

static const char *sanitizer(void)
{
#if defined(KSIM_TSAN)
	return "tsan";
#elif defined(__SANITIZE_ADDRESS__)
	return "asan";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	return "asan";
#else
	return "none";
#endif
#else
	return "none";
#endif
}

void ksim_stress_fail(struct ksim_stress_thread *t, const char *file, int line,
		      const char *fmt, ...)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	va_list ap;

	pthread_mutex_lock(&lock);
	failures++;
	if (failures <= 10) {
		fprintf(stderr, "ksim stress: FAILED check at %s:%d (thread %d", file, line,
			t ? t->id : -1);
		fprintf(stderr, ")\n  ");
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fprintf(stderr, "\n");
		ksim_dump_stack();
	}
	pthread_mutex_unlock(&lock);
	__atomic_store_n(&ksim_stress_stop, 1, __ATOMIC_RELEASE);
}

static void *thread_main(void *arg)
{
	struct ksim_stress_thread *t = arg;
	struct ksim_stress *s = t->priv;

	if (ksim_sched_enabled)
		ksim_sched_enter(t->id);
	t->priv = NULL;
	rcu_register_thread();
	s->roles[t->role].fn(t);
	rcu_unregister_thread();
	if (ksim_sched_enabled)
		ksim_sched_exit();
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void usage(struct ksim_stress *s, FILE *out)
{
	fprintf(out, "usage: %s [-r READERS] [-w WRITERS] [-d SECONDS] [-s SEED] [--fault P|SPEC] [--yield P]\n"
		"       [--sched P [--steps N]] [-v|-q]\n"
		"  --fault P: allocation failures with probability P; SPEC: the fault engine's\n"
		"  grammar (ksim/fault.h), e.g. class=lock,p=0.01 or class=all,p=0.005,sites=...\n"
		"%s\n  roles:", prog, s->what);
	for (int r = 0; r < KSIM_STRESS_MAX_ROLES && s->roles[r].name; r++)
		fprintf(out, " %s (default %d)", s->roles[r].name, s->roles[r].nr);
	fprintf(out, "\n  --role NAME=N sets any role's thread count; see shim/include/ksim/stress.h\n");
}

static int parse_double(const char *opt, const char *arg, double *out)
{
	char *end;

	*out = strtod(arg, &end);
	if (*end || !*arg || *out < 0) {
		fprintf(stderr, "%s: %s %s: not a non-negative number\n", prog, opt, arg);
		return -1;
	}
	return 0;
}

static int parse_count(const char *opt, const char *arg, int *out)
{
	char *end;
	long v = strtol(arg, &end, 0);

	if (*end || !*arg || v < 0 || v > KSIM_STRESS_MAX_THREADS) {
		fprintf(stderr, "%s: %s %s: not a thread count (0..%d)\n", prog, opt, arg,
			KSIM_STRESS_MAX_THREADS);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* What the progress tick reads (the main thread only). */
static struct {
	struct ksim_stress *s;
	struct ksim_stress_thread *threads;
	int nr, nr_roles;
	double t0, next_progress;
} run;

/* Main thread, every ~20-50 ms: progress line, and the time limit. */
static void tick(void)
{
	double elapsed = now() - run.t0;

	if (duration && elapsed >= duration) {
		if (ksim_sched_enabled)
			ksim_sched_request_stop();
		else
			__atomic_store_n(&ksim_stress_stop, 1, __ATOMIC_RELEASE);
	}
	if (elapsed < run.next_progress || !ksim_verbose)
		return;
	fprintf(stderr, "# %s: %.0f/%.0f s", run.s->name, elapsed, duration);
	for (int r = 0; r < run.nr_roles; r++) {
		unsigned long n = 0;

		for (int i = 0; i < run.nr; i++)
			if (run.threads[i].role == r)
				n += __atomic_load_n(&run.threads[i].ops, __ATOMIC_RELAXED);
		fprintf(stderr, " %s %.3g ops/s", run.s->roles[r].name, n / elapsed);
	}
	if (ksim_sched_enabled)
		fprintf(stderr, " (step %lu)", ksim_sched_steps(NULL));
	fprintf(stderr, "\n");
	run.next_progress += 5;
}

int ksim_stress_main(struct ksim_stress *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "readers", required_argument, NULL, 'r' },
		{ "writers", required_argument, NULL, 'w' },
		{ "role", required_argument, NULL, 'R' },
		{ "duration", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 's' },
		{ "fault", required_argument, NULL, 'f' },
		{ "yield", required_argument, NULL, 'y' },
		{ "sched", required_argument, NULL, 'S' },
		{ "steps", required_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct ksim_stress_thread threads[KSIM_STRESS_MAX_THREADS];
	pthread_t tids[KSIM_STRESS_MAX_THREADS];
	double fault_p = 0, yield_p = 0, sched_p = 0, t0, elapsed;
	const char *fault_spec = NULL;
	struct ksim_fault_config fault_cfg = { 0 };
	unsigned long max_steps = 0;
	bool duration_set = false;
	unsigned long ops[KSIM_STRESS_MAX_ROLES] = { 0 }, checks = 0, problems, leaked;
	int c, nr = 0, nr_roles = 0;
	char *eq;
	uint64_t seed = 0;

	prog = argv[0];
	while (nr_roles < KSIM_STRESS_MAX_ROLES && s->roles[nr_roles].name) {
		nr_threads[nr_roles] = s->roles[nr_roles].nr;
		nr_roles++;
	}
	while ((c = getopt_long(argc, argv, "r:w:d:s:vqh", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
		case 'w':
			if (parse_count(c == 'r' ? "-r" : "-w", optarg, &nr_threads[c == 'r' ? 0 : 1]))
				return 2;
			break;
		case 'R':
			eq = strchr(optarg, '=');
			if (eq) {
				int r;

				for (r = 0; r < nr_roles; r++)
					if (!strncmp(s->roles[r].name, optarg, eq - optarg) &&
					    !s->roles[r].name[eq - optarg])
						break;
				if (r < nr_roles) {
					if (parse_count("--role", eq + 1, &nr_threads[r]))
						return 2;
					break;
				}
			}
			fprintf(stderr, "%s: --role %s: expected NAME=N with a role of this program (try --help)\n",
				prog, optarg);
			return 2;
		case 'd':
			if (parse_double("-d", optarg, &duration))
				return 2;
			duration_set = true;
			break;
		case 'S':
			if (parse_double("--sched", optarg, &sched_p) || sched_p == 0 || sched_p > 1) {
				fprintf(stderr, "%s: --sched %s: expected a switch probability in (0, 1]\n",
					prog, optarg);
				return 2;
			}
			break;
		case 'n': {
			char *end;

			max_steps = strtoul(optarg, &end, 0);
			if (*end || !*optarg || !max_steps) {
				fprintf(stderr, "%s: --steps %s: expected a positive step count\n", prog, optarg);
				return 2;
			}
			break;
		}
		case 's':
			if (ksim_parse_seed(prog, optarg))
				return 2;
			break;
		case 'f':
			/* A bare probability (allocations), or a spec in the engine's grammar. */
			if (strchr(optarg, '=')) {
				fault_spec = optarg;
				break;
			}
			if (parse_double("--fault", optarg, &fault_p) || fault_p > 1) {
				fprintf(stderr, "%s: --fault %s: expected a probability 0..1 or a spec (key=value,...)\n",
					prog, optarg);
				return 2;
			}
			break;
		case 'y':
			if (parse_double("--yield", optarg, &yield_p) || yield_p > 1) {
				fprintf(stderr, "%s: --yield %s: expected a probability 0..1\n", prog, optarg);
				return 2;
			}
			break;
		case 'v':
			ksim_verbose++;
			break;
		case 'q':
			ksim_verbose = 0;
			break;
		case 'h':
			usage(s, stdout);
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
	if (sched_p && yield_p) {
		fprintf(stderr, "%s: --sched and --yield exclude each other (--sched decides every switch)\n",
			prog);
		return 2;
	}
	if (max_steps && !sched_p) {
		fprintf(stderr, "%s: --steps needs --sched\n", prog);
		return 2;
	}
	/* A step budget alone bounds a deterministic run: no clock unless asked. */
	if (max_steps && !duration_set)
		duration = 0;
	ksim_seed_default();
	ksim_init();
	seed = ksim_seed();
	if (yield_p)
		ksim_set_yield(yield_p);
	for (int r = 0; r < nr_roles; r++)
		nr += nr_threads[r];
	if (nr > KSIM_STRESS_MAX_THREADS) {
		fprintf(stderr, "%s: %d threads: at most %d\n", prog, nr, KSIM_STRESS_MAX_THREADS);
		return 2;
	}
	if (sched_p)
		snprintf(replay, sizeof(replay), "%s -s %" PRIu64, prog, seed);
	else
		snprintf(replay, sizeof(replay), "%s -d %g -s %" PRIu64, prog, duration, seed);
	for (int r = 0; r < nr_roles; r++) {
		size_t len = strlen(replay);

		snprintf(replay + len, sizeof(replay) - len, " --role %s=%d", s->roles[r].name, nr_threads[r]);
	}
	if (fault_spec) {
		/* After -s: a spec without seed= draws from the run's seed. */
		char err[160];
		size_t len = strlen(replay);

		if (ksim_fault_parse(fault_spec, &fault_cfg, err, sizeof(err))) {
			fprintf(stderr, "%s: --fault %s: %s\n", prog, fault_spec, err);
			return 2;
		}
		fault_p = fault_cfg.probability;
		snprintf(replay + len, sizeof(replay) - len, " --fault %s", fault_spec);
	} else if (fault_p) {
		size_t len = strlen(replay);

		fault_cfg = (struct ksim_fault_config){ .probability = fault_p, .seed = seed, .times = -1 };
		snprintf(replay + len, sizeof(replay) - len, " --fault %g", fault_p);
	}
	if (yield_p) {
		size_t len = strlen(replay);

		snprintf(replay + len, sizeof(replay) - len, " --yield %g", yield_p);
	}
	if (sched_p) {
		size_t len = strlen(replay);

		snprintf(replay + len, sizeof(replay) - len, " --sched %g", sched_p);
		printf("# %s: seed %" PRIu64 ", deterministic schedule (the replay command at the end names the step count)\n",
		       s->name, seed);
		/* Before setup: RCU then never starts its worker thread. */
		ksim_sched_enable(seed, sched_p, max_steps, &ksim_stress_stop);
	} else {
		printf("# %s: seed %" PRIu64 " (replay: %s)\n", s->name, seed, replay);
	}
	fflush(stdout);

	ksim_slab_mark();
	if (s->setup)
		s->setup();
	if (fault_spec || fault_p)
		ksim_fault_set(&fault_cfg);

	nr = 0;
	for (int r = 0; r < nr_roles; r++) {
		for (int i = 0; i < nr_threads[r]; i++, nr++) {
			struct ksim_stress_thread *t = &threads[nr];

			t->role = r;
			t->index = i;
			t->id = nr;
			ksim_rng_seed(&t->rng, seed ^ ((uint64_t)(r + 1) << 56) ^ ((uint64_t)i << 40));
			t->priv = s;
			if (ksim_sched_enabled && ksim_sched_add() != t->id) {
				fprintf(stderr, "%s: scheduler slots out of step\n", prog);
				exit(2);
			}
			if (pthread_create(&tids[nr], NULL, thread_main, t)) {
				perror("pthread_create");
				exit(2);
			}
		}
	}

	run.s = s;
	run.threads = threads;
	run.nr = nr;
	run.nr_roles = nr_roles;
	run.t0 = t0 = now();
	run.next_progress = 5;
	if (ksim_sched_enabled) {
		ksim_sched_run(tick);
	} else {
		while (now() - t0 < duration && ksim_stress_running()) {
			usleep(20000);
			tick();
		}
	}
	__atomic_store_n(&ksim_stress_stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < nr; i++)
		pthread_join(tids[i], NULL);
	elapsed = now() - t0;
	ksim_fault_reset();
	for (int i = 0; i < nr; i++) {
		ops[threads[i].role] += threads[i].ops;
		checks += threads[i].checks;
	}

	if (s->teardown)
		s->teardown();
	rcu_barrier();
	leaked = ksim_slab_leak_check(stderr);
	problems = ksim_problem_total();

	printf("SUMMARY prog=%s seed=%" PRIu64 " seconds=%.1f sanitizer=%s", s->name, seed, elapsed,
	       sanitizer());
	for (int r = 0; r < nr_roles; r++)
		printf(" %ss=%d %s_ops_per_s=%.0f", s->roles[r].name, nr_threads[r], s->roles[r].name,
		       ops[r] / elapsed);
	printf(" checks=%lu failures=%lu problems=%lu leaked=%lu fault=%g yield=%g",
	       checks, failures, problems, leaked, fault_p, yield_p);
	if (sched_p) {
		unsigned long stop, steps = ksim_sched_steps(&stop);
		size_t len = strlen(replay);

		printf(" sched=%g steps=%lu", sched_p, steps);
		/* The step at which the run stopped makes the replay exact; a run
		 * that stopped on a failure never reaches its step count. */
		snprintf(replay + len, sizeof(replay) - len, " --steps %lu",
			 stop ? stop : steps + 1);
	}
	printf(" result=%s\n", failures || problems ? "FAIL" : "PASS");
	if (failures || problems)
		printf("# replay: %s\n", replay);
	fflush(stdout);
	return failures || problems ? 1 : 0;
}
