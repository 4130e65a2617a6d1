/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __LINUX_MUTEX_H
#define __LINUX_MUTEX_H

#include <pthread.h>
#include <linux/lockdep.h>
#include <errno.h>

struct ksim_task;

/* A sleeping lock: pthread mutex, owner, lockdep map; mutex_lock() may sleep. */
struct mutex {
	pthread_mutex_t __ksim_m;
	struct ksim_task *owner;
	struct lockdep_map dep_map;
};

#define __MUTEX_INITIALIZER(lockname)					\
	{ .__ksim_m = PTHREAD_MUTEX_INITIALIZER, .owner = 0,		\
	  .dep_map = { .name = #lockname } }
#define DEFINE_MUTEX(m)		struct mutex m = __MUTEX_INITIALIZER(m)

void ksim_mutex_init(struct mutex *m, const char *name);
void ksim_mutex_lock(struct mutex *m, const char *file, int line);
int ksim_mutex_trylock(struct mutex *m, const char *file, int line);
void ksim_mutex_unlock(struct mutex *m, const char *file, int line);
void mutex_destroy(struct mutex *m);

#define mutex_init(m)			ksim_mutex_init((m), #m)
/* A lock class of the caller's (lib/rhashtable.c): ours are per lock anyway. */
#define mutex_init_with_key(m, key)	((void)(key), ksim_mutex_init((m), #m))
#define mutex_lock(m)			ksim_mutex_lock((m), __FILE__, __LINE__)
#define mutex_lock_nested(m, s)		mutex_lock(m)
/* killable/interruptible: -EINTR under the fault engine's class signal (linux/rwsem.h) */
bool ksim_should_fail_signal(const char *func, const char *file, int line);
#define mutex_lock_interruptible(m)	\
	({ ksim_should_fail_signal(__func__, __FILE__, __LINE__) ? -EINTR : (mutex_lock(m), 0); })
#define mutex_lock_killable(m)		mutex_lock_interruptible(m)
#define mutex_trylock(m)		ksim_mutex_trylock((m), __FILE__, __LINE__)
#define mutex_unlock(m)			ksim_mutex_unlock((m), __FILE__, __LINE__)
#define mutex_is_locked(m)		(__atomic_load_n(&(m)->owner, __ATOMIC_RELAXED) != 0)

#endif
