/* SPDX-License-Identifier: GPL-2.0 */
/*
 * percpu_counter as one exact atomic64 count.  The kernel's is per-CPU with
 * a batch and __percpu_counter_compare() falls back to an exact sum when
 * the approximate count is within the batch of the limit, so comparisons
 * give the same answers; only the cost differs.
 */
#ifndef _LINUX_PERCPU_COUNTER_H
#define _LINUX_PERCPU_COUNTER_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/gfp.h>

struct percpu_counter {
	atomic64_t count;
};

static inline int percpu_counter_init(struct percpu_counter *c, s64 v, gfp_t gfp)
{
	(void)gfp;
	atomic64_set(&c->count, v);
	return 0;
}
static inline void percpu_counter_destroy(struct percpu_counter *c) { (void)c; }
static inline void percpu_counter_add_batch(struct percpu_counter *c, s64 v, s32 batch)
{
	(void)batch;
	atomic64_add(v, &c->count);
}
static inline void percpu_counter_add(struct percpu_counter *c, s64 v) { atomic64_add(v, &c->count); }
static inline void percpu_counter_inc(struct percpu_counter *c) { percpu_counter_add(c, 1); }
static inline void percpu_counter_dec(struct percpu_counter *c) { percpu_counter_add(c, -1); }
static inline s64 percpu_counter_sum(struct percpu_counter *c) { return atomic64_read(&c->count); }
static inline s64 percpu_counter_read(struct percpu_counter *c) { return atomic64_read(&c->count); }
static inline s64 percpu_counter_read_positive(struct percpu_counter *c)
{
	s64 v = atomic64_read(&c->count);
	return v > 0 ? v : 0;
}
static inline int __percpu_counter_compare(struct percpu_counter *c, s64 rhs, s32 batch)
{
	s64 v = atomic64_read(&c->count);
	(void)batch;
	return v > rhs ? 1 : v < rhs ? -1 : 0;
}
static inline int percpu_counter_compare(struct percpu_counter *c, s64 rhs)
{
	return __percpu_counter_compare(c, rhs, 32);
}

#endif
