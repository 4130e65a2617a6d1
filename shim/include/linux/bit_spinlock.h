/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bit spinlocks on one bit of a word, as in the kernel (atomic test-and-set
 * with acquire, clear with release), waiting with sched_yield() instead of
 * cpu_relax() so a preempted holder gets the CPU (under deterministic
 * scheduling, ksim/sched.h, the waiter hands the holder the baton: a
 * yield would spin forever).  Not in the held-lock
 * stacks: callers pair them with lock_map_acquire() where lockdep matters
 * (rhashtable does).
 */
#ifndef __LINUX_BIT_SPINLOCK_H
#define __LINUX_BIT_SPINLOCK_H

#include <sched.h>
#include <linux/types.h>
#include <linux/preempt.h>
#include <linux/spinlock.h>	/* as the kernel's: its users take spin_lock() too */
#include <ksim/sched.h>

/*
 * Set the bit only if it is clear, after an acquire load.  The kernel's
 * test_and_set_bit_lock() rewrites the word unchanged when the bit is set,
 * which no reader can tell apart (KCSAN reports a race only when the value
 * changed).  TSan checks an RMW before applying its acquire and counts a
 * failed compare-and-swap as a write, and the holder reads the rest of the
 * word plainly (rhashtable keeps the bucket's first pointer there): the
 * acquire load orders the previous holder's reads before our
 * compare-and-swap, and a waiter's failed one is a TSan suppression with
 * this function as top frame (shim/ksim/tsan.c).
 */
static inline bool ksim_bit_spin_try(int bitnum, unsigned long *addr)
{
	unsigned long old = __atomic_load_n(addr, __ATOMIC_ACQUIRE);

	while (!(old & (1UL << bitnum)))
		if (__atomic_compare_exchange_n(addr, &old, old | (1UL << bitnum), false,
						__ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
			return true;
	return false;
}

static inline void bit_spin_lock(int bitnum, unsigned long *addr)
{
	preempt_disable();
	while (!ksim_bit_spin_try(bitnum, addr)) {
		if (ksim_sched_enabled && ksim_sched_current())
			ksim_sched_block("a bit spinlock");
		else
			sched_yield();
	}
}

static inline int bit_spin_trylock(int bitnum, unsigned long *addr)
{
	preempt_disable();
	if (!ksim_bit_spin_try(bitnum, addr)) {
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
