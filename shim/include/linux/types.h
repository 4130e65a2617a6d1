/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_TYPES_H
#define _LINUX_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>

typedef uint8_t  u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t   s8;
typedef int16_t  s16;
typedef int32_t  s32;
typedef int64_t  s64;

/*
 * <linux/types.h> from the C library (the uapi one) is shadowed by this file,
 * so provide the __u* names too; guard against the libc asm/types.h variant.
 */
#ifndef __ASM_GENERIC_INT_LL64_H
#define __ASM_GENERIC_INT_LL64_H
typedef uint8_t  __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef unsigned long long __u64;
typedef int8_t   __s8;
typedef int16_t  __s16;
typedef int32_t  __s32;
typedef long long __s64;
#endif
typedef __u16 __le16;
typedef __u16 __be16;
typedef __u32 __le32;
typedef __u32 __be32;
typedef __u64 __le64;
typedef __u64 __be64;
typedef __u16 __sum16;
typedef __u32 __wsum;
typedef unsigned int __poll_t;

typedef unsigned int gfp_t;
typedef unsigned int slab_flags_t;
typedef unsigned int fmode_t;
typedef unsigned int vm_fault_t;	/* linux/mm_types.h's */
typedef u64 phys_addr_t;
typedef phys_addr_t resource_size_t;
typedef u64 dma_addr_t;
typedef unsigned long pgoff_t;
typedef unsigned long irq_hw_number_t;
typedef unsigned short umode_t;
typedef unsigned long uintptr_t_kernel;
typedef long __kernel_long_t;
typedef unsigned long __kernel_ulong_t;
typedef __kernel_long_t __kernel_ssize_t;
typedef __kernel_ulong_t __kernel_size_t;
typedef u64 sector_t;
typedef _Bool __bool_t_unused;

#define DECLARE_BITMAP(name, bits) \
	unsigned long name[((bits) + 8 * sizeof(long) - 1) / (8 * sizeof(long))]

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	s64 counter;
} atomic64_t;

typedef atomic64_t atomic_long_t;

struct list_head {
	struct list_head *next, *prev;
};

struct hlist_head {
	struct hlist_node *first;
};

struct hlist_node {
	struct hlist_node *next, **pprev;
};

/*
 * The kernel's callback_head: two pointers.  call_rcu() in shim/rcu/tree.c
 * queues these itself (liburcu's own struct rcu_head is never seen by kernel
 * code), so layouts embedding an rcu_head keep their kernel size.
 */
struct callback_head {
	struct callback_head *next;
	void (*func)(struct callback_head *head);
} __attribute__((aligned(sizeof(void *))));
#define rcu_head callback_head

typedef void (*rcu_callback_t)(struct rcu_head *head);
typedef void (*call_rcu_func_t)(struct rcu_head *head, rcu_callback_t func);

/*
 * Last: linux/compiler.h reaches the tree's kcsan-checks.h, whose KCSAN
 * structures need struct list_head from above.
 */
#include <linux/compiler.h>

#endif /* _LINUX_TYPES_H */
