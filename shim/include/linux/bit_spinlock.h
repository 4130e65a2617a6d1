/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bit spinlocks on one bit of a word, as in the kernel (atomic test-and-set
 * with acquire, clear with release), waiting with sched_yield() instead of
 * cpu_relax() so a preempted holder gets the CPU.  Not in the held-lock
 * stacks: callers pair them with lock_map_acquire() where lockdep matters
 * (rhashtable does).
 */
#ifndef __LINUX_BIT_SPINLOCK_H
#define __LINUX_BIT_SPINLOCK_H

#include <sched.h>
#include <linux/types.h>
#include <linux/preempt.h>
#include <linux/spinlock.h>	/* as the kernel's: its users take spin_lock() too */

static inline void bit_spin_lock(int bitnum, unsigned long *addr)
{
	preempt_disable();
	while (__atomic_fetch_or(addr, 1UL << bitnum, __ATOMIC_ACQUIRE) & (1UL << bitnum))
		sched_yield();
}

static inline int bit_spin_trylock(int bitnum, unsigned long *addr)
{
	preempt_disable();
	if (__atomic_fetch_or(addr, 1UL << bitnum, __ATOMIC_ACQUIRE) & (1UL << bitnum)) {
		preempt_enable();
		return 0;
	}
	return 1;
}

static inline void bit_spin_unlock(int bitnum, unsigned long *addr)
{
	__atomic_fetch_and(addr, ~(1UL << bitnum), __ATOMIC_RELEASE);
	preempt_enable();
}
#define __bit_spin_unlock(bitnum, addr)	bit_spin_unlock(bitnum, addr)

static inline int bit_spin_is_locked(int bitnum, unsigned long *addr)
{
	return !!(__atomic_load_n(addr, __ATOMIC_RELAXED) & (1UL << bitnum));
}

#endif
