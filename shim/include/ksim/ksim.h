/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksim core: what every shim subsystem reports into.
 *
 * One reporting format for maple, mm-sim, qptrie, fuzz and stress: problems
 * the shim detects (WARN, lockdep-style splats, leaks, suspicious RCU usage)
 * are printed as "ksim: <kind>: <text>" and counted; a test fails if any were
 * counted that it did not declare with ksim_expect_problems().
 */
#ifndef _KSIM_KSIM_H
#define _KSIM_KSIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ksim_problem {
	KSIM_P_WARN,		/* WARN_ON and friends fired */
	KSIM_P_LOCKDEP,		/* lock held/not held where it must not/must be */
	KSIM_P_RCU,		/* suspicious RCU usage */
	KSIM_P_SLEEP,		/* sleeping function called from atomic context */
	KSIM_P_LEAK,		/* objects still allocated at teardown */
	KSIM_P_TEST,		/* a test assertion failed */
	KSIM_P_NR,
};

extern const char *const ksim_problem_names[KSIM_P_NR];

/* Print one problem line (and a backtrace for splats) and count it. */
void ksim_problem(enum ksim_problem kind, const char *file, int line,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Abort with a backtrace: the kernel's BUG(). */
void ksim_bug(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
void ksim_dump_stack(void);

unsigned long ksim_problem_count(enum ksim_problem kind);
unsigned long ksim_problem_total(void);
/* Problems of @kind the running test triggers on purpose. */
void ksim_expect_problems(enum ksim_problem kind, unsigned long n);
void ksim_problems_reset(void);

/*
 * What a problem kind does to the running test.  FAIL (the default) prints
 * it with a backtrace and fails the test.  REPORT_ONCE prints the first
 * report per call site, without a backtrace, and does not fail: for running
 * code whose own test scaffolding takes documented shortcuts (the kernel's
 * maple suite stores without the tree lock in places).
 */
enum ksim_policy {
	KSIM_POLICY_FAIL,
	KSIM_POLICY_REPORT_ONCE,
};
void ksim_problem_set_policy(enum ksim_problem kind, enum ksim_policy policy);
/* Distinct call sites that reported under REPORT_ONCE. */
unsigned long ksim_problem_sites(enum ksim_problem kind);

/* Verbosity: 0 quiet, 1 normal, 2 chatty.  KSIM_VERBOSE or -v sets it. */
extern int ksim_verbose;

/* Seeded PRNG (xoshiro256**): the one source of randomness in the shim. */
struct ksim_rng {
	uint64_t s[4];
};
void ksim_rng_seed(struct ksim_rng *rng, uint64_t seed);
uint64_t ksim_rng_next(struct ksim_rng *rng);
/* Uniform in [0, bound). */
uint64_t ksim_rng_below(struct ksim_rng *rng, uint64_t bound);

/*
 * The run's seed: set from --seed / KSIM_SEED by the run convention
 * (ksim/run.h), printed by every test binary.  ksim_init() reads KSIM_SEED
 * when nothing set it (programs without the run convention).
 */
uint64_t ksim_seed(void);
void ksim_set_seed(uint64_t seed);

/*
 * Debug-yield points: the shim calls ksim_yield_point() where kernel code
 * synchronizes (lock acquire/release, rcu_read_lock/unlock, slab alloc/free,
 * call_rcu).  With a probability set (stress --yield P, or KSIM_YIELD=P) the
 * calling thread yields the CPU there, widening race windows.  Off: one
 * predictable branch.
 */
extern uint32_t ksim_yield_threshold;	/* P * 2^32; 0 = off */
void __ksim_yield_point(void);
static inline void ksim_yield_point(void)
{
	if (__builtin_expect(ksim_yield_threshold != 0, 0))
		__ksim_yield_point();
}
void ksim_set_yield(double probability);
/*
 * A test's hook at every yield point (NULL clears it; while set, no yielding):
 * a single-threaded reduction of a race found under --sched runs the other
 * thread's steps from the hook, where the scheduler switched threads.  The
 * hook must guard against re-entry: the steps it runs reach yield points too.
 */
void ksim_set_yield_hook(void (*hook)(void));

/* Process-wide init (idempotent): RCU, main-thread registration, env knobs. */
void ksim_init(void);

#ifdef __cplusplus
}
#endif
#endif /* _KSIM_KSIM_H */
