// SPDX-License-Identifier: GPL-2.0
/*
 * Deterministic scheduling: one baton, one PRNG (see ksim/sched.h).
 *
 * The baton is "current", the slot allowed to run, guarded by sched_lock;
 * each slot waits on its own condition variable.  Every decision (switch or
 * not, to whom) is drawn from one PRNG by the baton holder, so given the seed
 * the sequence of decisions, and with it the whole run, is fixed.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ksim/ksim.h>
#include <ksim/sched.h>
#include <ksim/task.h>
#include <ksim/yield.h>

/* Consecutive waits with no thread making progress: a deadlock. */
#define KSIM_SCHED_STUCK	200000UL

struct sched_slot {
	pthread_cond_t cv;
	struct ksim_task *task;		/* set when the thread first runs */
	bool alive;
	const char *waiting;		/* what it last blocked on */
};

bool ksim_sched_enabled;
static pthread_mutex_t sched_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t main_cv = PTHREAD_COND_INITIALIZER;
static struct sched_slot slots[KSIM_SCHED_MAX_THREADS];
static int nr_slots, nr_alive, current = -1;
static struct ksim_rng rng;
static uint32_t switch_threshold;
static unsigned long steps, max_steps, stop_step, stuck;
static int *stop_flag;
static int stop_requested;
static unsigned long trace_from, trace_to;
static __thread int my_slot = -1;
static __thread bool in_clean_hook;

static void (*clean_point_hook)(void);	/* RCU's callback poll (shim/rcu/tree.c) */

void ksim_sched_set_clean_point_hook(void (*fn)(void))
{
	clean_point_hook = fn;
}

uint32_t ksim_yield_threshold;

void ksim_set_yield(double p)
{
	ksim_yield_threshold = p <= 0 ? 0 : p >= 1 ? UINT32_MAX : (uint32_t)(p * 4294967296.0);
}

static void (*yield_hook)(void);
static pthread_t yield_hook_thread;
static uint32_t yield_threshold_saved;

void ksim_set_yield_hook(void (*hook)(void))
{
	if (hook && !yield_hook) {
		yield_threshold_saved = ksim_yield_threshold;
		ksim_yield_threshold = UINT32_MAX;	/* every point reaches the hook */
	} else if (!hook && yield_hook) {
		ksim_yield_threshold = yield_threshold_saved;
	}
	yield_hook_thread = pthread_self();
	yield_hook = hook;
}

void __ksim_yield_point(void)
{
	/* Per-thread xorshift: cheap, and no shared state to race on. */
	static __thread uint64_t x;

	if (yield_hook) {
		if (pthread_equal(pthread_self(), yield_hook_thread))
			yield_hook();
		return;
	}
	if (ksim_sched_enabled) {
		ksim_sched_point(__builtin_return_address(0));
		return;
	}

	if (!x)
		x = (ksim_seed() ^ (uint64_t)(uintptr_t)&x) | 1;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	if ((uint32_t)x < ksim_yield_threshold)
		sched_yield();
}

static void yield_init(void)
{
	const char *yield = getenv("KSIM_YIELD");

	if (yield)
		ksim_set_yield(strtod(yield, NULL));
}
ksim_initcall(yield_init, KSIM_INIT_SCHED);

void ksim_sched_enable(uint64_t seed, double p, unsigned long max, int *stop)
{
	ksim_rng_seed(&rng, seed ^ 0x5c4ed5c4ed5c4edULL);
	switch_threshold = p <= 0 ? 0 : p >= 1 ? UINT32_MAX : (uint32_t)(p * 4294967296.0);
	max_steps = max;
	stop_flag = stop;
	if (getenv("KSIM_SCHED_TRACE") &&
	    sscanf(getenv("KSIM_SCHED_TRACE"), "%lu-%lu", &trace_from, &trace_to) != 2) {
		fprintf(stderr, "ksim: KSIM_SCHED_TRACE=%s: expected FIRST-LAST (steps)\n",
			getenv("KSIM_SCHED_TRACE"));
		exit(2);
	}
	ksim_sched_enabled = true;
	/* Route every yield point here (see __ksim_yield_point()). */
	ksim_set_yield(1);
}

int ksim_sched_add(void)
{
	int slot;

	pthread_mutex_lock(&sched_lock);
	if (nr_slots == KSIM_SCHED_MAX_THREADS) {
		fprintf(stderr, "ksim: --sched: more than %d threads\n", KSIM_SCHED_MAX_THREADS);
		exit(2);
	}
	slot = nr_slots++;
	pthread_cond_init(&slots[slot].cv, NULL);
	slots[slot].alive = true;
	nr_alive++;
	pthread_mutex_unlock(&sched_lock);
	return slot;
}

bool ksim_sched_current(void)
{
	return my_slot >= 0;
}

/* A random live slot other than @exclude (-1: any), or -1 if none. */
static int pick(int exclude)
{
	int n = 0, k;

	for (int i = 0; i < nr_slots; i++)
		n += slots[i].alive && i != exclude;
	if (!n)
		return -1;
	k = (int)ksim_rng_below(&rng, n);
	for (int i = 0; i < nr_slots; i++)
		if (slots[i].alive && i != exclude && k-- == 0)
			return i;
	return -1;
}

/* ASan/TSan's symbolizer, when linked in. */
void __sanitizer_symbolize_pc(void *pc, const char *fmt, char *buf, size_t size) __attribute__((weak));

static void trace(int me, int next, void *pc, const char *what)
{
	char buf[1024] = "", where[1024] = "";

	if (steps < trace_from || steps > trace_to)
		return;
	if (pc && __sanitizer_symbolize_pc) {
		/* One NUL-terminated string per (inlined) frame, then an empty one. */
		__sanitizer_symbolize_pc(pc, "%f %s:%l", buf, sizeof(buf) - 1);
		for (char *f = buf; *f && f < buf + sizeof(buf) - 1; f += strlen(f) + 1) {
			if (!strncmp(f, "ksim_yield_point ", 17))
				continue;
			snprintf(where + strlen(where), sizeof(where) - strlen(where), "%s%s",
				 *where ? " <- " : "", f);
		}
	} else if (pc) {
		snprintf(where, sizeof(where), "%p", pc);
	}
	fprintf(stderr, "# sched step %lu: thread %d -> %d%s%s at %s\n", steps,
		slots[me].task ? slots[me].task->id : -1, next >= 0 && slots[next].task ?
		slots[next].task->id : -1, what ? ", waiting for " : "", what ? what : "", where);
}

/* With sched_lock held by the baton holder @me: run @next until we get it back. */
static void hand_over(int me, int next)
{
	if (next == me)
		return;
	current = next;
	pthread_cond_signal(&slots[next].cv);
	while (current != me)
		pthread_cond_wait(&slots[me].cv, &sched_lock);
}

/* A step of the baton holder: count it, and apply a stop that is due. */
static void step(void)
{
	steps++;
	if (!stop_step && ((max_steps && steps >= max_steps) ||
			   __atomic_load_n(&stop_requested, __ATOMIC_ACQUIRE))) {
		stop_step = steps;
		if (stop_flag)
			__atomic_store_n(stop_flag, 1, __ATOMIC_RELEASE);
	}
}

void ksim_sched_enter(int slot)
{
	pthread_mutex_lock(&sched_lock);
	my_slot = slot;
	while (current != slot)
		pthread_cond_wait(&slots[slot].cv, &sched_lock);
	/* Thread ids are assigned in first-run order: deterministic too. */
	slots[slot].task = ksim_task();
	pthread_mutex_unlock(&sched_lock);
}

void ksim_sched_exit(void)
{
	pthread_mutex_lock(&sched_lock);
	slots[my_slot].alive = false;
	slots[my_slot].task = NULL;
	nr_alive--;
	my_slot = -1;
	current = pick(-1);
	if (current >= 0)
		pthread_cond_signal(&slots[current].cv);
	else
		pthread_cond_signal(&main_cv);
	pthread_mutex_unlock(&sched_lock);
}

void ksim_sched_run(void (*tick)(void))
{
	unsigned long last_steps = 0, still = 0;

	pthread_mutex_lock(&sched_lock);
	current = pick(-1);
	if (current >= 0)
		pthread_cond_signal(&slots[current].cv);
	while (nr_alive) {
		struct timespec ts;

		/* 60 s (1200 ticks) without a step: a thread loops without yield points. */
		still = steps == last_steps ? still + 1 : 0;
		last_steps = steps;
		if (still == 1200) {
			fprintf(stderr, "ksim sched: no yield point reached for 60 s at step %lu (thread slot %d"
				" holds the baton): a loop that calls no kernel code needs ksim_yield_point()\n",
				steps, current);
			abort();
		}

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&main_cv, &sched_lock, &ts);
		if (tick && nr_alive) {
			pthread_mutex_unlock(&sched_lock);
			tick();
			pthread_mutex_lock(&sched_lock);
		}
	}
	pthread_mutex_unlock(&sched_lock);
}

void ksim_sched_request_stop(void)
{
	__atomic_store_n(&stop_requested, 1, __ATOMIC_RELEASE);
}

unsigned long ksim_sched_steps(unsigned long *stop)
{
	unsigned long n;

	pthread_mutex_lock(&sched_lock);
	n = steps;
	if (stop)
		*stop = stop_step;
	pthread_mutex_unlock(&sched_lock);
	return n;
}

static bool task_is_clean(const struct ksim_task *t)
{
	return !t->rcu_urcu_nesting && !t->nr_held && !t->preempt_count &&
	       !t->softirq_count && !t->irqs_off && !t->in_rcu_callback;
}

void ksim_sched_point(void *pc)
{
	int me = my_slot;

	if (me < 0)
		return;
	pthread_mutex_lock(&sched_lock);
	step();
	stuck = 0;
	if ((uint32_t)ksim_rng_next(&rng) < switch_threshold) {
		int next = pick(-1);

		if (trace_to && next != me)
			trace(me, next, pc, NULL);
		hand_over(me, next);
	}
	pthread_mutex_unlock(&sched_lock);
	/* Callbacks whose grace period ended run here, as softirqs would. */
	if (clean_point_hook && !in_clean_hook && task_is_clean(ksim_task())) {
		in_clean_hook = true;
		clean_point_hook();
		in_clean_hook = false;
	}
}

static void report_stuck(int me, const char *what)
{
	fprintf(stderr, "ksim sched: deadlock: thread slot %d waits for %s and no thread can proceed"
		" (step %lu)\n", me, what, steps);
	for (int i = 0; i < nr_slots; i++) {
		struct ksim_task *t = slots[i].task;

		if (!slots[i].alive)
			continue;
		fprintf(stderr, "  slot %d (thread %d): waiting for %s, %d lock%s held, rcu depth %d\n",
			i, t ? t->id : -1, slots[i].waiting ? slots[i].waiting : "nothing",
			t ? t->nr_held : 0, t && t->nr_held == 1 ? "" : "s",
			t ? t->rcu_urcu_nesting : 0);
		for (int k = 0; t && k < t->nr_held; k++)
			fprintf(stderr, "    #%d %s taken at %s:%d\n", k,
				t->held[k].name ? t->held[k].name : "?", t->held[k].file, t->held[k].line);
	}
	pthread_mutex_unlock(&sched_lock);
	ksim_bug(__FILE__, __LINE__, "deadlock under deterministic scheduling");
}

void ksim_sched_block(const char *what)
{
	int me = my_slot, next;

	if (me < 0) {
		sched_yield();
		return;
	}
	pthread_mutex_lock(&sched_lock);
	step();
	slots[me].waiting = what;
	next = pick(me);
	if (next < 0 || ++stuck > KSIM_SCHED_STUCK)
		report_stuck(me, what);
	if (trace_to)
		trace(me, next, __builtin_return_address(0), what);
	hand_over(me, next);
	slots[me].waiting = NULL;
	pthread_mutex_unlock(&sched_lock);
}

void ksim_sched_mutex_lock(pthread_mutex_t *m, const char *what)
{
	if (my_slot < 0) {
		pthread_mutex_lock(m);
		return;
	}
	while (pthread_mutex_trylock(m))
		ksim_sched_block(what);
}

void ksim_sched_cond_wait(pthread_cond_t *c, pthread_mutex_t *m, const char *what)
{
	if (my_slot < 0) {
		pthread_cond_wait(c, m);
		return;
	}
	/* Callers re-check their condition: this is a spurious wakeup. */
	pthread_mutex_unlock(m);
	ksim_sched_block(what);
	pthread_mutex_lock(m);
}

void ksim_sched_rdlock(pthread_rwlock_t *l, const char *what)
{
	if (my_slot < 0) {
		pthread_rwlock_rdlock(l);
		return;
	}
	while (pthread_rwlock_tryrdlock(l))
		ksim_sched_block(what);
}

void ksim_sched_wrlock(pthread_rwlock_t *l, const char *what)
{
	if (my_slot < 0) {
		pthread_rwlock_wrlock(l);
		return;
	}
	while (pthread_rwlock_trywrlock(l))
		ksim_sched_block(what);
}

/*
 * A grace period: every slot inside a read-side section at the start must
 * have left that section (depth 0, or a later outermost section).
 */
void ksim_sched_gp_start(struct ksim_sched_gp *gp)
{
	pthread_mutex_lock(&sched_lock);
	gp->readers = 0;
	for (int i = 0; i < nr_slots; i++) {
		struct ksim_task *t = slots[i].task;

		if (slots[i].alive && t && t->rcu_urcu_nesting) {
			gp->readers |= 1ULL << i;
			gp->sections[i] = t->rcu_sections;
		}
	}
	pthread_mutex_unlock(&sched_lock);
}

bool ksim_sched_gp_done(const struct ksim_sched_gp *gp)
{
	bool done = true;

	pthread_mutex_lock(&sched_lock);
	for (int i = 0; i < nr_slots && done; i++) {
		struct ksim_task *t = slots[i].task;

		if (!(gp->readers & (1ULL << i)) || !slots[i].alive || !t)
			continue;
		if (t->rcu_urcu_nesting && t->rcu_sections == gp->sections[i])
			done = false;
	}
	pthread_mutex_unlock(&sched_lock);
	return done;
}
