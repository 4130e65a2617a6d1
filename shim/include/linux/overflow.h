/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __LINUX_OVERFLOW_H
#define __LINUX_OVERFLOW_H
#include <linux/compiler.h>
#include <linux/limits.h>
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_sub_overflow(a, b, d)	__builtin_sub_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#define size_mul(a, b)	({ size_t __r; check_mul_overflow((size_t)(a), (size_t)(b), &__r) ? SIZE_MAX : __r; })
#define size_add(a, b)	({ size_t __r; check_add_overflow((size_t)(a), (size_t)(b), &__r) ? SIZE_MAX : __r; })
#define size_sub(a, b)	({ size_t __a = (a), __b = (b); (__a == SIZE_MAX || __b == SIZE_MAX || __a < __b) ? SIZE_MAX : __a - __b; })
#define array_size(a, b)	size_mul(a, b)
#define array3_size(a, b, c)	size_mul(size_mul(a, b), c)
#define struct_size(p, member, count)					\
	size_add(sizeof(*(p)), size_mul(sizeof(*(p)->member), count))
#define struct_size_t(type, member, count)				\
	struct_size((type *)NULL, member, count)
#define flex_array_size(p, member, count)	size_mul(count, sizeof(*(p)->member))
#endif
