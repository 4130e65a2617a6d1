// SPDX-License-Identifier: GPL-2.0
/*
 * Conformance of every map variant (ksim_bpf_variants: kernel hashtab.c
 * prealloc / BPF_F_NO_PREALLOC / LRU / per-CPU, lpm_trie.c, our reference
 * qp-trie, the qp-trie series when built) against a reference model,
 * driven only through the syscall-like driver (ksim/bpf.h):
 *
 * - random update (all four flag values, incl. an invalid one), delete,
 *   lookup, lookup_and_delete, get_next_key from random keys; every return
 *   code and every value compared with the model after every operation;
 * - the map filled to max_entries: -E2BIG (hash), -ENOSPC (tries), LRU
 *   evicts instead (model: map keys stay a subset, nothing vanishes on
 *   lookup/delete, the key just written is present);
 * - full get_next_key walks (each key once; qp-trie: in byte order) and
 *   walks that delete the previous key as they go;
 * - create-time checks (bad sizes, flags).
 * Runs in both bpf_mem_alloc modes (faithful; checking by *_checking), and
 * with lock failures (*_lockfail: fault class lock, p=0.05): a command in
 * which a lock failed may return only what ksim_bpf_lock_error_ok() allows,
 * and then changes nothing (LRU: evictions aside) and leaves no
 * bpf_mem_alloc object behind; on 6.1/6.12 every nested program (ksim/bpf.h)
 * must be refused with -EBUSY.
 */
#include <linux/kernel.h>
#include <ksim/bpf.h>
#include <ksim/bpf_mem.h>
#include <ksim/fault.h>
#include <ksim/test.h>

#define KMAX	64
#define VMAX	(32 * KSIM_NR_CPUS)
#define NMAX	512

struct ment {
	u8 key[KMAX];
	u32 klen;
	u8 val[VMAX];
};

struct model {
	const struct ksim_bpf_variant *v;
	struct bpf_map *map;
	u32 ksize, vsize, max;
	u32 n;
	struct ment e[NMAX];
	/* key generation */
	u32 space;
	u32 maxlen;		/* dynptr keys */
};

static struct model M;
static unsigned long lock_refusals, nested_runs;

/* bpf_mem_alloc bytes live now (a refused command must not change it). */
static unsigned long mem_live(void)
{
	unsigned long kmalloced, live;

	ksim_bpf_mem_totals(&kmalloced, &live);
	return live;
}

/* True when the last command was refused by a lock failure (then: no model change). */
static bool lock_refused(bool update, int err, unsigned long live0)
{
	struct ksim_bpf_lockfail lf;

	ksim_bpf_last_lockfail(&lf);
	nested_runs += lf.nested;
	if (lf.nested_not_busy)
		ksim_test_fail(__FILE__, __LINE__, "nested program refused",
			       "the re-entering delete returned %d, not -EBUSY", lf.nested_err);
	if (!lf.injected || !err || !ksim_bpf_lock_error_ok(M.map, M.v->kind, update, err))
		return false;
	lock_refusals++;
	KSIM_EXPECT(mem_live() == live0, "a command refused with %d left %ld bpf_mem bytes live",
		    err, (long)(mem_live() - live0));
	return true;
}

static bool is(unsigned int kind) { return M.v->kind & kind; }

static int mfind(const u8 *key, u32 klen)
{
	for (u32 i = 0; i < M.n; i++)
		if (M.e[i].klen == klen && !memcmp(M.e[i].key, key, klen))
			return i;
	return -1;
}

static void mdel(int i)
{
	M.e[i] = M.e[--M.n];
}

/* A random key from a space a bit larger than max_entries. */
static u32 gen_key(struct ksim_rng *r, u8 *key)
{
	if (is(KSIM_BPF_KIND_DYNPTR)) {
		static const u8 alpha[] = { 0x00, 0x01, 0x10, 0x11, 0x7f, 0x80, 0xff, 'a' };
		u32 len = 1 + ksim_rng_below(r, M.maxlen);

		for (u32 i = 0; i < len; i++)
			key[i] = alpha[ksim_rng_below(r, ARRAY_SIZE(alpha))];
		return len;
	}
	if (is(KSIM_BPF_KIND_LPM)) {
		/* struct bpf_lpm_trie_key_u8 with 4 data bytes: prefixlen, data */
		u32 plen = ksim_rng_below(r, 33);
		u32 data = (u32)ksim_rng_below(r, 8) << 29 | (u32)ksim_rng_below(r, 4) << 20 |
			   (u32)ksim_rng_below(r, 2) << 3;
		u32 be;

		if (plen < 32)
			data &= plen ? ~0U << (32 - plen) : 0;
		be = __builtin_bswap32(data);
		memcpy(key, &plen, 4);
		memcpy(key + 4, &be, 4);
		return 8;
	}
	{
		u32 id = ksim_rng_below(r, M.space);

		memset(key, 0, M.ksize);
		memcpy(key, &id, min_t(u32, 4, M.ksize));
		for (u32 i = 4; i < M.ksize; i++)
			key[i] = (u8)(id * 31 + i);
		return M.ksize;
	}
}

static void gen_val(struct ksim_rng *r, u8 *val)
{
	u32 vs = ksim_bpf_value_size(M.map);

	for (u32 i = 0; i < vs; i++)
		val[i] = (u8)ksim_rng_next(r);
}

static int lpm_match(const u8 *ekey, const u8 *key)
{
	u32 eplen, plen, ed, d;

	memcpy(&eplen, ekey, 4);
	memcpy(&plen, key, 4);
	memcpy(&ed, ekey + 4, 4);
	memcpy(&d, key + 4, 4);
	ed = __builtin_bswap32(ed);
	d = __builtin_bswap32(d);
	if (eplen > plen)
		return -1;
	if (eplen && (ed ^ d) >> (32 - eplen))
		return -1;
	return eplen;
}

/* The model's lookup: exact match, or the longest prefix for LPM. */
static int mlookup(const u8 *key, u32 klen)
{
	int best = -1, bestlen = -1;

	if (!is(KSIM_BPF_KIND_LPM))
		return mfind(key, klen);
	for (u32 i = 0; i < M.n; i++) {
		int l = lpm_match(M.e[i].key, key);

		if (l > bestlen) {
			bestlen = l;
			best = i;
		}
	}
	return best;
}

static int keycmp(const u8 *a, u32 alen, const u8 *b, u32 blen)
{
	int c = memcmp(a, b, min(alen, blen));

	return c ? c : (alen > blen) - (alen < blen);
}

/* LRU: drop model keys the map evicted; nothing else may change. */
static void lru_reconcile(const u8 *must_key, u32 must_len)
{
	u8 val[VMAX];

	for (int i = M.n - 1; i >= 0; i--)
		if (ksim_bpf_map_lookup(M.map, M.e[i].key, M.e[i].klen, val, 0) == -ENOENT) {
			KSIM_EXPECT(!must_key || M.e[i].klen != must_len ||
				    memcmp(M.e[i].key, must_key, must_len),
				    "LRU evicted the key it just stored");
			mdel(i);
		}
	KSIM_EXPECT(M.n <= M.map->max_entries);
}

/* Full walk: every model key exactly once, nothing else; order for qp-trie. */
static void check_walk(void)
{
	u8 key[KMAX], next[KMAX], *cur = NULL;
	u32 klen = 0, nlen;
	u8 seen[NMAX] = { 0 };
	u32 count = 0;
	int err;

	for (;;) {
		nlen = sizeof(next);
		err = ksim_bpf_map_get_next_key(M.map, cur, klen, next, &nlen);
		if (err) {
			KSIM_EXPECT_EQ(err, -ENOENT);
			break;
		}
		int i = mfind(next, nlen);

		KSIM_ASSERT(i >= 0, "walk returned a key the model does not have");
		KSIM_ASSERT(!seen[i], "walk returned a key twice");
		seen[i] = 1;
		if (cur && is(KSIM_BPF_KIND_DYNPTR))
			KSIM_EXPECT(keycmp(cur, klen, next, nlen) < 0, "walk not in order");
		memcpy(key, next, nlen);
		klen = nlen;
		cur = key;
		KSIM_ASSERT(++count <= M.n);
	}
	KSIM_EXPECT_EQ(count, M.n);
}

/* get_next_key from an arbitrary key. */
static void check_next_from(const u8 *key, u32 klen)
{
	u8 next[KMAX], first[KMAX];
	u32 nlen = sizeof(next), flen = sizeof(first);
	int err, ferr;

	err = ksim_bpf_map_get_next_key(M.map, key, klen, next, &nlen);
	if (is(KSIM_BPF_KIND_DYNPTR)) {
		/* the smallest key greater than @key */
		int best = -1;

		for (u32 i = 0; i < M.n; i++)
			if (keycmp(M.e[i].key, M.e[i].klen, key, klen) > 0 &&
			    (best < 0 || keycmp(M.e[i].key, M.e[i].klen,
						M.e[best].key, M.e[best].klen) < 0))
				best = i;
		if (best < 0) {
			KSIM_EXPECT_EQ(err, -ENOENT);
		} else {
			KSIM_EXPECT_EQ(err, 0);
			KSIM_EXPECT(!err && nlen == M.e[best].klen &&
				    !memcmp(next, M.e[best].key, nlen), "wrong successor");
		}
		return;
	}
	if (mfind(key, klen) < 0) {
		/* a missing key restarts the walk */
		ferr = ksim_bpf_map_get_next_key(M.map, NULL, 0, first, &flen);
		KSIM_EXPECT_EQ(err, ferr);
		KSIM_EXPECT(err || !memcmp(next, first, nlen), "missing key: not the first key");
		return;
	}
	if (!err)
		KSIM_EXPECT(mfind(next, nlen) >= 0 && keycmp(next, nlen, key, klen) != 0);
	else
		KSIM_EXPECT_EQ(err, -ENOENT);
}

static void one_op(struct ksim_rng *r)
{
	u8 key[KMAX], val[VMAX], got[VMAX];
	u32 klen = gen_key(r, key);
	u32 vs = ksim_bpf_value_size(M.map);
	int i = mfind(key, klen), err, want;
	unsigned int op = ksim_rng_below(r, 100);
	unsigned long live0 = mem_live();

	if (op < 45) {
		u64 flags = ksim_rng_below(r, 16) ? ksim_rng_below(r, 3) : 3;

		gen_val(r, val);
		err = ksim_bpf_map_update(M.map, key, klen, val, flags);
		if (lock_refused(true, err, live0)) {
			if (is(KSIM_BPF_KIND_LRU))
				lru_reconcile(NULL, klen);
			return;
		}
		want = ksim_bpf_update_expect(M.v->kind, i >= 0, flags, M.n, M.map->max_entries);
		if (err != want && ksim_bpf_update_lru_self_evicted(M.v->kind, i >= 0, flags, err)) {
			mdel(i);
			i = -1;
			want = err;
		}
		if (err != want)
			ksim_test_fail(__FILE__, __LINE__, "update", "flags %llu: got %d want %d (n %u)",
				       (unsigned long long)flags, err, want, M.n);
		if (!err) {
			if (i < 0) {
				i = M.n++;
				KSIM_ASSERT(M.n <= NMAX);
				memcpy(M.e[i].key, key, klen);
				M.e[i].klen = klen;
			}
			memcpy(M.e[i].val, val, vs);
		}
		if (is(KSIM_BPF_KIND_LRU))
			lru_reconcile(err ? NULL : key, klen);
	} else if (op < 65) {
		err = ksim_bpf_map_delete(M.map, key, klen);
		if (lock_refused(false, err, live0))
			return;
		want = i >= 0 ? 0 : -ENOENT;
		if (err != want)
			ksim_test_fail(__FILE__, __LINE__, "delete", "got %d want %d", err, want);
		if (!err && i >= 0)
			mdel(i);
	} else if (op < 85) {
		int j = mlookup(key, klen);

		err = ksim_bpf_map_lookup(M.map, key, klen, got, 0);
		want = j >= 0 ? 0 : -ENOENT;
		if (err != want)
			ksim_test_fail(__FILE__, __LINE__, "lookup", "got %d want %d", err, want);
		if (!err && j >= 0)
			KSIM_EXPECT(ksim_bpf_value_eq(M.map, got, M.e[j].val), "lookup: wrong value");
		/* a bad flag is refused */
		KSIM_EXPECT_EQ(ksim_bpf_map_lookup(M.map, key, klen, got, 4), -EINVAL);
	} else if (op < 90 && M.map->ops->map_lookup_and_delete_elem && !is(KSIM_BPF_KIND_PERCPU)) {
		err = ksim_bpf_map_lookup_and_delete(M.map, key, klen, got, 0);
		if (lock_refused(false, err, live0))
			return;
		want = i >= 0 ? 0 : -ENOENT;
		if (err != want)
			ksim_test_fail(__FILE__, __LINE__, "lookup_and_delete", "got %d want %d", err, want);
		if (!err && i >= 0) {
			KSIM_EXPECT(ksim_bpf_value_eq(M.map, got, M.e[i].val), "lookup_and_delete: wrong value");
			mdel(i);
		}
	} else if (op < 97) {
		if (M.n && ksim_rng_below(r, 2)) {
			u32 j = ksim_rng_below(r, M.n);

			check_next_from(M.e[j].key, M.e[j].klen);
		} else {
			check_next_from(key, klen);
		}
	} else {
		check_walk();
	}
}

/* Walk, deleting each key after stepping past it. */
static void walk_and_delete(struct ksim_rng *r)
{
	u8 cur[KMAX], next[KMAX];
	u32 clen, nlen = sizeof(next);
	u8 seen[NMAX] = { 0 };
	u32 n0 = M.n, visited = 0;
	struct ment snap[NMAX];
	int err;

	memcpy(snap, M.e, sizeof(struct ment) * M.n);
	err = ksim_bpf_map_get_next_key(M.map, NULL, 0, cur, &nlen);
	clen = nlen;
	while (!err) {
		int s = -1;

		for (u32 i = 0; i < n0; i++)
			if (snap[i].klen == clen && !memcmp(snap[i].key, cur, clen))
				s = i;
		KSIM_ASSERT(s >= 0 && !seen[s], "walk with deletes: unknown or repeated key");
		seen[s] = 1;
		visited++;
		nlen = sizeof(next);
		err = ksim_bpf_map_get_next_key(M.map, cur, clen, next, &nlen);
		if (ksim_rng_below(r, 2)) {
			KSIM_EXPECT_EQ(ksim_bpf_map_delete(M.map, cur, clen), 0);
			mdel(mfind(cur, clen));
		}
		memcpy(cur, next, nlen);
		clen = nlen;
	}
	KSIM_EXPECT_EQ(err, -ENOENT);
	KSIM_EXPECT_EQ(visited, n0);
}

static void run_variant(const char *name, u32 ksize, u32 vsize, u32 max, u32 ops)
{
	const struct ksim_bpf_variant *v = ksim_bpf_variant_find(name);
	struct ksim_rng *r = ksim_test_rng();
	struct ksim_bpf_map_attr a = { 0 };
	int err;

	KSIM_ASSERT(v, "variant %s not built", name);
	memset(&M, 0, sizeof(M));
	M.v = v;
	M.vsize = vsize;
	if (is(KSIM_BPF_KIND_DYNPTR)) {
		M.maxlen = 6;
		a.key_size = sizeof(struct bpf_dynptr);
		a.map_extra = KMAX;
	} else if (is(KSIM_BPF_KIND_LPM)) {
		a.key_size = 8;
	} else {
		a.key_size = ksize;
	}
	M.ksize = a.key_size;
	a.value_size = vsize;
	a.max_entries = max;
	M.space = max + max / 4;
	M.map = ksim_bpf_map_create(v, &a, &err);
	KSIM_ASSERT(M.map, "create %s: %d", name, err);
	for (u32 i = 0; i < ops; i++) {
		one_op(r);
		if (ksim_problem_count(KSIM_P_TEST) > 5)
			break;
	}
	check_walk();
	ksim_fault_suspend();	/* its deletes must succeed */
	walk_and_delete(r);
	ksim_fault_resume();
	check_walk();
	/* fill up, then past the limit */
	for (u32 i = 0; i < 4 * max; i++)
		one_op(r);
	ksim_bpf_map_free(M.map);
}

/* One test per variant and key/value shape; both allocator modes. */
#define CONF(tname, variant, ks, vs, max, ops)				\
KSIM_TEST(tname)							\
{									\
	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);			\
	run_variant(variant, ks, vs, max, ops);				\
}									\
KSIM_TEST(tname##_checking)						\
{									\
	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_CHECKING);			\
	run_variant(variant, ks, vs, max, ops);				\
	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);			\
}

/*
 * Lock failures: every failable lock (res_spin_lock on 7.x; the nested
 * program at htab_lock_bucket on 6.x) fails with probability 0.05.  The
 * tries and our qp-trie have no such lock on 6.x: nothing is injected.
 */
#define CONF_LOCKS(tname, variant, ks, vs, max, ops)			\
KSIM_TEST(tname##_lockfail)						\
{									\
	struct ksim_fault_config cfg = { .probability = 0.05,		\
		.classes = KSIM_FAULT_LOCK, .seed = ksim_seed() };	\
									\
	lock_refusals = nested_runs = 0;				\
	ksim_fault_set(&cfg);						\
	run_variant(variant, ks, vs, max, ops);				\
	if (ksim_verbose > 1)						\
		printf("# %s: %lu lock failures injected, %lu commands refused, " \
		       "%lu nested programs\n", variant, ksim_fault_failures(), \
		       lock_refusals, nested_runs);			\
	KSIM_EXPECT(!KSIM_HAVE_RQSPINLOCK || !(M.v->kind & KSIM_BPF_KIND_KERNEL) || \
		    lock_refusals > 0, "%s: no command was refused", variant); \
	KSIM_EXPECT(KSIM_HAVE_RQSPINLOCK || !(M.v->kind & KSIM_BPF_KIND_HASH) || \
		    nested_runs > 0, "%s: no nested program ran", variant); \
	ksim_fault_reset();						\
}

CONF_LOCKS(hash, "hash", 8, 16, 64, 4000)
CONF_LOCKS(hash_noprealloc, "hash_noprealloc", 8, 16, 64, 4000)
CONF_LOCKS(lru_hash, "lru_hash", 8, 16, 256, 4000)
CONF_LOCKS(lru_hash_nocommon, "lru_hash_nocommon", 8, 16, 256, 4000)
CONF_LOCKS(percpu_hash, "percpu_hash", 8, 12, 64, 3000)
CONF_LOCKS(percpu_hash_noprealloc, "percpu_hash_noprealloc", 8, 12, 64, 3000)
CONF_LOCKS(lpm_trie, "lpm_trie", 8, 16, 64, 4000)
CONF_LOCKS(qp_trie_ref, "qp_trie_ref", 0, 16, 128, 4000)

CONF(hash_k4, "hash", 4, 8, 64, 6000)
CONF(hash_k13, "hash", 13, 24, 100, 6000)
CONF(hash_noprealloc_k8, "hash_noprealloc", 8, 16, 64, 6000)
CONF(hash_noprealloc_k40, "hash_noprealloc", 40, 12, 100, 6000)
CONF(lru_hash, "lru_hash", 8, 16, 256, 6000)
CONF(lru_hash_nocommon, "lru_hash_nocommon", 8, 16, 256, 6000)
CONF(percpu_hash, "percpu_hash", 8, 12, 64, 4000)
CONF(percpu_hash_noprealloc, "percpu_hash_noprealloc", 8, 12, 64, 4000)
CONF(lpm_trie, "lpm_trie", 8, 16, 64, 6000)
CONF(qp_trie_ref, "qp_trie_ref", 0, 16, 128, 8000)
#if KSIM_HAVE_QP_TRIE_SERIES
CONF(qp_trie_series, "qp_trie", 0, 16, 128, 8000)
#endif

struct bad_create {
	const char *variant;
	struct ksim_bpf_map_attr a;
	int want;
};

KSIM_TEST(create_checks)
{
	static const struct bad_create t[] = {
		{ "hash", { .key_size = 0, .value_size = 8, .max_entries = 4 }, -EINVAL },
		{ "hash", { .key_size = 4, .value_size = 0, .max_entries = 4 }, -EINVAL },
		{ "hash", { .key_size = 4, .value_size = 8, .max_entries = 0 }, -EINVAL },
		{ "hash", { .key_size = 4, .value_size = 8, .max_entries = 4, .map_extra = 1 }, -EINVAL },
		{ "hash", { .key_size = 4, .value_size = 8, .max_entries = 4, .map_flags = 1U << 29 }, -EINVAL },
		{ "lru_hash", { .key_size = 4, .value_size = 8, .max_entries = 4, .map_flags = BPF_F_NO_PREALLOC }, -ENOTSUPP },
		{ "lpm_trie", { .key_size = 3, .value_size = 8, .max_entries = 4 }, -EINVAL },
		{ "lpm_trie", { .key_size = 8, .value_size = 8, .max_entries = 0 }, -EINVAL },
		{ "qp_trie_ref", { .key_size = 16, .value_size = 8, .max_entries = 4 }, -E2BIG },
		{ "qp_trie_ref", { .key_size = 4, .value_size = 8, .max_entries = 4, .map_extra = 8 }, -EINVAL },
		{ "qp_trie_ref", { .key_size = 16, .value_size = 0, .max_entries = 4, .map_extra = 8 }, -EINVAL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		const struct ksim_bpf_variant *v = ksim_bpf_variant_find(t[i].variant);
		struct bpf_map *map;
		int err;

		map = ksim_bpf_map_create(v, &t[i].a, &err);
		KSIM_EXPECT(!map && err == t[i].want, "case %zu (%s): err %d want %d",
			    i, t[i].variant, err, t[i].want);
		ksim_bpf_map_free(map);
	}
}
