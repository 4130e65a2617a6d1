/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_COMPILER_TYPES_H
#define _LINUX_COMPILER_TYPES_H

#include <linux/compiler_attributes.h>

/* Sparse address spaces and context annotations: no-ops without sparse. */
#define __user
#define __kernel
#define __iomem
#define __percpu
#define __rcu
#define __private
#define __force
#define __nocast
#define __safe
#define __bitwise
#define __must_hold(...)
#define __acquires(...)
#define __releases(...)
/* Context analysis (include/linux/compiler-context-analysis.h): off. */
#define __context_unsafe(comment)
#define __no_context_analysis
#define __guarded_by(...)
#define __pt_guarded_by(...)
#define __must_not_hold(...)
#define __must_hold_shared(...)
#define __acquires_shared(...)
#define __releases_shared(...)
#define __cond_acquires(...)
#define __cond_acquires_shared(...)
#define __acquire(x)	(void)0
#define __release(x)	(void)0
#define __cond_lock(x, c)	(c)
/* More of the context analysis (7.x list.h, bit_spinlock.h): off too. */
#define __cond_releases(...)
#define context_unsafe(...)	({ __VA_ARGS__; })
#define context_unsafe_alias(p)	do { } while (0)
#define disable_context_analysis()
#define enable_context_analysis()
#define ACCESS_PRIVATE(p, member)	((p)->member)
#define __chk_user_ptr(x)	(void)0
#define __chk_io_ptr(x)		(void)0

#define notrace
#define __latent_entropy
#define __randomize_layout
#define __no_randomize_layout
#define randomized_struct_fields_start	struct {
#define randomized_struct_fields_end	};
#define __noreturn		__attribute__((__noreturn__))
#define noinline_for_stack	noinline
#define __no_sanitize_address	__attribute__((no_sanitize_address))
/*
 * As include/linux/compiler-clang.h: clang says __has_feature(), GCC
 * defines __SANITIZE_THREAD__ itself; the KCSAN annotations (linux/kcsan-
 * checks.h) and __no_kcsan read it.
 */
#if !defined(__SANITIZE_THREAD__) && defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define __SANITIZE_THREAD__
#endif
#endif
#ifdef __SANITIZE_THREAD__
#define __no_kcsan		__attribute__((no_sanitize_thread))
#else
#define __no_kcsan
#endif
#define __no_sanitize_or_inline
#define __noinstr_section(x)
#define noinstr
#define __cpuidle
#define __kprobes
#define nokprobe_inline		__always_inline
#define __rcu_callback
#define __ro_after_init
#define __read_mostly
#define __cacheline_aligned		__attribute__((__aligned__(64)))
#define __cacheline_aligned_in_smp	__cacheline_aligned
#define ____cacheline_aligned		__cacheline_aligned
#define ____cacheline_aligned_in_smp	__cacheline_aligned
#define __counted_by(m)
#define __builtin_warning(x, y...)	(1)
#define __diag_push()
#define __diag_pop()
#define __diag_ignore(...)
#define __diag_ignore_all(...)

#define __unqual_scalar_typeof(x) typeof(				\
		_Generic((x),						\
			 char:	(char)0,				\
			 signed char:	(signed char)0,			\
			 unsigned char:	(unsigned char)0,		\
			 signed short:	(signed short)0,		\
			 unsigned short:	(unsigned short)0,	\
			 signed int:	(signed int)0,			\
			 unsigned int:	(unsigned int)0,		\
			 signed long:	(signed long)0,			\
			 unsigned long:	(unsigned long)0,		\
			 signed long long:	(signed long long)0,	\
			 unsigned long long:	(unsigned long long)0,	\
			 _Bool:	(_Bool)0,				\
			 default: (x)))

#endif /* _LINUX_COMPILER_TYPES_H */
