// SPDX-License-Identifier: GPL-2.0
/* find_*_bit(): word-at-a-time, same contract as lib/find_bit.c. */
#include <linux/kernel.h>
#include <linux/bitops.h>
#include <linux/bitmap.h>
#include <linux/slab.h>

static unsigned long find_next(const unsigned long *a1, const unsigned long *a2,
			       unsigned long size, unsigned long start, unsigned long invert)
{
	unsigned long tmp;

	if (start >= size)
		return size;
	tmp = a1[start / BITS_PER_LONG];
	if (a2)
		tmp &= a2[start / BITS_PER_LONG];
	tmp ^= invert;
	tmp &= BITMAP_FIRST_WORD_MASK(start);
	start = round_down(start, BITS_PER_LONG);
	while (!tmp) {
		start += BITS_PER_LONG;
		if (start >= size)
			return size;
		tmp = a1[start / BITS_PER_LONG];
		if (a2)
			tmp &= a2[start / BITS_PER_LONG];
		tmp ^= invert;
	}
	return min(start + __ffs(tmp), size);
}

unsigned long find_next_bit(const unsigned long *addr, unsigned long size, unsigned long offset)
{
	return find_next(addr, NULL, size, offset, 0UL);
}

unsigned long find_next_zero_bit(const unsigned long *addr, unsigned long size, unsigned long offset)
{
	return find_next(addr, NULL, size, offset, ~0UL);
}

unsigned long find_next_and_bit(const unsigned long *addr1, const unsigned long *addr2,
				unsigned long size, unsigned long offset)
{
	return find_next(addr1, addr2, size, offset, 0UL);
}

unsigned long find_first_bit(const unsigned long *addr, unsigned long size)
{
	return find_next_bit(addr, size, 0);
}

unsigned long find_first_zero_bit(const unsigned long *addr, unsigned long size)
{
	return find_next_zero_bit(addr, size, 0);
}

unsigned long find_last_bit(const unsigned long *addr, unsigned long size)
{
	if (size) {
		unsigned long val = BITMAP_LAST_WORD_MASK(size);
		unsigned long idx = (size - 1) / BITS_PER_LONG;

		do {
			val &= addr[idx];
			if (val)
				return idx * BITS_PER_LONG + __fls(val);
			val = ~0UL;
		} while (idx--);
	}
	return size;
}

unsigned long find_nth_bit(const unsigned long *addr, unsigned long size, unsigned long n)
{
	unsigned long bit;

	for_each_set_bit(bit, addr, size)
		if (n-- == 0)
			return bit;
	return size;
}

unsigned long *bitmap_alloc(unsigned int nbits, gfp_t flags)
{
	return kmalloc_array(BITS_TO_LONGS(nbits), sizeof(unsigned long), flags);
}

unsigned long *bitmap_zalloc(unsigned int nbits, gfp_t flags)
{
	return bitmap_alloc(nbits, flags | __GFP_ZERO);
}

void bitmap_free(const unsigned long *bitmap)
{
	kfree(bitmap);
}
