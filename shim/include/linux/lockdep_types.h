/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __LINUX_LOCKDEP_TYPES_H
#define __LINUX_LOCKDEP_TYPES_H

struct lock_class_key {
	int __unused_key;
};

/*
 * Every lock embeds one of these, as in a CONFIG_LOCKDEP kernel; the shim's
 * lockdep records which thread holds which map (shim/locking/lockdep.c).
 */
struct lockdep_map {
	const char *name;
	struct lock_class_key *key;
	int wait_type_inner;
};

#define STATIC_LOCKDEP_MAP_INIT(_name, _key)	{ .name = (_name), .key = (void *)(_key) }

enum ksim_lock_type {
	KSIM_LOCK_SPIN,
	KSIM_LOCK_RWLOCK,
	KSIM_LOCK_MUTEX,
	KSIM_LOCK_RWSEM,
	KSIM_LOCK_MAP,		/* a bare lockdep_map (rcu_callback_map, ...) */
	KSIM_LOCK_RQSPIN,	/* res_spin_lock (asm/rqspinlock.h) */
};

#endif
