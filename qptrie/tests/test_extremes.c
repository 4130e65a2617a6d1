// SPDX-License-Identifier: GPL-2.0
/*
 * Every map variant at its extremes, judged by the maps' one model
 * (qptrie/model.h) with each map's documented contract:
 *
 * - states: empty; one element; full (max_entries), then one more (hash:
 *   -E2BIG, tries: -ENOSPC, LRU: an eviction, the new key present);
 * - key and value sizes: small, and the largest the model holds (64-byte
 *   keys, LPM 64 data bytes = prefixlen 0..512, dynptr keys of 1 and 64
 *   bytes; 48-byte values per CPU); create-time limits one past the
 *   kernel's (LPM data 257 bytes, prefix beyond max_prefixlen);
 * - LPM: nested prefixes of every length 0..max_prefixlen over the same
 *   bits, a full map of them, lookups at every length, then deleted from
 *   the longest and from the shortest;
 * - from each state, every walk API: lookup of every key and of an absent
 *   one, get_next_key from NULL, from each key, from an absent key, a full
 *   walk, and a walk that deletes every key behind it.
 * Deterministic: no random choice.
 */
#include <linux/kernel.h>
#include <ksim/bpf.h>
#include <ksim/test.h>
#include <qptrie/model.h>
#include <qptrie/qp_trie_ref.h>

#define KMAX	KSIM_BPF_MODEL_KMAX
#define VMAX	KSIM_BPF_MODEL_VMAX
#define NMAX	1024

static struct {
	const struct ksim_bpf_variant *v;
	struct bpf_map *map;
	struct ksim_bpf_model m;
	u32 ksize;		/* fixed keys: bytes; LPM: 4 + data bytes */
	u32 maxlen;		/* dynptr keys: 1..maxlen bytes */
	const char *what;
} M;

#define JUDGE(why) do {							\
	const char *_w = (why);						\
	if (_w)								\
		ksim_test_fail(__FILE__, __LINE__, "model", "%s: %s", M.what, _w); \
} while (0)

static bool is(unsigned int kind)
{
	return M.v->kind & kind;
}

/*
 * Key number @i: distinct keys for distinct i.  LPM: the full prefix of
 * i's bytes; dynptr: @len bytes (0: 4, or 1 for i == 0 and maxlen for
 * i == 1, so both extremes are in every full map).
 */
static u32 make_key(u32 i, u8 *key)
{
	memset(key, 0, KMAX);
	if (is(KSIM_BPF_KIND_LPM)) {
		u32 data = M.ksize - 4, plen = data * 8;

		memcpy(key, &plen, 4);
		/* i in the last bytes, big-endian; a pattern before them */
		for (u32 b = 0; b < data; b++)
			key[4 + b] = data - b <= 4 ? (u8)(i >> (8 * (data - 1 - b))) : (u8)(0x11 * b);
		return M.ksize;
	}
	if (is(KSIM_BPF_KIND_DYNPTR)) {
		u32 len = i == 0 ? 1 : i == 1 ? M.maxlen : 4;

		if (len == 1) {
			key[0] = 0x5a;
		} else {
			u32 be = __builtin_bswap32(i);

			memcpy(key, &be, 4);
			for (u32 b = 4; b < len; b++)
				key[b] = (u8)(i + b);
		}
		return len;
	}
	memcpy(key, &i, 4);
	for (u32 b = 4; b < M.ksize; b++)
		key[b] = (u8)(i * 31 + b);
	return M.ksize;
}

static void make_val(u32 i, u8 *val)
{
	u32 vs = ksim_bpf_value_size(M.map);

	for (u32 b = 0; b < vs; b++)
		val[b] = (u8)(i ^ (b * 13));
}

static void update(const u8 *key, u32 klen, u32 i, u64 flags)
{
	u8 val[VMAX];
	int idx = ksim_bpf_model_find(&M.m, key, klen);
	int err, want;

	make_val(i, val);
	err = ksim_bpf_map_update(M.map, key, klen, val, flags);
	want = ksim_bpf_model_update_expect(&M.m, key, klen, flags);
	if (err != want && ksim_bpf_update_lru_self_evicted(M.v->kind, idx >= 0, flags, err)) {
		ksim_bpf_model_del(&M.m, idx);
		want = err;
	}
	if (err != want)
		ksim_test_fail(__FILE__, __LINE__, "update", "%s: %s flags %llu: got %d want %d (n %u of %u)",
			       M.what, ksim_bpf_keystr(M.v->kind, key, klen),
			       (unsigned long long)flags, err, want, M.m.n, M.m.max);
	if (!err)
		ksim_bpf_model_put(&M.m, key, klen, val);
	if (is(KSIM_BPF_KIND_LRU))
		JUDGE(ksim_bpf_model_lru_reconcile(&M.m, err ? NULL : key, klen));
}

static void del(const u8 *key, u32 klen)
{
	int idx = ksim_bpf_model_find(&M.m, key, klen);
	int err = ksim_bpf_map_delete(M.map, key, klen);

	if (err != (idx >= 0 ? 0 : -ENOENT))
		ksim_test_fail(__FILE__, __LINE__, "delete", "%s: %s: got %d want %d", M.what,
			       ksim_bpf_keystr(M.v->kind, key, klen), err, idx >= 0 ? 0 : -ENOENT);
	if (!err && idx >= 0)
		ksim_bpf_model_del(&M.m, idx);
}

static void lookup(const u8 *key, u32 klen)
{
	JUDGE(ksim_bpf_model_lookup_on_map(&M.m, key, klen));
}

static void next_from(const u8 *key, u32 klen)
{
	JUDGE(ksim_bpf_model_next_on_map(&M.m, key, klen));
}

/* Every walk API from the state the map is in now. */
static void walk_apis(const char *state)
{
	u8 key[KMAX];
	u32 klen;
	int err;

	M.what = state;
	/* Lookups and get_next_key from every key, a copy: the model may reorder. */
	for (u32 j = 0; j < M.m.n; j++) {
		struct ksim_bpf_ment e = M.m.e[j];

		lookup(e.key, e.klen);
		next_from(e.key, e.klen);
	}
	klen = make_key(NMAX + 77, key);		/* never stored */
	lookup(key, klen);
	next_from(key, klen);
	next_from(NULL, 0);
	JUDGE(ksim_bpf_model_walk(&M.m, &err));
	KSIM_EXPECT(err == -ENOENT, "%s: walk ended with %d", state, err);
}

/* A walk that deletes each key after stepping past it: every key seen once, none left. */
static void walk_deleting(const char *state)
{
	u8 cur[KMAX], next[KMAX];
	u32 clen, nlen = sizeof(cur), seen = 0, n0 = M.m.n;
	int err;

	M.what = state;
	err = ksim_bpf_map_get_next_key(M.map, NULL, 0, cur, &nlen);
	clen = nlen;
	while (!err && seen <= n0) {
		KSIM_EXPECT(ksim_bpf_model_find(&M.m, cur, clen) >= 0,
			    "%s: walk with deletes: %s unknown or seen twice", state,
			    ksim_bpf_keystr(M.v->kind, cur, clen));
		seen++;
		nlen = sizeof(next);
		err = ksim_bpf_map_get_next_key(M.map, cur, clen, next, &nlen);
		del(cur, clen);
		memcpy(cur, next, nlen);
		clen = nlen;
	}
	KSIM_EXPECT(err == -ENOENT && seen == n0 && M.m.n == 0,
		    "%s: walk with deletes: err %d, %u of %u keys seen, %u left", state, err, seen,
		    n0, M.m.n);
	next_from(NULL, 0);
}

static bool create(const char *name, u32 ksize, u32 vsize, u32 max)
{
	struct ksim_bpf_map_attr a = { 0 };
	int err;

	memset(&M, 0, sizeof(M));
	if (!ksim_qp_trie_ref_mutant_env()) {
		KSIM_EXPECT(0, "bad KSIM_QP_TRIE_REF_MUTANT");
		return false;
	}
	M.v = ksim_bpf_variant_find(name);
	KSIM_EXPECT(M.v, "variant %s not built", name);
	if (!M.v)
		return false;
	M.maxlen = KMAX - 4;
	ksim_bpf_attr_set_key(&a, M.v, ksize, M.maxlen);
	M.ksize = a.key_size;
	a.value_size = vsize;
	a.max_entries = max;
	M.map = ksim_bpf_map_create(M.v, &a, &err);
	KSIM_EXPECT(M.map, "create %s (key %u, value %u, max %u): %d", name, ksize, vsize, max, err);
	if (!M.map)
		return false;
	ksim_bpf_model_init(&M.m, M.v, M.map, NMAX);
	return true;
}

static void destroy(void)
{
	ksim_bpf_map_free(M.map);
	ksim_bpf_model_fini(&M.m);
}

/* Empty, one element, full, one more, walked and emptied. */
static void states(const char *name, u32 ksize, u32 vsize, u32 max)
{
	u8 key[KMAX];
	u32 klen;

	if (!create(name, ksize, vsize, max))
		return;
	walk_apis("empty");
	klen = make_key(0, key);
	del(key, klen);					/* absent: -ENOENT */
	update(key, klen, 0, BPF_EXIST);		/* absent: -ENOENT */
	update(key, klen, 0, BPF_NOEXIST);
	walk_apis("one element");
	update(key, klen, 1, BPF_NOEXIST);		/* present: -EEXIST */
	update(key, klen, 2, BPF_EXIST);
	walk_apis("one element, replaced");
	walk_deleting("one element");
	walk_apis("emptied from one element");
	for (u32 i = 0; i < max; i++) {
		klen = make_key(i, key);
		update(key, klen, i, BPF_ANY);
	}
	walk_apis("full");
	/* One more: the map's documented error, or (LRU) an eviction. */
	for (u32 i = max; i < max + 3; i++) {
		klen = make_key(i, key);
		update(key, klen, i, BPF_NOEXIST);
		update(key, klen, i, BPF_ANY);
	}
	walk_apis("full, then more");
	/* Replacing in a full map needs no new element. */
	klen = make_key(0, key);
	if (ksim_bpf_model_find(&M.m, key, klen) >= 0)
		update(key, klen, 9, BPF_EXIST);
	walk_deleting("full");
	walk_apis("emptied from full");
	destroy();
}

#define EXTREMES(tname, variant, vsize_max)				\
KSIM_TEST(tname)							\
{									\
	states(variant, 5, 1, 1);		/* max_entries 1 */	\
	states(variant, 8, 16, 16);					\
	states(variant, KMAX, vsize_max, 64);	/* largest keys/values */ \
}

EXTREMES(extremes_hash, "hash", 48)
EXTREMES(extremes_hash_noprealloc, "hash_noprealloc", 48)
EXTREMES(extremes_lru_hash, "lru_hash", 48)
EXTREMES(extremes_lru_hash_nocommon, "lru_hash_nocommon", 48)
EXTREMES(extremes_percpu_hash, "percpu_hash", 48)
EXTREMES(extremes_percpu_hash_noprealloc, "percpu_hash_noprealloc", 48)
EXTREMES(extremes_lpm_trie, "lpm_trie", 48)
EXTREMES(extremes_qp_trie_ref, "qp_trie_ref", 48)
EXTREMES(extremes_qp_trie_ref_restart, "qp_trie_ref_restart", 48)
#if KSIM_HAVE_QP_TRIE_SERIES
EXTREMES(extremes_qp_trie_series, "qp_trie", 48)
#endif

/*
 * LPM at maximum depth: the prefixes 0..max_prefixlen of one bit string,
 * each nested in the next; the map exactly full with them.
 */
static void lpm_nested(u32 data_bytes, bool from_longest)
{
	u32 maxp = data_bytes * 8, klen = 4 + data_bytes;
	u8 key[KMAX];
	char state[64];

	if (!create("lpm_trie", klen, 8, maxp + 1))
		return;
	for (u32 b = 0; b < data_bytes; b++)
		key[4 + b] = (u8)(0xa5 ^ b);
	for (u32 p = 0; p <= maxp; p++) {
		memcpy(key, &p, 4);
		update(key, klen, p, BPF_NOEXIST);
	}
	snprintf(state, sizeof(state), "%u nested prefixes", maxp + 1);
	walk_apis(state);
	/* Longest match at every length, and for a key that leaves the chain at each bit. */
	for (u32 p = 0; p <= maxp; p++) {
		u8 probe[KMAX];

		memcpy(probe, key, klen);
		memcpy(probe, &maxp, 4);
		if (p < maxp)
			probe[4 + p / 8] ^= 0x80 >> (p % 8);
		lookup(probe, klen);
	}
	/* Full: one more prefix, of another bit string, is refused. */
	{
		u8 other[KMAX];
		u32 one = 1;

		memcpy(other, key, klen);
		memcpy(other, &one, 4);
		other[4] ^= 0x80;
		update(other, klen, 1, BPF_ANY);
	}
	/* Beyond max_prefixlen: -EINVAL for update and delete, nothing found. */
	{
		u8 bad[KMAX];
		u32 p = maxp + 1;
		int err;

		memcpy(bad, key, klen);
		memcpy(bad, &p, 4);
		err = ksim_bpf_map_update(M.map, bad, klen, key, BPF_ANY);
		KSIM_EXPECT(err == -EINVAL, "lpm: update with prefixlen %u > %u: %d", p, maxp, err);
		err = ksim_bpf_map_delete(M.map, bad, klen);
		KSIM_EXPECT(err == -EINVAL, "lpm: delete with prefixlen %u > %u: %d", p, maxp, err);
		lookup(bad, klen);
		next_from(bad, klen);
	}
	/* Delete one end first, checking every lookup on the way. */
	for (u32 k = 0; k <= maxp; k++) {
		u32 p = from_longest ? maxp - k : k;

		memcpy(key, &p, 4);
		del(key, klen);
		/* The walk checks cost O(n^2): at a few depths only. */
		if (k <= 1 || k == 8 || k == maxp / 2 || k + 1 >= maxp) {
			snprintf(state, sizeof(state), "nested, %u deleted from the %s", k + 1,
				 from_longest ? "longest" : "shortest");
			walk_apis(state);
		}
	}
	destroy();
}

KSIM_TEST(extremes_lpm_nested)
{
	lpm_nested(4, true);
	lpm_nested(4, false);
	lpm_nested(KMAX - 4, true);	/* prefixlen 0..512 */
	lpm_nested(KMAX - 4, false);
	lpm_nested(1, true);
}

/* Create-time limits one past the kernel's: the documented errors. */
KSIM_TEST(extremes_create_limits)
{
	static const struct {
		const char *variant;
		struct ksim_bpf_map_attr a;
		int want;
	} bad[] = {
		/* lpm_trie.c: key_size > LPM_KEY_SIZE_MAX (4 + 256 bytes) */
		{ "lpm_trie", { .key_size = 4 + 257, .value_size = 8, .max_entries = 4,
				.map_flags = BPF_F_NO_PREALLOC }, -EINVAL },
		/* hashtab.c: max_entries 0, key_size 0, value_size 0 */
		{ "hash", { .key_size = 4, .value_size = 8, .max_entries = 0 }, -EINVAL },
		{ "hash", { .key_size = 0, .value_size = 8, .max_entries = 4 }, -EINVAL },
		{ "hash", { .key_size = 4, .value_size = 0, .max_entries = 4 }, -EINVAL },
		{ "lru_hash", { .key_size = 4, .value_size = 8, .max_entries = 0 }, -EINVAL },
	};
	static const struct {
		const char *variant;
		u32 ksize, vsize;
	} good[] = {
		{ "lpm_trie", 4 + 256, 8 },	/* LPM_KEY_SIZE_MAX exactly */
		{ "hash", 512, 4096 },
	};

	for (int i = 0; i < ARRAY_SIZE(bad); i++) {
		const struct ksim_bpf_variant *v = ksim_bpf_variant_find(bad[i].variant);
		struct bpf_map *map;
		int err = 0;

		KSIM_ASSERT(v);
		map = ksim_bpf_map_create(v, &bad[i].a, &err);
		KSIM_EXPECT(!map && err == bad[i].want, "create %s #%d: %p, %d, want %d",
			    bad[i].variant, i, map, err, bad[i].want);
		if (map)
			ksim_bpf_map_free(map);
	}
	/* The largest accepted: one element in, found, walked, out. */
	for (int i = 0; i < ARRAY_SIZE(good); i++) {
		const struct ksim_bpf_variant *v = ksim_bpf_variant_find(good[i].variant);
		struct ksim_bpf_map_attr a = { .key_size = good[i].ksize, .value_size = good[i].vsize,
					       .max_entries = 2 };
		static u8 key[4 + 256 + 256], val[4096], got[4096], next[4 + 256 + 256];
		u32 nlen = sizeof(next);
		struct bpf_map *map;
		int err = 0;

		KSIM_ASSERT(v);
		map = ksim_bpf_map_create(v, &a, &err);
		KSIM_EXPECT(map, "create %s with key %u, value %u: %d", good[i].variant,
			    good[i].ksize, good[i].vsize, err);
		if (!map)
			continue;
		memset(key, 0x3c, sizeof(key));
		if (v->kind & KSIM_BPF_KIND_LPM) {
			u32 p = (good[i].ksize - 4) * 8;

			memcpy(key, &p, 4);
		}
		for (u32 b = 0; b < good[i].vsize; b++)
			val[b] = (u8)b;
		KSIM_EXPECT_EQ(ksim_bpf_map_update(map, key, good[i].ksize, val, BPF_NOEXIST), 0);
		KSIM_EXPECT_EQ(ksim_bpf_map_lookup(map, key, good[i].ksize, got, 0), 0);
		KSIM_EXPECT(!memcmp(got, val, good[i].vsize), "%s: value read back differs",
			    good[i].variant);
		KSIM_EXPECT_EQ(ksim_bpf_map_get_next_key(map, NULL, 0, next, &nlen), 0);
		KSIM_EXPECT(nlen == good[i].ksize && !memcmp(next, key, nlen), "%s: first key differs",
			    good[i].variant);
		nlen = sizeof(next);
		KSIM_EXPECT_EQ(ksim_bpf_map_get_next_key(map, key, good[i].ksize, next, &nlen), -ENOENT);
		KSIM_EXPECT_EQ(ksim_bpf_map_delete(map, key, good[i].ksize), 0);
		nlen = sizeof(next);
		KSIM_EXPECT_EQ(ksim_bpf_map_get_next_key(map, NULL, 0, next, &nlen), -ENOENT);
		ksim_bpf_map_free(map);
	}
}
