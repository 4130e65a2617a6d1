// SPDX-License-Identifier: GPL-2.0
/*
 * Held-lock tracking: each thread records the locks it holds (ksim/task.h),
 * which makes lock_is_held() exact and lets the shim catch bad unlocks,
 * self-deadlocks, and locks still held when a test ends.  The kernel's
 * lock-class dependency graph (ABBA detection) is not emulated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <linux/lockdep.h>
#include <ksim/task.h>
#include <ksim/ksim.h>
#include <ksim/yield.h>

struct lockdep_map rcu_callback_map = { .name = "rcu_callback" };
struct lockdep_map rcu_lock_map = { .name = "rcu_read_lock" };

static const char *const type_names[] = {
	[KSIM_LOCK_SPIN] = "spinlock", [KSIM_LOCK_RWLOCK] = "rwlock",
	[KSIM_LOCK_MUTEX] = "mutex", [KSIM_LOCK_RWSEM] = "rwsem",
	[KSIM_LOCK_MAP] = "lockdep_map", [KSIM_LOCK_RQSPIN] = "rqspinlock",
};

void ksim_lockdep_print_held_locks(void)
{
	struct ksim_task *t = ksim_task();

	if (!t->nr_held)
		return;
	fprintf(stderr, "%d lock%s held by thread %d:\n", t->nr_held,
		t->nr_held > 1 ? "s" : "", t->id);
	for (int i = 0; i < t->nr_held; i++) {
		struct ksim_held_lock *h = &t->held[i];

		fprintf(stderr, " #%d: %s (%s%s) taken at %s:%d\n", i,
			h->name ? h->name : "?", type_names[h->type],
			h->read ? ", read" : "", h->file, h->line);
	}
}

void ksim_lock_acquire(const struct lockdep_map *map, int read, int type,
		       const char *file, int line)
{
	struct ksim_task *t = ksim_task();

	ksim_yield_point();
	if (t->nr_held >= KSIM_MAX_HELD_LOCKS)
		ksim_bug(file, line, "lockdep: more than %d locks held", KSIM_MAX_HELD_LOCKS);
	t->held[t->nr_held++] = (struct ksim_held_lock){
		.map = map, .name = map->name, .read = read, .type = type,
		.file = file, .line = line,
		/* lockdep's held_lock.seq_count is 8 bits */
		.seq = ++t->lockdep_seq & 0xff,
	};
}

void ksim_lock_release(const struct lockdep_map *map, const char *file, int line)
{
	struct ksim_task *t = ksim_task();

	ksim_yield_point();
	/* Locks may be released out of order: search from the top. */
	for (int i = t->nr_held - 1; i >= 0; i--) {
		if (t->held[i].map != map)
			continue;
		for (int j = i; j < t->nr_held - 1; j++)
			t->held[j] = t->held[j + 1];
		t->nr_held--;
		return;
	}
	ksim_problem(KSIM_P_LOCKDEP, file, line,
		     "bad unlock balance: releasing %s, which this thread does not hold",
		     map->name ? map->name : "?");
	ksim_lockdep_print_held_locks();
}

int ksim_lock_is_held(const struct lockdep_map *map, int read)
{
	return __ksim_lock_is_held(map, read);
}

/*
 * kernel/locking/lockdep.c: the sequence number the held lock was taken
 * with, or ~0 when this thread does not hold it.  The maple tree (7.x)
 * compares it to notice a lock dropped and retaken under a live ma_state.
 */
u32 lock_sequence(struct lockdep_map *lock)
{
	const struct ksim_task *t = ksim_task();

	for (int i = t->nr_held - 1; i >= 0; i--)
		if (t->held[i].map == lock)
			return t->held[i].seq;
	return ~0U;
}

int ksim_held_lock_count(void)
{
	return ksim_task()->nr_held;
}
