/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spin_lock() and friends with owner tracking (shim/locking/spinlock.c):
 * unlocking a lock you do not hold, re-taking a lock you hold (a certain
 * deadlock) and sleeping while holding one are reported, not hung on.
 */
#ifndef __LINUX_SPINLOCK_H
#define __LINUX_SPINLOCK_H

#include <linux/types.h>
#include <linux/spinlock_types.h>
#include <linux/lockdep.h>
#include <linux/preempt.h>
#include <linux/irqflags.h>
#include <linux/bottom_half.h>
#include <asm/barrier.h>

void ksim_spin_lock_init(raw_spinlock_t *lock, const char *name);
void ksim_spin_lock(raw_spinlock_t *lock, const char *file, int line);
int ksim_spin_trylock(raw_spinlock_t *lock, const char *file, int line);
void ksim_spin_unlock(raw_spinlock_t *lock, const char *file, int line);
int ksim_spin_is_locked(raw_spinlock_t *lock);

#define raw_spin_lock_init(l)	ksim_spin_lock_init((l), #l)
/*
 * raw_spin_lock() also runs ksim_raw_spin_lock_hook, when set, once the lock
 * is held: where a tracing program attached inside the critical section
 * would run (the BPF driver's nested map operation on trees without
 * rqspinlock, shim/kernel/bpf/syscall.c).
 */
extern void (*ksim_raw_spin_lock_hook)(raw_spinlock_t *lock, const char *func,
				       const char *file, int line);
void ksim_raw_spin_lock(raw_spinlock_t *lock, const char *func, const char *file, int line);
#define raw_spin_lock(l)	ksim_raw_spin_lock((l), __func__, __FILE__, __LINE__)
#define raw_spin_trylock(l)	ksim_spin_trylock((l), __FILE__, __LINE__)
#define raw_spin_unlock(l)	ksim_spin_unlock((l), __FILE__, __LINE__)
#define raw_spin_is_locked(l)	ksim_spin_is_locked(l)
#define raw_spin_lock_irq(l)	do { local_irq_disable(); raw_spin_lock(l); } while (0)
#define raw_spin_unlock_irq(l)	do { raw_spin_unlock(l); local_irq_enable(); } while (0)
#define raw_spin_lock_irqsave(l, flags) do { local_irq_save(flags); raw_spin_lock(l); } while (0)
#define raw_spin_unlock_irqrestore(l, flags) do { raw_spin_unlock(l); local_irq_restore(flags); } while (0)
#define raw_spin_lock_bh(l)	do { local_bh_disable(); raw_spin_lock(l); } while (0)
#define raw_spin_unlock_bh(l)	do { raw_spin_unlock(l); local_bh_enable(); } while (0)
#define raw_spin_lock_nested(l, sub)	raw_spin_lock(l)

#define spin_lock_init(l)	ksim_spin_lock_init(&(l)->rlock, #l)
#define spin_lock(l)		ksim_spin_lock(&(l)->rlock, __FILE__, __LINE__)
#define spin_trylock(l)		ksim_spin_trylock(&(l)->rlock, __FILE__, __LINE__)
#define spin_unlock(l)		ksim_spin_unlock(&(l)->rlock, __FILE__, __LINE__)
#define spin_is_locked(l)	ksim_spin_is_locked(&(l)->rlock)
#define spin_lock_nested(l, sub)	spin_lock(l)
#define spin_lock_nest_lock(l, nl)	spin_lock(l)
#define spin_lock_irq(l)	do { local_irq_disable(); spin_lock(l); } while (0)
#define spin_unlock_irq(l)	do { spin_unlock(l); local_irq_enable(); } while (0)
#define spin_lock_irqsave(l, flags) do { local_irq_save(flags); spin_lock(l); } while (0)
#define spin_lock_irqsave_nested(l, flags, sub) spin_lock_irqsave(l, flags)
#define spin_unlock_irqrestore(l, flags) do { spin_unlock(l); local_irq_restore(flags); } while (0)
#define raw_spin_trylock_irqsave(l, flags) ({ local_irq_save(flags); \
	raw_spin_trylock(l) ? 1 : ({ local_irq_restore(flags); 0; }); })
#define spin_trylock_irqsave(l, flags) ({ local_irq_save(flags); \
	spin_trylock(l) ? 1 : ({ local_irq_restore(flags); 0; }); })
#define spin_lock_bh(l)		do { local_bh_disable(); spin_lock(l); } while (0)
#define spin_unlock_bh(l)	do { spin_unlock(l); local_bh_enable(); } while (0)
#define spin_trylock_bh(l)	({ local_bh_disable(); spin_trylock(l) ? 1 : ({ local_bh_enable(); 0; }); })
#define assert_spin_locked(l)	lockdep_assert_held(l)
#define assert_raw_spin_locked(l) lockdep_assert_held(l)
#define spin_needbreak(l)	0

void ksim_rwlock_init(rwlock_t *lock, const char *name);
void ksim_read_lock(rwlock_t *lock, const char *file, int line);
void ksim_write_lock(rwlock_t *lock, const char *file, int line);
void ksim_rwlock_unlock(rwlock_t *lock, const char *file, int line);
#define rwlock_init(l)		ksim_rwlock_init((l), #l)
#define read_lock(l)		ksim_read_lock((l), __FILE__, __LINE__)
#define write_lock(l)		ksim_write_lock((l), __FILE__, __LINE__)
#define read_unlock(l)		ksim_rwlock_unlock((l), __FILE__, __LINE__)
#define write_unlock(l)		ksim_rwlock_unlock((l), __FILE__, __LINE__)
#define read_lock_bh(l)		do { local_bh_disable(); read_lock(l); } while (0)
#define read_unlock_bh(l)	do { read_unlock(l); local_bh_enable(); } while (0)
#define write_lock_bh(l)	do { local_bh_disable(); write_lock(l); } while (0)
#define write_unlock_bh(l)	do { write_unlock(l); local_bh_enable(); } while (0)
#define read_lock_irqsave(l, f)	do { local_irq_save(f); read_lock(l); } while (0)
#define read_unlock_irqrestore(l, f) do { read_unlock(l); local_irq_restore(f); } while (0)
#define write_lock_irqsave(l, f) do { local_irq_save(f); write_lock(l); } while (0)
#define write_unlock_irqrestore(l, f) do { write_unlock(l); local_irq_restore(f); } while (0)
#define write_lock_irq(l)	do { local_irq_disable(); write_lock(l); } while (0)
#define write_unlock_irq(l)	do { write_unlock(l); local_irq_enable(); } while (0)

#endif
