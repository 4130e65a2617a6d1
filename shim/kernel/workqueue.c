// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred work items and irq_work (linux/workqueue.h, linux/irq_work.h):
 * two FIFO queues drained by ksim_run_pending_work(), one thread at a time.
 * The queue lock is ours (a pthread mutex never held across shim code);
 * waiting for an item another thread runs yields the baton under --sched.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include <linux/workqueue.h>
#include <linux/irq_work.h>
#include <ksim/sched.h>

static pthread_mutex_t wq_lock = PTHREAD_MUTEX_INITIALIZER;
static LIST_HEAD(work_queue);
static struct irq_work *irq_head, **irq_tail = &irq_head;
static bool draining;	/* a thread runs the queues now */
static unsigned long work_runs;
/*
 * Items queued now, read without the lock first: a command of a map that
 * queues nothing (all but RHASH) takes no lock at its end, so no
 * synchronisation appears between threads that the kernel does not have
 * (TSan would see one in every pair of commands).
 */
static unsigned long nr_queued;

static void queued_add(long d)
{
	__atomic_store_n(&nr_queued, nr_queued + d, __ATOMIC_RELAXED);
}

unsigned long ksim_work_runs(void)
{
	return __atomic_load_n(&work_runs, __ATOMIC_RELAXED);
}

bool schedule_work(struct work_struct *w)
{
	bool queued = false;

	pthread_mutex_lock(&wq_lock);
	if (!(w->data & KSIM_WORK_PENDING)) {
		w->data |= KSIM_WORK_PENDING;
		list_add_tail(&w->entry, &work_queue);
		queued_add(1);
		queued = true;
	}
	pthread_mutex_unlock(&wq_lock);
	return queued;
}

bool irq_work_queue(struct irq_work *w)
{
	bool queued = false;

	pthread_mutex_lock(&wq_lock);
	if (!(w->flags & KSIM_WORK_PENDING)) {
		w->flags |= KSIM_WORK_PENDING;
		w->next = NULL;
		*irq_tail = w;
		irq_tail = &w->next;
		queued_add(1);
		queued = true;
	}
	pthread_mutex_unlock(&wq_lock);
	return queued;
}

/* wq_lock held: drop it, let the thread running an item go on, take it again. */
static void wq_wait(void)
{
	pthread_mutex_unlock(&wq_lock);
	if (ksim_sched_current())
		ksim_sched_block("work item running");
	else
		sched_yield();
	pthread_mutex_lock(&wq_lock);
}

static void irq_unlink(struct irq_work *w)
{
	struct irq_work **pp;

	for (pp = &irq_head; *pp != w; pp = &(*pp)->next)
		;
	*pp = w->next;
	if (irq_tail == &w->next)
		irq_tail = pp;
	w->next = NULL;
}

/* wq_lock held, @w pending and not running: run it here. */
static void irq_run_locked(struct irq_work *w)
{
	irq_unlink(w);
	queued_add(-1);
	w->flags = KSIM_WORK_RUNNING;
	pthread_mutex_unlock(&wq_lock);
	w->func(w);
	pthread_mutex_lock(&wq_lock);
	w->flags &= ~KSIM_WORK_RUNNING;
}

/*
 * The work items running now.  Not a bit in the item: a work function may
 * free its own item (the kernel's bpf_map_free_deferred() frees the map the
 * item is in), so nothing touches the item after its function returned.
 */
#define KSIM_WQ_MAX_RUNNING	64
static struct work_struct *running[KSIM_WQ_MAX_RUNNING];

static bool work_running(const struct work_struct *w)
{
	for (int i = 0; i < KSIM_WQ_MAX_RUNNING; i++)
		if (running[i] == w)
			return true;
	return false;
}

static void work_run_locked(struct work_struct *w)
{
	int slot = 0;

	while (running[slot])
		if (++slot == KSIM_WQ_MAX_RUNNING)
			abort();	/* that many nested or concurrent runs: a bug */
	running[slot] = w;
	list_del_init(&w->entry);
	queued_add(-1);
	w->data &= ~KSIM_WORK_PENDING;
	__atomic_add_fetch(&work_runs, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&wq_lock);
	w->func(w);
	pthread_mutex_lock(&wq_lock);
	running[slot] = NULL;
}

void irq_work_sync(struct irq_work *w)
{
	pthread_mutex_lock(&wq_lock);
	while (w->flags & KSIM_WORK_RUNNING)
		wq_wait();
	if (w->flags & KSIM_WORK_PENDING)
		irq_run_locked(w);
	pthread_mutex_unlock(&wq_lock);
}

bool flush_work(struct work_struct *w)
{
	bool waited = false;

	/*
	 * The instance queued now: run it here if pending, wait if running.
	 * A requeue from inside it is a new instance, not waited for (as in
	 * the kernel; rhashtable's worker requeues itself on failure).
	 */
	pthread_mutex_lock(&wq_lock);
	while (work_running(w)) {
		waited = true;
		wq_wait();
	}
	if (w->data & KSIM_WORK_PENDING) {
		waited = true;
		work_run_locked(w);
	}
	pthread_mutex_unlock(&wq_lock);
	return waited;
}

bool cancel_work_sync(struct work_struct *w)
{
	bool pending;

	pthread_mutex_lock(&wq_lock);
	pending = w->data & KSIM_WORK_PENDING;
	if (pending) {
		list_del_init(&w->entry);
		queued_add(-1);
		w->data &= ~KSIM_WORK_PENDING;
	}
	/* A running item may queue itself again: cancel that too (the kernel's does). */
	while (work_running(w) || (w->data & KSIM_WORK_PENDING)) {
		if (w->data & KSIM_WORK_PENDING) {
			list_del_init(&w->entry);
			queued_add(-1);
			w->data &= ~KSIM_WORK_PENDING;
			continue;
		}
		wq_wait();
	}
	pthread_mutex_unlock(&wq_lock);
	return pending;
}

/*
 * Each drain runs an item at most KSIM_WORK_MAX_RUNS times: an item that
 * queues itself again (rhashtable's worker does after each step of a
 * chained rehash, and after an allocation failure) runs again in the same
 * drain until then, so a failure the fault engine repeats cannot spin here.
 * An item's data holds the drain it last ran in and how often it ran there.
 */
static unsigned long drain_gen;

void ksim_run_pending_work(void)
{
	unsigned long gen;

	if (!__atomic_load_n(&nr_queued, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&wq_lock);
	if (draining || (!irq_head && list_empty(&work_queue))) {
		pthread_mutex_unlock(&wq_lock);
		return;
	}
	draining = true;
	gen = ++drain_gen;
	for (;;) {
		if (irq_head) {
			irq_run_locked(irq_head);
			continue;
		}
		if (!list_empty(&work_queue)) {
			struct work_struct *w = list_first_entry(&work_queue, struct work_struct, entry);

			if (work_running(w)) {
				/* flush_work() in another thread runs it: wait, keep the order */
				wq_wait();
				continue;
			}
			unsigned long runs = 0;

			if ((w->data >> KSIM_WORK_GEN_SHIFT) == gen)
				runs = (w->data & KSIM_WORK_RUNS_MASK) >> KSIM_WORK_RUNS_SHIFT;
			if (runs >= KSIM_WORK_MAX_RUNS)
				break;	/* the next drain runs it */
			w->data = (w->data & KSIM_WORK_PENDING) |
				  ((runs + 1) << KSIM_WORK_RUNS_SHIFT) | (gen << KSIM_WORK_GEN_SHIFT);
			work_run_locked(w);
			continue;
		}
		break;
	}
	draining = false;
	pthread_mutex_unlock(&wq_lock);
}
