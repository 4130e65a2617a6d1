/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksim: the configuration the shim emulates.  One x86-64 SMP kernel with
 * lockdep-style checking: the options below are the ones kernel code tests
 * with #ifdef/IS_ENABLED, chosen to turn on debug checks wherever the kernel
 * has them.
 */
#ifndef __LINUX_KCONFIG_H
#define __LINUX_KCONFIG_H

#define CONFIG_64BIT		1
#define CONFIG_X86_64		1
#define CONFIG_SMP		1
#define CONFIG_MMU		1
#define CONFIG_NR_CPUS		64
#define CONFIG_LOCKDEP		1
#define CONFIG_PROVE_LOCKING	1
#define CONFIG_PROVE_RCU	1
#define CONFIG_DEBUG_LOCK_ALLOC	1
#define CONFIG_PAGE_SHIFT	12
#define CONFIG_PGTABLE_LEVELS	4
#define CONFIG_BASE_SMALL	0
#define CONFIG_ILLEGAL_POINTER_VALUE	0xdead000000000000
#define CONFIG_HZ		1000

#define __ARG_PLACEHOLDER_1 0,
#define __take_second_arg(__ignored, val, ...) val
#define __and(x, y)			___and(x, y)
#define ___and(x, y)			____and(__ARG_PLACEHOLDER_##x, y)
#define ____and(arg1_or_junk, y)	__take_second_arg(arg1_or_junk y, 0)
#define __or(x, y)			___or(x, y)
#define ___or(x, y)			____or(__ARG_PLACEHOLDER_##x, y)
#define ____or(arg1_or_junk, y)		__take_second_arg(arg1_or_junk 1, y)
#define __is_defined(x)			___is_defined(x)
#define ___is_defined(val)		____is_defined(__ARG_PLACEHOLDER_##val)
#define ____is_defined(arg1_or_junk)	__take_second_arg(arg1_or_junk 1, 0)
#define IS_BUILTIN(option)	__is_defined(option)
#define IS_MODULE(option)	__is_defined(option##_MODULE)
#define IS_REACHABLE(option)	__or(IS_BUILTIN(option), __and(IS_MODULE(option), __is_defined(MODULE)))
#define IS_ENABLED(option)	__or(IS_BUILTIN(option), IS_MODULE(option))

#endif
