// SPDX-License-Identifier: GPL-2.0
/*
 * RCU read side: rcu_read_lock*(), rcu_read_unlock*() and atomic sections
 * (linux/rcupdate.h, linux/preempt.h) on liburcu's memb flavour, inlined
 * (_LGPL_SOURCE) as the kernel's tools/testing harnesses have it.
 *
 * Built without ASan and UBSan (shim/CMakeLists.txt): these functions run
 * at every rcu_read_lock() and touch only this thread's own counters
 * (ksim_task, liburcu's reader, the deferred batch), never kernel memory,
 * so the instrumentation checked nothing of the kernel's; it was most of
 * their cost (17% of lib/test_xarray.c's run, perf on 7.3.4).  Every check
 * of the shim's own stays (unbalanced unlock here; dereference checks in
 * linux/rcupdate.h; exit inside a section in tree.c), and so does
 * ThreadSanitizer's instrumentation in TSan builds.
 */
#include <stdbool.h>
#include "urcu.h"

#include <linux/rcupdate.h>
#include <ksim/ksim.h>
#include <ksim/yield.h>
#include "rcu.h"

/* The start of the thread's outermost section (rcu_urcu_nesting was 0). */
static inline void urcu_section_enter(struct ksim_task *t)
{
	t->rcu_sections++;
	urcu_memb_read_lock();
}

/*
 * Its end (rcu_urcu_nesting reached 0): TSan's grace-period edge,
 * liburcu's read_unlock, then the callbacks the section queued (rcu.h).
 */
static inline void urcu_section_leave(void)
{
	ksim_rcu_reader_done();
	urcu_memb_read_unlock();
	ksim_rcu_flush_deferred();
}

/*
 * The thread's struct by its address (as linux/preempt.h passes it to
 * ksim_rcu_atomic_update()), not through ksim_task(): this file has no
 * UBSan, whose misfire ksim_task() works around, and nothing here needs
 * its lazy id; the load and branch that saves were about 1% of the
 * xarray suite's multi_store_adv part (xarray/MEASUREMENTS.md).
 */
void ksim_rcu_read_lock(int *nesting)
{
	struct ksim_task *t = &ksim_current_task;

	ksim_rcu_ensure_registered(t);
	ksim_yield_point();
	if (t->rcu_urcu_nesting++ == 0)
		urcu_section_enter(t);
	(*nesting)++;
}

void ksim_rcu_read_unlock(int *nesting, const char *file, int line)
{
	struct ksim_task *t = &ksim_current_task;

	if (*nesting <= 0) {
		ksim_problem(KSIM_P_RCU, file, line,
			     "rcu_read_unlock() of a flavour this thread did not lock");
		return;
	}
	(*nesting)--;
	if (--t->rcu_urcu_nesting == 0)
		urcu_section_leave();
	ksim_yield_point();
}

/*
 * Atomic sections are read-side sections (linux/preempt.h): the first of
 * preempt_disable(), local_bh_disable() or local_irq_disable() enters one
 * liburcu read-side section, the last enable leaves it.  They count in
 * rcu_urcu_nesting (and rcu_sections, for the deterministic scheduler's
 * grace periods) but not in the flavour counts rcu_read_lock_held() reads.
 */
void ksim_rcu_atomic_update(struct ksim_task *t)
{
	bool atomic = t->preempt_count || t->softirq_count || t->irqs_off;

	if (atomic == t->rcu_atomic)
		return;
	t->rcu_atomic = atomic;
	if (atomic) {
		ksim_rcu_ensure_registered(t);
		if (t->rcu_urcu_nesting++ == 0)
			urcu_section_enter(t);
	} else if (--t->rcu_urcu_nesting == 0) {
		urcu_section_leave();
	}
}

/*
 * Leave every read-side section the thread is in, after ksim_problem() has
 * reported it: a kernel function returned inside one (ksim_run_check()), or
 * its thread exits inside one (tree.c).  The run has failed, and its end
 * must still come.  A grace period waiting for this reader sleeps until the
 * reader's own read_unlock wakes it (liburcu's wait_gp()), and unregistering
 * the thread does not, so a section left open hung the next
 * synchronize_rcu() or rcu_barrier() for good (lib/xarray.c's xa_load()
 * without its rcu_read_unlock(): the test reported, then timed out).
 * atomic_too: the atomic sections' unit as well (thread exit); otherwise the
 * caller resets preempt/irq/bh counts and ksim_current_atomic_changed()
 * leaves it.
 */
void ksim_rcu_leave_all(struct ksim_task *t, bool atomic_too)
{
	int keep = atomic_too ? 0 : t->rcu_atomic;

	t->rcu_nesting = t->rcu_bh_nesting = t->rcu_sched_nesting = 0;
	if (atomic_too)
		t->rcu_atomic = false;
	if (t->rcu_urcu_nesting > keep) {
		t->rcu_urcu_nesting = keep;
		if (keep == 0)
			urcu_section_leave();
	}
}
