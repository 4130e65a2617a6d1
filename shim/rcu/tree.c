// SPDX-License-Identifier: GPL-2.0
/*
 * RCU for the shim (see linux/rcupdate.h for the model).
 *
 * Read side and grace periods come from liburcu's memb flavour.  Callbacks
 * (call_rcu, kfree_rcu) run on one worker thread of ours: it takes the whole
 * queue, waits one grace period, then invokes the batch with
 * rcu_callback_map held and in "softirq" context, as the kernel does.
 * rcu_barrier() waits until every callback queued before it has run, woken
 * by the worker; with nothing queued it returns at once.  The worker starts
 * on the first call_rcu() and ksim_rcu_quiesce() can stop it, so a process
 * can be single-threaded again (AFL++'s fork server needs that).
 *
 * Inline mode (ksim_rcu_set_inline_callbacks(true), used by the fuzz
 * harnesses): no worker thread at all; call_rcu() only queues, and
 * rcu_barrier() waits for one grace period and runs the queue in the calling
 * thread.  A deliberate difference from the kernel (callbacks run only at
 * rcu_barrier()), chosen so a fuzz iteration is single-threaded and
 * deterministic and its callbacks run before its leak check.
 */
#define _LGPL_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <urcu/urcu-memb.h>

/* liburcu's pointer.h and map headers use kernel names: drop them. */
#undef rcu_dereference
#undef rcu_assign_pointer
#undef rcu_read_lock
#undef rcu_read_unlock
#undef synchronize_rcu
#undef call_rcu
#undef rcu_barrier
#undef rcu_register_thread
#undef rcu_unregister_thread
#undef rcu_init
#undef rcu_xchg_pointer
#undef rcu_cmpxchg_pointer
#undef rcu_set_pointer

#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <ksim/rcu.h>

/* ---- thread registration ---- */

static pthread_key_t reader_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void reader_exit(void *arg)
{
	struct ksim_task *t = ksim_task();

	(void)arg;
	if (t->rcu_urcu_nesting)
		ksim_problem(KSIM_P_RCU, __FILE__, __LINE__,
			     "thread %d exits inside an RCU read-side critical section", t->id);
	if (t->nr_held) {
		ksim_problem(KSIM_P_LOCKDEP, __FILE__, __LINE__,
			     "thread %d exits holding locks", t->id);
		ksim_lockdep_print_held_locks();
	}
	if (t->urcu_registered) {
		urcu_memb_unregister_thread();
		t->urcu_registered = false;
	}
}

static void make_key(void)
{
	pthread_key_create(&reader_key, reader_exit);
}

static void ensure_registered(struct ksim_task *t)
{
	if (__builtin_expect(t->urcu_registered, 1))
		return;
	pthread_once(&key_once, make_key);
	urcu_memb_register_thread();
	t->urcu_registered = true;
	/* A non-NULL value makes the destructor run at thread exit. */
	pthread_setspecific(reader_key, t);
}

void rcu_register_thread(void)
{
	struct ksim_task *t = ksim_task();

	t->urcu_register_calls++;
	ensure_registered(t);
}

void rcu_unregister_thread(void)
{
	struct ksim_task *t = ksim_task();

	if (t->rcu_urcu_nesting)
		ksim_problem(KSIM_P_RCU, __FILE__, __LINE__,
			     "rcu_unregister_thread() inside a read-side critical section");
	if (t->urcu_registered && !t->rcu_urcu_nesting) {
		urcu_memb_unregister_thread();
		t->urcu_registered = false;
	}
}

/* ---- read side ---- */

void ksim_rcu_read_lock(int *nesting)
{
	struct ksim_task *t = ksim_task();

	ensure_registered(t);
	if (t->rcu_urcu_nesting++ == 0)
		urcu_memb_read_lock();
	(*nesting)++;
}

void ksim_rcu_read_unlock(int *nesting, const char *file, int line)
{
	struct ksim_task *t = ksim_task();

	if (*nesting <= 0) {
		ksim_problem(KSIM_P_RCU, file, line,
			     "rcu_read_unlock() of a flavour this thread did not lock");
		return;
	}
	(*nesting)--;
	if (--t->rcu_urcu_nesting == 0)
		urcu_memb_read_unlock();
}

static unsigned long rcu_suspicious_sites;

void ksim_rcu_suspicious(const char *file, int line, const char *what)
{
	__atomic_add_fetch(&rcu_suspicious_sites, 1, __ATOMIC_RELAXED);
	ksim_problem(KSIM_P_RCU, file, line, "%s", what);
	ksim_lockdep_print_held_locks();
}

/* ---- grace periods ---- */

static void check_may_wait(const char *what)
{
	struct ksim_task *t = ksim_task();

	if (t->rcu_urcu_nesting)
		ksim_bug(__FILE__, __LINE__,
			 "%s inside an RCU read-side critical section would deadlock", what);
	if (t->in_rcu_callback)
		ksim_bug(__FILE__, __LINE__, "%s from an RCU callback would deadlock", what);
	__ksim_might_sleep(__FILE__, __LINE__);
}

void synchronize_rcu(void)
{
	check_may_wait("synchronize_rcu()");
	urcu_memb_synchronize_rcu();
}

/* ---- callbacks ---- */

static pthread_mutex_t cb_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cb_work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t cb_done = PTHREAD_COND_INITIALIZER;
static struct rcu_head *cb_head, **cb_tail = &cb_head;
static unsigned long cb_queued, cb_invoked;
static unsigned long grace_periods;
static bool worker_running, worker_stop;
static bool cb_inline;
static pthread_t worker;

static void invoke_batch(struct rcu_head *list)
{
	struct ksim_task *t = ksim_task();
	unsigned long n = 0;

	t->in_rcu_callback++;
	lock_map_acquire(&rcu_callback_map);
	while (list) {
		struct rcu_head *next = list->next;
		unsigned long offset = (unsigned long)list->func;

		if (__is_kvfree_rcu_offset(offset))
			kvfree((char *)list - offset);
		else
			list->func(list);
		list = next;
		n++;
	}
	lock_map_release(&rcu_callback_map);
	t->in_rcu_callback--;

	pthread_mutex_lock(&cb_lock);
	cb_invoked += n;
	pthread_cond_broadcast(&cb_done);
	pthread_mutex_unlock(&cb_lock);
}

static void *rcu_worker(void *arg)
{
	(void)arg;
	for (;;) {
		struct rcu_head *batch;

		pthread_mutex_lock(&cb_lock);
		while (!cb_head && !worker_stop)
			pthread_cond_wait(&cb_work, &cb_lock);
		if (!cb_head && worker_stop) {
			pthread_mutex_unlock(&cb_lock);
			break;
		}
		batch = cb_head;
		cb_head = NULL;
		cb_tail = &cb_head;
		pthread_mutex_unlock(&cb_lock);

		urcu_memb_synchronize_rcu();
		__atomic_add_fetch(&grace_periods, 1, __ATOMIC_RELAXED);
		invoke_batch(batch);
	}
	if (ksim_task()->urcu_registered)
		rcu_unregister_thread();
	return NULL;
}

static void enqueue(struct rcu_head *head)
{
	head->next = NULL;
	pthread_mutex_lock(&cb_lock);
	*cb_tail = head;
	cb_tail = &head->next;
	cb_queued++;
	if (!worker_running && !cb_inline) {
		worker_stop = false;
		if (pthread_create(&worker, NULL, rcu_worker, NULL)) {
			perror("ksim: rcu worker");
			abort();
		}
		worker_running = true;
	}
	pthread_cond_signal(&cb_work);
	pthread_mutex_unlock(&cb_lock);
}

void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	head->func = func;
	enqueue(head);
}

void ksim_kvfree_call_rcu(struct rcu_head *head, void *ptr)
{
	head->func = (rcu_callback_t)(unsigned long)((char *)head - (char *)ptr);
	enqueue(head);
}

void rcu_barrier(void)
{
	unsigned long target;

	check_may_wait("rcu_barrier()");
	pthread_mutex_lock(&cb_lock);
	/* Inline mode: run the queue here (callbacks may queue more). */
	while (cb_inline && !worker_running && cb_head) {
		struct rcu_head *batch = cb_head;

		cb_head = NULL;
		cb_tail = &cb_head;
		pthread_mutex_unlock(&cb_lock);
		urcu_memb_synchronize_rcu();
		__atomic_add_fetch(&grace_periods, 1, __ATOMIC_RELAXED);
		invoke_batch(batch);
		pthread_mutex_lock(&cb_lock);
	}
	target = cb_queued;
	while (cb_invoked < target)
		pthread_cond_wait(&cb_done, &cb_lock);
	pthread_mutex_unlock(&cb_lock);
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
	ensure_registered(ksim_task());
}
