/* SPDX-License-Identifier: GPL-2.0 */
/*
 * atomic_t, atomic64_t, atomic_long_t on the compiler's __atomic builtins.
 * Ordering follows the kernel's rules: value-returning RMW ops are fully
 * ordered, non-returning ones and plain read/set are relaxed.  Never a bare
 * int, so ThreadSanitizer sees every access for what it is.
 */
#ifndef _LINUX_ATOMIC_H
#define _LINUX_ATOMIC_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <asm/barrier.h>

#define ATOMIC_INIT(i)		{ (i) }
#define ATOMIC64_INIT(i)	{ (i) }
#define ATOMIC_LONG_INIT(i)	ATOMIC64_INIT(i)

/*
 * KSIM_ATOMIC_SINGLE_THREAD (defined for a whole library by its build, e.g.
 * the maple tree of the fuzz targets, fuzz/CMakeLists.txt): the code runs in
 * a process with one thread, where a non-returning add/sub needs no lock
 * prefix.  It is then a relaxed load + store, still atomic accesses for
 * ThreadSanitizer.  Why: CONFIG_DEBUG_MAPLE_TREE's MT_BUG_ON/MAS_WARN_ON do
 * two atomic_inc()s per check, and a `lock add` each made up 18% of a maple
 * fuzz run.  Never for code that runs on more than one thread.
 */
#ifdef KSIM_ATOMIC_SINGLE_THREAD
#define __ksim_atomic_add_void(p, i)					\
	__atomic_store_n((p), __atomic_load_n((p), __ATOMIC_RELAXED) + (i), __ATOMIC_RELAXED)
#define __ksim_atomic_sub_void(p, i)					\
	__atomic_store_n((p), __atomic_load_n((p), __ATOMIC_RELAXED) - (i), __ATOMIC_RELAXED)
#else
#define __ksim_atomic_add_void(p, i)	((void)__atomic_fetch_add((p), (i), __ATOMIC_RELAXED))
#define __ksim_atomic_sub_void(p, i)	((void)__atomic_fetch_sub((p), (i), __ATOMIC_RELAXED))
#endif

#define __KSIM_ATOMIC_OPS(pfx, atype, itype)				\
static inline itype pfx##_read(const atype *v)				\
{ return __atomic_load_n(&v->counter, __ATOMIC_RELAXED); }		\
static inline itype pfx##_read_acquire(const atype *v)			\
{ return __atomic_load_n(&v->counter, __ATOMIC_ACQUIRE); }		\
static inline void pfx##_set(atype *v, itype i)				\
{ __atomic_store_n(&v->counter, i, __ATOMIC_RELAXED); }		\
static inline void pfx##_set_release(atype *v, itype i)		\
{ __atomic_store_n(&v->counter, i, __ATOMIC_RELEASE); }		\
static inline void pfx##_add(itype i, atype *v)				\
{ __ksim_atomic_add_void(&v->counter, i); }				\
static inline void pfx##_sub(itype i, atype *v)				\
{ __ksim_atomic_sub_void(&v->counter, i); }				\
static inline void pfx##_inc(atype *v) { pfx##_add(1, v); }		\
static inline void pfx##_dec(atype *v) { pfx##_sub(1, v); }		\
static inline void pfx##_and(itype i, atype *v)				\
{ __atomic_fetch_and(&v->counter, i, __ATOMIC_RELAXED); }		\
static inline void pfx##_or(itype i, atype *v)				\
{ __atomic_fetch_or(&v->counter, i, __ATOMIC_RELAXED); }		\
static inline itype pfx##_add_return(itype i, atype *v)		\
{ return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline itype pfx##_add_return_relaxed(itype i, atype *v)	\
{ return __atomic_add_fetch(&v->counter, i, __ATOMIC_RELAXED); }	\
static inline itype pfx##_sub_return(itype i, atype *v)		\
{ return __atomic_sub_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline itype pfx##_fetch_add(itype i, atype *v)			\
{ return __atomic_fetch_add(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline itype pfx##_fetch_sub(itype i, atype *v)			\
{ return __atomic_fetch_sub(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline itype pfx##_fetch_or(itype i, atype *v)			\
{ return __atomic_fetch_or(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline itype pfx##_fetch_and(itype i, atype *v)			\
{ return __atomic_fetch_and(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline itype pfx##_inc_return(atype *v) { return pfx##_add_return(1, v); } \
static inline itype pfx##_dec_return(atype *v) { return pfx##_sub_return(1, v); } \
static inline itype pfx##_fetch_inc(atype *v) { return pfx##_fetch_add(1, v); } \
static inline itype pfx##_fetch_dec(atype *v) { return pfx##_fetch_sub(1, v); } \
static inline bool pfx##_dec_and_test(atype *v) { return pfx##_sub_return(1, v) == 0; } \
static inline bool pfx##_inc_and_test(atype *v) { return pfx##_add_return(1, v) == 0; } \
static inline bool pfx##_sub_and_test(itype i, atype *v) { return pfx##_sub_return(i, v) == 0; } \
static inline itype pfx##_xchg(atype *v, itype n)			\
{ return __atomic_exchange_n(&v->counter, n, __ATOMIC_SEQ_CST); }	\
static inline itype pfx##_cmpxchg(atype *v, itype o, itype n)		\
{ __atomic_compare_exchange_n(&v->counter, &o, n, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); return o; } \
static inline itype pfx##_cmpxchg_relaxed(atype *v, itype o, itype n)	\
{ __atomic_compare_exchange_n(&v->counter, &o, n, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); return o; } \
static inline bool pfx##_try_cmpxchg(atype *v, itype *o, itype n)	\
{ return __atomic_compare_exchange_n(&v->counter, o, n, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); } \
static inline bool pfx##_add_unless(atype *v, itype a, itype u)	\
{ itype c = pfx##_read(v);						\
  do { if (c == u) return false; } while (!pfx##_try_cmpxchg(v, &c, c + a)); \
  return true; }							\
static inline bool pfx##_inc_not_zero(atype *v) { return pfx##_add_unless(v, 1, 0); } \
static inline itype pfx##_fetch_add_unless(atype *v, itype a, itype u)	\
{ itype c = pfx##_read(v);						\
  do { if (c == u) break; } while (!pfx##_try_cmpxchg(v, &c, c + a)); \
  return c; }								\
static inline itype pfx##_dec_if_positive(atype *v)			\
{ itype c = pfx##_read(v), d;						\
  do { d = c - 1; if (d < 0) break; } while (!pfx##_try_cmpxchg(v, &c, d)); \
  return d; }

__KSIM_ATOMIC_OPS(atomic, atomic_t, int)
__KSIM_ATOMIC_OPS(atomic64, atomic64_t, s64)
__KSIM_ATOMIC_OPS(atomic_long, atomic_long_t, long)

#define atomic_inc_return_relaxed(v)	atomic_add_return_relaxed(1, v)

/* Generic cmpxchg()/xchg() on any scalar. */
#define xchg(ptr, v)	__atomic_exchange_n((ptr), (v), __ATOMIC_SEQ_CST)
#define cmpxchg(ptr, o, n) ({						\
	__typeof__(*(ptr)) __o = (o);					\
	__atomic_compare_exchange_n((ptr), &__o, (n), false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
	__o; })
#define cmpxchg_relaxed		cmpxchg
#define cmpxchg_acquire		cmpxchg
#define cmpxchg_release		cmpxchg
#define cmpxchg64		cmpxchg
#define try_cmpxchg(ptr, po, n)						\
	__atomic_compare_exchange_n((ptr), (po), (n), false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define xchg_relaxed		xchg

#endif /* _LINUX_ATOMIC_H */
