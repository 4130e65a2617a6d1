/* SPDX-License-Identifier: GPL-2.0 */
/* The tree's own xxhash.h (bench only: lib/xxhash.c for bench_hash_fn). */
#include <include/linux/xxhash.h>
