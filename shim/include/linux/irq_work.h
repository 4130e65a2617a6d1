/* SPDX-License-Identifier: GPL-2.0 */
/*
 * irq_work runs synchronously in the caller, as the shim's work items do
 * (linux/workqueue.h): there is no interrupt to run it from.
 */
#ifndef _LINUX_IRQ_WORK_H
#define _LINUX_IRQ_WORK_H

#include <linux/types.h>
#include <linux/irq_work_types.h>

#define init_irq_work(w, f)	do { (w)->func = (f); } while (0)
static inline bool irq_work_queue(struct irq_work *w)
{
	w->func(w);
	return true;
}
#define irq_work_sync(w)	do { (void)(w); } while (0)

#endif
