// SPDX-License-Identifier: GPL-2.0
/*
 * bench_htab_lookup: the cost of a lookup in the real kernel/bpf/hashtab.c
 * (preallocated BPF_MAP_TYPE_HASH) by key size and map fullness.  Built
 * twice from this file: bench_htab_lookup_jhash links ksim_bpfmaps (the
 * tree's jhash/jhash2), bench_htab_lookup_xxh3 links ksim_bpfmaps_xxh3
 * (the same unmodified hashtab.c with jhash()/jhash2() redirected to xxh3
 * by qptrie/bench/xxh3-jhash/linux/jhash.h).
 *
 * A lookup is what a BPF program's bpf_map_lookup_elem() runs
 * (ops->map_lookup_elem, one rcu_read_lock around the batch), for
 * random present keys.  Output, one line per (size, fullness, run):
 *   htab HASH KEYSIZE FILL_PCT RUN NS_PER_LOOKUP TSC_PER_LOOKUP
 *
 *   bench_htab_lookup_X [-r RUNS] [-m MAX_ENTRIES] [-l LOOKUPS] [-s SIZES] [-f FILLS]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <ksim/bpf.h>
#include "bench.h"

#ifndef BENCH_HASH_NAME
#error BENCH_HASH_NAME
#endif

int main(int argc, char **argv)
{
	unsigned int sizes[16] = { 4, 8, 16, 32, 64, 128 }, fills[16] = { 10, 25, 50, 75, 100 };
	int nsizes = 6, nfills = 5, runs = 5, c;
	unsigned int max = 16384, lookups = 400000;
	struct ksim_rng rng;

	while ((c = getopt(argc, argv, "r:m:l:s:f:h")) != -1) {
		switch (c) {
		case 'r': runs = atoi(optarg); break;
		case 'm': max = atoi(optarg); break;
		case 'l': lookups = atoi(optarg); break;
		case 's': nsizes = bench_parse_list(optarg, sizes, 16); break;
		case 'f': nfills = bench_parse_list(optarg, fills, 16); break;
		default:
			fprintf(stderr, "usage: %s [-r RUNS] [-m MAX_ENTRIES] [-l LOOKUPS] [-s SIZES] [-f FILL_PCTS]\n",
				argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	for (int i = 0; i < nsizes; i++)
		if (sizes[i] < 4 || sizes[i] > 512)
			nsizes = 0;
	for (int i = 0; i < nfills; i++)
		if (!fills[i] || fills[i] > 100)
			nfills = 0;
	if (!nsizes || !nfills || runs < 1 || max < 16 || lookups < 1000) {
		fprintf(stderr, "%s: bad arguments (sizes 4..512, fills 1..100, runs >= 1, -m >= 16, -l >= 1000)\n",
			argv[0]);
		return 2;
	}
	ksim_init();
	rcu_register_thread();
	ksim_set_cpu(0);
	ksim_rng_seed(&rng, 42);
	for (int s = 0; s < nsizes; s++) {
		u32 ks = sizes[s];
		u8 *keys = malloc((size_t)max * ks);
		u32 *order = malloc(sizeof(u32) * lookups);

		for (u32 i = 0; i < max; i++) {
			u8 *k = keys + (size_t)i * ks;

			for (u32 j = 0; j < ks; j++)
				k[j] = (u8)ksim_rng_next(&rng);
			memcpy(k, &i, 4);	/* unique */
		}
		for (int f = 0; f < nfills; f++) {
			struct ksim_bpf_map_attr a = { .key_size = ks, .value_size = 8, .max_entries = max };
			u32 n = (u64)max * fills[f] / 100;
			struct bpf_map *m;
			u64 val = 1;
			int err;

			m = ksim_bpf_map_create(ksim_bpf_variant_find("hash"), &a, &err);
			if (!m) {
				fprintf(stderr, "%s: map create: %d\n", argv[0], err);
				return 1;
			}
			for (u32 i = 0; i < n; i++)
				if (ksim_bpf_map_update(m, keys + (size_t)i * ks, ks, &val, BPF_ANY)) {
					fprintf(stderr, "%s: update failed\n", argv[0]);
					return 1;
				}
			for (u32 i = 0; i < lookups; i++)
				order[i] = ksim_rng_below(&rng, n ? n : 1);
			for (int r = 0; r < runs; r++) {
				unsigned long found = 0;
				double t0;
				u64 c0, c1;

				rcu_read_lock();
				t0 = bench_now();
				c0 = bench_tsc_begin();
				for (u32 i = 0; i < lookups; i++)
					found += m->ops->map_lookup_elem(m, keys + (size_t)order[i] * ks) != NULL;
				c1 = bench_tsc_end();
				t0 = bench_now() - t0;
				rcu_read_unlock();
				if (found != lookups) {
					fprintf(stderr, "%s: %lu of %u lookups found their key\n", argv[0], found, lookups);
					return 1;
				}
				printf("htab\t%s\t%u\t%u\t%d\t%.2f\t%.1f\n", BENCH_HASH_NAME, ks, fills[f], r,
				       t0 * 1e9 / lookups, (double)(c1 - c0) / lookups);
			}
			ksim_bpf_map_free(m);
		}
		fprintf(stderr, "# %s: key size %u done\n", BENCH_HASH_NAME, ks);
		free(keys);
		free(order);
	}
	rcu_unregister_thread();
	return 0;
}
