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

/*
 * Print one problem line (and a backtrace for splats) and count it; false
 * when nothing was printed (a site already listed under REPORT_ONCE), so a
 * caller adding detail (the held locks) adds it only to a printed line.
 */
bool ksim_problem(enum ksim_problem kind, const char *file, int line,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Abort with a backtrace: the kernel's BUG(). */
void ksim_bug(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
void ksim_dump_stack(void);
/* Every thread's stack of process @pid, by gdb; false without it (shim/ksim/core.c). */
bool ksim_dump_all_stacks(int pid);

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
 * Process-wide init (idempotent): the base's environment knobs (KSIM_VERBOSE,
 * KSIM_SEED), then every registered initcall in level order.  The base calls
 * nothing above it: subsystems register their own init, as the kernel's
 * initcalls do, from the object file that implements them (so a program
 * that does not link a subsystem does not initialize it).
 */
void ksim_init(void);

enum ksim_init_level {
	KSIM_INIT_SCHED = 10,	/* yield points, the deterministic scheduler */
	KSIM_INIT_MM = 20,	/* slab */
	KSIM_INIT_RCU = 30,	/* RCU: the main thread becomes a reader */
	KSIM_INIT_SUBSYS = 50,	/* what components register (BPF map variants) */
	KSIM_INIT_LATE = 90,
};

struct ksim_initcall {
	void (*fn)(void);
	int level;
	const char *name;
	struct ksim_initcall *next;
};
/* Called from constructors; after ksim_init() it runs @c at once. */
void ksim_initcall_register(struct ksim_initcall *c);
#define ksim_initcall(_fn, _level)						\
	static struct ksim_initcall __ksim_initcall_##_fn = {			\
		.fn = _fn, .level = _level, .name = #_fn,			\
	};									\
	__attribute__((constructor)) static void __ksim_initcall_reg_##_fn(void) \
	{ ksim_initcall_register(&__ksim_initcall_##_fn); }

#ifdef __cplusplus
}
#endif
#endif /* _KSIM_KSIM_H */
