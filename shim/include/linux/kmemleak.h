/* SPDX-License-Identifier: GPL-2.0 */
/* kmemleak: the shim's slab has its own leak report; these are no-ops. */
#ifndef __KMEMLEAK_H
#define __KMEMLEAK_H
#include <linux/types.h>
static inline void kmemleak_update_trace(const void *ptr) { (void)ptr; }
static inline void kmemleak_not_leak(const void *ptr) { (void)ptr; }
static inline void kmemleak_ignore(const void *ptr) { (void)ptr; }
#endif
