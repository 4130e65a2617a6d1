/* SPDX-License-Identifier: GPL-2.0 */
/*
 * copy_{to,from}_user(), put_user(), get_user(): ksim has no user/kernel
 * split, "user" memory is ours and is read and written where the pointer
 * points.  The -EFAULT of an unmapped user address is not simulated
 * (callers pass pointers to their own objects).
 */
#ifndef _LINUX_UACCESS_H
#define _LINUX_UACCESS_H

#include <linux/compiler.h>
#include <string.h>

static inline unsigned long copy_to_user(void __user *to, const void *from, unsigned long n)
{
	memcpy(to, from, n);
	return 0;
}
static inline unsigned long copy_from_user(void *to, const void __user *from, unsigned long n)
{
	memcpy(to, from, n);
	return 0;
}
#define put_user(x, p)	({ *(p) = (x); 0; })
#define get_user(x, p)	({ (x) = *(p); 0; })

#endif
