// SPDX-License-Identifier: GPL-2.0
/*
 * ksim core, the shim's base: problem reporting, BUG(), the seeded PRNG, the
 * run's seed and process init.  It calls nothing above it: subsystems
 * register their init here (ksim_initcall(), ksim/ksim.h).
 */
#include <errno.h>
#include <execinfo.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <ksim/ksim.h>

const char *const ksim_problem_names[KSIM_P_NR] = {
	[KSIM_P_WARN]		= "WARNING",
	[KSIM_P_LOCKDEP]	= "lockdep",
	[KSIM_P_RCU]		= "suspicious RCU usage",
	[KSIM_P_SLEEP]		= "sleeping function called from invalid context",
	[KSIM_P_LEAK]		= "memory leak",
	[KSIM_P_TEST]		= "test failure",
};

static unsigned long problem_count[KSIM_P_NR];
static unsigned long problem_expected[KSIM_P_NR];
static enum ksim_policy problem_policy[KSIM_P_NR];
static unsigned long problem_sites[KSIM_P_NR];
int ksim_verbose = 1;

/* Sanitizer runtimes print symbolized stacks; use theirs when linked in. */
extern void __sanitizer_print_stack_trace(void) __attribute__((weak));

void ksim_dump_stack(void)
{
	void *frames[48];
	int n;

	fflush(stdout);
	if (__sanitizer_print_stack_trace) {
		__sanitizer_print_stack_trace();
		return;
	}
	n = backtrace(frames, 48);
	backtrace_symbols_fd(frames + 1, n - 1, STDERR_FILENO);
}

/*
 * Every thread's stack of process @pid (this one, or the stress program a
 * watchdog parent watches: shim/ksim/stress.c), printed by gdb attached to
 * it.  A thread looping without a system call cannot be reached by a signal
 * under TSan,
 * which delivers signals only at intercepted calls; a debugger stops it
 * where it is.  posix_spawn(), not fork(): the child must not run the
 * sanitizer's fork handlers beside a looping thread.  False when gdb is not
 * installed, could not attach, or took longer than 60 s.
 */
extern char **environ;

bool ksim_dump_all_stacks(int pid)
{
	char num[32];
	char *argv[] = { "gdb", "-batch", "-nx", "-q", "-p", num,
			 "-ex", "thread apply all bt 40", NULL };
	posix_spawn_file_actions_t fa;
	pid_t child;
	int status = -1;

	snprintf(num, sizeof(num), "%d", (int)pid);
	fflush(stdout);
	fflush(stderr);
	/* Yama (ptrace_scope 1) lets only an ancestor trace, unless allowed. */
	if (pid == getpid())
		prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
	if (posix_spawnp(&child, "gdb", &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		return false;
	}
	posix_spawn_file_actions_destroy(&fa);
	for (int ms = 0; ms < 60000; ms += 50) {
		pid_t r = waitpid(child, &status, WNOHANG);

		if (r == child)
			return WIFEXITED(status) && WEXITSTATUS(status) == 0;
		if (r < 0 && errno != EINTR)
			return false;
		usleep(50000);
	}
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	return false;
}

void ksim_problem_set_policy(enum ksim_problem kind, enum ksim_policy policy)
{
	problem_policy[kind] = policy;
}

unsigned long ksim_problem_sites(enum ksim_problem kind)
{
	return __atomic_load_n(&problem_sites[kind], __ATOMIC_RELAXED);
}

/* Call sites already reported under REPORT_ONCE: (kind, file, line). */
#define SEEN_SLOTS 4096
static struct { const char *file; int line; int kind; } seen[SEEN_SLOTS];
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

static bool seen_at(unsigned int h, enum ksim_problem kind, const char *file, int line)
{
	return __atomic_load_n(&seen[h].file, __ATOMIC_ACQUIRE) == file && seen[h].line == line &&
	       seen[h].kind == (int)kind;
}

static bool first_at_site(enum ksim_problem kind, const char *file, int line)
{
	uintptr_t h = ((uintptr_t)file * 31 + line * 7 + kind) % SEEN_SLOTS;
	bool first = true;

	/*
	 * A site seen before is found without the lock: the kernel's own tests
	 * reach the same listed site millions of times (mt_validate() without
	 * the tree lock was 12% of the maple suite's farmer part, mostly this
	 * lock).  Slots are filled once, file last (release).
	 */
	for (unsigned int i = 0, k = h; i < 8; i++, k = (k + 1) % SEEN_SLOTS) {
		if (!__atomic_load_n(&seen[k].file, __ATOMIC_ACQUIRE))
			break;
		if (seen_at(k, kind, file, line))
			return false;
	}
	pthread_mutex_lock(&seen_lock);
	for (unsigned int i = 0; i < SEEN_SLOTS; i++, h = (h + 1) % SEEN_SLOTS) {
		if (!seen[h].file) {
			seen[h].line = line;
			seen[h].kind = kind;
			__atomic_store_n(&seen[h].file, file, __ATOMIC_RELEASE);
			problem_sites[kind]++;
			break;
		}
		if (seen[h].file == file && seen[h].line == line && seen[h].kind == (int)kind) {
			first = false;
			break;
		}
	}
	pthread_mutex_unlock(&seen_lock);
	return first;
}

bool ksim_problem(enum ksim_problem kind, const char *file, int line,
		  const char *fmt, ...)
{
	unsigned long n;
	bool expected;
	va_list ap;

	if (problem_policy[kind] == KSIM_POLICY_REPORT_ONCE) {
		if (!first_at_site(kind, file, line))
			return false;
		fflush(stdout);
		fprintf(stderr, "ksim: %s (reported once per site, not failing): %s:%d: ",
			ksim_problem_names[kind], file, line);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
		return true;
	}
	n = __atomic_add_fetch(&problem_count[kind], 1, __ATOMIC_RELAXED);
	expected = n <= __atomic_load_n(&problem_expected[kind], __ATOMIC_RELAXED);

	fflush(stdout);
	flockfile(stderr);
	fprintf(stderr, "ksim: %s%s: %s:%d: ", ksim_problem_names[kind],
		expected ? " (expected)" : "", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	funlockfile(stderr);
	/* Splats carry a backtrace like the kernel's; expected ones don't. */
	if (!expected && kind != KSIM_P_LEAK && kind != KSIM_P_TEST)
		ksim_dump_stack();
	return true;
}

void ksim_bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "ksim: BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	ksim_dump_stack();
	fprintf(stderr, "ksim: replay with KSIM_SEED=%" PRIu64 "\n", ksim_seed());
	abort();
}

unsigned long ksim_problem_count(enum ksim_problem kind)
{
	return __atomic_load_n(&problem_count[kind], __ATOMIC_RELAXED);
}

unsigned long ksim_problem_total(void)
{
	unsigned long total = 0;

	for (int k = 0; k < KSIM_P_NR; k++) {
		unsigned long c = ksim_problem_count(k);

		if (c > problem_expected[k])
			total += c - problem_expected[k];
	}
	return total;
}

void ksim_expect_problems(enum ksim_problem kind, unsigned long n)
{
	__atomic_add_fetch(&problem_expected[kind], n, __ATOMIC_RELAXED);
}

void ksim_problems_reset(void)
{
	for (int k = 0; k < KSIM_P_NR; k++) {
		__atomic_store_n(&problem_count[k], 0, __ATOMIC_RELAXED);
		__atomic_store_n(&problem_expected[k], 0, __ATOMIC_RELAXED);
	}
}

/* xoshiro256** seeded through splitmix64. */
static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void ksim_rng_seed(struct ksim_rng *rng, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		rng->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(const uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t ksim_rng_next(struct ksim_rng *rng)
{
	uint64_t *s = rng->s;
	const uint64_t result = rotl(s[1] * 5, 7) * 9;
	const uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t ksim_rng_below(struct ksim_rng *rng, uint64_t bound)
{
	if (bound == 0)
		return 0;
	return (uint64_t)(((unsigned __int128)ksim_rng_next(rng) * bound) >> 64);
}

static uint64_t run_seed;
static bool run_seed_set;

uint64_t ksim_seed(void)
{
	return run_seed;
}

void ksim_set_seed(uint64_t seed)
{
	run_seed = seed;
	run_seed_set = true;
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static struct ksim_initcall *initcalls;	/* by level, then registration order */
static bool init_done;

void ksim_initcall_register(struct ksim_initcall *c)
{
	struct ksim_initcall **p = &initcalls;

	/* Constructors run before main(), one thread; a late one runs at once. */
	if (__atomic_load_n(&init_done, __ATOMIC_ACQUIRE)) {
		c->fn();
		return;
	}
	while (*p && (*p)->level <= c->level)
		p = &(*p)->next;
	c->next = *p;
	*p = c;
}

static void ksim_do_init(void)
{
	const char *v = getenv("KSIM_VERBOSE");
	const char *seed = getenv("KSIM_SEED");

	if (v)
		ksim_verbose = atoi(v);
	/* A program without the run convention (ksim/run.h) still takes KSIM_SEED. */
	if (seed && !run_seed_set)
		ksim_set_seed(strtoull(seed, NULL, 0));
	for (struct ksim_initcall *c = initcalls; c; c = c->next)
		c->fn();
	__atomic_store_n(&init_done, true, __ATOMIC_RELEASE);
}

void ksim_init(void)
{
#ifdef KSIM_TSAN
	/* shim/ksim/tsan.c: an empty call that keeps the file (the sanitizer's
	 * defaults) linked; it depends on nothing. */
	void ksim_tsan_init(void);

	ksim_tsan_init();
#endif
	pthread_once(&init_once, ksim_do_init);
}

/*
 * UBSan reports with the stack that led there (a kernel function reached
 * from a stress thread or a fuzz input says little without it); here, in the
 * file every program links, so no environment variable is needed.
 */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
	return "print_stacktrace=1";
}
