// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's get_random_*() (drivers/char/random.c) as a PRNG seeded from
 * the run's seed (ksim/run.h), so a replay gets the same hash seeds
 * (hashtab's hashrnd, rhashtable's hash_rnd) and so the same layouts.
 * Not random in any other sense: nothing here is for security.
 */
#include <pthread.h>
#include <linux/random.h>
#include <ksim/ksim.h>

#define KSIM_RANDOM_SALT	0x6270662d72616e64ULL	/* "bpf-rand": the stream runs had */

static struct ksim_rng ksim_random_rng;
static bool ksim_random_ready;
static pthread_mutex_t ksim_random_lock = PTHREAD_MUTEX_INITIALIZER;

u64 get_random_u64(void)
{
	u64 v;

	pthread_mutex_lock(&ksim_random_lock);
	if (!ksim_random_ready) {
		ksim_rng_seed(&ksim_random_rng, ksim_seed() ^ KSIM_RANDOM_SALT);
		ksim_random_ready = true;
	}
	v = ksim_rng_next(&ksim_random_rng);
	pthread_mutex_unlock(&ksim_random_lock);
	return v;
}

u32 get_random_u32(void)
{
	return (u32)get_random_u64();
}

void ksim_random_reseed(u64 seed)
{
	pthread_mutex_lock(&ksim_random_lock);
	ksim_rng_seed(&ksim_random_rng, seed);
	ksim_random_ready = true;
	pthread_mutex_unlock(&ksim_random_lock);
}

void ksim_random_restart(void)
{
	ksim_random_reseed(ksim_seed() ^ KSIM_RANDOM_SALT);
}
