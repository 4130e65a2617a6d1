// SPDX-License-Identifier: GPL-2.0
/* xxh3 from Debian's libxxhash, in a TU without kernel headers. */
#include <stddef.h>
#include <stdint.h>
#include <xxhash.h>

uint64_t ksim_xxh3_64(const void *key, size_t len, uint64_t seed);

uint64_t ksim_xxh3_64(const void *key, size_t len, uint64_t seed)
{
	return XXH3_64bits_withSeed(key, len, seed);
}
