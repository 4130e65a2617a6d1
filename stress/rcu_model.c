// SPDX-License-Identifier: GPL-2.0
/*
 * rcu_model: shows that the shim's RCU model lets sanitizers tell correct
 * RCU use from broken use (the model is described in shim/rcu/tree.c).
 *
 * One RCU-protected pointer to an object; readers dereference it and read
 * the object's fields; updaters replace it under a spinlock and retire the
 * old object.  Modes:
 *
 *   ok       retire with call_rcu(), update under the lock: must be silent
 *            under TSan and ASan.
 *   no-gp    the test-only mutant "a free that skips the grace period":
 *            kfree() right after unpublishing.  TSan reports a race between
 *            free() and a reader, ASan a heap-use-after-free.
 *   no-lock  the test-only mutant "a write that skips its lock": updaters
 *            bump the shared object's counter without the spinlock.  TSan
 *            reports the race (ASan cannot see it; lockdep-style checks only
 *            see what the code asserts).
 *
 * CTest runs "ok" everywhere and expects the mutants' reports under the
 * sanitizer that can see them (stress/CMakeLists.txt).
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <ksim/tsan.h>

#ifndef KSIM_TSAN
static unsigned long ksim_tsan_reports(void) { return 0; }
#endif

struct obj {
	unsigned long a, b;	/* a == b always */
	unsigned long updates;	/* protected by lock */
	struct rcu_head rcu;
};

static struct obj __rcu *gp;
static DEFINE_SPINLOCK(lock);
static int stop;
static enum { OK, NO_GP, NO_LOCK } mode;
static unsigned long torn;
/*
 * Relaxed atomics, so TSan sees no ordering through them: the object a
 * reader last read, and what each updater did; main() runs until the
 * mutants have done their damage at least once, however loaded the
 * machine, so the expected report never depends on the scheduler.
 */
static struct obj *seen;
static unsigned long updates_done[2], frees_seen;

static void free_obj(struct rcu_head *head)
{
	kfree(container_of(head, struct obj, rcu));
}

static void *reader(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		struct obj *p;

		rcu_read_lock();
		p = rcu_dereference(gp);
		if (p && p->a != p->b)
			__atomic_add_fetch(&torn, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&seen, p, __ATOMIC_RELAXED);
		rcu_read_unlock();
	}
	return NULL;
}

static void *updater(void *arg)
{
	unsigned long id = (unsigned long)arg, n = id * 1000000000UL;

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		struct obj *new, *old;

		__atomic_add_fetch(&updates_done[id], 1, __ATOMIC_RELAXED);
		if (mode == NO_GP) {
			/* one updater, which frees only what a reader has read */
			if (id)
				break;
			while (__atomic_load_n(&seen, __ATOMIC_RELAXED) != rcu_dereference_raw(gp) &&
			       !__atomic_load_n(&stop, __ATOMIC_RELAXED))
				sched_yield();
		}

		if (mode == NO_LOCK) {
			/*
			 * The mutant: no lock.  Nothing else in this loop may
			 * synchronize the updaters (the slab's own mutex did, and
			 * TSan then missed the race about 1 run in 10).
			 */
			old = rcu_dereference_raw(gp);
			old->updates++;
			continue;
		}
		new = kmalloc(sizeof(*new), GFP_KERNEL);
		if (!new)
			continue;
		new->a = new->b = ++n;
		new->updates = 0;
		spin_lock(&lock);
		old = rcu_dereference_protected(gp, lockdep_is_held(&lock));
		if (old)
			new->updates = old->updates + 1;
		rcu_assign_pointer(gp, new);
		spin_unlock(&lock);
		if (!old)
			continue;
		if (mode == NO_GP) {
			if (__atomic_load_n(&seen, __ATOMIC_RELAXED) == old)
				__atomic_add_fetch(&frees_seen, 1, __ATOMIC_RELAXED);
			kfree(old);			/* the mutant: no grace period */
		} else
			call_rcu(&old->rcu, free_obj);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t r[2], u[2];
	struct timespec ts = { 0, 300 * 1000 * 1000 };
	struct obj *last;

	if (argc != 2 || (strcmp(argv[1], "ok") && strcmp(argv[1], "no-gp") &&
			  strcmp(argv[1], "no-lock"))) {
		fprintf(stderr, "usage: %s ok|no-gp|no-lock\n", argv[0]);
		return 2;
	}
	mode = !strcmp(argv[1], "ok") ? OK : !strcmp(argv[1], "no-gp") ? NO_GP : NO_LOCK;
	ksim_init();
	last = kmalloc(sizeof(*last), GFP_KERNEL);
	last->a = last->b = last->updates = 0;
	rcu_assign_pointer(gp, last);
	for (int i = 0; i < 2; i++) {
		pthread_create(&r[i], NULL, reader, NULL);
		pthread_create(&u[i], NULL, updater, (void *)(unsigned long)i);
	}
	nanosleep(&ts, NULL);
	/*
	 * The mutants run until their damage was done at least once (both
	 * updaters ran; a freed object had been read) and the sanitizer saw
	 * it (TSan: a report counted; ASan ends the process at its report): a
	 * race the scheduler hid is tried again, for up to a minute, so a
	 * loaded machine does not decide the verdict.
	 */
	for (int i = 0; mode != OK && i < 200; i++) {
		if (__atomic_load_n(&updates_done[0], __ATOMIC_RELAXED) &&
		    (mode == NO_GP ? __atomic_load_n(&frees_seen, __ATOMIC_RELAXED) :
		     __atomic_load_n(&updates_done[1], __ATOMIC_RELAXED)) &&
		    ksim_tsan_reports())
			break;
		nanosleep(&ts, NULL);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++) {
		pthread_join(r[i], NULL);
		pthread_join(u[i], NULL);
	}
	rcu_barrier();
	kfree(rcu_dereference_raw(gp));
	printf("rcu_model %s: done, %lu torn reads\n", argv[1], torn);
	return torn ? 1 : 0;
}
