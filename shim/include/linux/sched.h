/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_SCHED_H
#define _LINUX_SCHED_H

#include <linux/types.h>
#include <linux/preempt.h>
#include <linux/irqflags.h>

/*
 * might_sleep(): the kernel's "BUG: sleeping function called from invalid
 * context" check.  Fires (as a KSIM_P_SLEEP problem, which fails the test)
 * when the caller holds a spinlock, has preemption or irqs disabled, or is
 * inside an RCU read-side critical section.
 */
void __ksim_might_sleep(const char *file, int line);
#define might_sleep()		__ksim_might_sleep(__FILE__, __LINE__)
#define might_sleep_if(cond)	do { if (cond) might_sleep(); } while (0)
#define might_resched()		do { } while (0)
#define might_fault()		might_sleep()
#define sched_annotate_sleep()	do { } while (0)
/* A pending signal is the fault engine's class signal (ksim/fault.h): none unless armed. */
bool ksim_should_fail_signal(const char *func, const char *file, int line);
#define fatal_signal_pending(p)	ksim_should_fail_signal(__func__, __FILE__, __LINE__)
#define signal_pending(p)	ksim_should_fail_signal(__func__, __FILE__, __LINE__)
#define need_resched()		0
#define schedule()		sched_yield()
#define yield()			sched_yield()
int sched_yield(void);

#define TASK_RUNNING		0
#define TASK_INTERRUPTIBLE	1
#define TASK_UNINTERRUPTIBLE	2
#define TASK_KILLABLE		TASK_UNINTERRUPTIBLE

/* As the kernel's: leave the RCU read section around the reschedule point. */
#define cond_resched_rcu()	do { rcu_read_unlock(); cond_resched(); rcu_read_lock(); } while (0)

#endif
