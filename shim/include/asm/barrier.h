/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory barriers as C11 fences: what x86-64 gives the kernel, expressed so
 * the compiler and ThreadSanitizer understand them.
 */
#ifndef _ASM_X86_BARRIER_H
#define _ASM_X86_BARRIER_H
#include <linux/compiler.h>

#define mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_mb()	mb()
#define smp_rmb()	rmb()
#define smp_wmb()	wmb()
#define dma_rmb()	rmb()
#define dma_wmb()	wmb()
#define smp_mb__before_atomic()	barrier()
#define smp_mb__after_atomic()	barrier()
#define smp_mb__after_spinlock()	smp_mb()
#define smp_store_mb(var, value)  do { WRITE_ONCE(var, value); smp_mb(); } while (0)
/* The _Pragma: see READ_ONCE() in linux/compiler.h. */
#define smp_load_acquire(p) ({						\
	__unqual_scalar_typeof(*(p)) ___p1;				\
	_Pragma("GCC diagnostic push")					\
	_Pragma("GCC diagnostic ignored \"-Wincompatible-pointer-types\"") \
	__atomic_load((p), &___p1, __ATOMIC_ACQUIRE);			\
	_Pragma("GCC diagnostic pop")					\
	___p1; })
#define smp_store_release(p, v) do {					\
	__unqual_scalar_typeof(*(p)) ___v1 = (v);			\
	__atomic_store((p), &___v1, __ATOMIC_RELEASE);			\
} while (0)
#define smp_acquire__after_ctrl_dep()	smp_rmb()
#define smp_cond_load_relaxed(ptr, cond_expr) ({			\
	typeof(ptr) __PTR = (ptr);					\
	__unqual_scalar_typeof(*ptr) VAL;				\
	for (;;) {							\
		VAL = READ_ONCE(*__PTR);				\
		if (cond_expr)						\
			break;						\
		__builtin_ia32_pause();					\
	}								\
	VAL; })
#define smp_cond_load_acquire(ptr, cond_expr) ({			\
	__unqual_scalar_typeof(*ptr) _val;				\
	_val = smp_cond_load_relaxed(ptr, cond_expr);			\
	smp_acquire__after_ctrl_dep();					\
	_val; })
#endif
