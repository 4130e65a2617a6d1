/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the read side (read.c) and the rest of RCU (tree.c) share: they are
 * separate files because read.c is built without ASan and UBSan
 * (shim/CMakeLists.txt says why).
 */
#ifndef _KSIM_RCU_INTERNAL_H
#define _KSIM_RCU_INTERNAL_H

#include <stddef.h>
#include <ksim/task.h>

struct ksim_rcu_cb;
struct ksim_rcu_batch {
	struct ksim_rcu_cb *cbs;
	size_t nr, cap;
};
/* Callbacks queued by this thread inside its current read-side section. */
extern __thread struct ksim_rcu_batch ksim_rcu_deferred;
void ksim_rcu_flush_deferred_slow(void);

static inline void ksim_rcu_flush_deferred(void)
{
	if (__builtin_expect(ksim_rcu_deferred.nr != 0, 0))
		ksim_rcu_flush_deferred_slow();
}

/* Threads register with liburcu on first use. */
void ksim_rcu_register_reader(struct ksim_task *t);

static inline void ksim_rcu_ensure_registered(struct ksim_task *t)
{
	if (__builtin_expect(!t->urcu_registered, 0))
		ksim_rcu_register_reader(t);
}

/* ThreadSanitizer's view of grace periods (tree.c's header comment). */
#ifdef KSIM_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
extern char ksim_rcu_gp_sync;
#define ksim_rcu_reader_done()	__tsan_release(&ksim_rcu_gp_sync)
#define ksim_rcu_gp_done()	__tsan_acquire(&ksim_rcu_gp_sync)
#else
#define ksim_rcu_reader_done()	do { } while (0)
#define ksim_rcu_gp_done()	do { } while (0)
#endif

#endif
