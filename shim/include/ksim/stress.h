/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one stress convention (shim/ksim/stress.c), for every program under
 * stress/: threads in roles (readers, writers, ...) run a component's loop
 * against real kernel code until the clock runs out, then the program checks
 * the final state, frees everything and prints one SUMMARY line.
 *
 *   prog [-r READERS] [-w WRITERS] [-d SECONDS] [-s SEED]
 *        [--fault SPEC] [--yield P | --sched P [--steps N]] [--hang S] [-v|-q]
 *
 * (the run convention of ksim/run.h: --seed, --fault, --list, -v/-q, --help
 * as in tests; these programs add the rest)
 *
 *   -r/-w     threads per role (the first role is "readers", the second
 *             "writers"; programs with more roles take --role NAME=N;
 *             --list prints the roles)
 *   -d        duration in seconds (fractions allowed)
 *   -s        the run's seed; each thread's PRNG is derived from it and the
 *             thread's role and index.  A thread's own choices replay from the
 *             seed; the interleaving of threads does not (it is the point of
 *             a stress run) unless --sched makes it, so a replay reruns the
 *             same program, not the same schedule.
 *   --fault   the fault engine's grammar (ksim/fault.h), armed after
 *             setup(); a bare P fails every allocation with probability P;
 *             without seed= the engine draws from the run's seed
 *   --yield P debug-yield: at shim yield points (lock acquire/release,
 *             rcu_read_lock/unlock, slab alloc/free, call_rcu) yield the CPU
 *             with probability P, widening race windows
 *   --sched P deterministic scheduling (ksim/sched.h)
 *   --hang S  a thread still running S seconds (default 30) after the run
 *             ended, or a setup or teardown running longer than S, is a
 *             hang: a failed check with every thread's stack (by gdb; without
 *             it only a thread still running after the run gets its stack,
 *             in an ASan build) and the replay
 *
 * Output: a progress line every few seconds on stderr, then
 *   SUMMARY prog=NAME seed=S seconds=T sanitizer=X <role>_ops_per_s=... checks=N failures=F result=PASS|FAIL
 * Exit status 0 only if no check failed and the end-of-run check
 * (ksim_run_check(): leaks, locks, RCU/preempt state, WARN, lockdep...)
 * counted no problem.  On failure the replay command is printed.
 */
#ifndef _KSIM_STRESS_H
#define _KSIM_STRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <ksim/ksim.h>
#include <ksim/yield.h>

#define KSIM_STRESS_MAX_ROLES	4
#define KSIM_STRESS_MAX_THREADS	64

struct ksim_stress_thread {
	int role;		/* index into ksim_stress.roles */
	int index;		/* within the role */
	int id;			/* across all threads */
	struct ksim_rng rng;
	/* Written only by the thread itself (atomically, the main thread reads them for progress). */
	unsigned long ops;
	unsigned long checks;
	void *priv;
};

struct ksim_stress_role {
	const char *name;
	int nr;			/* default thread count */
	void (*fn)(struct ksim_stress_thread *t);	/* loops while ksim_stress_running() */
};

struct ksim_stress {
	const char *name;
	const char *what;	/* one line for --help */
	struct ksim_stress_role roles[KSIM_STRESS_MAX_ROLES];
	/* Before threads start / after they all stopped (final checks, free). */
	void (*setup)(void);
	void (*teardown)(void);
};

int ksim_stress_main(struct ksim_stress *s, int argc, char **argv);

/*
 * A program built from a source shared by several (a component's
 * STRESS_VARIANTS, cmake/Component.cmake): the variant this binary runs,
 * defined in a generated file, so the shared source compiles once.
 */
extern const char ksim_stress_variant[];

/*
 * The common program shape: 2 "reader" and 2 "writer" threads by default
 * (-r/-w change them), running the file's reader() and writer(), with its
 * setup() and teardown(); defines main().  _name is evaluated in main():
 * it may be built at run time (from ksim_stress_variant).
 */
#define KSIM_STRESS_READERS_WRITERS(_name, _what)				\
	static struct ksim_stress ksim_stress_program = {			\
		.what = _what,							\
		.roles = {							\
			{ .name = "reader", .nr = 2, .fn = reader },		\
			{ .name = "writer", .nr = 2, .fn = writer },		\
		},								\
		.setup = setup,							\
		.teardown = teardown,						\
	};									\
	int main(int argc, char **argv)						\
	{									\
		ksim_stress_program.name = _name;				\
		return ksim_stress_main(&ksim_stress_program, argc, argv);	\
	}

static inline bool ksim_stress_running(void)
{
	extern int ksim_stress_stop;

	/* Each round of a thread's loop is a yield point: a loop that finds no
	 * work (and so calls no kernel code) must still let others run. */
	ksim_yield_point();
	return !__atomic_load_n(&ksim_stress_stop, __ATOMIC_ACQUIRE);
}

static inline void ksim_stress_op(struct ksim_stress_thread *t)
{
	__atomic_store_n(&t->ops, t->ops + 1, __ATOMIC_RELAXED);
}

static inline void ksim_stress_checks(struct ksim_stress_thread *t, unsigned long n)
{
	__atomic_store_n(&t->checks, t->checks + n, __ATOMIC_RELAXED);
}

/*
 * A failed check: print it (with the thread), count it, stop the run.  It
 * goes through the run's failure sink (ksim_fail(), ksim/run.h), so an
 * oracle shared with tests and fuzz targets reports the same way.
 */
void ksim_stress_fail(struct ksim_stress_thread *t, const char *file, int line,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
#define KSIM_STRESS_CHECK(t, cond, ...) do {				\
	if (__builtin_expect(!(cond), 0))				\
		ksim_stress_fail((t), __FILE__, __LINE__, "expected " #cond ": " __VA_ARGS__); \
} while (0)

/*
 * The operation log a writer publishes for lockless readers (maple_stress,
 * xarray_stress): one entry per write over [first, last], in a ring of
 * @size entries indexed by the write's sequence number.  Each entry is its
 * own seqlock: a reader gets a consistent copy, or false when the ring has
 * moved past that write (the check is then skipped, never guessed).
 */
struct ksim_oplog_entry {
	unsigned long seq;		/* 0 while being written */
	unsigned long first, last;
	unsigned int kind;		/* the program's operation code */
	unsigned int failed;		/* the write returned an error: nothing changed */
};
void ksim_oplog_put(struct ksim_oplog_entry *log, unsigned int size, unsigned long seq,
		    unsigned long first, unsigned long last, unsigned int kind);
void ksim_oplog_set_failed(struct ksim_oplog_entry *log, unsigned int size, unsigned long seq);
bool ksim_oplog_get(const struct ksim_oplog_entry *log, unsigned int size, unsigned long seq,
		    struct ksim_oplog_entry *out);

/* The run's parameters, for programs that size their state from them. */
int ksim_stress_threads(int role);
double ksim_stress_duration(void);

#endif
