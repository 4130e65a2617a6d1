// SPDX-License-Identifier: GPL-2.0
/* Mutexes: may sleep (might_sleep() is checked), owner-tracked. */
#include <linux/mutex.h>
#include <linux/sched.h>
#include <ksim/sched.h>
#include <ksim/task.h>

void ksim_mutex_init(struct mutex *m, const char *name)
{
	pthread_mutex_init(&m->__ksim_m, NULL);
	m->owner = NULL;
	m->dep_map.name = name;
}

void mutex_destroy(struct mutex *m)
{
	if (m->owner)
		ksim_problem(KSIM_P_LOCKDEP, __FILE__, __LINE__,
			     "mutex_destroy of locked mutex %s", m->dep_map.name);
}

void ksim_mutex_lock(struct mutex *m, const char *file, int line)
{
	__ksim_might_sleep(file, line);
	if (__atomic_load_n(&m->owner, __ATOMIC_RELAXED) == ksim_task()) {
		ksim_lockdep_print_held_locks();
		ksim_bug(file, line, "recursive mutex_lock of %s", m->dep_map.name);
	}
	if (ksim_sched_enabled)
		ksim_sched_mutex_lock(&m->__ksim_m, "a mutex");
	else
		pthread_mutex_lock(&m->__ksim_m);
	__atomic_store_n(&m->owner, ksim_task(), __ATOMIC_RELAXED);
	ksim_lock_acquire(&m->dep_map, 0, KSIM_LOCK_MUTEX, file, line);
}

int ksim_mutex_trylock(struct mutex *m, const char *file, int line)
{
	if (pthread_mutex_trylock(&m->__ksim_m))
		return 0;
	__atomic_store_n(&m->owner, ksim_task(), __ATOMIC_RELAXED);
	ksim_lock_acquire(&m->dep_map, 0, KSIM_LOCK_MUTEX, file, line);
	return 1;
}

void ksim_mutex_unlock(struct mutex *m, const char *file, int line)
{
	if (__atomic_load_n(&m->owner, __ATOMIC_RELAXED) != ksim_task()) {
		ksim_problem(KSIM_P_LOCKDEP, file, line,
			     "mutex_unlock of %s, which this thread does not hold",
			     m->dep_map.name ? m->dep_map.name : "?");
		return;
	}
	ksim_lock_release(&m->dep_map, file, line);
	__atomic_store_n(&m->owner, NULL, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&m->__ksim_m);
}
