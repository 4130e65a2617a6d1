/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_MINMAX_H
#define _LINUX_MINMAX_H
#include <linux/compiler.h>

/*
 * Type-checked like the kernel's: mixing types is a compile-time warning
 * (the kernel: a build error), except against a non-negative integer
 * constant, which newer kernels' __types_ok() accepts (min(u32_var, 1)).
 */
#define __ksim_noneg_const(x)	(__builtin_choose_expr(__is_constexpr(x), (x), -1) >= 0)
#define __ksim_cmp(op, x, y) ({						\
	typeof(x) __x = (x);						\
	typeof(y) __y = (y);						\
	(void)(&__x == (typeof(__builtin_choose_expr(			\
		__ksim_noneg_const(x) || __ksim_noneg_const(y), &__x, &__y)))0); \
	__x op __y ? __x : __y; })

#define min(x, y)	__ksim_cmp(<, x, y)
#define max(x, y)	__ksim_cmp(>, x, y)
#define umin(x, y)	min_t(unsigned long long, x, y)
#define umax(x, y)	max_t(unsigned long long, x, y)
#define min3(x, y, z)	min((typeof(x))min(x, y), z)
#define max3(x, y, z)	max((typeof(x))max(x, y), z)
#define min_t(type, x, y) ({ type __a = (x); type __b = (y); __a < __b ? __a : __b; })
#define max_t(type, x, y) ({ type __a = (x); type __b = (y); __a > __b ? __a : __b; })
#define clamp(val, lo, hi)	min((typeof(val))max(val, lo), hi)
#define clamp_t(type, val, lo, hi)	min_t(type, max_t(type, val, lo), hi)
#define clamp_val(val, lo, hi)	clamp_t(typeof(val), val, lo, hi)
#define min_not_zero(x, y) ({ typeof(x) __x = (x); typeof(y) __y = (y); \
	__x == 0 ? __y : ((__y == 0) ? __x : min(__x, __y)); })
#define swap(a, b) \
	do { typeof(a) __tmp = (a); (a) = (b); (b) = __tmp; } while (0)
#endif
