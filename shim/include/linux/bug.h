/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BUG() aborts with a backtrace, as an oops would stop the kernel path.
 * WARN*() print, count a KSIM_P_WARN problem and carry on, as in the kernel;
 * the test harness fails any test that triggered a WARN it did not expect.
 */
#ifndef _LINUX_BUG_H
#define _LINUX_BUG_H

#include <linux/compiler.h>
#include <ksim/ksim.h>

#define BUG()	ksim_bug(__FILE__, __LINE__, "kernel BUG")
#define BUG_ON(cond)	do {						\
	if (unlikely(cond))						\
		ksim_bug(__FILE__, __LINE__, "kernel BUG: %s", #cond);	\
} while (0)

#define __ksim_warn(cond, fmt...) ({					\
	int __ret_warn_on = !!(cond);					\
	if (unlikely(__ret_warn_on))					\
		ksim_problem(KSIM_P_WARN, __FILE__, __LINE__, fmt);	\
	unlikely(__ret_warn_on);					\
})
#define __ksim_warn_once(cond, fmt...) ({				\
	static bool __warned;						\
	int __ret_warn_once = !!(cond);					\
	if (unlikely(__ret_warn_once && !__atomic_exchange_n(&__warned, true, __ATOMIC_RELAXED))) \
		ksim_problem(KSIM_P_WARN, __FILE__, __LINE__, fmt);	\
	unlikely(__ret_warn_once);					\
})

#define WARN_ON(cond)		__ksim_warn(cond, "WARN_ON(%s)", #cond)
#define WARN_ON_ONCE(cond)	__ksim_warn_once(cond, "WARN_ON_ONCE(%s)", #cond)
#define WARN(cond, fmt...)	__ksim_warn(cond, fmt)
#define WARN_ONCE(cond, fmt...)	__ksim_warn_once(cond, fmt)
#define WARN_TAINT(cond, taint, fmt...)	WARN(cond, fmt)
#define VM_BUG_ON(cond)		BUG_ON(cond)
#define VM_WARN_ON(cond)	(void)WARN_ON(cond)
#define VM_WARN_ON_ONCE(cond)	(void)WARN_ON_ONCE(cond)
#define VM_WARN_ONCE(cond, fmt...) (void)WARN_ONCE(cond, fmt)
#define VM_BUG_ON_VMA(cond, vma)	BUG_ON(cond)
#define VM_BUG_ON_MM(cond, mm)		BUG_ON(cond)
#define VM_WARN_ON_ONCE_VMA(cond, vma)	(void)WARN_ON_ONCE(cond)
#define VM_WARN_ON_ONCE_MM(cond, mm)	(void)WARN_ON_ONCE(cond)
#define VM_WARN_ON_VMA(cond, vma)	(void)WARN_ON(cond)

/*
 * As the kernel's compiletime_assert(): checked after optimization, so a
 * condition that folds only once an __always_inline function is inlined
 * (rhashtable.h's BUILD_BUG_ON(!__builtin_constant_p(freq))) is accepted.
 */
#define __ksim_build_bug(cond, msg, id)					\
	do {								\
		extern void id(void) __attribute__((__error__(msg)));	\
		if (cond)						\
			id();						\
	} while (0)
#define __ksim_build_bug_id(cond, msg, n)	__ksim_build_bug(cond, msg, __ksim_build_bug_##n)
#define __ksim_build_bug_n(cond, msg, n)	__ksim_build_bug_id(cond, msg, n)
#define BUILD_BUG_ON_MSG(cond, msg)	__ksim_build_bug_n(cond, msg, __COUNTER__)
#define BUILD_BUG_ON(cond)		BUILD_BUG_ON_MSG(cond, "BUILD_BUG_ON failed: " #cond)
#define BUILD_BUG_ON_NOT_POWER_OF_2(n)	BUILD_BUG_ON((n) == 0 || (((n) & ((n) - 1)) != 0))
#define BUILD_BUG()			BUILD_BUG_ON_MSG(1, "BUILD_BUG failed")
#ifndef __BUILD_BUG_ON_ZERO_DEFINED
#define __BUILD_BUG_ON_ZERO_DEFINED
#define BUILD_BUG_ON_ZERO(e)	((int)(sizeof(struct { int:(-!!(e)); })))
#endif
/* The kernel's form; <assert.h> may have defined the C11 one first. */
#undef static_assert
#define static_assert(expr, ...) __static_assert(expr, ##__VA_ARGS__, #expr)
#define __static_assert(expr, msg, ...) _Static_assert(expr, msg)

#define dump_stack_unused()	ksim_dump_stack()

#endif /* _LINUX_BUG_H */
