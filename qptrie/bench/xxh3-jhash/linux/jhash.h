/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bench only: the tree's jhash.h, then jhash()/jhash2() redirected to
 * xxh3 (Debian's libxxhash, XXH3_64bits_withSeed, folded to 32 bits), so
 * kernel/bpf/hashtab.c is compiled unmodified with another hash
 * (ksim_bpfmaps_xxh3, qptrie/bench/CMakeLists.txt).
 */
#ifndef _KSIM_XXH3_JHASH_H
#define _KSIM_XXH3_JHASH_H
#include <include/linux/jhash.h>

u64 ksim_xxh3_64(const void *key, size_t len, u64 seed);	/* xxh3_glue.c */

static inline u32 ksim_xxh3_jhash(const void *key, u32 length, u32 initval)
{
	u64 h = ksim_xxh3_64(key, length, initval);

	return (u32)(h ^ (h >> 32));
}

static inline u32 ksim_xxh3_jhash2(const u32 *k, u32 length, u32 initval)
{
	return ksim_xxh3_jhash(k, length * 4, initval);
}

#define jhash	ksim_xxh3_jhash
#define jhash2	ksim_xxh3_jhash2
#endif
