/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __LINUX_BITMAP_H
#define __LINUX_BITMAP_H
#include <string.h>
#include <linux/types.h>
#include <linux/bitops.h>

#define BITMAP_FIRST_WORD_MASK(start) (~0UL << ((start) & (BITS_PER_LONG - 1)))
#define BITMAP_LAST_WORD_MASK(nbits) (~0UL >> (-(nbits) & (BITS_PER_LONG - 1)))

static inline void bitmap_zero(unsigned long *dst, unsigned int nbits)
{ memset(dst, 0, BITS_TO_LONGS(nbits) * sizeof(unsigned long)); }
static inline void bitmap_fill(unsigned long *dst, unsigned int nbits)
{ memset(dst, 0xff, BITS_TO_LONGS(nbits) * sizeof(unsigned long)); }
static inline void bitmap_copy(unsigned long *dst, const unsigned long *src, unsigned int nbits)
{ memcpy(dst, src, BITS_TO_LONGS(nbits) * sizeof(unsigned long)); }
static inline bool bitmap_empty(const unsigned long *src, unsigned int nbits)
{ return find_first_bit(src, nbits) >= nbits; }
static inline bool bitmap_full(const unsigned long *src, unsigned int nbits)
{ return find_first_zero_bit(src, nbits) >= nbits; }
static inline unsigned int bitmap_weight(const unsigned long *src, unsigned int nbits)
{
	unsigned int k, w = 0, lim = nbits / BITS_PER_LONG;

	for (k = 0; k < lim; k++)
		w += hweight_long(src[k]);
	if (nbits % BITS_PER_LONG)
		w += hweight_long(src[k] & BITMAP_LAST_WORD_MASK(nbits));
	return w;
}
static inline void bitmap_set(unsigned long *map, unsigned int start, unsigned int len)
{ while (len--) __set_bit(start++, map); }
static inline void bitmap_clear(unsigned long *map, unsigned int start, unsigned int len)
{ while (len--) __clear_bit(start++, map); }
static inline bool bitmap_and(unsigned long *dst, const unsigned long *a,
			      const unsigned long *b, unsigned int nbits)
{
	unsigned long any = 0;
	unsigned int k;

	for (k = 0; k < BITS_TO_LONGS(nbits); k++)
		any |= (dst[k] = a[k] & b[k]);
	return any != 0;
}
static inline void bitmap_or(unsigned long *dst, const unsigned long *a,
			     const unsigned long *b, unsigned int nbits)
{
	for (unsigned int k = 0; k < BITS_TO_LONGS(nbits); k++)
		dst[k] = a[k] | b[k];
}
static inline void bitmap_xor(unsigned long *dst, const unsigned long *a,
			      const unsigned long *b, unsigned int nbits)
{
	for (unsigned int k = 0; k < BITS_TO_LONGS(nbits); k++)
		dst[k] = a[k] ^ b[k];
}
static inline bool bitmap_andnot(unsigned long *dst, const unsigned long *a,
				 const unsigned long *b, unsigned int nbits)
{
	unsigned long any = 0;

	for (unsigned int k = 0; k < BITS_TO_LONGS(nbits); k++)
		any |= (dst[k] = a[k] & ~b[k]);
	return any != 0;
}
static inline bool bitmap_intersects(const unsigned long *a, const unsigned long *b,
				     unsigned int nbits)
{
	for (unsigned int k = 0; k < BITS_TO_LONGS(nbits); k++)
		if (a[k] & b[k])
			return true;
	return false;
}
static inline bool bitmap_subset(const unsigned long *a, const unsigned long *b,
				 unsigned int nbits)
{
	for (unsigned int k = 0; k < BITS_TO_LONGS(nbits); k++)
		if (a[k] & ~b[k])
			return false;
	return true;
}
static inline bool bitmap_equal(const unsigned long *a, const unsigned long *b, unsigned int nbits)
{
	unsigned int k;

	for (k = 0; k < nbits / BITS_PER_LONG; k++)
		if (a[k] != b[k])
			return false;
	if (nbits % BITS_PER_LONG)
		return !((a[k] ^ b[k]) & BITMAP_LAST_WORD_MASK(nbits));
	return true;
}
unsigned long *bitmap_alloc(unsigned int nbits, gfp_t flags);
unsigned long *bitmap_zalloc(unsigned int nbits, gfp_t flags);
void bitmap_free(const unsigned long *bitmap);
#endif
