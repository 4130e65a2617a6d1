/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __LINUX_STRINGIFY_H
#define __LINUX_STRINGIFY_H
#define __stringify_1(x...)	#x
#define __stringify(x...)	__stringify_1(x)
#define __PASTE(a, b)		a##b
#define PASTE(a, b)		__PASTE(a, b)
#define ___PASTE(a, b)		a##b
#ifndef __CONCAT		/* glibc's <sys/cdefs.h> has the same */
#define __CONCAT(a, b)		a ## b
#endif
#define CONCATENATE(a, b)	__CONCAT(a, b)
#define FILE_LINE		__FILE__ ":" __stringify(__LINE__)
#endif
