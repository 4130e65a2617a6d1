/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Resilient queued spinlocks (res_spin_lock), emulated (shim/locking/
 * rqspinlock.c), not kernel/bpf/rqspinlock.c compiled: see there for why.
 *
 * The contract is the kernel's (include/asm-generic/rqspinlock.h):
 * res_spin_lock() returns 0 with the lock held, or fails without it:
 *   -EDEADLK   AA: this thread already holds the lock, or ABBA: the holder
 *              waits for a lock this thread holds (checked while waiting);
 *   -ETIMEDOUT the lock stayed busy for ksim_rqspinlock_timeout_ns
 *              (RES_DEF_TIMEOUT, 0.25 s, by default) of its holder's
 *              running time, as a kernel holder cannot be preempted;
 *   -EDEADLK   injected by the fault engine (class lock, site = the calling
 *              kernel function), as a program re-entering on this CPU gets.
 * The raw_res_spin_lock*() wrappers disable preemption/irqs and undo that on
 * failure, as the kernel's do.
 */
#ifndef _ASM_RQSPINLOCK_H
#define _ASM_RQSPINLOCK_H

#include <linux/types.h>
#include <linux/spinlock_types.h>
#include <linux/preempt.h>
#include <linux/irqflags.h>

#define RES_DEF_TIMEOUT		(1000000000ULL / 4)

/*
 * Same fields as a shim spinlock (a pthread mutex, the owner, a lockdep map),
 * and the count of acquisitions: a waiter's timeout restarts when the lock
 * changes hands (shim/locking/rqspinlock.c).
 */
typedef struct rqspinlock {
	__KSIM_SPIN_FIELDS;
	unsigned long ksim_acquired;
} rqspinlock_t;

/* BPF programs' lock type (BTF); maps here have no BTF fields. */
struct bpf_res_spin_lock {
	u32 val;
};

/* How long a contended res_spin_lock waits before -ETIMEDOUT (tests lower it). */
extern unsigned long long ksim_rqspinlock_timeout_ns;

/* What res_spin_lock() returned errors for since the last reset (tests). */
struct ksim_rqspinlock_stats {
	unsigned long aa, abba, timeout, injected;
};
void ksim_rqspinlock_stats(struct ksim_rqspinlock_stats *st);
void ksim_rqspinlock_stats_reset(void);
/* Failures injected into the calling thread's res_spin_lock()s so far. */
unsigned long ksim_rqspinlock_injected_here(void);

void ksim_res_spin_lock_init(rqspinlock_t *lock, const char *name);
int ksim_res_spin_lock(rqspinlock_t *lock, const char *func, const char *file, int line);
void ksim_res_spin_unlock(rqspinlock_t *lock, const char *file, int line);

#define raw_res_spin_lock_init(lock)	ksim_res_spin_lock_init((lock), #lock)
#define res_spin_lock(lock)		ksim_res_spin_lock((lock), __func__, __FILE__, __LINE__)
#define res_spin_unlock(lock)		ksim_res_spin_unlock((lock), __FILE__, __LINE__)

#define raw_res_spin_lock(lock)					\
	({							\
		int __ret;					\
		preempt_disable();				\
		__ret = res_spin_lock(lock);			\
		if (__ret)					\
			preempt_enable();			\
		__ret;						\
	})

#define raw_res_spin_unlock(lock) ({ res_spin_unlock(lock); preempt_enable(); })

#define raw_res_spin_lock_irqsave(lock, flags)			\
	({							\
		int __ret;					\
		local_irq_save(flags);				\
		preempt_disable();				\
		__ret = res_spin_lock(lock);			\
		if (__ret) {					\
			local_irq_restore(flags);		\
			preempt_enable();			\
		}						\
		__ret;						\
	})

#define raw_res_spin_unlock_irqrestore(lock, flags)		\
	({							\
		res_spin_unlock(lock);				\
		local_irq_restore(flags);			\
		preempt_enable();				\
	})

#endif /* _ASM_RQSPINLOCK_H */
