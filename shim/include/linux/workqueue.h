/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Work items run synchronously in the caller (schedule_work() =
 * call now).  Deliberate difference: no worker threads; code that needs a
 * sleepable context later gets it immediately.
 */
#ifndef _LINUX_WORKQUEUE_H
#define _LINUX_WORKQUEUE_H

#include <linux/types.h>

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);
struct work_struct {
	unsigned long data;
	struct list_head entry;
	work_func_t func;
};
#define INIT_WORK(w, f)		do { (w)->func = (f); } while (0)
static inline bool schedule_work(struct work_struct *w)
{
	w->func(w);
	return true;
}
#define queue_work(wq, w)	schedule_work(w)
#define flush_work(w)		((void)(w), false)
#define cancel_work_sync(w)	((void)(w), false)

#endif
