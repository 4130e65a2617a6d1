/* SPDX-License-Identifier: GPL-2.0 */
/* Unaligned little-endian accessors lib/xxhash.c uses (x86: plain loads). */
#ifndef _KSIM_BENCH_UNALIGNED_H
#define _KSIM_BENCH_UNALIGNED_H
#include <string.h>
#include <linux/types.h>

static inline u32 get_unaligned_le32(const void *p) { u32 v; memcpy(&v, p, 4); return v; }
static inline u64 get_unaligned_le64(const void *p) { u64 v; memcpy(&v, p, 8); return v; }
static inline void put_unaligned_le32(u32 v, void *p) { memcpy(p, &v, 4); }
static inline void put_unaligned_le64(u64 v, void *p) { memcpy(p, &v, 8); }
#endif
