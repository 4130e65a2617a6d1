// SPDX-License-Identifier: GPL-2.0
/*
 * bench_hash_fn: cycles per hash of jhash and jhash2 (the tree's
 * include/linux/jhash.h), xxh64 (the tree's lib/xxhash.c, compiled here
 * unmodified) and xxh3 (Debian's libxxhash) for key sizes 4..256.
 *
 * One call per sample between serialized timestamps (lfence;rdtsc;lfence
 * .. rdtscp;lfence); the timer offset (the same pair around nothing) is
 * measured in the same run and its median subtracted from each function's
 * median.  Units are TSC ticks (constant-rate reference cycles).  Output,
 * one line per (function, size, run):  hashfn NAME SIZE RUN CYCLES
 *
 *   bench_hash_fn [--runs R] [--samples N] [--sizes 4,8,...]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/jhash.h>
#include <linux/xxhash.h>
#include "bench.h"

#include <lib/xxhash.c>

u64 ksim_xxh3_64(const void *key, size_t len, u64 seed);

static u32 h_jhash(const void *k, u32 len, u32 seed) { return jhash(k, len, seed); }
static u32 h_jhash2(const void *k, u32 len, u32 seed) { return jhash2(k, len / 4, seed); }
static u32 h_xxh64(const void *k, u32 len, u32 seed) { return (u32)xxh64(k, len, seed); }
static u32 h_xxh3(const void *k, u32 len, u32 seed) { return (u32)ksim_xxh3_64(k, len, seed); }

static const struct {
	const char *name;
	u32 (*fn)(const void *, u32, u32);
} fns[] = {
	{ "jhash", h_jhash }, { "jhash2", h_jhash2 }, { "xxh64", h_xxh64 }, { "xxh3", h_xxh3 },
};

int main(int argc, char **argv)
{
	unsigned int sizes[32] = { 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256 };
	int nsizes = 12, runs = 5, samples = 20001, c;
	static u32 buf[256 / 4 + 1];
	volatile u32 sink = 0;
	u64 *v;

	while ((c = getopt(argc, argv, "r:n:s:h")) != -1) {
		switch (c) {
		case 'r': runs = atoi(optarg); break;
		case 'n': samples = atoi(optarg); break;
		case 's':
			nsizes = bench_parse_list(optarg, sizes, 32);
			for (int i = 0; i < nsizes; i++)
				if (!sizes[i] || sizes[i] > 256 || sizes[i] % 4)
					nsizes = 0;
			if (!nsizes) {
				fprintf(stderr, "bench_hash_fn: -s %s: expected sizes 4..256, multiples of 4 (jhash2 hashes words)\n", optarg);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: bench_hash_fn [-r RUNS] [-n SAMPLES] [-s SIZES]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (runs < 1 || samples < 101) {
		fprintf(stderr, "bench_hash_fn: need -r >= 1 and -n >= 101\n");
		return 2;
	}
	v = malloc(sizeof(*v) * samples);
	for (unsigned int i = 0; i < ARRAY_SIZE(buf); i++)
		buf[i] = 0x9e3779b9u * (i + 1);
	for (int r = 0; r < runs; r++) {
		u64 off;

		for (int i = 0; i < samples; i++) {
			u64 t0 = bench_tsc_begin();

			v[i] = bench_tsc_end() - t0;
		}
		off = bench_median_u64(v, samples);
		printf("offset\t-\t0\t%d\t%llu\n", r, (unsigned long long)off);
		for (int s = 0; s < nsizes; s++) {
			for (unsigned int f = 0; f < ARRAY_SIZE(fns); f++) {
				u64 med;

				for (int i = 0; i < 1000; i++)	/* warm up */
					sink ^= fns[f].fn(buf, sizes[s], i);
				for (int i = 0; i < samples; i++) {
					u64 t0 = bench_tsc_begin();
					u32 h = fns[f].fn(buf, sizes[s], i);
					u64 t1 = bench_tsc_end();

					sink ^= h;
					v[i] = t1 - t0;
				}
				med = bench_median_u64(v, samples);
				printf("hashfn\t%s\t%u\t%d\t%lld\n", fns[f].name, sizes[s], r,
				       (long long)med - (long long)off);
			}
		}
		fprintf(stderr, "# bench_hash_fn: run %d/%d done\n", r + 1, runs);
	}
	free(v);
	return sink == 0x12345678 ? 1 : 0;
}
