/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_RWSEM_H
#define _LINUX_RWSEM_H

#include <pthread.h>
#include <linux/lockdep.h>
#include <errno.h>

struct ksim_task;

/*
 * Read-write semaphore on a mutex + condition variable, so that
 * downgrade_write() is atomic as in the kernel.  count: -1 write-held,
 * n > 0 held by n readers.  Writers are not starved: new readers wait while
 * a writer waits, like the kernel's handoff.
 */
struct rw_semaphore {
	pthread_mutex_t __ksim_m;
	pthread_cond_t __ksim_c;
	long count;
	int writers_waiting;
	struct ksim_task *owner;
	struct lockdep_map dep_map;
};

#define __RWSEM_INITIALIZER(lockname)					\
	{ .__ksim_m = PTHREAD_MUTEX_INITIALIZER,			\
	  .__ksim_c = PTHREAD_COND_INITIALIZER,				\
	  .dep_map = { .name = #lockname } }
#define DECLARE_RWSEM(name)	struct rw_semaphore name = __RWSEM_INITIALIZER(name)

void ksim_init_rwsem(struct rw_semaphore *sem, const char *name);
void ksim_down_read(struct rw_semaphore *sem, const char *file, int line);
int ksim_down_read_trylock(struct rw_semaphore *sem, const char *file, int line);
void ksim_up_read(struct rw_semaphore *sem, const char *file, int line);
void ksim_down_write(struct rw_semaphore *sem, const char *file, int line);
int ksim_down_write_trylock(struct rw_semaphore *sem, const char *file, int line);
void ksim_up_write(struct rw_semaphore *sem, const char *file, int line);
void ksim_downgrade_write(struct rw_semaphore *sem, const char *file, int line);
int rwsem_is_locked(struct rw_semaphore *sem);
int rwsem_is_contended(struct rw_semaphore *sem);

#define init_rwsem(s)			ksim_init_rwsem((s), #s)
#define down_read(s)			ksim_down_read((s), __FILE__, __LINE__)
#define down_read_nested(s, c)		down_read(s)
/* killable/interruptible: -EINTR when the fault engine's class signal says a signal is pending */
bool ksim_should_fail_signal(const char *func, const char *file, int line);
#define __ksim_lock_or_eintr(lock)	\
	({ ksim_should_fail_signal(__func__, __FILE__, __LINE__) ? -EINTR : ((lock), 0); })
#define down_read_killable(s)		__ksim_lock_or_eintr(down_read(s))
#define down_read_interruptible(s)	__ksim_lock_or_eintr(down_read(s))
#define down_read_trylock(s)		ksim_down_read_trylock((s), __FILE__, __LINE__)
#define up_read(s)			ksim_up_read((s), __FILE__, __LINE__)
#define down_write(s)			ksim_down_write((s), __FILE__, __LINE__)
#define down_write_nested(s, c)		down_write(s)
#define down_write_killable(s)		__ksim_lock_or_eintr(down_write(s))
#define down_write_trylock(s)		ksim_down_write_trylock((s), __FILE__, __LINE__)
#define up_write(s)			ksim_up_write((s), __FILE__, __LINE__)
#define downgrade_write(s)		ksim_downgrade_write((s), __FILE__, __LINE__)
#define rwsem_assert_held(s)		lockdep_assert_held(s)
#define rwsem_assert_held_write(s)	lockdep_assert_held_write(s)
#define rwsem_assert_held_nolockdep(s)	lockdep_assert_held(s)
#define rwsem_assert_held_write_nolockdep(s) lockdep_assert_held_write(s)

#endif
