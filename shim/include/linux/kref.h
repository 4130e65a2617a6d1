/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct kref as in include/linux/kref.h: a refcount_t (linux/refcount.h,
 * which reports a get on a dead object and a put below zero) and a release
 * function called when the last reference goes.
 */
#ifndef _LINUX_KREF_H
#define _LINUX_KREF_H

#include <linux/refcount.h>

struct kref {
	refcount_t refcount;
};

#define KREF_INIT(n)	{ .refcount = REFCOUNT_INIT(n), }

static inline void kref_init(struct kref *kref)
{
	refcount_set(&kref->refcount, 1);
}

static inline unsigned int kref_read(const struct kref *kref)
{
	return refcount_read(&kref->refcount);
}

#define kref_get(kref)		refcount_inc(&(kref)->refcount)
#define kref_get_unless_zero(kref) refcount_inc_not_zero(&(kref)->refcount)

/* Returns 1 when @release ran (the object is gone), as the kernel's. */
static inline int kref_put(struct kref *kref, void (*release)(struct kref *kref))
{
	if (refcount_dec_and_test(&kref->refcount)) {
		release(kref);
		return 1;
	}
	return 0;
}

#endif /* _LINUX_KREF_H */
