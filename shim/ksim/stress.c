// SPDX-License-Identifier: GPL-2.0
/*
 * The stress runner (see ksim/stress.h): command line, threads, progress,
 * the SUMMARY line and the exit status.
 */
#define _GNU_SOURCE	/* pthread_timedjoin_np() */
#include <inttypes.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <linux/rcupdate.h>
#include <ksim/fault.h>
#include <ksim/run.h>
#include <ksim/sched.h>
#include <ksim/asan.h>
#include <ksim/slab.h>
#include <ksim/stress.h>
#include <ksim/yield.h>

int ksim_stress_stop;
static unsigned long failures;
static int nr_threads[KSIM_STRESS_MAX_ROLES];
static double duration = 10;
static const char *prog;
static char replay[1024];

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
#elif KSIM_ASAN
	return "asan";
#else
	return "none";
#endif
}

/* The stress mode's report of a failed check (ksim_fail()): print, count, stop the run. */
static __thread int thread_id = -1;

static void report(const char *file, int line, const char *text)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

	pthread_mutex_lock(&lock);
	failures++;
	if (failures <= 10) {
		fprintf(stderr, "ksim stress: FAILED check at %s:%d (thread %d)\n  %s\n", file, line,
			thread_id, text);
		ksim_dump_stack();
	}
	pthread_mutex_unlock(&lock);
	__atomic_store_n(&ksim_stress_stop, 1, __ATOMIC_RELEASE);
}

void ksim_stress_fail(struct ksim_stress_thread *t, const char *file, int line,
		      const char *fmt, ...)
{
	va_list ap;

	(void)t;	/* the failing thread is the calling one */
	va_start(ap, fmt);
	ksim_vfail(file, line, NULL, fmt, ap);
	va_end(ap);
}

static void *thread_main(void *arg)
{
	struct ksim_stress_thread *t = arg;
	struct ksim_stress *s = t->priv;

	if (ksim_sched_enabled)
		ksim_sched_enter(t->id);
	thread_id = t->id;
	t->priv = NULL;
	rcu_register_thread();
	s->roles[t->role].fn(t);
	rcu_unregister_thread();
	if (ksim_sched_enabled)
		ksim_sched_exit();
	return NULL;
}

/*
 * A thread that has not returned this long after the run ended is hung: a
 * reader looping in a structure freed under it, a lost wakeup, a deadlock.
 * The setup and the teardown (final checks, frees) get as long: a walk of a
 * structure left with a cycle hangs the main thread.  CTest's timeout would
 * kill the program and keep neither the stacks nor the replay; this reports
 * the hang as a failed check with both.  (The deterministic scheduler has
 * its own detector: shim/ksim/sched.c.)
 */
static double stop_grace = 30;

#ifndef KSIM_TSAN
static int stack_dumped;

static void dump_stuck_thread(int sig)
{
	int saved = errno;

	(void)sig;
	ksim_dump_stack();
	__atomic_store_n(&stack_dumped, 1, __ATOMIC_RELEASE);
	errno = saved;
}
#endif

/* The stacks of a hang: every thread's by gdb, else the stuck one's (not under TSan). */
static void hang_stacks(pthread_t stuck)
{
	fprintf(stderr, "  every thread's stack (gdb):\n");
	if (ksim_dump_all_stacks(getpid()))
		return;
#ifdef KSIM_TSAN
	/* TSan reports the symbolizer's malloc() in a signal handler. */
	fprintf(stderr, "  (gdb could not run: install it, or replay in an ASan build for the stuck thread's stack)\n");
#else
	fprintf(stderr, "  (gdb could not run) the stuck thread's stack:\n");
	signal(SIGUSR2, dump_stuck_thread);
	pthread_kill(stuck, SIGUSR2);
	for (int ms = 0; ms < 5000 && !__atomic_load_n(&stack_dumped, __ATOMIC_ACQUIRE); ms += 10)
		usleep(10000);
#endif
}

static __attribute__((noreturn)) void hang_exit(const char *name)
{
	printf("SUMMARY prog=%s result=FAIL hang\n# replay: %s\n", name, replay);
	fflush(stdout);
	fflush(stderr);
	_exit(1);
}

static void join_threads(pthread_t *tids, const struct ksim_stress_thread *threads, int nr,
			 const struct ksim_stress *s)
{
	struct timespec deadline;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += (time_t)stop_grace;
	deadline.tv_nsec += (long)((stop_grace - (time_t)stop_grace) * 1e9);
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	for (int i = 0; i < nr; i++) {
		if (pthread_timedjoin_np(tids[i], NULL, &deadline) != ETIMEDOUT)
			continue;
		fprintf(stderr, "ksim stress: FAILED check: thread %d (%s %d) still running %g s after the"
			" run ended: a hang (a loop in a structure changed under it, a lost wakeup, a"
			" deadlock)\n", threads[i].id, s->roles[threads[i].role].name,
			threads[i].index, stop_grace);
		hang_stacks(tids[i]);
		hang_exit(s->name);
	}
}

/*
 * The watchdog of the main thread's phases is a process: the program forks
 * before it starts any thread, runs in the child and the parent watches.
 * Not alarm(): under TSan a signal waits for its thread's next intercepted
 * call, and a thread looping in a corrupted structure makes none (CI,
 * 7.2.13: maple-fault-yield's SIGALRM never fired, CTest killed it at
 * 120 s).  Not a thread either: a 7.2.13 maple_stress run with a watchdog
 * thread printed nothing until killed.  The parent, not the child: the
 * exit status CTest sees stays the program's own, and is 1 after a hang.
 * The main thread writes one byte per phase; a phase that outlives its
 * limit gets every thread's stack (gdb) and the replay line, and the
 * program is killed.
 */
enum { PHASE_SETUP = 'S', PHASE_RUN = 'R', PHASE_JOIN = 'J', PHASE_TEARDOWN = 'T', PHASE_EXIT = 'E' };
static int watch_fd = -1;

static void watch_phase(char phase)
{
	if (watch_fd >= 0 && write(watch_fd, &phase, 1) != 1) {
		close(watch_fd);
		watch_fd = -1;
	}
}

/* A phase's limit in ms, -1 for none, and its name. */
static int phase_limit(char phase, const char **name)
{
	switch (phase) {
	case PHASE_SETUP:
		*name = "the setup";
		break;
	case PHASE_RUN:
		*name = "the run";
		/* Only a deterministic run bounded by steps has no duration. */
		return duration ? (int)((duration + stop_grace) * 1000) : -1;
	case PHASE_JOIN:
		/* After join_threads()'s own check, which names the thread. */
		*name = "the end of the run (joining the threads)";
		return (int)((stop_grace + 20) * 1000);
	case PHASE_TEARDOWN:
		*name = "the teardown";
		break;
	default:
		*name = "the exit";
		break;
	}
	return (int)(stop_grace * 1000);
}

/*
 * Which of @pid's threads run and which wait, over half a second: the one
 * that spins is the hang's loop, the rest wait for it (gdb's "LWP" is the
 * thread id here).
 */
static void thread_states(pid_t pid)
{
	enum { MAX = 64 };
	struct { int tid; unsigned long ticks; } t[MAX];
	char path[320];
	int n = 0;
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return;
	for (int round = 0; round < 2; round++) {
		if (round)
			usleep(500000);
		rewinddir(d);
		for (int i = 0; (e = readdir(d)) && i < MAX; ) {
			unsigned long ut = 0, st = 0;
			char buf[512], *p, state = '?';
			FILE *f;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", (int)pid, e->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;
			/* after the ")" of comm: state, then utime and stime are fields 14 and 15 */
			if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
				sscanf(p + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &state, &ut, &st);
			fclose(f);
			if (!round) {
				t[i].tid = atoi(e->d_name);
				t[i].ticks = ut + st;
				n = ++i;
			} else {
				for (int k = 0; k < n; k++)
					if (t[k].tid == atoi(e->d_name)) {
						fprintf(stderr, "  thread LWP %d: %s, %.0f%% of a CPU over 0.5 s\n",
							t[k].tid, state == 'R' ? "running" : "waiting",
							(ut + st - t[k].ticks) * 100.0 / sysconf(_SC_CLK_TCK) / 0.5);
						break;
					}
				i++;
			}
		}
	}
	closedir(d);
}

/* The parent: exits as the program did, or with 1 after a hang it reported. */
static __attribute__((noreturn)) void watchdog(int fd, pid_t child, const char *name)
{
	char phase = PHASE_SETUP;
	struct rlimit no_core = { 0, 0 };
	int status;

	for (;;) {
		const char *what;
		int limit = phase_limit(phase, &what);
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, limit);

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) {
			fprintf(stderr, "ksim stress: FAILED check: %s still running after %g s: a hang (a"
				" loop in a structure the threads left, a lost wakeup, a deadlock)\n",
				what, limit / 1000.0);
			thread_states(child);
			fprintf(stderr, "  every thread's stack (gdb):\n");
			if (!ksim_dump_all_stacks(child))
				fprintf(stderr, "  (gdb could not run: install it; without it an ASan build"
					" prints a thread still running after the run)\n");
			kill(child, SIGKILL);
			waitpid(child, &status, 0);
			hang_exit(name);
		}
		if (r < 0 || read(fd, &phase, 1) != 1)
			break;	/* the program ended */
	}
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			_exit(2);
	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	/* Die as the program died (the child dumped any core). */
	setrlimit(RLIMIT_CORE, &no_core);
	signal(WTERMSIG(status), SIG_DFL);
	kill(getpid(), WTERMSIG(status));
	_exit(128 + WTERMSIG(status));
}

static void watchdog_start(const char *name)
{
	pid_t parent = getpid(), child;
	int fds[2];

	if (pipe2(fds, O_CLOEXEC)) {
		perror("pipe2");
		exit(2);
	}
	fflush(stdout);
	fflush(stderr);
	child = fork();
	if (child < 0) {
		perror("fork");
		exit(2);
	}
	if (child) {
		close(fds[1]);
		watchdog(fds[0], child, name);
	}
	close(fds[0]);
	watch_fd = fds[1];
	/* Killed with the watchdog (a timeout in CTest or ksim-xfail kills that one). */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != parent)
		_exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The stress mode's own options (ksim/run.h adds --seed, --fault, -v...). */
enum { OPT_ROLE = 256, OPT_YIELD, OPT_SCHED, OPT_STEPS, OPT_HANG };
static const struct ksim_run_option stress_options[] = {
	{ "readers", 'r', "N", "reader threads (the first role)" },
	{ "writers", 'w', "N", "writer threads (the second role)" },
	{ "role", OPT_ROLE, "NAME=N", "threads of any role" },
	{ "duration", 'd', "SECONDS", "run time (default 10; fractions allowed)" },
	{ "yield", OPT_YIELD, "P", "yield the CPU at shim yield points with probability P" },
	{ "sched", OPT_SCHED, "P", "deterministic schedule: switch threads with probability P" },
	{ "steps", OPT_STEPS, "N", "with --sched: stop at step N" },
	{ "hang", OPT_HANG, "SECONDS", "a thread still running this long after the run is a hang (default 30)" },
	{ NULL, 0, NULL, NULL },
};

static struct {
	struct ksim_stress *s;
	int nr_roles;
	double yield_p, sched_p;
	unsigned long max_steps;
	bool duration_set;
} cmd;

static void stress_help(struct ksim_options *o, FILE *out)
{
	(void)o;
	fprintf(out, "  roles:");
	for (int r = 0; r < cmd.nr_roles; r++)
		fprintf(out, " %s (default %d)", cmd.s->roles[r].name, cmd.s->roles[r].nr);
	fprintf(out, "\n  see shim/include/ksim/stress.h\n");
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

static int stress_set(struct ksim_options *o, int key, const char *arg)
{
	struct ksim_stress *s = cmd.s;
	const char *eq;
	char *end;
	int r;

	prog = o->prog;
	switch (key) {
	case 'r':
	case 'w':
		return parse_count(key == 'r' ? "-r" : "-w", arg, &nr_threads[key == 'r' ? 0 : 1]);
	case OPT_ROLE:
		eq = strchr(arg, '=');
		if (eq) {
			for (r = 0; r < cmd.nr_roles; r++)
				if (!strncmp(s->roles[r].name, arg, eq - arg) &&
				    !s->roles[r].name[eq - arg])
					return parse_count("--role", eq + 1, &nr_threads[r]);
		}
		fprintf(stderr, "%s: --role %s: expected NAME=N with a role of this program (try --help)\n",
			prog, arg);
		return -1;
	case OPT_HANG:
		return parse_double("--hang", arg, &stop_grace);
	case 'd':
		cmd.duration_set = true;
		return parse_double("-d", arg, &duration);
	case OPT_SCHED:
		if (parse_double("--sched", arg, &cmd.sched_p) || cmd.sched_p == 0 || cmd.sched_p > 1) {
			fprintf(stderr, "%s: --sched %s: expected a switch probability in (0, 1]\n",
				prog, arg);
			return -1;
		}
		return 0;
	case OPT_STEPS:
		cmd.max_steps = strtoul(arg, &end, 0);
		if (*end || !*arg || !cmd.max_steps) {
			fprintf(stderr, "%s: --steps %s: expected a positive step count\n", prog, arg);
			return -1;
		}
		return 0;
	case OPT_YIELD:
		if (parse_double("--yield", arg, &cmd.yield_p) || cmd.yield_p > 1) {
			fprintf(stderr, "%s: --yield %s: expected a probability 0..1\n", prog, arg);
			return -1;
		}
		return 0;
	}
	return -1;
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
	static struct ksim_options opts = {
		.mode = KSIM_RUN_STRESS,
		.own = stress_options,
		.set = stress_set,
		.help = stress_help,
		.report = report,
	};
	static struct ksim_stress_thread threads[KSIM_STRESS_MAX_THREADS];
	pthread_t tids[KSIM_STRESS_MAX_THREADS];
	double fault_p, yield_p, sched_p, t0, elapsed;
	unsigned long ops[KSIM_STRESS_MAX_ROLES] = { 0 }, checks = 0, problems, leaked;
	int nr = 0, nr_roles = 0, status;
	char num[64];
	uint64_t seed;

	prog = argv[0];
	while (nr_roles < KSIM_STRESS_MAX_ROLES && s->roles[nr_roles].name) {
		nr_threads[nr_roles] = s->roles[nr_roles].nr;
		nr_roles++;
	}
	cmd.s = s;
	cmd.nr_roles = nr_roles;
	opts.what = s->what;
	if (!ksim_options_parse(&opts, argc, argv, &status))
		return status;
	if (opts.list) {
		for (int r = 0; r < nr_roles; r++)
			printf("%s\n", s->roles[r].name);
		return 0;
	}
	if (opts.nr_names) {
		fprintf(stderr, "%s: -t %s: a stress program has no tests (its roles: --list, --role NAME=N)\n",
			prog, opts.names[0]);
		return 2;
	}
	yield_p = cmd.yield_p;
	sched_p = cmd.sched_p;
	fault_p = opts.fault_spec ? opts.fault.probability : 0;
	if (sched_p && yield_p) {
		fprintf(stderr, "%s: --sched and --yield exclude each other (--sched decides every switch)\n",
			prog);
		return 2;
	}
	if (cmd.max_steps && !sched_p) {
		fprintf(stderr, "%s: --steps needs --sched\n", prog);
		return 2;
	}
	/* A step budget alone bounds a deterministic run: no clock unless asked. */
	if (cmd.max_steps && !cmd.duration_set)
		duration = 0;
	seed = ksim_seed();
	if (yield_p)
		ksim_set_yield(yield_p);
	for (int r = 0; r < nr_roles; r++)
		nr += nr_threads[r];
	if (nr > KSIM_STRESS_MAX_THREADS) {
		fprintf(stderr, "%s: %d threads: at most %d\n", prog, nr, KSIM_STRESS_MAX_THREADS);
		return 2;
	}
	ksim_run_replay(NULL, replay, sizeof(replay));
	if (!sched_p) {
		snprintf(num, sizeof(num), "%g", duration);
		ksim_run_replay_add(replay, sizeof(replay), "-d", num);
	}
	for (int r = 0; r < nr_roles; r++) {
		snprintf(num, sizeof(num), "%s=%d", s->roles[r].name, nr_threads[r]);
		ksim_run_replay_add(replay, sizeof(replay), "--role", num);
	}
	if (yield_p) {
		snprintf(num, sizeof(num), "%g", yield_p);
		ksim_run_replay_add(replay, sizeof(replay), "--yield", num);
	}
	if (sched_p) {
		snprintf(num, sizeof(num), "%g", sched_p);
		ksim_run_replay_add(replay, sizeof(replay), "--sched", num);
		/* With --steps the run's length is fixed: the command replays it as is. */
		if (cmd.max_steps) {
			snprintf(num, sizeof(num), "%lu", cmd.max_steps);
			ksim_run_replay_add(replay, sizeof(replay), "--steps", num);
			printf("# %s: seed %" PRIu64 ", deterministic schedule (replay: %s)\n",
			       s->name, seed, replay);
		} else {
			printf("# %s: seed %" PRIu64 ", deterministic schedule (the replay command at the end names the step count)\n",
			       s->name, seed);
		}
		/* Before setup: RCU then never starts its worker thread. */
		ksim_sched_enable(seed, sched_p, cmd.max_steps, &ksim_stress_stop);
	} else {
		printf("# %s: seed %" PRIu64 " (replay: %s)\n", s->name, seed, replay);
	}
	fflush(stdout);

	watchdog_start(s->name);
	ksim_slab_mark();
	if (s->setup)
		s->setup();
	/* After setup: the program's own state is built without failures. */
	ksim_run_fault_arm();

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
	watch_phase(PHASE_RUN);
	if (ksim_sched_enabled) {
		ksim_sched_run(tick);
	} else {
		while (now() - t0 < duration && ksim_stress_running()) {
			usleep(20000);
			tick();
		}
	}
	__atomic_store_n(&ksim_stress_stop, 1, __ATOMIC_RELEASE);
	watch_phase(PHASE_JOIN);
	join_threads(tids, threads, nr, s);
	watch_phase(PHASE_TEARDOWN);
	elapsed = now() - t0;
	ksim_fault_reset();
	ksim_run_fault_summary(stdout);
	for (int i = 0; i < nr; i++) {
		ops[threads[i].role] += threads[i].ops;
		checks += threads[i].checks;
	}

	if (s->teardown)
		s->teardown();
	problems = ksim_run_check("the stress teardown", __FILE__, KSIM_RUN_ALWAYS_WALK, &leaked);

	printf("SUMMARY prog=%s seed=%" PRIu64 " seconds=%.1f sanitizer=%s", s->name, seed, elapsed,
	       sanitizer());
	for (int r = 0; r < nr_roles; r++)
		printf(" %ss=%d %s_ops_per_s=%.0f", s->roles[r].name, nr_threads[r], s->roles[r].name,
		       ops[r] / elapsed);
	printf(" checks=%lu failures=%lu problems=%lu leaked=%lu fault=%g yield=%g",
	       checks, failures, problems, leaked, fault_p, yield_p);
	if (sched_p) {
		unsigned long stop, steps = ksim_sched_steps(&stop);

		printf(" sched=%g steps=%lu", sched_p, steps);
		/* The step at which the run stopped makes the replay exact; a run
		 * that stopped on a failure never reaches its step count. */
		if (!cmd.max_steps) {
			snprintf(num, sizeof(num), "%lu", stop ? stop : steps + 1);
			ksim_run_replay_add(replay, sizeof(replay), "--steps", num);
		}
	}
	printf(" result=%s\n", failures || problems ? "FAIL" : "PASS");
	if (failures || problems)
		printf("# replay: %s\n", replay);
	fflush(stdout);
	/* Still watched: exit handlers (the RCU worker's last callbacks) can loop too. */
	watch_phase(PHASE_EXIT);
	return failures || problems ? 1 : 0;
}

/* ---- the operation log (ksim/stress.h) ---- */

void ksim_oplog_put(struct ksim_oplog_entry *log, unsigned int size, unsigned long seq,
		    unsigned long first, unsigned long last, unsigned int kind)
{
	struct ksim_oplog_entry *e = &log[seq % size];

	__atomic_store_n(&e->seq, 0, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&e->first, first, __ATOMIC_RELAXED);
	__atomic_store_n(&e->last, last, __ATOMIC_RELAXED);
	__atomic_store_n(&e->kind, kind, __ATOMIC_RELAXED);
	__atomic_store_n(&e->failed, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&e->seq, seq, __ATOMIC_RELEASE);
}

void ksim_oplog_set_failed(struct ksim_oplog_entry *log, unsigned int size, unsigned long seq)
{
	__atomic_store_n(&log[seq % size].failed, 1, __ATOMIC_RELEASE);
}

bool ksim_oplog_get(const struct ksim_oplog_entry *log, unsigned int size, unsigned long seq,
		    struct ksim_oplog_entry *out)
{
	const struct ksim_oplog_entry *e = &log[seq % size];

	if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) != seq)
		return false;
	out->first = __atomic_load_n(&e->first, __ATOMIC_RELAXED);
	out->last = __atomic_load_n(&e->last, __ATOMIC_RELAXED);
	out->kind = __atomic_load_n(&e->kind, __ATOMIC_RELAXED);
	out->failed = __atomic_load_n(&e->failed, __ATOMIC_ACQUIRE);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	out->seq = seq;
	return __atomic_load_n(&e->seq, __ATOMIC_RELAXED) == seq;
}
