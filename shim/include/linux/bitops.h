/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bit operations.  set_bit() and friends are atomic (relaxed RMW, as on
 * x86 with LOCK prefix they are full barriers: we use SEQ_CST for the
 * test_and_* ones, which the kernel documents as fully ordered); the __
 * variants are plain.
 */
#ifndef _LINUX_BITOPS_H
#define _LINUX_BITOPS_H

#include <linux/types.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <strings.h>

#define BITS_PER_TYPE(type)	(sizeof(type) * BITS_PER_BYTE)
#define BITS_TO_LONGS(nr)	(((nr) + BITS_PER_TYPE(long) - 1) / BITS_PER_TYPE(long))
#define BITS_TO_U64(nr)		(((nr) + 63) / 64)
#define BITS_TO_U32(nr)		(((nr) + 31) / 32)
#define BITS_TO_BYTES(nr)	(((nr) + 7) / 8)

static inline void set_bit(long nr, volatile unsigned long *addr)
{ __atomic_fetch_or((unsigned long *)addr + BIT_WORD(nr), BIT_MASK(nr), __ATOMIC_RELAXED); }
static inline void clear_bit(long nr, volatile unsigned long *addr)
{ __atomic_fetch_and((unsigned long *)addr + BIT_WORD(nr), ~BIT_MASK(nr), __ATOMIC_RELAXED); }
static inline void change_bit(long nr, volatile unsigned long *addr)
{ __atomic_fetch_xor((unsigned long *)addr + BIT_WORD(nr), BIT_MASK(nr), __ATOMIC_RELAXED); }
static inline bool test_and_set_bit(long nr, volatile unsigned long *addr)
{ return __atomic_fetch_or((unsigned long *)addr + BIT_WORD(nr), BIT_MASK(nr), __ATOMIC_SEQ_CST) & BIT_MASK(nr); }
static inline bool test_and_clear_bit(long nr, volatile unsigned long *addr)
{ return __atomic_fetch_and((unsigned long *)addr + BIT_WORD(nr), ~BIT_MASK(nr), __ATOMIC_SEQ_CST) & BIT_MASK(nr); }
static inline bool test_and_change_bit(long nr, volatile unsigned long *addr)
{ return __atomic_fetch_xor((unsigned long *)addr + BIT_WORD(nr), BIT_MASK(nr), __ATOMIC_SEQ_CST) & BIT_MASK(nr); }
static inline bool test_and_set_bit_lock(long nr, volatile unsigned long *addr)
{ return test_and_set_bit(nr, addr); }
static inline void clear_bit_unlock(long nr, volatile unsigned long *addr)
{ __atomic_fetch_and((unsigned long *)addr + BIT_WORD(nr), ~BIT_MASK(nr), __ATOMIC_RELEASE); }
static inline bool test_bit(long nr, const volatile unsigned long *addr)
{ return 1UL & (__atomic_load_n((unsigned long *)addr + BIT_WORD(nr), __ATOMIC_RELAXED) >> (nr & (BITS_PER_LONG - 1))); }
static inline bool test_bit_acquire(long nr, const volatile unsigned long *addr)
{ return 1UL & (__atomic_load_n((unsigned long *)addr + BIT_WORD(nr), __ATOMIC_ACQUIRE) >> (nr & (BITS_PER_LONG - 1))); }

static inline void __set_bit(long nr, volatile unsigned long *addr)
{ ((unsigned long *)addr)[BIT_WORD(nr)] |= BIT_MASK(nr); }
static inline void __clear_bit(long nr, volatile unsigned long *addr)
{ ((unsigned long *)addr)[BIT_WORD(nr)] &= ~BIT_MASK(nr); }
static inline void __change_bit(long nr, volatile unsigned long *addr)
{ ((unsigned long *)addr)[BIT_WORD(nr)] ^= BIT_MASK(nr); }
static inline bool __test_and_set_bit(long nr, volatile unsigned long *addr)
{ bool old = test_bit(nr, addr); __set_bit(nr, addr); return old; }
static inline bool __test_and_clear_bit(long nr, volatile unsigned long *addr)
{ bool old = test_bit(nr, addr); __clear_bit(nr, addr); return old; }

/* ffs/fls family: same definitions and edge cases as the kernel's. */
static inline unsigned long __ffs(unsigned long word) { return __builtin_ctzl(word); }
static inline unsigned long __fls(unsigned long word) { return 63 - __builtin_clzl(word); }
static inline unsigned long ffz(unsigned long word) { return __ffs(~word); }
/* ffs(): glibc's (same contract: 1-based, 0 for 0) */
static inline int fls(unsigned int x) { return x ? 32 - __builtin_clz(x) : 0; }
static inline int fls64(u64 x) { return x ? 64 - __builtin_clzll(x) : 0; }
static inline unsigned int fls_long(unsigned long l) { return fls64(l); }
static inline int __ffs64(u64 word) { return __builtin_ctzll(word); }

static inline unsigned int hweight8(unsigned int w) { return __builtin_popcount(w & 0xff); }
static inline unsigned int hweight16(unsigned int w) { return __builtin_popcount(w & 0xffff); }
static inline unsigned int hweight32(unsigned int w) { return __builtin_popcount(w); }
static inline unsigned long hweight64(u64 w) { return __builtin_popcountll(w); }
static inline unsigned long hweight_long(unsigned long w) { return __builtin_popcountl(w); }
#define __const_hweight8(w)	hweight8(w)
#define __const_hweight32(w)	hweight32(w)
#define __const_hweight64(w)	hweight64(w)

static inline u32 rol32(u32 word, unsigned int shift) { return (word << (shift & 31)) | (word >> ((-shift) & 31)); }
static inline u32 ror32(u32 word, unsigned int shift) { return (word >> (shift & 31)) | (word << ((-shift) & 31)); }
static inline u64 rol64(u64 word, unsigned int shift) { return (word << (shift & 63)) | (word >> ((-shift) & 63)); }
static inline u64 ror64(u64 word, unsigned int shift) { return (word >> (shift & 63)) | (word << ((-shift) & 63)); }

static inline int get_count_order(unsigned int count)
{
	if (count == 0)
		return -1;
	return fls(--count);
}

#include <linux/find.h>

#endif /* _LINUX_BITOPS_H */
