// SPDX-License-Identifier: GPL-2.0
/*
 * Resilient queued spinlocks (asm/rqspinlock.h), emulated.
 *
 * Why not kernel/bpf/rqspinlock.c compiled unmodified: its deadlock checks
 * read per-CPU tables of held locks and assume one task per CPU with
 * preemption off while it spins.  Here several threads share a simulated CPU
 * (ksim_set_cpu, task id % 4) and the OS preempts them at will, so those
 * tables would mix threads and report AA/ABBA that are not there (and miss
 * ones that are).  It also needs the qspinlock internals (kernel/locking/
 * qspinlock.h, mcs_spinlock.h, per-CPU qnodes, smp_cond_load_acquire_timewait,
 * ktime_get_mono_fast_ns), and a spinning waiter is invisible to the
 * deterministic scheduler (--sched), which must hand the baton on.  What the
 * maps depend on is the contract, which this implements exactly from the
 * shim's per-thread held-lock stacks (shim/locking/lockdep.c): a thread is
 * the kernel's CPU context.
 *
 * The kernel's checks, and ours:
 *   - AA (check_deadlock_AA, at the first contended spin): the lock is in
 *     this CPU's held table -> -EDEADLK.  Here: the lock's owner is this
 *     thread.
 *   - ABBA (check_deadlock_ABBA, every millisecond of waiting): the CPU that
 *     holds our lock is itself waiting (its top entry) for a lock we hold ->
 *     -EDEADLK.  Here: the owner thread's rq_waiting is in our held stack,
 *     checked at every wait step.  Longer cycles are not detected by either:
 *     they time out.
 *   - timeout (check_timeout): RES_DEF_TIMEOUT (0.25 s) of waiting ->
 *     -ETIMEDOUT; ksim_rqspinlock_timeout_ns.  A kernel holder runs with
 *     preemption (usually irqs) off and the waiters queue in order, so the
 *     wait ends in 0.25 s only when a holder keeps the lock that long or the
 *     waits form a cycle.  Here the OS preempts holders and waiters retry
 *     unfairly, so wall time would time out on a busy machine where the
 *     kernel never does (seen: the kernel's test_lpm_multi_thread under TSan
 *     with two test jobs on two cores, "update must succeed" got
 *     -ETIMEDOUT).  So the wait counts the running (CPU) time of the thread
 *     at the end of the chain of waiters (the holder that is not itself
 *     waiting), wall time when the chain is a cycle, and restarts each time
 *     the lock changes hands.  A holder blocked elsewhere (a mutex, a
 *     sleeping spinlock) uses no CPU: after 100 timeouts of wall time
 *     without a hand-over the wait ends anyway.  Under --sched, time is the
 *     count of scheduler hand-offs (10 us each), so a replay times out at
 *     the same step.
 *   - injected (fault engine, class lock): -EDEADLK before trying, site =
 *     the kernel function calling res_spin_lock().
 * Differences: the kernel's held table has 31 entries (beyond that, no
 * checks); the shim's held stack has KSIM_MAX_HELD_LOCKS.  The kernel's
 * waiters queue (fair); ours retry (pthread trylock).  Unlocking out of order
 * is fine here, "not supported" (misdetections) in the kernel.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <asm/rqspinlock.h>
#include <linux/container_of.h>
#include <linux/lockdep.h>
#include <ksim/fault.h>
#include <ksim/ksim.h>
#include <ksim/sched.h>
#include <ksim/task.h>
#include <ksim/yield.h>

unsigned long long ksim_rqspinlock_timeout_ns = RES_DEF_TIMEOUT;

static struct ksim_rqspinlock_stats stats;
static __thread unsigned long injected_here;

unsigned long ksim_rqspinlock_injected_here(void)
{
	return injected_here;
}

#define SCHED_STEP_NS	10000ULL

void ksim_rqspinlock_stats(struct ksim_rqspinlock_stats *st)
{
	st->aa = __atomic_load_n(&stats.aa, __ATOMIC_RELAXED);
	st->abba = __atomic_load_n(&stats.abba, __ATOMIC_RELAXED);
	st->timeout = __atomic_load_n(&stats.timeout, __ATOMIC_RELAXED);
	st->injected = __atomic_load_n(&stats.injected, __ATOMIC_RELAXED);
}

void ksim_rqspinlock_stats_reset(void)
{
	__atomic_store_n(&stats.aa, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&stats.abba, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&stats.timeout, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&stats.injected, 0, __ATOMIC_RELAXED);
}

void ksim_res_spin_lock_init(rqspinlock_t *lock, const char *name)
{
	pthread_mutex_init(&lock->__ksim_m, NULL);
	lock->owner = NULL;
	lock->ksim_acquired = 0;
	lock->dep_map.name = name;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The holder waits for a lock we hold: neither can proceed. */
static bool abba(rqspinlock_t *lock, struct ksim_task *me)
{
	struct ksim_task *o = __atomic_load_n(&lock->owner, __ATOMIC_ACQUIRE);
	const struct lockdep_map *w;

	if (!o || o == me)
		return false;
	w = __atomic_load_n(&o->rq_waiting, __ATOMIC_ACQUIRE);
	/* The owner may have changed meanwhile: the kernel rechecks too. */
	if (!w || __atomic_load_n(&lock->owner, __ATOMIC_ACQUIRE) != o)
		return false;
	return __ksim_lock_is_held(w, -1);
}

/* Wall time without a hand-over after which a wait ends whatever the holder does. */
#define WALL_FACTOR	100

static unsigned long long thread_cpu_ns(struct ksim_task *t)
{
	struct timespec ts;

	if (!__atomic_load_n(&t->rq_cpu_clock_set, __ATOMIC_ACQUIRE) ||
	    clock_gettime((clockid_t)t->rq_cpu_clock, &ts))
		return 0;
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The holder whose running time our wait depends on: follow owner ->
 * the lock it waits for -> that lock's owner, until a thread that is not
 * waiting.  NULL: the lock is free (or the chain just changed), or *cycle
 * is set: the chain comes back to us or is too long to follow.
 */
static struct ksim_task *chain_end(rqspinlock_t *lock, struct ksim_task *me, bool *cycle)
{
	struct ksim_task *o = __atomic_load_n(&lock->owner, __ATOMIC_ACQUIRE);

	*cycle = false;
	for (int depth = 0; o; depth++) {
		const struct lockdep_map *w;

		if (o == me || depth == 8) {
			*cycle = true;
			return NULL;
		}
		w = __atomic_load_n(&o->rq_waiting, __ATOMIC_ACQUIRE);
		if (!w)
			return o;
		/* rq_waiting only ever points into a rqspinlock_t. */
		o = __atomic_load_n(&container_of((struct lockdep_map *)w, rqspinlock_t,
						       dep_map)->owner,
				    __ATOMIC_ACQUIRE);
	}
	return NULL;
}

struct wait_clock {
	unsigned long acquired;		/* the lock's hand-overs when last seen */
	struct ksim_task *end;		/* chain_end() when last seen */
	unsigned long long end_cpu, wall, since_handover, waited;
};

/* Advance the wait by the time that counts (see the top of this file). */
static void wait_tick(struct wait_clock *c, rqspinlock_t *lock, struct ksim_task *me)
{
	unsigned long acquired = __atomic_load_n(&lock->ksim_acquired, __ATOMIC_ACQUIRE);
	unsigned long long wall = now_ns(), cpu = 0;
	bool cycle;
	struct ksim_task *end = chain_end(lock, me, &cycle);

	if (end)
		cpu = thread_cpu_ns(end);
	if (acquired != c->acquired) {
		c->acquired = acquired;
		c->waited = 0;
		c->since_handover = 0;
	} else if (cycle || (end && !cpu)) {
		/* A cycle spins on every CPU in it; a holder with no clock: wall. */
		c->waited += wall - c->wall;
		c->since_handover += wall - c->wall;
	} else {
		if (end && end == c->end && cpu > c->end_cpu)
			c->waited += cpu - c->end_cpu;
		c->since_handover += wall - c->wall;
	}
	c->end = end;
	c->end_cpu = cpu;
	c->wall = wall;
	if (c->since_handover > WALL_FACTOR * ksim_rqspinlock_timeout_ns)
		c->waited = c->since_handover;
}

static int fail(unsigned long *counter, int err)
{
	__atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
	return err;
}

int ksim_res_spin_lock(rqspinlock_t *lock, const char *func, const char *file, int line)
{
	struct ksim_task *me = ksim_task();
	unsigned long long waited = 0;
	struct wait_clock clock = { 0 };
	int ret = 0;

	if (ksim_fault_lock_armed() && ksim_should_fail_lock(func, file, line)) {
		injected_here++;
		return fail(&stats.injected, -EDEADLK);
	}
	if (__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) == me)
		return fail(&stats.aa, -EDEADLK);
	ksim_yield_point();
	if (pthread_mutex_trylock(&lock->__ksim_m)) {
		__atomic_store_n(&me->rq_waiting, &lock->dep_map, __ATOMIC_RELEASE);
		for (unsigned int spins = 0;; spins++) {
			if (abba(lock, me)) {
				ret = fail(&stats.abba, -EDEADLK);
				break;
			}
			if (ksim_sched_current()) {
				ksim_sched_block("a res_spin_lock");
				waited += SCHED_STEP_NS;
			} else {
				if (!spins) {
					clock.acquired = __atomic_load_n(&lock->ksim_acquired,
									 __ATOMIC_ACQUIRE);
					clock.wall = now_ns();
				}
				if (spins < 64) {
					sched_yield();
				} else {
					struct timespec d = { 0, 20000 };

					nanosleep(&d, NULL);
				}
				wait_tick(&clock, lock, me);
				waited = clock.waited;
			}
			if (!pthread_mutex_trylock(&lock->__ksim_m))
				break;
			if (waited > ksim_rqspinlock_timeout_ns) {
				ret = fail(&stats.timeout, -ETIMEDOUT);
				break;
			}
		}
		__atomic_store_n(&me->rq_waiting, NULL, __ATOMIC_RELEASE);
		if (ret)
			return ret;
	}
	if (!me->rq_cpu_clock_set) {
		clockid_t clk;

		if (!pthread_getcpuclockid(pthread_self(), &clk)) {
			me->rq_cpu_clock = clk;
			__atomic_store_n(&me->rq_cpu_clock_set, true, __ATOMIC_RELEASE);
		}
	}
	__atomic_store_n(&lock->owner, me, __ATOMIC_RELEASE);
	__atomic_add_fetch(&lock->ksim_acquired, 1, __ATOMIC_RELEASE);
	ksim_lock_acquire(&lock->dep_map, 0, KSIM_LOCK_RQSPIN, file, line);
	return 0;
}

void ksim_res_spin_unlock(rqspinlock_t *lock, const char *file, int line)
{
	if (__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) != ksim_task()) {
		ksim_problem(KSIM_P_LOCKDEP, file, line,
			     "res_spin_unlock of %s, which this thread does not hold",
			     lock->dep_map.name ? lock->dep_map.name : "?");
		return;
	}
	ksim_lock_release(&lock->dep_map, file, line);
	__atomic_store_n(&lock->owner, NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lock->__ksim_m);
}
