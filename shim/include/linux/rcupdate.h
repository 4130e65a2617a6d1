/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RCU on liburcu (memb flavour), implemented in shim/rcu/tree.c.
 *
 * Read side: every rcu_read_lock*() variant enters one liburcu read-side
 * critical section (the kernel's flavours are consolidated since 5.0: one
 * grace period waits for all of them) and bumps its own per-thread nesting
 * count, so rcu_read_lock_held(), rcu_read_lock_bh_held() and
 * rcu_read_lock_sched_held() answer exactly.  Atomic sections (preemption,
 * bottom halves or interrupts disabled, e.g. a spinlock held) are read-side
 * sections for grace periods too, as in the kernel, without counting for
 * rcu_read_lock_held() (linux/preempt.h).  Threads register with liburcu
 * on first use; rcu_register_thread() is accepted for kernel harness code.
 *
 * Update side: synchronize_rcu() is liburcu's; call_rcu() queues on our own
 * worker thread, so rcu_barrier() waits only for callbacks actually queued
 * (liburcu's own call_rcu polls every 10 ms and makes an empty rcu_barrier()
 * cost that much).  The worker lets callbacks gather for up to 1 ms before a
 * grace period, as the kernel batches them, unless rcu_barrier() waits.
 *
 * Checks (CONFIG_PROVE_RCU): rcu_dereference_check(p, c) reports suspicious
 * RCU usage unless the caller is in a read-side section or c holds (asked in
 * that order: c is usually a lockdep_is_held(), a search of the held locks);
 * rcu_dereference_protected(p, c) requires c.  synchronize_rcu() and
 * rcu_barrier() inside a read-side or atomic section are a BUG (they would
 * deadlock here).
 */
#ifndef __LINUX_RCUPDATE_H
#define __LINUX_RCUPDATE_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/lockdep.h>
#include <linux/preempt.h>
#include <linux/irqflags.h>
#include <linux/bug.h>
#include <asm/barrier.h>
#include <ksim/task.h>
#include <ksim/yield.h>

void ksim_rcu_read_lock(int *nesting);
void ksim_rcu_read_unlock(int *nesting, const char *file, int line);
void ksim_rcu_suspicious(const char *file, int line, const char *what);
/* After a reported problem: leave every section the thread is in (read.c). */
void ksim_rcu_leave_all(struct ksim_task *t, bool atomic_too);

static inline void rcu_read_lock(void)
{
	ksim_rcu_read_lock(&ksim_current(rcu_nesting));
}
#define rcu_read_unlock()	ksim_rcu_read_unlock(&ksim_current(rcu_nesting), __FILE__, __LINE__)
static inline void rcu_read_lock_bh(void)
{
	local_bh_disable();
	ksim_rcu_read_lock(&ksim_current(rcu_bh_nesting));
}
#define rcu_read_unlock_bh()	do { ksim_rcu_read_unlock(&ksim_current(rcu_bh_nesting), __FILE__, __LINE__); local_bh_enable(); } while (0)
static inline void rcu_read_lock_sched(void)
{
	preempt_disable();
	ksim_rcu_read_lock(&ksim_current(rcu_sched_nesting));
}
#define rcu_read_unlock_sched()	do { ksim_rcu_read_unlock(&ksim_current(rcu_sched_nesting), __FILE__, __LINE__); preempt_enable(); } while (0)
#define rcu_read_lock_sched_notrace()	rcu_read_lock_sched()
#define rcu_read_unlock_sched_notrace()	rcu_read_unlock_sched()
#define rcu_read_lock_trace()		rcu_read_lock()
#define rcu_read_unlock_trace()		rcu_read_unlock()

/* As with lockdep in the kernel: held means rcu_read_lock() was called. */
static inline int rcu_read_lock_held(void)
{
	return ksim_current(rcu_nesting) != 0;
}
static inline int rcu_read_lock_bh_held(void)
{
	return ksim_current(rcu_bh_nesting) || ksim_current(softirq_count) ||
	       ksim_current(in_rcu_callback) || ksim_current(irqs_off);
}
static inline int rcu_read_lock_sched_held(void)
{
	return ksim_current(rcu_sched_nesting) || ksim_current(preempt_count) ||
	       ksim_current(irqs_off) || ksim_current(softirq_count) ||
	       ksim_current(in_rcu_callback);
}
#define rcu_read_lock_any_held()	(rcu_read_lock_held() || rcu_read_lock_bh_held() || \
					 rcu_read_lock_sched_held())
#define rcu_read_lock_trace_held()	rcu_read_lock_held()
#define rcu_is_watching()		1
#define rcu_lockdep_current_cpu_online() 1
#define debug_lockdep_rcu_enabled()	1

void rcu_register_thread(void);
void rcu_unregister_thread(void);
void rcu_init(void);

void synchronize_rcu(void);
#define synchronize_rcu_expedited()	synchronize_rcu()
#define synchronize_rcu_bh()		synchronize_rcu()
#define synchronize_sched()		synchronize_rcu()
#define synchronize_rcu_tasks_trace()	synchronize_rcu()
#define synchronize_rcu_mult(...)	synchronize_rcu()
void call_rcu(struct rcu_head *head, rcu_callback_t func);
#define call_rcu_hurry(head, func)	call_rcu(head, func)
#define call_rcu_tasks_trace(head, func) call_rcu(head, func)
void rcu_barrier(void);
#define rcu_barrier_tasks_trace()	rcu_barrier()
#define kvfree_rcu_barrier()		rcu_barrier()

/* kfree_rcu(): as in the kernel, the rcu_head's offset travels in ->func. */
void ksim_kvfree_call_rcu(struct rcu_head *head, void *ptr);
#define __is_kvfree_rcu_offset(offset)	((offset) < 4096)
#define kfree_rcu(ptr, rhf)						\
	do {								\
		typeof(ptr) ___p = (ptr);				\
		if (___p)						\
			ksim_kvfree_call_rcu(&((___p)->rhf), (void *)___p); \
	} while (0)
#define kvfree_rcu(ptr, rhf)	kfree_rcu(ptr, rhf)
#define kfree_rcu_mightsleep(ptr) do { synchronize_rcu(); kvfree(ptr); } while (0)
#define kvfree_rcu_mightsleep(ptr) kfree_rcu_mightsleep(ptr)

/* Pointer publication and access. */
#define RCU_INITIALIZER(v)	(typeof(*(v)) __force __rcu *)(v)
/* A debug-yield point before publishing (stress --yield) widens the window
 * between a writer's preparation and its publication. */
#define rcu_assign_pointer(p, v)	do {				\
	ksim_yield_point();						\
	smp_store_release(&(p), (typeof(p))(v));			\
} while (0)
#define RCU_INIT_POINTER(p, v)		WRITE_ONCE(p, (typeof(p))(v))
#define RCU_POINTER_INITIALIZER(p, v)	.p = RCU_INITIALIZER(v)
#define rcu_replace_pointer(rcu_ptr, ptr, c) ({				\
	typeof(ptr) __tmp = rcu_dereference_protected((rcu_ptr), (c));	\
	rcu_assign_pointer((rcu_ptr), (ptr));				\
	__tmp; })
#define unrcu_pointer(p)	(p)

/*
 * Dereferences are acquire loads (stronger than the kernel's address
 * dependency, same effect on x86-64, and visible to ThreadSanitizer), and
 * yield points: a lockless reader's loads are where a writer can get between
 * (stress --yield/--sched).
 */
#define __ksim_rcu_load(p)	({ ksim_yield_point(); smp_load_acquire(&(p)); })

#define rcu_dereference_raw(p)		__ksim_rcu_load(p)
#define rcu_dereference_raw_check(p)	__ksim_rcu_load(p)
#define rcu_access_pointer(p)		READ_ONCE(p)
#define rcu_dereference_check(p, c) ({					\
	if (!(rcu_read_lock_held() || (c)))				\
		ksim_rcu_suspicious(__FILE__, __LINE__,			\
			"rcu_dereference_check() usage outside a read-side section without its condition"); \
	__ksim_rcu_load(p); })
#define rcu_dereference_bh_check(p, c) ({				\
	if (!(rcu_read_lock_bh_held() || (c)))				\
		ksim_rcu_suspicious(__FILE__, __LINE__,			\
			"rcu_dereference_bh_check() usage outside a bh read-side section"); \
	__ksim_rcu_load(p); })
#define rcu_dereference_sched_check(p, c) ({				\
	if (!(rcu_read_lock_sched_held() || (c)))			\
		ksim_rcu_suspicious(__FILE__, __LINE__,			\
			"rcu_dereference_sched_check() usage outside a sched read-side section"); \
	__ksim_rcu_load(p); })
#define rcu_dereference_protected(p, c) ({				\
	if (!(c))							\
		ksim_rcu_suspicious(__FILE__, __LINE__,			\
			"rcu_dereference_protected() without the protection its condition demands"); \
	(p); })
#define rcu_dereference(p)		rcu_dereference_check(p, 0)
#define rcu_dereference_bh(p)		rcu_dereference_bh_check(p, 0)
#define rcu_dereference_sched(p)	rcu_dereference_sched_check(p, 0)
#define rcu_pointer_handoff(p)		(p)
#define RCU_LOCKDEP_WARN(c, s)	do {					\
	if (c)								\
		ksim_rcu_suspicious(__FILE__, __LINE__, s);		\
} while (0)
#define rcu_sleep_check()	do { } while (0)

static inline void init_rcu_head(struct rcu_head *head) { (void)head; }
/*
 * 7.x's "has call_rcu() been called on this head?" (lib/rhashtable.c's
 * walkers ask it of a bucket table): rcu_head_init() marks ->func, and
 * call_rcu() stores its function there only in a head so marked (it
 * leaves every other head untouched, shim/rcu/tree.c), as the kernel's
 * does in all of them.  The kernel marks with ~0L; ours is the address of
 * a function of ours, which no kernel structure overlaying its rcu_head
 * on live fields can hold by chance.
 */
void ksim_rcu_head_init_marker(struct rcu_head *head);
#define KSIM_RCU_HEAD_INIT_FUNC	ksim_rcu_head_init_marker
static inline void rcu_head_init(struct rcu_head *rhp)
{
	rhp->func = KSIM_RCU_HEAD_INIT_FUNC;
}
static inline bool rcu_head_after_call_rcu(struct rcu_head *rhp, rcu_callback_t f)
{
	rcu_callback_t func = READ_ONCE(rhp->func);

	if (func == f)
		return true;
	WARN_ON_ONCE(func != KSIM_RCU_HEAD_INIT_FUNC);
	return false;
}
static inline void destroy_rcu_head(struct rcu_head *head) { (void)head; }
static inline void init_rcu_head_on_stack(struct rcu_head *head) { (void)head; }
static inline void destroy_rcu_head_on_stack(struct rcu_head *head) { (void)head; }

/* rcu_dereference_all*(): any RCU flavour (7.x, rhashtable.h). */
#ifndef rcu_dereference_all_check
#define rcu_dereference_all_check(p, c)	rcu_dereference_check((p), (c) || rcu_read_lock_any_held())
#define rcu_dereference_all(p)		rcu_dereference_all_check((p), 0)
#endif

#if KSIM_HAVE_RCU_GUARD
/* guard(rcu)(), as the tree's rcupdate.h defines it. */
#include <linux/cleanup.h>
DEFINE_LOCK_GUARD_0(rcu, rcu_read_lock(), rcu_read_unlock())
#endif

#endif
