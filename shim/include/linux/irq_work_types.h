/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_IRQ_WORK_TYPES_H
#define _LINUX_IRQ_WORK_TYPES_H

/* The kernel's has an llist node and atomic flags; ours a queue link (linux/irq_work.h). */
struct irq_work {
	unsigned long flags;	/* KSIM_WORK_PENDING, KSIM_WORK_RUNNING */
	struct irq_work *next;
	void (*func)(struct irq_work *);
};

#endif
