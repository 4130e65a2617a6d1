/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Deterministic scheduling (stress --sched P): the interleaving of threads
 * becomes a function of the seed, so a race a stress run finds replays
 * exactly from its replay command.
 *
 * Threads still are pthreads, but only the one holding the baton runs.  At
 * every shim yield point (lock acquire/release, rcu_read_lock/unlock, slab
 * alloc/free, call_rcu, before rcu_assign_pointer's store) the baton holder
 * draws from the run's one PRNG and, with probability P, hands the baton to a
 * randomly chosen live thread (possibly itself).  A thread that must wait (a
 * contended lock, synchronize_rcu, rcu_barrier) hands the baton to another
 * thread and retries when it gets it back.  Interleavings are therefore those
 * at yield points: a writer's plain stores between two yield points are seen
 * by readers all or nothing (use TSan runs for the rest).
 *
 * What else changes in this mode (shim/rcu/tree.c): grace periods are
 * tracked by the scheduler from each thread's read-side state, callbacks run
 * at a "clean" yield point (no lock, no RCU section, no preempt/irq/bh
 * disable) of whichever thread holds the baton once their grace period has
 * ended, as softirqs run on whatever task returns from an interrupt; there is
 * no callback worker thread.
 *
 * Everything a thread decides must come from seeded PRNGs and shared state
 * (no clocks): the stress runner stops by step count (--steps) or, for a
 * time limit, by a stop request the scheduler turns into the stop flag at a
 * deterministic step, which the replay command then names.
 */
#ifndef _KSIM_SCHED_H
#define _KSIM_SCHED_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <ksim/yield.h>

#define KSIM_SCHED_MAX_THREADS	64

/*
 * What runs at a clean yield point (no lock, RCU section or preempt/irq/bh
 * disable) of the thread holding the baton: RCU registers its callback poll
 * here at init, so the scheduler calls nothing above it.
 */
void ksim_sched_set_clean_point_hook(void (*fn)(void));

/* True from ksim_sched_enable() on (the process stays in this mode). */
extern bool ksim_sched_enabled;

/*
 * Main thread, before creating the threads: @p is the switch probability per
 * yield point, @max_steps (0 = none) the step at which *@stop becomes 1.
 */
void ksim_sched_enable(uint64_t seed, double p, unsigned long max_steps, int *stop);
/* Main thread: reserve the next slot for a thread about to be created. */
int ksim_sched_add(void);
/* First thing in a scheduled thread: wait for the baton. */
void ksim_sched_enter(int slot);
/* Last thing in a scheduled thread: pass the baton on. */
void ksim_sched_exit(void);
/*
 * Main thread: give the first thread the baton and wait until every thread
 * exited; @tick (may be NULL) is called about every 50 ms outside the
 * scheduler (progress output, time limit -> ksim_sched_request_stop()).
 */
void ksim_sched_run(void (*tick)(void));
/* Any thread: ask for a stop; it takes effect at the next step. */
void ksim_sched_request_stop(void);
/* Steps so far; *@stop (if not NULL): the step the stop took effect at (0 = not yet). */
unsigned long ksim_sched_steps(unsigned long *stop);

/*
 * A yield point (called by __ksim_yield_point() in this mode); @pc is the
 * kernel code's address there, printed by the trace: KSIM_SCHED_TRACE=A-B
 * prints every switch between steps A and B with where the thread stopped.
 */
void ksim_sched_point(void *pc);
/* The calling thread cannot proceed: run another thread, then return. */
void ksim_sched_block(const char *what);
/* True if the calling thread is one of the scheduled ones. */
bool ksim_sched_current(void);

/* Blocking primitives for the shim's locks: plain pthreads when not scheduled. */
void ksim_sched_mutex_lock(pthread_mutex_t *m, const char *what);
void ksim_sched_cond_wait(pthread_cond_t *c, pthread_mutex_t *m, const char *what);
void ksim_sched_rdlock(pthread_rwlock_t *l, const char *what);
void ksim_sched_wrlock(pthread_rwlock_t *l, const char *what);

/* Grace periods from the scheduled threads' read-side state (RCU shim). */
struct ksim_sched_gp {
	uint64_t readers;			/* slots inside a section at the snapshot */
	unsigned long sections[KSIM_SCHED_MAX_THREADS];
};
void ksim_sched_gp_start(struct ksim_sched_gp *gp);
bool ksim_sched_gp_done(const struct ksim_sched_gp *gp);

#endif /* _KSIM_SCHED_H */
