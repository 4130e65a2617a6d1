/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lockdep-style assertions that really check: each thread keeps the stack of
 * locks it holds (ksim/task.h), so lockdep_is_held() and lock_is_held() are
 * exact, and lockdep_assert_*() report a KSIM_P_LOCKDEP problem (failing the
 * test) instead of compiling to nothing.  Lock-order (deadlock cycle)
 * tracking is not emulated.
 */
#ifndef __LINUX_LOCKDEP_H
#define __LINUX_LOCKDEP_H

#include <linux/types.h>
#include <linux/lockdep_types.h>
#include <ksim/ksim.h>
#include <ksim/task.h>

void ksim_lock_acquire(const struct lockdep_map *map, int read, int type,
		       const char *file, int line);
void ksim_lock_release(const struct lockdep_map *map, const char *file, int line);
/* read: -1 any, 0 exclusive, 1 shared */
int ksim_lock_is_held(const struct lockdep_map *map, int read);
int ksim_held_lock_count(void);
void ksim_lockdep_print_held_locks(void);
u32 lock_sequence(struct lockdep_map *lock);
/* The kernel's debug_locks turns off when lockdep has reported; ours never does. */
#define debug_locks	1
#define lockdep_sequence(lock)	lock_sequence(&(lock)->dep_map)

/*
 * Inline: every rcu_dereference_check() in kernel code evaluates its lockdep
 * condition (the maple tree's mt_locked() on each slot read), so this is the
 * hottest query in the shim.  The same exact search as ksim_lock_is_held(),
 * from the top of the held stack, where the lock just taken usually is.
 * The thread's own fields are named directly (ksim_current(), ksim/task.h):
 * no UBSan null or alignment check, and no no_sanitize attribute, so it
 * inlines.
 */
static inline int __ksim_lock_is_held(const struct lockdep_map *map, int read)
{
	for (int i = ksim_current(nr_held) - 1; i >= 0; i--)
		if (ksim_current(held[i].map) == map &&
		    (read < 0 || ksim_current(held[i].read) == read))
			return 1;
	return 0;
}

#define lock_is_held(map)		__ksim_lock_is_held((map), -1)
#define lock_is_held_type(map, read)	__ksim_lock_is_held((map), (read))
#define lockdep_is_held(lock)		lock_is_held(&(lock)->dep_map)
#define lockdep_is_held_type(lock, r)	lock_is_held_type(&(lock)->dep_map, (r))

#define lock_map_acquire(m)		ksim_lock_acquire((m), 0, KSIM_LOCK_MAP, __FILE__, __LINE__)
#define lock_map_acquire_read(m)	ksim_lock_acquire((m), 1, KSIM_LOCK_MAP, __FILE__, __LINE__)
#define lock_map_release(m)		ksim_lock_release((m), __FILE__, __LINE__)
/* Annotations of locks lockdep cannot see (rhashtable's bucket bit locks). */
#define lock_acquire_exclusive(m, subclass, trylock, nest, ip) \
	ksim_lock_acquire((m), 0, KSIM_LOCK_MAP, __FILE__, __LINE__)
#define lock_acquire_shared(m, subclass, trylock, nest, ip) \
	ksim_lock_acquire((m), 1, KSIM_LOCK_MAP, __FILE__, __LINE__)
#define lock_release(m, ip)		ksim_lock_release((m), __FILE__, __LINE__)

#define __ksim_lockdep_assert(cond, what)				\
	do {								\
		if (!(cond))						\
			ksim_problem(KSIM_P_LOCKDEP, __FILE__, __LINE__, "%s", what); \
	} while (0)

#define lockdep_assert(cond)		__ksim_lockdep_assert(cond, "lockdep_assert(" #cond ")")
#define lockdep_assert_once(cond)	lockdep_assert(cond)
#define lockdep_assert_held(l)		__ksim_lockdep_assert(lockdep_is_held(l), "lockdep_assert_held(" #l ") but not held")
#define lockdep_assert_not_held(l)	__ksim_lockdep_assert(!lockdep_is_held(l), "lockdep_assert_not_held(" #l ") but held")
#define lockdep_assert_held_write(l)	__ksim_lockdep_assert(lockdep_is_held_type(l, 0), "lockdep_assert_held_write(" #l ") but not write-held")
#define lockdep_assert_held_read(l)	__ksim_lockdep_assert(lockdep_is_held_type(l, 1), "lockdep_assert_held_read(" #l ") but not read-held")
#define lockdep_assert_held_once(l)	lockdep_assert_held(l)
#define lockdep_assert_none_held_once()	__ksim_lockdep_assert(ksim_held_lock_count() == 0, "lockdep_assert_none_held_once() but locks held")
#define lockdep_assert_irqs_disabled()	__ksim_lockdep_assert(irqs_disabled(), "irqs should be disabled")
#define lockdep_assert_irqs_enabled()	__ksim_lockdep_assert(!irqs_disabled(), "irqs should be enabled")
#define lockdep_assert_preemption_disabled() __ksim_lockdep_assert(!preemptible(), "preemption should be disabled")
#define lockdep_assert_in_softirq()	__ksim_lockdep_assert(in_softirq(), "should be in softirq")

#define lockdep_set_class(lock, key)	do { (void)(key); } while (0)
#define lockdep_set_class_and_name(lock, key, name) do { (void)(key); } while (0)
#define lockdep_set_subclass(lock, sub)	do { } while (0)
#define lockdep_set_novalidate_class(lock) do { } while (0)
#define lockdep_init_map(map, n, key, sub) do { (map)->name = (n); } while (0)
#define lockdep_register_key(key)	do { } while (0)
#define lockdep_unregister_key(key)	do { } while (0)
#define debug_check_no_locks_freed(a, b) do { } while (0)
#define lockdep_off()			do { } while (0)
#define lockdep_on()			do { } while (0)
#define SINGLE_DEPTH_NESTING		1

/* Held while RCU callbacks run, as in the kernel (kernel/rcu/update.c). */
extern struct lockdep_map rcu_callback_map;
extern struct lockdep_map rcu_lock_map;

#endif
