// SPDX-License-Identifier: GPL-2.0
/*
 * might_sleep() (the per-thread context it reads is shim/ksim/task.c).
 */
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/lockdep.h>
#include <ksim/task.h>

void __ksim_might_sleep(const char *file, int line)
{
	struct ksim_task *t = ksim_task();
	int rcu = t->rcu_nesting + t->rcu_bh_nesting + t->rcu_sched_nesting;

	if (!t->preempt_count && !t->irqs_off && !t->softirq_count && !rcu &&
	    !t->in_rcu_callback)
		return;
	unsigned long before = ksim_problem_count(KSIM_P_SLEEP);

	ksim_problem(KSIM_P_SLEEP, file, line,
		     "in_atomic(): %d, irqs_disabled(): %d, rcu nesting: %d, in RCU callback: %d",
		     t->preempt_count + t->softirq_count, t->irqs_off, rcu,
		     t->in_rcu_callback);
	/* Not for a report the policy silenced (once per site): the xarray
	 * suite's regression1 sleeps under xa_lock a million times. */
	if (ksim_problem_count(KSIM_P_SLEEP) != before)
		ksim_lockdep_print_held_locks();
}
