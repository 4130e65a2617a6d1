/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Local locks, as on a !PREEMPT_RT kernel: local_lock() disables
 * preemption (local_lock_irqsave() interrupts too), which makes the
 * section exclusive on its CPU.  Here a thread is the CPU for such a
 * section, so the per-CPU data these locks protect is per thread where it
 * is used (see linux/radix-tree.h); the counts keep might_sleep() and
 * in_atomic() honest inside the section.  No lockdep map.
 */
#ifndef _LINUX_LOCAL_LOCK_H
#define _LINUX_LOCAL_LOCK_H

#include <linux/preempt.h>
#include <linux/irqflags.h>

typedef struct {
	char ksim_unused;
} local_lock_t;

#define INIT_LOCAL_LOCK(lockname)	{ 0 }
#define local_lock_init(lock)		do { (void)(lock); } while (0)
#define local_lock(lock)		do { (void)(lock); preempt_disable(); } while (0)
#define local_unlock(lock)		do { (void)(lock); preempt_enable(); } while (0)
#define local_lock_irq(lock)		do { (void)(lock); local_irq_disable(); } while (0)
#define local_unlock_irq(lock)		do { (void)(lock); local_irq_enable(); } while (0)
#define local_lock_irqsave(lock, flags)	do { (void)(lock); local_irq_save(flags); } while (0)
#define local_unlock_irqrestore(lock, flags) do { (void)(lock); local_irq_restore(flags); } while (0)

#endif
