/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Work items, deferred as the kernel defers them, run at a deterministic
 * point instead of by a worker thread (shim/kernel/workqueue.c).
 *
 * Kernel semantics kept: schedule_work()/queue_work() set the item's
 * PENDING bit and queue it; queueing a pending item does nothing and
 * returns false; the bit is cleared just before the function runs, so a
 * running item may queue itself again; an item never runs twice at once;
 * cancel_work_sync() takes a pending item off the queue (true if it was
 * pending) and waits for a running one; flush_work() waits until the item
 * queued last has run (true if it had to wait).
 *
 * Where we differ: there are no worker threads and no workqueues (every
 * wq is the system one).  Queued items run, in queueing order, when
 * ksim_run_pending_work() is called: by the BPF driver after each map
 * command (shim/kernel/bpf/syscall.c), outside every lock and RCU section
 * of the command, and by flush_work() (which runs the item itself when it
 * is pending).  Single-threaded runs are therefore deterministic and replay
 * from their seed.  Of the kernel code ksim compiles only lib/rhashtable.c
 * queues work (its deferred resize, ht->run_work; 7.x hashtab.c's
 * BPF_MAP_TYPE_RHASH map links it); the shim's bpf_map_put() queues the
 * free of a map whose grace period ended (an inner map put with
 * need_defer); irq_work (linux/irq_work.h) is deferred the same way and
 * run first.
 */
#ifndef _LINUX_WORKQUEUE_H
#define _LINUX_WORKQUEUE_H

#include <linux/types.h>
#include <linux/list.h>

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);
struct work_struct {
	unsigned long data;	/* KSIM_WORK_PENDING; its last drain (below) */
	struct list_head entry;
	work_func_t func;
};
struct workqueue_struct;

#define KSIM_WORK_PENDING	1UL
#define KSIM_WORK_RUNNING	2UL
/* Ours: runs in the drain it last ran in (bits 2-5), that drain's number (bits 6-). */
#define KSIM_WORK_RUNS_SHIFT	2
#define KSIM_WORK_RUNS_MASK	(0xfUL << KSIM_WORK_RUNS_SHIFT)
#define KSIM_WORK_GEN_SHIFT	6
#define KSIM_WORK_MAX_RUNS	8	/* per drain */

#define INIT_WORK(w, f)							\
	do {								\
		(w)->data = 0;						\
		INIT_LIST_HEAD(&(w)->entry);				\
		(w)->func = (f);					\
	} while (0)

bool schedule_work(struct work_struct *w);
#define queue_work(wq, w)	((void)(wq), schedule_work(w))
bool flush_work(struct work_struct *w);
bool cancel_work_sync(struct work_struct *w);
static inline bool work_pending(const struct work_struct *w)
{
	return READ_ONCE(w->data) & KSIM_WORK_PENDING;
}

/*
 * Ours: run every queued irq_work, then every queued work item (and what
 * they queue) until none is left.  Call it where the kernel's workers could
 * run: with no spinlock, mutex or RCU read lock held by the caller.  A call
 * made while another thread is running the queue returns at once (that
 * thread drains it).  Each call runs an item at most KSIM_WORK_MAX_RUNS
 * times: one that keeps queueing itself (rhashtable's worker, while the
 * fault engine fails its allocation) waits for the next call from then on.
 */
void ksim_run_pending_work(void);
/* Ours: how many work items have run so far (a walk asks whether a resize ran during it). */
unsigned long ksim_work_runs(void);

#endif
