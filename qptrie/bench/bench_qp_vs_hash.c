// SPDX-License-Identifier: GPL-2.0
/*
 * bench_qp_vs_hash: the qp-trie series' cover-letter comparison, qp-trie
 * vs the kernel hash map, on one key set:
 *
 *   --random N    N random binary keys, lengths 1..255, bytes 1..255 (so
 *                 the zero-padded hash keys stay distinct)
 *   --btf FILE    every distinct string of a BTF blob (/sys/kernel/btf/vmlinux)
 *   --keys FILE   one key per line (e.g. every file path of a kernel tree)
 *
 * Maps: the qp-trie variants built in (our qp_trie_ref; the series'
 * qp_trie when KSRC has it) with map_extra = 255, and the hash map with
 * fixed 255-byte zero-padded keys (as the cover letter), both
 * BPF_F_NO_PREALLOC ("hash_noprealloc") and preallocated ("hash");
 * max_entries = number of keys; 4-byte values.  Keys longer than 255 bytes
 * are dropped.
 *
 * Memory: the shim's slab accounting (ksim/slab.h) of everything the map
 * holds once filled (map struct, buckets, elements / nodes), as bytes the
 * map code requested (bpf_mem_alloc objects at the size asked for, before
 * its size classes: ksim_bpf_mem_totals) and as bytes held after
 * bpf_mem_alloc's and kmalloc's size classes (with bpf_mem_alloc's cached
 * free units).  Lookups: T threads (each on its own simulated CPU) look up
 * random present keys as a BPF program does (rcu_read_lock, map_lookup_elem
 * through ksim_bpf_map_lookup_ptr) for MS milliseconds; repeated RUNS times.
 * Output lines (TSV):
 *   keys  DATASET NKEYS MAXLEN AVGLEN
 *   mem   DATASET MAP BYTES_REQUESTED BYTES_ROUNDED
 *   lookup DATASET MAP THREADS RUN LOOKUPS_PER_S
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <ksim/bpf.h>
#include <ksim/bpf_mem.h>
#include <ksim/slab.h>
#include "bench.h"

#define KMAX	255

struct bkey {
	u32 len;
	const u8 *b;
};

static struct bkey *keys;
static u8 *padded;		/* nkeys x KMAX, zero-padded */
static u32 nkeys;
static const char *dataset = "random";

static int bkey_cmp(const void *x, const void *y)
{
	const struct bkey *a = x, *b = y;
	int c = memcmp(a->b, b->b, min(a->len, b->len));

	return c ? c : (a->len > b->len) - (a->len < b->len);
}

static void add_key(const u8 *b, u32 len, u32 *cap)
{
	u8 *copy;

	if (!len || len > KMAX || memchr(b, 0, len))
		return;	/* zero bytes would make padded hash keys collide */
	if (nkeys == *cap) {
		*cap = *cap ? *cap * 2 : 4096;
		keys = realloc(keys, sizeof(*keys) * *cap);
	}
	copy = malloc(len);
	memcpy(copy, b, len);
	keys[nkeys++] = (struct bkey){ len, copy };
}

static void finish_keys(void)
{
	u32 n = 0;

	qsort(keys, nkeys, sizeof(*keys), bkey_cmp);
	for (u32 i = 0; i < nkeys; i++)
		if (!n || bkey_cmp(&keys[n - 1], &keys[i]))
			keys[n++] = keys[i];
	nkeys = n;
	/* shuffle: fill order must not be sorted */
	for (u32 i = nkeys - 1; i > 0; i--) {
		u32 j = (u32)(((u64)rand() << 31 | rand()) % (i + 1));
		struct bkey t = keys[i];

		keys[i] = keys[j];
		keys[j] = t;
	}
	padded = calloc(nkeys, KMAX);
	for (u32 i = 0; i < nkeys; i++)
		memcpy(padded + (size_t)i * KMAX, keys[i].b, keys[i].len);
}

static int load_btf(const char *path)
{
	struct {
		u16 magic;
		u8 version, flags;
		u32 hdr_len, type_off, type_len, str_off, str_len;
	} h;
	FILE *f = fopen(path, "rb");
	u32 cap = 0;
	char *s;

	if (!f || fread(&h, sizeof(h), 1, f) != 1 || h.magic != 0xeB9F) {
		fprintf(stderr, "bench_qp_vs_hash: %s: not a readable BTF blob\n", path);
		return -1;
	}
	s = malloc(h.str_len + 1);
	if (fseek(f, h.hdr_len + h.str_off, SEEK_SET) || fread(s, 1, h.str_len, f) != h.str_len) {
		fprintf(stderr, "bench_qp_vs_hash: %s: short string section\n", path);
		return -1;
	}
	s[h.str_len] = 0;
	for (u32 off = 0; off < h.str_len; off += strlen(s + off) + 1)
		add_key((const u8 *)s + off, strlen(s + off), &cap);
	free(s);
	fclose(f);
	return 0;
}

static int load_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t sz = 0;
	ssize_t n;
	u32 cap = 0;

	if (!f) {
		fprintf(stderr, "bench_qp_vs_hash: cannot read %s\n", path);
		return -1;
	}
	while ((n = getline(&line, &sz, f)) > 0) {
		if (line[n - 1] == '\n')
			n--;
		add_key((const u8 *)line, n, &cap);
	}
	free(line);
	fclose(f);
	return 0;
}

static void make_random(u32 n)
{
	u8 buf[KMAX];
	u32 cap = 0;

	for (u32 i = 0; i < n; i++) {
		u32 len = 1 + rand() % KMAX;

		for (u32 j = 0; j < len; j++)
			buf[j] = 1 + rand() % 255;
		add_key(buf, len, &cap);
	}
}

/* ---- lookups ---- */

struct worker {
	pthread_t th;
	struct bpf_map *map;
	bool hash;
	int cpu;
	u64 seed;
	unsigned long ops;
};

static int stop, go;

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	u64 x = w->seed | 1;
	unsigned long ops = 0, missing = 0;

	rcu_register_thread();
	ksim_set_cpu(w->cpu);
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		for (int i = 0; i < 256; i++) {
			u32 k;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			k = x % nkeys;
			rcu_read_lock();
			if (w->hash)
				missing += !ksim_bpf_map_lookup_ptr(w->map, padded + (size_t)k * KMAX, KMAX);
			else
				missing += !ksim_bpf_map_lookup_ptr(w->map, keys[k].b, keys[k].len);
			rcu_read_unlock();
		}
		ops += 256;
	}
	w->ops = ops;
	if (missing) {
		fprintf(stderr, "bench_qp_vs_hash: %lu lookups missed a present key\n", missing);
		exit(1);
	}
	rcu_unregister_thread();
	return NULL;
}

static double measure(struct bpf_map *m, bool hash, int threads, int ms)
{
	struct worker w[64];
	unsigned long total = 0;
	double t;

	stop = go = 0;
	for (int i = 0; i < threads; i++) {
		w[i] = (struct worker){ .map = m, .hash = hash, .cpu = i, .seed = 0x9e3779b97f4a7c15ULL * (i + 1) };
		pthread_create(&w[i].th, NULL, worker_fn, &w[i]);
	}
	t = bench_now();
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	usleep(ms * 1000);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < threads; i++) {
		pthread_join(w[i].th, NULL);
		total += w[i].ops;
	}
	return total / (bench_now() - t);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "random", required_argument, NULL, 'R' }, { "btf", required_argument, NULL, 'B' },
		{ "keys", required_argument, NULL, 'K' }, { "name", required_argument, NULL, 'N' },
		{ "threads", required_argument, NULL, 't' }, { "runs", required_argument, NULL, 'r' },
		{ "ms", required_argument, NULL, 'm' }, { "maps", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	unsigned int threads[16] = { 1 };
	int nthreads = 1, runs = 5, ms = 300, c, rc = 0;
	char maps_buf[256] = "hash_noprealloc,hash,qp_trie_ref,qp_trie";
	u64 sumlen = 0;
	u32 maxlen = 0;

	srand(1);
	while ((c = getopt_long(argc, argv, "t:r:m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'R': make_random(atoi(optarg)); break;
		case 'B': if (load_btf(optarg)) return 2; dataset = "btf"; break;
		case 'K': if (load_lines(optarg)) return 2; dataset = "lines"; break;
		case 'N': dataset = optarg; break;
		case 't':
			nthreads = bench_parse_list(optarg, threads, 16);
			for (int i = 0; i < nthreads; i++)
				if (!threads[i] || threads[i] > 64)
					nthreads = 0;
			if (!nthreads) {
				fprintf(stderr, "bench_qp_vs_hash: --threads %s: expected a list of 1..64\n", optarg);
				return 2;
			}
			break;
		case 'r': runs = atoi(optarg); break;
		case 'm': ms = atoi(optarg); break;
		case 'M': snprintf(maps_buf, sizeof(maps_buf), "%s", optarg); break;
		default:
			fprintf(stderr, "usage: bench_qp_vs_hash (--random N | --btf FILE | --keys FILE) [--name DATASET]\n"
				"       [--threads 1,2] [--runs R] [--ms MS] [--maps a,b]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (!nkeys || runs < 1 || ms < 10) {
		fprintf(stderr, "bench_qp_vs_hash: no keys (give --random N, --btf FILE or --keys FILE), or runs < 1, ms < 10\n");
		return 2;
	}
	finish_keys();
	for (u32 i = 0; i < nkeys; i++) {
		sumlen += keys[i].len;
		maxlen = max(maxlen, keys[i].len);
	}
	printf("keys\t%s\t%u\t%u\t%.1f\n", dataset, nkeys, maxlen, (double)sumlen / nkeys);
	fflush(stdout);
	ksim_init();
	rcu_register_thread();
	ksim_set_cpu(0);

	for (char *save, *name = strtok_r(maps_buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		const struct ksim_bpf_variant *v = ksim_bpf_variant_find(name);
		bool hash = v && (v->kind & KSIM_BPF_KIND_HASH);
		struct ksim_bpf_map_attr a = { .value_size = 4, .max_entries = nkeys };
		struct ksim_slab_stats before, after;
		unsigned long units0, req0, units1, req1;
		struct bpf_map *m;
		double t;
		int err;

		if (!v) {
			fprintf(stderr, "# bench_qp_vs_hash: map %s not built here, skipped\n", name);
			continue;
		}
		if (hash) {
			a.key_size = KMAX;
		} else {
			a.key_size = sizeof(struct bpf_dynptr);
			a.map_extra = KMAX;
		}
		rcu_barrier();
		ksim_slab_totals(&before);
		ksim_bpf_mem_totals(&units0, &req0);
		m = ksim_bpf_map_create(v, &a, &err);
		if (!m) {
			fprintf(stderr, "bench_qp_vs_hash: creating %s: %d\n", name, err);
			return 1;
		}
		t = bench_now();
		for (u32 i = 0; i < nkeys; i++) {
			u32 val = i;
			int ret = hash ? ksim_bpf_map_update(m, padded + (size_t)i * KMAX, KMAX, &val, BPF_NOEXIST)
				       : ksim_bpf_map_update(m, keys[i].b, keys[i].len, &val, BPF_NOEXIST);

			if (ret) {
				fprintf(stderr, "bench_qp_vs_hash: %s: inserting key %u: %d\n", name, i, ret);
				return 1;
			}
		}
		rcu_barrier();
		ksim_slab_totals(&after);
		ksim_bpf_mem_totals(&units1, &req1);
		/*
		 * requested: what the map code asked for: its kmalloc/vmalloc
		 * requests, with bpf_mem_alloc's units (already rounded to its
		 * size classes) replaced by the sizes asked of bpf_mem_alloc.
		 * rounded: all memory held, after bpf_mem_alloc's classes and
		 * kmalloc's size classes, including bpf_mem_alloc's free lists.
		 */
		printf("mem\t%s\t%s\t%ld\t%lu\n", dataset, name,
		       (long)(after.bytes_requested - before.bytes_requested) - (long)(units1 - units0) +
		       (long)(req1 - req0),
		       after.bytes_rounded - before.bytes_rounded);
		fprintf(stderr, "# %s/%s: %u keys inserted in %.2f s\n", dataset, name, nkeys, bench_now() - t);
		fflush(stdout);
		for (int ti = 0; ti < nthreads; ti++) {
			for (int r = 0; r < runs; r++) {
				double ops = measure(m, hash, threads[ti], ms);

				printf("lookup\t%s\t%s\t%u\t%d\t%.0f\n", dataset, name, threads[ti], r, ops);
				fflush(stdout);
			}
			fprintf(stderr, "# %s/%s: %u thread(s) done\n", dataset, name, threads[ti]);
		}
		ksim_bpf_map_free(m);
	}
	rcu_unregister_thread();
	return rc;
}
