/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __LINUX_SPINLOCK_TYPES_H
#define __LINUX_SPINLOCK_TYPES_H

#include <pthread.h>
#include <linux/lockdep_types.h>

struct ksim_task;

/*
 * A spinlock is a pthread mutex (so ThreadSanitizer knows it) plus its owner
 * and lockdep map.  spinlock_t overlays raw_spinlock_t so both ->rlock and
 * ->dep_map work, as with CONFIG_DEBUG_LOCK_ALLOC.
 */
#define __KSIM_SPIN_FIELDS			\
	pthread_mutex_t __ksim_m;		\
	struct ksim_task *owner;		\
	struct lockdep_map dep_map

typedef struct raw_spinlock {
	__KSIM_SPIN_FIELDS;
} raw_spinlock_t;

typedef struct spinlock {
	union {
		struct raw_spinlock rlock;
		struct {
			__KSIM_SPIN_FIELDS;
		};
	};
} spinlock_t;

#define __RAW_SPIN_LOCK_INITIALIZER(lockname)				\
	{ .__ksim_m = PTHREAD_MUTEX_INITIALIZER, .owner = 0,		\
	  .dep_map = { .name = #lockname } }
#define __RAW_SPIN_LOCK_UNLOCKED(lockname)	\
	(raw_spinlock_t) __RAW_SPIN_LOCK_INITIALIZER(lockname)
#define ___SPIN_LOCK_INITIALIZER(lockname)	\
	{ { .rlock = __RAW_SPIN_LOCK_INITIALIZER(lockname) } }
#define __SPIN_LOCK_UNLOCKED(lockname)		\
	(spinlock_t) ___SPIN_LOCK_INITIALIZER(lockname)
#define DEFINE_SPINLOCK(x)	spinlock_t x = __SPIN_LOCK_UNLOCKED(x)
#define DEFINE_RAW_SPINLOCK(x)	raw_spinlock_t x = __RAW_SPIN_LOCK_UNLOCKED(x)

typedef struct {
	pthread_rwlock_t __ksim_rw;
	struct ksim_task *owner;
	struct lockdep_map dep_map;
} rwlock_t;

#define __RW_LOCK_UNLOCKED(lockname)					\
	(rwlock_t) { .__ksim_rw = PTHREAD_RWLOCK_INITIALIZER, .owner = 0, \
		     .dep_map = { .name = #lockname } }
#define DEFINE_RWLOCK(x)	rwlock_t x = __RW_LOCK_UNLOCKED(x)

#endif
