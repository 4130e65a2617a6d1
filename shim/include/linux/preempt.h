/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Preemption and irq bookkeeping per thread (see ksim/task.h).  Nothing is
 * really disabled: the counts exist so might_sleep(), in_atomic() and the
 * lockdep-style assertions can tell where the calling code stands, and so
 * that grace periods wait for atomic sections: in the kernel (one RCU
 * flavour since 5.0) a CPU with preemption, bottom halves or interrupts
 * disabled holds off every grace period, and code relies on it (a node read
 * under a spinlock after the store that unlinked it queued its free).  The
 * first disable enters a liburcu read-side section, the last enable leaves
 * it (ksim_rcu_atomic_update(), shim/rcu/read.c).
 */
#ifndef __LINUX_PREEMPT_H
#define __LINUX_PREEMPT_H

#include <linux/compiler.h>
#include <ksim/task.h>

void ksim_rcu_atomic_update(struct ksim_task *t);

/*
 * Enter or leave the grace-period-blocking section when this thread's
 * atomicity changed (its fields named directly: ksim/task.h).
 */
static inline void ksim_current_atomic_changed(void)
{
	bool atomic = ksim_current(preempt_count) || ksim_current(softirq_count) ||
		      ksim_current(irqs_off);

	if (__builtin_expect(atomic != ksim_current(rcu_atomic), 0))
		ksim_rcu_atomic_update(&ksim_current_task);
}

#define preempt_count()		(ksim_current(preempt_count))
#define preempt_disable()	do { ksim_current(preempt_count)++; \
	ksim_current_atomic_changed(); barrier(); } while (0)
#define preempt_enable()	do { barrier(); ksim_current(preempt_count)--; \
	ksim_current_atomic_changed(); } while (0)
#define preempt_enable_no_resched()	preempt_enable()
#define preempt_disable_notrace()	preempt_disable()
#define preempt_enable_notrace()	preempt_enable()
/* The kernel's migrate_disable() pins the CPU but stays preemptible and may sleep. */
#define migrate_disable()	barrier()
#define migrate_enable()	barrier()
#define preemptible()		(ksim_current(preempt_count) == 0 && !ksim_current(irqs_off))
#define in_atomic()		(ksim_current(preempt_count) != 0 || in_softirq())
#define in_softirq()		(ksim_current(softirq_count) != 0 || in_serving_softirq())
#define in_serving_softirq()	(ksim_current(in_rcu_callback) != 0)
#define in_interrupt()		(in_softirq() || in_serving_softirq())
#define in_irq()		0
#define in_hardirq()		0
#define in_nmi()		0
#define in_task()		(!in_interrupt())

#define local_bh_disable()	do { ksim_current(softirq_count)++; \
	ksim_current_atomic_changed(); barrier(); } while (0)
#define local_bh_enable()	do { barrier(); ksim_current(softirq_count)--; \
	ksim_current_atomic_changed(); } while (0)

#endif
