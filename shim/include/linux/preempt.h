/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Preemption and irq bookkeeping per thread (see ksim/task.h).  Nothing is
 * really disabled: the counts exist so might_sleep(), in_atomic() and the
 * lockdep-style assertions can tell where the calling code stands.
 */
#ifndef __LINUX_PREEMPT_H
#define __LINUX_PREEMPT_H

#include <linux/compiler.h>
#include <ksim/task.h>

#define preempt_count()		(ksim_task()->preempt_count)
#define preempt_disable()	do { ksim_task()->preempt_count++; barrier(); } while (0)
#define preempt_enable()	do { barrier(); ksim_task()->preempt_count--; } while (0)
#define preempt_enable_no_resched()	preempt_enable()
#define preempt_disable_notrace()	preempt_disable()
#define preempt_enable_notrace()	preempt_enable()
/* The kernel's migrate_disable() pins the CPU but stays preemptible and may sleep. */
#define migrate_disable()	barrier()
#define migrate_enable()	barrier()
#define preemptible()		(ksim_task()->preempt_count == 0 && !ksim_task()->irqs_off)
#define in_atomic()		(ksim_task()->preempt_count != 0 || in_softirq())
#define in_softirq()		(ksim_task()->softirq_count != 0 || in_serving_softirq())
#define in_serving_softirq()	(ksim_task()->in_rcu_callback != 0)
#define in_interrupt()		(in_softirq() || in_serving_softirq())
#define in_irq()		0
#define in_hardirq()		0
#define in_nmi()		0
#define in_task()		(!in_interrupt())

#define local_bh_disable()	do { ksim_task()->softirq_count++; barrier(); } while (0)
#define local_bh_enable()	do { barrier(); ksim_task()->softirq_count--; } while (0)

#endif
