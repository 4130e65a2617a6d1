// SPDX-License-Identifier: GPL-2.0
/* Read-write semaphores (see linux/rwsem.h for the model). */
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <ksim/sched.h>
#include <ksim/task.h>

void ksim_init_rwsem(struct rw_semaphore *sem, const char *name)
{
	pthread_mutex_init(&sem->__ksim_m, NULL);
	pthread_cond_init(&sem->__ksim_c, NULL);
	sem->count = 0;
	sem->writers_waiting = 0;
	sem->owner = NULL;
	sem->dep_map.name = name;
}

static void check_recursion(struct rw_semaphore *sem, const char *file, int line)
{
	if (ksim_lock_is_held(&sem->dep_map, -1)) {
		ksim_lockdep_print_held_locks();
		ksim_bug(file, line, "recursive locking of rwsem %s (can deadlock)",
			 sem->dep_map.name ? sem->dep_map.name : "?");
	}
}

void ksim_down_read(struct rw_semaphore *sem, const char *file, int line)
{
	__ksim_might_sleep(file, line);
	check_recursion(sem, file, line);
	pthread_mutex_lock(&sem->__ksim_m);
	while (sem->count < 0 || sem->writers_waiting)
		ksim_sched_cond_wait(&sem->__ksim_c, &sem->__ksim_m, "an rwsem");
	sem->count++;
	pthread_mutex_unlock(&sem->__ksim_m);
	ksim_lock_acquire(&sem->dep_map, 1, KSIM_LOCK_RWSEM, file, line);
}

int ksim_down_read_trylock(struct rw_semaphore *sem, const char *file, int line)
{
	int ok;

	pthread_mutex_lock(&sem->__ksim_m);
	ok = sem->count >= 0 && !sem->writers_waiting;
	if (ok)
		sem->count++;
	pthread_mutex_unlock(&sem->__ksim_m);
	if (ok)
		ksim_lock_acquire(&sem->dep_map, 1, KSIM_LOCK_RWSEM, file, line);
	return ok;
}

void ksim_up_read(struct rw_semaphore *sem, const char *file, int line)
{
	if (!ksim_lock_is_held(&sem->dep_map, 1)) {
		ksim_problem(KSIM_P_LOCKDEP, file, line,
			     "up_read of %s, which this thread does not hold for read",
			     sem->dep_map.name ? sem->dep_map.name : "?");
		return;
	}
	ksim_lock_release(&sem->dep_map, file, line);
	pthread_mutex_lock(&sem->__ksim_m);
	if (--sem->count == 0)
		pthread_cond_broadcast(&sem->__ksim_c);
	pthread_mutex_unlock(&sem->__ksim_m);
}

void ksim_down_write(struct rw_semaphore *sem, const char *file, int line)
{
	__ksim_might_sleep(file, line);
	check_recursion(sem, file, line);
	pthread_mutex_lock(&sem->__ksim_m);
	sem->writers_waiting++;
	while (sem->count != 0)
		ksim_sched_cond_wait(&sem->__ksim_c, &sem->__ksim_m, "an rwsem");
	sem->writers_waiting--;
	sem->count = -1;
	__atomic_store_n(&sem->owner, ksim_task(), __ATOMIC_RELAXED);
	pthread_mutex_unlock(&sem->__ksim_m);
	ksim_lock_acquire(&sem->dep_map, 0, KSIM_LOCK_RWSEM, file, line);
}

int ksim_down_write_trylock(struct rw_semaphore *sem, const char *file, int line)
{
	int ok;

	pthread_mutex_lock(&sem->__ksim_m);
	ok = sem->count == 0;
	if (ok) {
		sem->count = -1;
		__atomic_store_n(&sem->owner, ksim_task(), __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&sem->__ksim_m);
	if (ok)
		ksim_lock_acquire(&sem->dep_map, 0, KSIM_LOCK_RWSEM, file, line);
	return ok;
}

void ksim_up_write(struct rw_semaphore *sem, const char *file, int line)
{
	if (!ksim_lock_is_held(&sem->dep_map, 0)) {
		ksim_problem(KSIM_P_LOCKDEP, file, line,
			     "up_write of %s, which this thread does not hold for write",
			     sem->dep_map.name ? sem->dep_map.name : "?");
		return;
	}
	ksim_lock_release(&sem->dep_map, file, line);
	pthread_mutex_lock(&sem->__ksim_m);
	sem->count = 0;
	__atomic_store_n(&sem->owner, NULL, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&sem->__ksim_c);
	pthread_mutex_unlock(&sem->__ksim_m);
}

void ksim_downgrade_write(struct rw_semaphore *sem, const char *file, int line)
{
	if (!ksim_lock_is_held(&sem->dep_map, 0)) {
		ksim_problem(KSIM_P_LOCKDEP, file, line,
			     "downgrade_write of %s, which this thread does not hold for write",
			     sem->dep_map.name ? sem->dep_map.name : "?");
		return;
	}
	ksim_lock_release(&sem->dep_map, file, line);
	pthread_mutex_lock(&sem->__ksim_m);
	sem->count = 1;
	__atomic_store_n(&sem->owner, NULL, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&sem->__ksim_c);
	pthread_mutex_unlock(&sem->__ksim_m);
	ksim_lock_acquire(&sem->dep_map, 1, KSIM_LOCK_RWSEM, file, line);
}

int rwsem_is_locked(struct rw_semaphore *sem)
{
	return __atomic_load_n(&sem->count, __ATOMIC_RELAXED) != 0;
}

int rwsem_is_contended(struct rw_semaphore *sem)
{
	return __atomic_load_n(&sem->writers_waiting, __ATOMIC_RELAXED) != 0;
}
