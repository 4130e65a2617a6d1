/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksim: compiler attributes and annotations the kernel code expects.
 * Sparse annotations (__rcu, __user, __must_hold, ...) compile away, as in a
 * kernel build without C=1.
 */
#ifndef _LINUX_COMPILER_H
#define _LINUX_COMPILER_H

#include <linux/compiler_types.h>

#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define likely_notrace(x)	likely(x)
#define unlikely_notrace(x)	unlikely(x)

#define barrier()		__asm__ __volatile__("" : : : "memory")
#define barrier_data(ptr)	__asm__ __volatile__("" : : "r"(ptr) : "memory")

/*
 * READ_ONCE/WRITE_ONCE are relaxed atomics rather than volatile casts: same
 * code on x86-64, and ThreadSanitizer then knows these accesses are
 * intentionally racy (as the kernel's LKMM says they are).
 */
#define __READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
/*
 * __unqual_scalar_typeof() cannot drop the const of a const-qualified
 * pointer object (T *const), so GCC warns that __atomic_load() writes
 * through a const pointer; it does not, __v is a local copy.
 */
#define READ_ONCE(x)							\
	__builtin_choose_expr(sizeof(x) <= sizeof(long long),		\
		({ __unqual_scalar_typeof(x) __v;			\
		   _Pragma("GCC diagnostic push")			\
		   _Pragma("GCC diagnostic ignored \"-Wincompatible-pointer-types\"") \
		   __atomic_load(&(x), (__unqual_scalar_typeof(x) *)&__v, __ATOMIC_RELAXED); \
		   _Pragma("GCC diagnostic pop")			\
		   __v; }),						\
		(x))
#define WRITE_ONCE(x, val)						\
do {									\
	__unqual_scalar_typeof(x) __w = (val);				\
	__atomic_store(&(x), &__w, __ATOMIC_RELAXED);			\
} while (0)

/*
 * data_race(): an access that is racy on purpose.  As in the kernel, KCSAN
 * is switched off for the expression (linux/kcsan-checks.h: a no-op, or
 * under ThreadSanitizer TSan ignores the thread's accesses meanwhile).
 */
#define data_race(expr)							\
({									\
	__unqual_scalar_typeof(({ expr; })) __v = ({			\
		__kcsan_disable_current();				\
		expr;							\
	});								\
	__kcsan_enable_current();					\
	__v;								\
})

#define OPTIMIZER_HIDE_VAR(var)	__asm__ ("" : "=r" (var) : "0" (var))
#define RELOC_HIDE(ptr, off)	((typeof(ptr))((unsigned long)(ptr) + (off)))
#define __must_be_array(a)	BUILD_BUG_ON_ZERO(__same_type((a), &(a)[0]))
#define __same_type(a, b)	__builtin_types_compatible_p(typeof(a), typeof(b))
#define is_signed_type(type)	(((type)(-1)) < (type)1)
#define is_unsigned_type(type)	(!is_signed_type(type))

#ifndef __BUILD_BUG_ON_ZERO_DEFINED
#define __BUILD_BUG_ON_ZERO_DEFINED
#define BUILD_BUG_ON_ZERO(e)	((int)(sizeof(struct { int:(-!!(e)); })))
#endif

#define __native_word(t)	(sizeof(t) == sizeof(char) || sizeof(t) == sizeof(short) || \
				 sizeof(t) == sizeof(int) || sizeof(t) == sizeof(long))
#define compiletime_assert(cond, msg)	_Static_assert(cond, msg)
#define compiletime_assert_atomic_type(t) \
	compiletime_assert(__native_word(t), "Need native word sized stores/loads for atomicity.")

#define __is_constexpr(x) \
	(sizeof(int) == sizeof(*(8 ? ((void *)((long)(x) * 0l)) : (int *)8)))

#define prevent_tail_call_optimization()	mb()

/*
 * The KCSAN annotations (the kernel reaches them through asm/rwonce.h):
 * no-ops, or under ThreadSanitizer as KCSAN treats them (the header says
 * how).
 */
#include <linux/kcsan-checks.h>

#endif /* _LINUX_COMPILER_H */
