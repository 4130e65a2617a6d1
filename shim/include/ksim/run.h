/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one run convention (shim/ksim/run.c), shared by test binaries
 * (ksim/test.h), stress programs (ksim/stress.h) and fuzz replay binaries
 * (fuzz/include/ksim/fuzz.h).
 *
 * One command line, parsed by ksim_options_parse() from one table:
 *
 *   -s, --seed N       the run's seed (default: KSIM_SEED, else the clock;
 *                      a fuzz replay: 0, the input decides); KSIM_SEED_SALT
 *                      mixes a string into it (repeated runs of one command
 *                      line), and the replay line carries the mixed seed
 *   -f, --fault SPEC   fault injection, the engine's grammar (ksim/fault.h;
 *                      default: KSIM_FAULT).  Without seed= the engine draws
 *                      from the run's seed, taken when it is armed, so the
 *                      order of --seed and --fault does not matter
 *   -l, --list         list what -t selects from (tests; a replay's inputs;
 *                      a stress program's roles)
 *   -t, --test NAME    run only NAME (shell glob; repeatable)
 *   -v, -q             more / less output
 *   -h, --help
 *
 * plus the mode's own options, given in the same table form (struct
 * ksim_run_option) and handed to the mode's set() callback.
 *
 * One failure sink: ksim_fail() (behind KSIM_EXPECT, KSIM_STRESS_CHECK,
 * KSIM_FUZZ_CHECK and any oracle shared between them) formats "expected
 * COND[: message]" and reports it the way the running mode does: a test
 * counts a test failure and goes on (its TAP line says "not ok"), a stress
 * run prints "FAILED check", stops and says FAIL in its SUMMARY line, a fuzz
 * iteration prints its signature and aborts.
 *
 * One end-of-run check: ksim_run_check(), after a test, a stress run's
 * teardown and a fuzz iteration.
 *
 * One replay line: ksim_run_replay() builds it from the parsed options.
 */
#ifndef _KSIM_RUN_H
#define _KSIM_RUN_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <ksim/fault.h>

enum ksim_run_mode {
	KSIM_RUN_TEST,
	KSIM_RUN_STRESS,
	KSIM_RUN_FUZZ,
};

/* A mode's own option: --name (and -key when key is a letter). */
struct ksim_run_option {
	const char *name;
	int key;		/* a letter, or >= 256 for a long-only option */
	const char *arg;	/* its argument's name for --help; NULL: none */
	const char *help;
};

struct ksim_options;
/* How a mode reports a failed check: "expected COND[: message]" at file:line. */
typedef void (*ksim_run_report_fn)(const char *file, int line, const char *text);

struct ksim_options {
	/* Set by the mode before parsing. */
	enum ksim_run_mode mode;
	const char *what;			/* --help: one line about the program */
	const char *args_help;			/* positional arguments ("FILE|DIR..."); NULL: none */
	const struct ksim_run_option *own;	/* the mode's options; { NULL } ends */
	/* One own option; 0, or -1 after printing one line. */
	int (*set)(struct ksim_options *o, int key, const char *arg);
	void (*help)(struct ksim_options *o, FILE *out);	/* more --help text */
	ksim_run_report_fn report;		/* NULL: a test failure (ksim_problem) */

	/* The command line, parsed. */
	const char *prog;
	uint64_t seed;
	const char *fault_spec;			/* --fault or KSIM_FAULT; NULL: none */
	const char *fault_from;			/* "--fault" or "KSIM_FAULT" */
	struct ksim_fault_config fault;		/* fault_spec, parsed */
	bool list;
	int verbose;				/* -v given this many times */
	int nr_names;
	char **names;				/* -t NAME */
	int nr_args;
	char **args;				/* positional */
};

/* The running program's options (NULL until one is set). */
extern struct ksim_options *ksim_run;

/*
 * Parse the command line into @o, make it the run's (ksim_run), set the
 * run's seed and call ksim_init().  Returns true to go on; false with
 * *exit_status 0 after --help, 2 after one line about bad input.
 */
bool ksim_options_parse(struct ksim_options *o, int argc, char **argv, int *exit_status);
/* A run whose options come from nowhere (a fuzzer binary): mode only. */
void ksim_run_set(struct ksim_options *o);
/* True if -t selected @name (or no -t was given). */
bool ksim_run_selected(const struct ksim_options *o, const char *name);

/* Arm the run's --fault (its seed resolved now), or disarm when there is none. */
void ksim_run_fault_arm(void);
/* With --fault: print "# fault: N injected, digest D" (ksim_fault_record()). */
void ksim_run_fault_summary(FILE *out);

/*
 * The replay command of this run into @buf: "PROG [-t NAME] --seed N
 * [--fault SPEC]" (@name may be NULL), then whatever the mode appends with
 * ksim_run_replay_add().  Arguments are shell-quoted where needed.
 */
void ksim_run_replay(const char *name, char *buf, size_t len);
void ksim_run_replay_add(char *buf, size_t len, const char *opt, const char *arg);

/* The failure sink (see above); @cond NULL: the message alone. */
void ksim_fail(const char *file, int line, const char *cond, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void ksim_vfail(const char *file, int line, const char *cond, const char *fmt, va_list ap);

/*
 * The end-of-run check, on the calling thread (the one that ran the test,
 * the stress teardown or the fuzz iteration): RCU read sections, locks and
 * preempt/irq/bh state left open are reported (as "@what returned ...") and
 * cleared; then RCU callbacks run (rcu_barrier()) and objects allocated since
 * the last ksim_slab_mark() are reported as leaks, with fault injection
 * suspended meanwhile.  @live_before: the slab objects live when the part
 * began (ksim_run_live()), which lets a fuzz iteration skip the walk of the
 * object table when nothing changed; KSIM_RUN_ALWAYS_WALK walks always.
 * Returns the problems counted since ksim_problems_reset() that were not
 * declared expected (WARN, lockdep, RCU, sleep, leak, test failures);
 * *@leaked (may be NULL): the objects found leaked.
 */
#define KSIM_RUN_ALWAYS_WALK	(~0UL)
unsigned long ksim_run_check(const char *what, const char *file, unsigned long live_before,
			     unsigned long *leaked);
unsigned long ksim_run_live(void);

#endif
