/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_TRACE_IRQFLAGS_H
#define _LINUX_TRACE_IRQFLAGS_H
#include <linux/preempt.h>

/* Interrupts off also hold off grace periods (linux/preempt.h). */
#define local_irq_disable()	do { ksim_current(irqs_off)++; ksim_current_atomic_changed(); } while (0)
#define local_irq_enable()	do { ksim_current(irqs_off) = 0; ksim_current_atomic_changed(); } while (0)
#define local_irq_save(flags)	do { (flags) = ksim_current(irqs_off)++; ksim_current_atomic_changed(); } while (0)
#define local_irq_restore(flags) do { ksim_current(irqs_off) = (flags); ksim_current_atomic_changed(); } while (0)
#define irqs_disabled()		(ksim_current(irqs_off) != 0)
#define raw_local_irq_save	local_irq_save
#define raw_local_irq_restore	local_irq_restore
#define irqs_disabled_flags(flags)	((flags) != 0)
#endif
