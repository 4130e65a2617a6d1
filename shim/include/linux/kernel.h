/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_KERNEL_H
#define _LINUX_KERNEL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/limits.h>
#include <linux/stringify.h>
#include <linux/minmax.h>
#include <linux/math.h>
#include <linux/container_of.h>
#include <linux/bug.h>
#include <linux/printk.h>
#include <linux/bitops.h>
#include <linux/log2.h>
#include <linux/kconfig.h>
#include <linux/sched.h>
#include <linux/err.h>
#include <linux/atomic.h>
#include <linux/init.h>
#include <linux/export.h>
#include <linux/align.h>

#define ARRAY_SIZE(arr)	(sizeof(arr) / sizeof((arr)[0]) + __must_be_array(arr))
#define REPEAT_BYTE(x)	((~0ul / 0xff) * (x))
#define upper_32_bits(n) ((u32)(((n) >> 16) >> 16))
#define lower_32_bits(n) ((u32)((n) & 0xffffffff))
#define upper_16_bits(n) ((u16)((n) >> 16))
#define lower_16_bits(n) ((u16)((n) & 0xffff))
#define _RET_IP_	(unsigned long)__builtin_return_address(0)
#define _THIS_IP_	({ __label__ __here; __here: (unsigned long)&&__here; })
#define STACK_MAGIC	0xdeadbeef
#define u64_to_user_ptr(x)	((void __user *)(uintptr_t)(x))
#define PTR_IF(cond, ptr)	((cond) ? (ptr) : NULL)
#if KSIM_HAVE_LINUX_ARGS_H
#include <linux/args.h>
#else	/* the tree's kernel.h had these (6.1), ours replaces it */
#define COUNT_ARGS(X...) __COUNT_ARGS(, ##X, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define __COUNT_ARGS(_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _n, X...) _n
#endif

#define cond_resched()		({ might_sleep(); 0; })
#define cpu_relax()		__builtin_ia32_pause()

static inline int kstrtoul(const char *s, unsigned int base, unsigned long *res)
{
	char *end;

	errno = 0;
	*res = strtoul(s, &end, base);
	if (errno || end == s || (*end && *end != '\n'))
		return -EINVAL;
	return 0;
}

#endif /* _LINUX_KERNEL_H */
