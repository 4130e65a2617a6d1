/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KSIM_RCU_H
#define _KSIM_RCU_H

#include <stdbool.h>

struct ksim_rcu_stats {
	unsigned long callbacks_queued;
	unsigned long callbacks_invoked;
	unsigned long grace_periods;	/* waited for by the callback worker */
	unsigned long suspicious;	/* suspicious-usage reports */
};

void ksim_rcu_stats(struct ksim_rcu_stats *out);
/* Run every queued callback and stop the worker thread (fork safety). */
void ksim_rcu_quiesce(void);
/*
 * Inline callbacks (fuzz harnesses): no worker thread; call_rcu() queues and
 * rcu_barrier() runs the queue in the calling thread after a grace period.
 * Callbacks are then deferred until the next rcu_barrier().
 */
void ksim_rcu_set_inline_callbacks(bool on);
/*
 * How long the callback worker, woken by a callback, lets more gather
 * before it starts their grace period (default 1 ms; rcu_barrier() and
 * ksim_rcu_quiesce() end the wait).  For tests.
 */
extern unsigned long ksim_rcu_gather_ns;
/* What frees a kvfree_rcu() object after its grace period (the slab's kvfree). */
void ksim_rcu_set_kvfree(void (*fn)(const void *));

#endif
