// SPDX-License-Identifier: GPL-2.0
/*
 * RCU for the shim (see linux/rcupdate.h for the model).
 *
 * Read side and grace periods come from liburcu's memb flavour.  Callbacks
 * (call_rcu, kfree_rcu) run on one worker thread of ours: woken by a
 * callback, it lets more gather for ksim_rcu_gather_ns (1 ms), takes the
 * whole queue, waits one grace period, then invokes the batch with
 * rcu_callback_map held and in "softirq" context, as the kernel does.
 * rcu_barrier() waits until every callback queued before it has run, woken
 * by the worker; with nothing queued it returns at once.  The worker starts
 * on the first call_rcu() and ksim_rcu_quiesce() can stop it, so a process
 * can be single-threaded again (AFL++'s fork server needs that).
 *
 * ThreadSanitizer model.  liburcu is not built with TSan and its grace
 * periods synchronize through membarrier/futex, which TSan cannot see; left
 * alone, every node a reader touched and a callback later freed is a "race".
 * We tell TSan the happens-before edges RCU guarantees, and no others:
 *   - publication: rcu_assign_pointer() is a store-release and every
 *     rcu_dereference*() a load-acquire (linux/rcupdate.h), so what a writer
 *     initialised before publishing is ordered before a reader's use of it;
 *   - grace periods: the end of every outermost read-side critical section
 *     releases one sync object (ksim_rcu_gp_sync), and a grace period's end
 *     acquires it, before synchronize_rcu() returns and before a batch of
 *     callbacks runs.  So every section that ended before the grace period
 *     completed happens-before the free that follows it.  (This is an
 *     over-approximation only for readers that started after the grace period
 *     began; those cannot reach an object removed before it, by RCU's rules.)
 *   - call_rcu() does not write the rcu_head (see the queue below): kernel
 *     structures overlay it on fields lockless readers still load, which in
 *     the kernel is harmless because readers discard what they read from a
 *     dead node, but TSan would report.
 * What stays visible: a free or write with no grace period between it and a
 * reader's access (a free that skips call_rcu, a writer that skips its lock).
 *
 * A callback queued inside a read-side section (rcu_read_lock() or an atomic
 * section: a spinlock held) waits on its thread until that section ends and
 * only then joins the queue, so the grace period that frees it starts after
 * the section.  The kernel promises less: a grace period may start while the
 * queuing CPU is still in the section, and a reader that begins in that
 * window is not waited for.  Code relies on the practical behaviour:
 * lib/xarray.c's xas_delete_node() queues a node's free under xa_lock
 * before it clears the parent's slot that still points at it; a grace
 * period cannot end while the lock is held, and for another CPU's reader to
 * begin unprotected, a grace period would have to start and that CPU report
 * its quiescent state within those few instructions.  Here the worker is
 * woken at once and the queuing thread can be descheduled mid-section, so
 * without the deferral that window is wide open (iteration_check.c's
 * readers met freed nodes within 30 s).  The deferral hides only
 * call_rcu()-before-unlink inside one section; anything slower, e.g. an
 * unlink after a sleep under a mutex, is still caught.  rcu_barrier() waits
 * for the callbacks of sections that ended before it.
 *
 * Inline mode (ksim_rcu_set_inline_callbacks(true), used by the fuzz
 * harnesses): no worker thread at all; call_rcu() only queues, and
 * rcu_barrier() waits for one grace period and runs the queue in the calling
 * thread.  A deliberate difference from the kernel (callbacks run only at
 * rcu_barrier()), chosen so a fuzz iteration is single-threaded and
 * deterministic and its callbacks run before its leak check.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "urcu.h"

#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <ksim/rcu.h>
#include <ksim/sched.h>
#include <ksim/yield.h>

#include "rcu.h"

#ifdef KSIM_TSAN
char ksim_rcu_gp_sync;
#endif

/* ---- thread registration ---- */

static pthread_key_t reader_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static unsigned long nr_readers;	/* threads registered with liburcu */

/* Callbacks queued by this thread inside its current read-side section. */
__thread struct ksim_rcu_batch ksim_rcu_deferred;
#define deferred	ksim_rcu_deferred

static void reader_exit(void *arg)
{
	struct ksim_task *t = ksim_task();

	(void)arg;
	ksim_rcu_flush_deferred();
	free(deferred.cbs);
	deferred = (struct ksim_rcu_batch){ 0 };
	if (t->rcu_urcu_nesting > t->rcu_atomic)
		ksim_problem(KSIM_P_RCU, __FILE__, __LINE__,
			     "thread %d exits inside an RCU read-side critical section", t->id);
	if (t->rcu_urcu_nesting)
		ksim_rcu_leave_all(t, true);
	if (t->nr_held) {
		ksim_problem(KSIM_P_LOCKDEP, __FILE__, __LINE__,
			     "thread %d exits holding locks", t->id);
		ksim_lockdep_print_held_locks();
	}
	if (t->urcu_registered) {
		urcu_memb_unregister_thread();
		t->urcu_registered = false;
		__atomic_sub_fetch(&nr_readers, 1, __ATOMIC_RELEASE);
	}
}

static void make_key(void)
{
	pthread_key_create(&reader_key, reader_exit);
}

void ksim_rcu_register_reader(struct ksim_task *t)
{
	pthread_once(&key_once, make_key);
	urcu_memb_register_thread();
	t->urcu_registered = true;
	__atomic_add_fetch(&nr_readers, 1, __ATOMIC_RELEASE);
	/* A non-NULL value makes the destructor run at thread exit. */
	pthread_setspecific(reader_key, t);
}

void rcu_register_thread(void)
{
	struct ksim_task *t = ksim_task();

	t->urcu_register_calls++;
	ksim_rcu_ensure_registered(t);
}

void rcu_unregister_thread(void)
{
	struct ksim_task *t = ksim_task();

	if (t->rcu_urcu_nesting > t->rcu_atomic)
		ksim_problem(KSIM_P_RCU, __FILE__, __LINE__,
			     "rcu_unregister_thread() inside a read-side critical section");
	if (t->urcu_registered && !t->rcu_urcu_nesting) {
		urcu_memb_unregister_thread();
		t->urcu_registered = false;
		__atomic_sub_fetch(&nr_readers, 1, __ATOMIC_RELEASE);
	}
}

/* The read side and atomic sections are in read.c. */

static unsigned long rcu_suspicious_sites;

/*
 * Counts reports, not calls: under KSIM_POLICY_REPORT_ONCE (the kernel's
 * suites) a site already reported is not counted again, as ksim_problem()
 * does not count it.  A shared atomic per call was 5% of the maple suite's
 * farmer part (mt_validate() without the RCU lock, every dereference).
 */
void ksim_rcu_suspicious(const char *file, int line, const char *what)
{
	if (ksim_problem(KSIM_P_RCU, file, line, "%s", what)) {
		__atomic_add_fetch(&rcu_suspicious_sites, 1, __ATOMIC_RELAXED);
		ksim_lockdep_print_held_locks();
	}
}

/* ---- grace periods ---- */

static void check_may_wait(const char *what)
{
	struct ksim_task *t = ksim_task();

	if (t->rcu_urcu_nesting > t->rcu_atomic)
		ksim_bug(__FILE__, __LINE__,
			 "%s inside an RCU read-side critical section would deadlock", what);
	/* The kernel reports the sleep and its grace period waits for others. */
	if (t->rcu_atomic)
		ksim_bug(__FILE__, __LINE__,
			 "%s with preemption, bottom halves or interrupts disabled (a spinlock held?): "
			 "a sleep in atomic context, and here a grace period waiting for itself", what);
	if (t->in_rcu_callback)
		ksim_bug(__FILE__, __LINE__, "%s from an RCU callback would deadlock", what);
	__ksim_might_sleep(__FILE__, __LINE__);
}

/*
 * liburcu's grace period.  Only threads registered with liburcu can be
 * readers (ksim_rcu_read_lock() registers first), so when the caller is the
 * only one (or there is none) and is outside a read-side section, the grace
 * period is already over: skip liburcu's membarrier() system call (a fuzz
 * process, one thread, made 1,244 of them in 2,000 inputs).
 */
static void wait_for_readers(void)
{
	struct ksim_task *t = ksim_task();

	if (__atomic_load_n(&nr_readers, __ATOMIC_ACQUIRE) <= (t->urcu_registered ? 1 : 0) &&
	    !t->rcu_urcu_nesting)
		return;
	urcu_memb_synchronize_rcu();
}

void synchronize_rcu(void)
{
	check_may_wait("synchronize_rcu()");
	if (ksim_sched_enabled) {
		struct ksim_sched_gp gp;

		ksim_sched_gp_start(&gp);
		while (!ksim_sched_gp_done(&gp))
			ksim_sched_block("synchronize_rcu()");
	} else {
		wait_for_readers();
	}
	ksim_rcu_gp_done();
}

/* ---- callbacks ---- */

static pthread_mutex_t cb_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cb_work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t cb_done = PTHREAD_COND_INITIALIZER;

/*
 * Queued callbacks live in our own array, not in a list threaded through the
 * rcu_heads: the kernel links callbacks through head->next and head->func,
 * but nothing but RCU itself reads them, and structures overlay their
 * rcu_head on fields lockless readers may still be loading (a maple node's
 * head overlays its first pivots).  Not writing there keeps TSan from
 * reporting that overlap, and ASan from missing nothing: the memory is the
 * kernel structure's own until the callback frees it.  kfree_rcu() keeps the
 * kernel's convention: a small "function" is the rcu_head's offset.
 */
struct ksim_rcu_cb {
	struct rcu_head *head;
	rcu_callback_t func;
};
static struct ksim_rcu_batch cb_queue;
static unsigned long cb_queued, cb_invoked;
static unsigned long grace_periods;
static bool worker_running, worker_stop;
static bool cb_inline;
static pthread_t worker;

/*
 * kfree_rcu()/kvfree_rcu() queue the object's offset instead of a function
 * (as the kernel's kvfree_call_rcu() does); the slab registers the function
 * that frees it at init (mm/slab.c), so RCU calls nothing in the slab.
 */
static void (*kvfree_fn)(const void *);

void ksim_rcu_set_kvfree(void (*fn)(const void *))
{
	kvfree_fn = fn;
}

static void invoke_batch(struct ksim_rcu_batch *b)
{
	struct ksim_task *t = ksim_task();

	t->in_rcu_callback++;
	lock_map_acquire(&rcu_callback_map);
	for (size_t i = 0; i < b->nr; i++) {
		struct rcu_head *head = b->cbs[i].head;
		unsigned long offset = (unsigned long)b->cbs[i].func;

		if (__is_kvfree_rcu_offset(offset))
			kvfree_fn((char *)head - offset);
		else
			b->cbs[i].func(head);
	}
	lock_map_release(&rcu_callback_map);
	t->in_rcu_callback--;

	pthread_mutex_lock(&cb_lock);
	cb_invoked += b->nr;
	pthread_cond_broadcast(&cb_done);
	pthread_mutex_unlock(&cb_lock);
}

/* One grace period, then the batch: the only path by which callbacks run. */
static void run_after_grace_period(struct ksim_rcu_batch *b)
{
	wait_for_readers();
	ksim_rcu_gp_done();
	__atomic_add_fetch(&grace_periods, 1, __ATOMIC_RELAXED);
	invoke_batch(b);
}

/*
 * The worker's wait for more callbacks before it starts a grace period
 * (unless rcu_barrier() or ksim_rcu_quiesce() wants it now).  Without it,
 * every call_rcu() woke the worker into a grace period of its own: the 7.3
 * maple suite's farmer part made 98,000 membarrier() calls in 8.6 s, each an
 * IPI to every CPU, 20% of its time and slowing the part beside it.  The
 * kernel batches too, over grace periods of milliseconds.
 */
unsigned long ksim_rcu_gather_ns = 1000 * 1000;

static bool worker_gathering;		/* under cb_lock: no signal needed */
static int barrier_waiters;		/* under cb_lock */

static void gather_locked(void)
{
	unsigned long ns = __atomic_load_n(&ksim_rcu_gather_ns, __ATOMIC_RELAXED);
	struct timespec until;

	if (!ns)
		return;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ns / 1000000000;
	until.tv_nsec += ns % 1000000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	worker_gathering = true;
	while (!worker_stop && !barrier_waiters &&
	       pthread_cond_timedwait(&cb_work, &cb_lock, &until) != ETIMEDOUT)
		;
	worker_gathering = false;
}

static void *rcu_worker(void *arg)
{
	struct ksim_rcu_batch batch = { 0 };

	(void)arg;
	for (;;) {
		struct ksim_rcu_batch empty = batch;

		pthread_mutex_lock(&cb_lock);
		while (!cb_queue.nr && !worker_stop)
			pthread_cond_wait(&cb_work, &cb_lock);
		if (cb_queue.nr && !worker_stop && !barrier_waiters)
			gather_locked();
		if (!cb_queue.nr && worker_stop) {
			pthread_mutex_unlock(&cb_lock);
			break;
		}
		/* Swap arrays: the queue keeps the (emptied) old batch's storage. */
		batch = cb_queue;
		cb_queue = empty;
		cb_queue.nr = 0;
		pthread_mutex_unlock(&cb_lock);
		run_after_grace_period(&batch);
	}
	free(batch.cbs);
	if (ksim_task()->urcu_registered)
		rcu_unregister_thread();
	return NULL;
}

static void batch_add(struct ksim_rcu_batch *b, struct ksim_rcu_cb cb)
{
	if (b->nr == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 256;
		struct ksim_rcu_cb *cbs = realloc(b->cbs, cap * sizeof(*cbs));

		if (!cbs) {
			perror("ksim: call_rcu queue");
			abort();
		}
		b->cbs = cbs;
		b->cap = cap;
	}
	b->cbs[b->nr++] = cb;
}

/* Append @n callbacks to the queue; the worker starts on the first. */
static void queue_callbacks(const struct ksim_rcu_cb *cbs, size_t n)
{
	pthread_mutex_lock(&cb_lock);
	for (size_t i = 0; i < n; i++)
		batch_add(&cb_queue, cbs[i]);
	cb_queued += n;
	if (!worker_running && !cb_inline && !ksim_sched_enabled) {
		worker_stop = false;
		if (pthread_create(&worker, NULL, rcu_worker, NULL)) {
			perror("ksim: rcu worker");
			abort();
		}
		worker_running = true;
	}
	if (!worker_gathering)
		pthread_cond_signal(&cb_work);
	pthread_mutex_unlock(&cb_lock);
}

void ksim_rcu_flush_deferred_slow(void)
{
	queue_callbacks(deferred.cbs, deferred.nr);
	deferred.nr = 0;
}

static void enqueue(struct rcu_head *head, rcu_callback_t func)
{
	struct ksim_rcu_cb cb = { head, func };

	ksim_yield_point();
	if (ksim_task()->rcu_urcu_nesting)
		batch_add(&deferred, cb);
	else
		queue_callbacks(&cb, 1);
}

/* rcu_head_init()'s mark (linux/rcupdate.h); never called. */
void ksim_rcu_head_init_marker(struct rcu_head *head)
{
	ksim_bug(__FILE__, __LINE__, "an rcu_head_init() mark called as an RCU callback");
}

void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	/* rcu_head_after_call_rcu() (linux/rcupdate.h): only heads marked by rcu_head_init() */
	if (READ_ONCE(head->func) == KSIM_RCU_HEAD_INIT_FUNC)
		WRITE_ONCE(head->func, func);
	enqueue(head, func);
}

void ksim_kvfree_call_rcu(struct rcu_head *head, void *ptr)
{
	if (!kvfree_fn)
		ksim_bug(__FILE__, __LINE__, "kvfree_rcu() before ksim_init() (no slab registered)");
	enqueue(head, (rcu_callback_t)(unsigned long)((char *)head - (char *)ptr));
}

void ksim_rcu_sched_poll(void);

void rcu_barrier(void)
{
	unsigned long target;

	check_may_wait("rcu_barrier()");
	pthread_mutex_lock(&cb_lock);
	/* Inline mode: run the queue here (callbacks may queue more). */
	while (cb_inline && !worker_running && cb_queue.nr) {
		struct ksim_rcu_batch batch = cb_queue;

		cb_queue = (struct ksim_rcu_batch){ 0 };
		pthread_mutex_unlock(&cb_lock);
		run_after_grace_period(&batch);
		free(batch.cbs);
		pthread_mutex_lock(&cb_lock);
	}
	target = cb_queued;
	while (ksim_sched_enabled && cb_invoked < target) {
		pthread_mutex_unlock(&cb_lock);
		ksim_rcu_sched_poll();
		pthread_mutex_lock(&cb_lock);
		if (cb_invoked < target)
			ksim_sched_cond_wait(&cb_done, &cb_lock, "rcu_barrier()");
	}
	if (cb_invoked < target) {
		barrier_waiters++;
		pthread_cond_signal(&cb_work);		/* end a gathering wait */
		while (cb_invoked < target)
			pthread_cond_wait(&cb_done, &cb_lock);
		barrier_waiters--;
	}
	pthread_mutex_unlock(&cb_lock);
}

/*
 * Deterministic scheduling (ksim/sched.h): no worker.  At a clean yield point
 * the baton holder ends the batch's grace period if every reader that was
 * inside a section when it started has left it, runs the batch, and starts
 * the next batch's grace period.
 */
static struct ksim_rcu_batch sched_batch;
static struct ksim_sched_gp sched_gp;
static bool sched_waiting;

void ksim_rcu_sched_poll(void)
{
	for (;;) {
		struct ksim_rcu_batch batch;

		pthread_mutex_lock(&cb_lock);
		if (sched_waiting) {
			pthread_mutex_unlock(&cb_lock);
			if (!ksim_sched_gp_done(&sched_gp))
				return;
			pthread_mutex_lock(&cb_lock);
			batch = sched_batch;
			sched_batch = (struct ksim_rcu_batch){ 0 };
			sched_waiting = false;
			pthread_mutex_unlock(&cb_lock);
			ksim_rcu_gp_done();
			__atomic_add_fetch(&grace_periods, 1, __ATOMIC_RELAXED);
			invoke_batch(&batch);
			free(batch.cbs);
			continue;
		}
		if (!cb_queue.nr) {
			pthread_mutex_unlock(&cb_lock);
			return;
		}
		sched_batch = cb_queue;
		cb_queue = (struct ksim_rcu_batch){ 0 };
		sched_waiting = true;
		pthread_mutex_unlock(&cb_lock);
		ksim_sched_gp_start(&sched_gp);
	}
}

void ksim_rcu_quiesce(void)
{
	rcu_barrier();
	pthread_mutex_lock(&cb_lock);
	if (!worker_running) {
		pthread_mutex_unlock(&cb_lock);
		return;
	}
	worker_stop = true;
	pthread_cond_signal(&cb_work);
	pthread_mutex_unlock(&cb_lock);
	pthread_join(worker, NULL);
	pthread_mutex_lock(&cb_lock);
	worker_running = false;
	pthread_mutex_unlock(&cb_lock);
}

void ksim_rcu_set_inline_callbacks(bool on)
{
	if (on)
		ksim_rcu_quiesce();
	else
		rcu_barrier();
	pthread_mutex_lock(&cb_lock);
	cb_inline = on;
	pthread_mutex_unlock(&cb_lock);
}

void ksim_rcu_stats(struct ksim_rcu_stats *out)
{
	pthread_mutex_lock(&cb_lock);
	out->callbacks_queued = cb_queued;
	out->callbacks_invoked = cb_invoked;
	pthread_mutex_unlock(&cb_lock);
	out->grace_periods = __atomic_load_n(&grace_periods, __ATOMIC_RELAXED);
	out->suspicious = __atomic_load_n(&rcu_suspicious_sites, __ATOMIC_RELAXED);
}

void rcu_init(void)
{
	/* The main thread is a reader from the start, as every kernel thread is. */
	ksim_rcu_ensure_registered(ksim_task());
	/* Under deterministic scheduling callbacks run at clean yield points. */
	ksim_sched_set_clean_point_hook(ksim_rcu_sched_poll);
}
ksim_initcall(rcu_init, KSIM_INIT_RCU);
