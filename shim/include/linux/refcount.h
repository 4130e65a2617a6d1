/* SPDX-License-Identifier: GPL-2.0 */
/*
 * refcount_t as in include/linux/refcount.h and lib/refcount.c: an atomic
 * counter that refuses the two mistakes the kernel's version catches.
 * Incrementing from 0 ("addition on 0; use-after-free") and decrementing
 * below 0 ("underflow; use-after-free") WARN, through the problem sink, with
 * the caller's file and line, and leave the counter saturated
 * (REFCOUNT_SATURATED) as the kernel does, so the object is never freed
 * twice.  We differ in one way: the kernel saturates silently at
 * REFCOUNT_MAX + 1 on overflow too; here overflow warns the same way (no
 * test can take 2^31 references without meaning to).
 */
#ifndef _LINUX_REFCOUNT_H
#define _LINUX_REFCOUNT_H

#include <limits.h>
#include <linux/atomic.h>
#include <linux/bug.h>

typedef struct refcount_struct {
	atomic_t refs;
} refcount_t;

#define REFCOUNT_INIT(n)	{ .refs = ATOMIC_INIT(n), }
#define REFCOUNT_MAX		INT_MAX
#define REFCOUNT_SATURATED	(INT_MIN / 2)

static inline void refcount_set(refcount_t *r, int n)
{
	atomic_set(&r->refs, n);
}

static inline unsigned int refcount_read(const refcount_t *r)
{
	return atomic_read(&r->refs);
}

#define __ksim_refcount_bad(r, what, file, line) do {			\
	atomic_set(&(r)->refs, REFCOUNT_SATURATED);			\
	ksim_problem(KSIM_P_WARN, file, line, "refcount_t: %s", what);	\
} while (0)

static inline void __ksim_refcount_inc(refcount_t *r, const char *file, int line)
{
	int old = atomic_fetch_add(1, &r->refs);

	if (unlikely(old <= 0 || old == INT_MAX))
		__ksim_refcount_bad(r, old ? "saturated; leaking memory" :
				    "addition on 0; use-after-free", file, line);
}

static inline bool __ksim_refcount_inc_not_zero(refcount_t *r, const char *file, int line)
{
	int old = atomic_read(&r->refs);

	do {
		if (!old)
			return false;
	} while (!atomic_try_cmpxchg(&r->refs, &old, old + 1));
	if (unlikely(old < 0 || old == INT_MAX))
		__ksim_refcount_bad(r, "saturated; leaking memory", file, line);
	return true;
}

static inline bool __ksim_refcount_dec_and_test(refcount_t *r, const char *file, int line)
{
	int old = atomic_fetch_sub(1, &r->refs);

	if (old == 1)
		return true;
	if (unlikely(old <= 0))
		__ksim_refcount_bad(r, "underflow; use-after-free", file, line);
	return false;
}

#define refcount_inc(r)		__ksim_refcount_inc(r, __FILE__, __LINE__)
#define refcount_inc_not_zero(r) __ksim_refcount_inc_not_zero(r, __FILE__, __LINE__)
#define refcount_dec_and_test(r) __ksim_refcount_dec_and_test(r, __FILE__, __LINE__)

#endif /* _LINUX_REFCOUNT_H */
