/* SPDX-License-Identifier: GPL-2.0 */
/* Randomness from the run's seeded PRNG (shim/lib/random.c), so a seed replays hash seeds too. */
#ifndef _LINUX_RANDOM_H
#define _LINUX_RANDOM_H

#include <linux/types.h>

u32 get_random_u32(void);
u64 get_random_u64(void);
static inline u32 get_random_u32_below(u32 ceil)
{
	return (u32)(((u64)get_random_u32() * ceil) >> 32);
}
#define prandom_u32()	get_random_u32()
static inline u32 get_random_int(void) { return get_random_u32(); }

/*
 * Ours (shim/lib/random.c): restart the stream from @seed (runs that must
 * repeat exactly, such as fault sweeps, get the same hash seeds each
 * time), or from where the run's seed starts it (every fuzz input).
 */
void ksim_random_reseed(u64 seed);
void ksim_random_restart(void);

#endif
