/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksim_task: per-thread execution context, the userspace stand-in for the
 * parts of task_struct and the per-CPU preempt/irq state that the kernel's
 * debug checks read.  Every check the shim makes about "where am I" (in an
 * RCU read section? holding a spinlock? irqs off?) reads this.
 */
#ifndef _KSIM_TASK_H
#define _KSIM_TASK_H

#include <stdbool.h>

struct lockdep_map;

#define KSIM_MAX_HELD_LOCKS	48

struct ksim_held_lock {
	const struct lockdep_map *map;
	const char *name;	
	int read;		/* 0: exclusive, 1: shared (rwsem/rwlock read) */
	int type;		/* enum ksim_lock_type: spin, mutex, rwsem, ... */
	const char *file;
	int line;
	unsigned int seq;	/* lock_sequence(): low 8 bits of the acquisition count */
};

struct ksim_task {
	int id;			/* small thread number, 0 = first thread */
	int preempt_count;	/* spinlocks held + preempt_disable depth */
	int softirq_count;	/* local_bh_disable depth */
	int irqs_off;		/* local_irq_disable/save depth */
	int rcu_nesting;	/* rcu_read_lock depth */
	int rcu_bh_nesting;	/* rcu_read_lock_bh depth */
	int rcu_sched_nesting;	/* rcu_read_lock_sched depth */
	int rcu_urcu_nesting;	/* total depth mapped onto the liburcu reader */
	bool rcu_atomic;	/* preemption, bh or irqs off: one unit of rcu_urcu_nesting */
	unsigned long rcu_sections;	/* outermost sections entered (ksim/sched.h grace periods) */
	bool urcu_registered;
	int urcu_register_calls;
	int in_rcu_callback;
	int nr_held;
	unsigned int lockdep_seq;	/* acquisitions so far (task_struct.lockdep_seq) */
	struct ksim_held_lock held[KSIM_MAX_HELD_LOCKS];
	/* The res_spin_lock this thread waits for (ABBA checks read it). */
	const struct lockdep_map *rq_waiting;
	/*
	 * This thread's CPU-time clock (a clockid_t), set when it first takes a
	 * res_spin_lock: its waiters time out on the holder's running time.
	 */
	int rq_cpu_clock;
	bool rq_cpu_clock_set;
};

extern __thread struct ksim_task ksim_current_task;
int ksim_task_assign_id(void);

/*
 * GCC 12's UBSan null check on a TLS object's address misfires when this is
 * inlined into some kernel functions (seen in mtree_load()), reporting
 * "member access within null pointer": the address goes through an empty
 * asm, so the check sees an ordinary (non-null) pointer.  Not a
 * no_sanitize attribute: GCC does not inline across differing sanitizer
 * attributes, and the call cost 16% of lib/test_xarray.c's run time.
 */
static inline struct ksim_task *ksim_task(void)
{
	struct ksim_task *t = &ksim_current_task;

	__asm__("" : "+r"(t));
	if (__builtin_expect(t->id == 0, 0))
		t->id = ksim_task_assign_id();
	return t;
}

/*
 * This thread's own field, named directly: what the shim's inline checks in
 * kernel code read and write (linux/rcupdate.h, preempt.h, irqflags.h).  ASan
 * does not instrument an in-bounds access to a thread-local variable at a
 * constant offset, and UBSan checks only the address arithmetic
 * (pointer-overflow, three instructions); through ksim_task()'s laundered
 * pointer every such field took a null, an alignment and a shadow check:
 * 14% of xas_load()'s samples under ASan (perf, 7.3.4,
 * xarray/MEASUREMENTS.md).  These are the shim's bookkeeping, never kernel
 * memory, so no check of the kernel's is lost.  No lazy id: use ksim_task()
 * for that.
 */
#define ksim_current(field)	(ksim_current_task.field)

#endif /* _KSIM_TASK_H */
