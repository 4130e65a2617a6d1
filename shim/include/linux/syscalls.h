/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SYSCALL_DEFINEn: a syscall body extracted verbatim from the kernel
 * (scripts/ksim-extract, `SYSCALL_DEFINE5(mremap)`) becomes an ordinary
 * function `long ksim_sys_<name>(<type> <arg>, ...)` the simulator calls.
 * No entry-code wrappers, no argument sign-extension dance (__SC_LONG),
 * no tracing metadata: that is where we differ from the kernel's macro.
 */
#ifndef _LINUX_SYSCALLS_H
#define _LINUX_SYSCALLS_H

#define __KSIM_SC_DECL(t, a)	t a
#define __KSIM_SC_MAP1(m, t, a)		m(t, a)
#define __KSIM_SC_MAP2(m, t, a, ...)	m(t, a), __KSIM_SC_MAP1(m, __VA_ARGS__)
#define __KSIM_SC_MAP3(m, t, a, ...)	m(t, a), __KSIM_SC_MAP2(m, __VA_ARGS__)
#define __KSIM_SC_MAP4(m, t, a, ...)	m(t, a), __KSIM_SC_MAP3(m, __VA_ARGS__)
#define __KSIM_SC_MAP5(m, t, a, ...)	m(t, a), __KSIM_SC_MAP4(m, __VA_ARGS__)
#define __KSIM_SC_MAP6(m, t, a, ...)	m(t, a), __KSIM_SC_MAP5(m, __VA_ARGS__)

#define SYSCALL_DEFINEx(x, sname, ...)					\
	long ksim_sys##sname(__KSIM_SC_MAP##x(__KSIM_SC_DECL, __VA_ARGS__))
#define SYSCALL_DEFINE0(sname)		long ksim_sys_##sname(void)
#define SYSCALL_DEFINE1(name, ...)	SYSCALL_DEFINEx(1, _##name, __VA_ARGS__)
#define SYSCALL_DEFINE2(name, ...)	SYSCALL_DEFINEx(2, _##name, __VA_ARGS__)
#define SYSCALL_DEFINE3(name, ...)	SYSCALL_DEFINEx(3, _##name, __VA_ARGS__)
#define SYSCALL_DEFINE4(name, ...)	SYSCALL_DEFINEx(4, _##name, __VA_ARGS__)
#define SYSCALL_DEFINE5(name, ...)	SYSCALL_DEFINEx(5, _##name, __VA_ARGS__)
#define SYSCALL_DEFINE6(name, ...)	SYSCALL_DEFINEx(6, _##name, __VA_ARGS__)

#endif
