/* SPDX-License-Identifier: GPL-2.0 */
/*
 * irq_work, deferred: irq_work_queue() sets the item's pending flag and
 * queues it (false, and nothing done, if it is pending already); queued
 * items run from ksim_run_pending_work() (linux/workqueue.h), before the
 * work items, in queueing order.  The kernel runs them from the next
 * interrupt (self-IPI) on the queueing CPU, in hard-irq context; we have no
 * interrupt, so they run at the next deterministic point outside the
 * caller's locks instead.  irq_work_sync() runs a pending item in the
 * caller and waits for a running one.  Only lib/rhashtable.c queues irq_work
 * in the kernel code ksim compiles (its resize deferral); the shim's
 * bpf_mem_alloc does its refill in place (shim/kernel/bpf/memalloc.c).
 */
#ifndef _LINUX_IRQ_WORK_H
#define _LINUX_IRQ_WORK_H

#include <linux/types.h>
#include <linux/irq_work_types.h>

#define init_irq_work(w, f)						\
	do {								\
		(w)->flags = 0;						\
		(w)->next = NULL;					\
		(w)->func = (f);					\
	} while (0)
bool irq_work_queue(struct irq_work *w);
void irq_work_sync(struct irq_work *w);

#endif
