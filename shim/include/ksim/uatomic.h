/* SPDX-License-Identifier: GPL-2.0 */
/*
 * liburcu's uatomic_*() names, which the kernel's userspace harness files
 * (tools/testing/radix-tree/maple.c) call directly, on the compiler's
 * atomics so ThreadSanitizer sees them.  Kernel code proper never uses these.
 */
#ifndef _KSIM_UATOMIC_H
#define _KSIM_UATOMIC_H
#define uatomic_read(p)		__atomic_load_n((p), __ATOMIC_RELAXED)
#define uatomic_set(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define uatomic_inc(p)		((void)__atomic_add_fetch((p), 1, __ATOMIC_SEQ_CST))
#define uatomic_dec(p)		((void)__atomic_sub_fetch((p), 1, __ATOMIC_SEQ_CST))
#define uatomic_add(p, v)	((void)__atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST))
#define uatomic_add_return(p, v) __atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST)
#define uatomic_xchg(p, v)	__atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)
#define uatomic_cmpxchg(p, o, n) ({ __typeof__(*(p)) __o = (o); \
	__atomic_compare_exchange_n((p), &__o, (n), 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); __o; })
#endif
