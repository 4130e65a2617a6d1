/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test runner (shim/ksim/test.c), on the run convention every ksim
 * binary shares (ksim/run.h: the same options in stress programs and fuzz
 * replay binaries):
 *
 *   prog --list                 list tests
 *   prog -t NAME [-t NAME2]     run some (shell globs allowed)
 *   prog --seed N               replay: the run's seed (printed at start)
 *   prog --fault SPEC           fault injection for every test (ksim/fault.h)
 *   prog -v / -q                verbosity
 *
 * Output is TAP ("ok 3 - name"), exit status non-zero if any test failed.
 * Around every test the harness resets problem counts and arms the run's
 * --fault, and afterwards runs the end-of-run check (ksim_run_check(): RCU
 * callbacks, leaked objects, locks still held, an unbalanced RCU read
 * section or preempt count), failing the test on any problem not declared
 * expected.  A failing test prints the one-line command that replays it.
 */
#ifndef _KSIM_TEST_H
#define _KSIM_TEST_H

#include <stdint.h>
#include <unistd.h>
#include <ksim/ksim.h>
#include <ksim/run.h>

struct ksim_test {
	const char *name;
	void (*fn)(void);
	const char *file;
};

void ksim_test_register(const struct ksim_test *t);

#define KSIM_TEST(tname)						\
	static void ksim_test_fn_##tname(void);				\
	static const struct ksim_test ksim_test_desc_##tname = {	\
		.name = #tname, .fn = ksim_test_fn_##tname,		\
		.file = __FILE__,					\
	};								\
	__attribute__((constructor)) static void ksim_test_reg_##tname(void) \
	{ ksim_test_register(&ksim_test_desc_##tname); }		\
	static void ksim_test_fn_##tname(void)


/* The running test's PRNG, seeded from the run seed and the test name. */
struct ksim_rng *ksim_test_rng(void);
uint64_t ksim_test_seed(void);
const char *ksim_test_name(void);

/* Report a failed check: "expected COND[: formatted message]" (ksim_fail()). */
void ksim_test_fail(const char *file, int line, const char *cond,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Record a failure and continue.  Optional printf-style message. */
#define KSIM_EXPECT(cond, ...) do {					\
	if (!(cond))							\
		ksim_test_fail(__FILE__, __LINE__, #cond, "" __VA_ARGS__); \
} while (0)
/* Record a failure and leave the test function. */
#define KSIM_ASSERT(cond, ...) do {					\
	if (!(cond)) {							\
		ksim_test_fail(__FILE__, __LINE__, #cond, "" __VA_ARGS__); \
		return;							\
	}								\
} while (0)
#define KSIM_EXPECT_EQ(a, b) do {					\
	long long __a = (long long)(a), __b = (long long)(b);		\
	if (__a != __b)							\
		ksim_fail(__FILE__, __LINE__, #a " == " #b,		\
			  "%lld != %lld", __a, __b);			\
} while (0)

/*
 * Run the registered tests per the command line.  A binary's main() is
 * usually just this (shim/ksim/test_main.c provides one).
 */
int ksim_test_main(int argc, char **argv);

/*
 * Run @fn(@arg) in a forked child and return its wait status (-1 if fork or
 * waitpid failed): for checks that are expected to abort or to be killed by
 * a sanitizer (BUG(), use-after-free).  The child has no core dumps and its
 * stderr goes to /dev/null; it exits 0 when @fn returns.  The RCU worker is
 * stopped first, so no thread is lost across fork().
 */
int ksim_test_run_in_child(void (*fn)(void *arg), void *arg);
/*
 * The same, with the child's stderr kept: returns it (malloc'ed, NUL
 * terminated, at most 64 KiB; "" if none) and the wait status in *@status,
 * for checks of what a report says (the call site, the cache).
 */
char *ksim_test_capture_in_child(void (*fn)(void *arg), void *arg, int *status);

/*
 * An exhaustive one-failure sweep with the fault engine: @run(@arg, 0) once
 * with nothing failing, counting the eligible calls of @classes
 * (KSIM_FAULT_*; 0: allocations) it makes, then @run(@arg, nth) once for
 * every nth of them with exactly that call failing.  Around each run:
 * rcu_barrier(), and the same number of live slab objects after as before
 * (a failure of the test, "@name nth=N: K objects leaked").  It stops at the
 * first run that returns false or leaks.  Returns the count (0: none);
 * *@injected gets the number of runs whose failure was injected.  The
 * caller checks what its runs promise (every failure injected, results).
 */
unsigned long ksim_test_fault_sweep(const char *name, unsigned int classes,
				    bool (*run)(void *arg, unsigned long nth), void *arg,
				    unsigned long *injected);

/* Hooks a component may set before ksim_test_main(): per-test setup, and a
 * summary printed after the run. */
extern void (*ksim_test_setup_hook)(void);
extern void (*ksim_test_summary_hook)(void);

/* For tests with helper threads: wait (bounded: 2 s) until *flag is nonzero. */
static inline bool ksim_test_wait_flag(int *flag)
{
	for (int i = 0; i < 20000; i++) {
		if (__atomic_load_n(flag, __ATOMIC_ACQUIRE))
			return true;
		usleep(100);
	}
	return false;
}

#endif
