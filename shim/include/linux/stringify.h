/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __LINUX_STRINGIFY_H
#define __LINUX_STRINGIFY_H
#define __stringify_1(x...)	#x
#define __stringify(x...)	__stringify_1(x)
#define ___PASTE(a, b)		a##b
#define __PASTE(a, b)		___PASTE(a, b)	/* expands a and b first, as the kernel's */
#define PASTE(a, b)		__PASTE(a, b)
/* Format: __UNIQUE_ID_<name>_<__COUNTER__> (linux/compiler.h) */
#define __UNIQUE_ID(name)	__PASTE(__UNIQUE_ID_, __PASTE(name, __PASTE(_, __COUNTER__)))
#ifndef __CONCAT		/* glibc's <sys/cdefs.h> has the same */
#define __CONCAT(a, b)		a ## b
#endif
#define CONCATENATE(a, b)	__CONCAT(a, b)
#define FILE_LINE		__FILE__ ":" __stringify(__LINE__)
#endif
