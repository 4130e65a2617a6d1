/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_COMPILER_ATTRIBUTES_H
#define _LINUX_COMPILER_ATTRIBUTES_H

#define __alias(symbol)		__attribute__((__alias__(#symbol)))
#define __aligned(x)		__attribute__((__aligned__(x)))
#define __aligned_largest	__attribute__((__aligned__))
#define __always_inline		inline __attribute__((__always_inline__))
#define __always_unused		__attribute__((__unused__))
#define __maybe_unused		__attribute__((__unused__))
#define __attribute_const__	__attribute__((__const__))
#define __cold			__attribute__((__cold__))
#define __hot			__attribute__((__hot__))
#define __gnu_inline		__attribute__((__gnu_inline__))
#define __malloc		__attribute__((__malloc__))
#define __mode(x)		__attribute__((__mode__(x)))
#define __noclone
#define noinline		__attribute__((__noinline__))
#define __nonstring
#define __packed		__attribute__((__packed__))
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))
#define __scanf(a, b)		__attribute__((__format__(scanf, a, b)))
#define __pure			__attribute__((__pure__))
#define __section(s)		__attribute__((__section__(s)))
#define __used			__attribute__((__used__))
#define __weak			__attribute__((__weak__))
#define __must_check		__attribute__((__warn_unused_result__))
#define __noreturn		__attribute__((__noreturn__))
#define __designated_init
#define __visible		__attribute__((__externally_visible__))
#define __flatten		__attribute__((flatten))
#define __assume_aligned(a, ...) __attribute__((__assume_aligned__(a, ## __VA_ARGS__)))
#define __copy(symbol)
#define __no_stack_protector
#define __nocfi
#define __cleanup(func)		__attribute__((__cleanup__(func)))
#define __alloc_size(x, ...)	__attribute__((__alloc_size__(x, ## __VA_ARGS__)))
#define __realloc_size(x, ...)	__attribute__((__alloc_size__(x, ## __VA_ARGS__)))
#define __inline		inline
#define __inline__		inline
#define __nostackprotector

#ifndef fallthrough
#define fallthrough		__attribute__((__fallthrough__))
#endif

#endif /* _LINUX_COMPILER_ATTRIBUTES_H */
