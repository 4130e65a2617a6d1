// SPDX-License-Identifier: GPL-2.0
/*
 * Spinlocks and rwlocks.  Taking one disables preemption (so might_sleep()
 * under a spinlock is reported); taking one the thread already holds is a
 * certain deadlock in the kernel and a BUG here; unlocking one not held is a
 * lockdep problem.
 */
#include <errno.h>
#include <linux/spinlock.h>
#include <ksim/sched.h>
#include <ksim/task.h>

void ksim_spin_lock_init(raw_spinlock_t *lock, const char *name)
{
	pthread_mutex_init(&lock->__ksim_m, NULL);
	lock->owner = NULL;
	lock->dep_map.name = name;
}

static void check_recursion(raw_spinlock_t *lock, const char *file, int line)
{
	if (__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) == ksim_task()) {
		ksim_lockdep_print_held_locks();
		ksim_bug(file, line, "recursive locking: %s already held by this thread",
			 lock->dep_map.name ? lock->dep_map.name : "?");
	}
}

void ksim_spin_lock(raw_spinlock_t *lock, const char *file, int line)
{
	check_recursion(lock, file, line);
	preempt_disable();
	if (ksim_sched_enabled)
		ksim_sched_mutex_lock(&lock->__ksim_m, "a spinlock");
	else
		pthread_mutex_lock(&lock->__ksim_m);
	__atomic_store_n(&lock->owner, ksim_task(), __ATOMIC_RELAXED);
	ksim_lock_acquire(&lock->dep_map, 0, KSIM_LOCK_SPIN, file, line);
}

void (*ksim_raw_spin_lock_hook)(raw_spinlock_t *lock, const char *func,
				const char *file, int line);

void ksim_raw_spin_lock(raw_spinlock_t *lock, const char *func, const char *file, int line)
{
	void (*hook)(raw_spinlock_t *, const char *, const char *, int);

	ksim_spin_lock(lock, file, line);
	hook = __atomic_load_n(&ksim_raw_spin_lock_hook, __ATOMIC_RELAXED);
	if (__builtin_expect(hook != NULL, 0))
		hook(lock, func, file, line);
}

int ksim_spin_trylock(raw_spinlock_t *lock, const char *file, int line)
{
	preempt_disable();
	if (pthread_mutex_trylock(&lock->__ksim_m)) {
		preempt_enable();
		return 0;
	}
	__atomic_store_n(&lock->owner, ksim_task(), __ATOMIC_RELAXED);
	ksim_lock_acquire(&lock->dep_map, 0, KSIM_LOCK_SPIN, file, line);
	return 1;
}

void ksim_spin_unlock(raw_spinlock_t *lock, const char *file, int line)
{
	if (__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) != ksim_task()) {
		ksim_problem(KSIM_P_LOCKDEP, file, line,
			     "spin_unlock of %s, which this thread does not hold",
			     lock->dep_map.name ? lock->dep_map.name : "?");
		return;
	}
	ksim_lock_release(&lock->dep_map, file, line);
	__atomic_store_n(&lock->owner, NULL, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&lock->__ksim_m);
	preempt_enable();
}

int ksim_spin_is_locked(raw_spinlock_t *lock)
{
	return __atomic_load_n(&lock->owner, __ATOMIC_RELAXED) != NULL;
}

void ksim_rwlock_init(rwlock_t *lock, const char *name)
{
	pthread_rwlock_init(&lock->__ksim_rw, NULL);
	lock->owner = NULL;
	lock->dep_map.name = name;
}

void ksim_read_lock(rwlock_t *lock, const char *file, int line)
{
	preempt_disable();
	if (ksim_sched_enabled)
		ksim_sched_rdlock(&lock->__ksim_rw, "a read_lock");
	else
		pthread_rwlock_rdlock(&lock->__ksim_rw);
	ksim_lock_acquire(&lock->dep_map, 1, KSIM_LOCK_RWLOCK, file, line);
}

void ksim_write_lock(rwlock_t *lock, const char *file, int line)
{
	if (__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) == ksim_task())
		ksim_bug(file, line, "recursive write_lock of %s", lock->dep_map.name);
	preempt_disable();
	if (ksim_sched_enabled)
		ksim_sched_wrlock(&lock->__ksim_rw, "a write_lock");
	else
		pthread_rwlock_wrlock(&lock->__ksim_rw);
	__atomic_store_n(&lock->owner, ksim_task(), __ATOMIC_RELAXED);
	ksim_lock_acquire(&lock->dep_map, 0, KSIM_LOCK_RWLOCK, file, line);
}

void ksim_rwlock_unlock(rwlock_t *lock, const char *file, int line)
{
	if (!ksim_lock_is_held(&lock->dep_map, -1)) {
		ksim_problem(KSIM_P_LOCKDEP, file, line,
			     "unlock of rwlock %s, which this thread does not hold",
			     lock->dep_map.name ? lock->dep_map.name : "?");
		return;
	}
	ksim_lock_release(&lock->dep_map, file, line);
	if (__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) == ksim_task())
		__atomic_store_n(&lock->owner, NULL, __ATOMIC_RELAXED);
	pthread_rwlock_unlock(&lock->__ksim_rw);
	preempt_enable();
}
