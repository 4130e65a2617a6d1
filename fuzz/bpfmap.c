// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target `bpfmap`: the BPF maps of ksim_bpfmaps (kernel/bpf/hashtab.c,
 * lpm_trie.c, bpf_lru_list.c, percpu_freelist.c unmodified from KSRC; our
 * reference qp-trie; the posted qp-trie series when KSRC has it), driven
 * through the syscall-like driver (ksim/bpf.h) against a reference model.
 *
 * Input (fuzz/gen_corpus.py speaks it):
 *   [variant][cfg][max_entries][ksize][vsize][fault]   then ops
 *   variant      index into the registered variants (ksim_bpf_variant(); modulo the number built;
 *                stand-ins, KSIM_BPF_KIND_STAND_IN, are not indexed).  The arrays, queue, stack
 *                and bloom filter come last, after rhash where the tree has it (7.x: 11..15,
 *                6.x: 10..14; byte 235 + j is the j-th of them on both)
 *   cfg          bit 0: bpf_mem_alloc checking mode (poison + quarantine)
 *   max_entries  (b & 0x7f) + 1
 *   ksize        hash: (b & 0x3f) + 1 bytes; LPM: (b & 0xf) + 1 data bytes;
 *                dynptr: max key length (map_extra) (b & 0x1f) + 1; arrays: 4 (u32);
 *                queue, stack: none; bloom filter: none, b & 0xf hash functions (0: 5)
 *   vsize        (b % 48) + 1
 *   fault        arms a failure for map creation (ksim_fuzz_fault_arm)
 *   op           [opcode][flags][fault][args...], see run_op(); an op's
 *                fault byte 0xc0..0xdf arms lock failures instead (fault
 *                class lock, fault_arm()): the ((b & 0xf) + 1)th failable
 *                lock from there fails, once or (bit 4) three times
 * A key is one byte: < 0xe0 a key derived from that id (a small space:
 * collisions and re-use), 0xe0..0xef the model's (b & 0xf)-th key modulo
 * its size (hits), >= 0xf0 raw bytes follow (LPM: prefixlen byte first;
 * dynptr: length byte first, may exceed map_extra).
 *
 * Maps without keys (queue, stack, bloom filter) take the same ops as pushes
 * (update, fill: a byte picks the value; bloom: from 128), peeks (lookup),
 * pops (lookup_and_delete), and the commands they refuse; at the end a
 * queue or stack is drained in order, a bloom filter asked for every value.
 *
 * Oracles: every return value against the maps' one model (qptrie/model.h:
 * update with BPF_ANY / NOEXIST / EXIST / invalid flags, -E2BIG/-ENOSPC when
 * full, LRU eviction only on updates and never of the key just written),
 * every value read (per-CPU: all CPUs' copies), get_next_key from present,
 * missing and malformed keys by the variant's contract (hash: no order, a
 * missing key restarts; LPM: postorder, a missing key restarts; our
 * qp-trie: the byte-order successor of any key), full walks (every key
 * exactly once, in order where promised), walks that delete as they go,
 * and batch walks (BPF_MAP_LOOKUP(_AND_DELETE)_BATCH: every key once, with
 * its value; a walk op with flags bits 6-7 set), a program's view (its
 * lookups, bpf_map_lookup_percpu_elem(), bpf_for_each_map_elem() with a
 * callback that stops early, writes values and deletes what it visits)
 * and map element iterators (bpf_iter, read in chunks, objects retried).  -ENOMEM only with an
 * injected failure, and then the key's state is unchanged; a command in
 * which a lock failed may return only what ksim_bpf_lock_error_ok() allows,
 * again with the key unchanged, and on 6.1/6.12 every nested program must
 * be refused with -EBUSY (ksim/bpf.h).  A refused update or delete leaves no
 * bpf_mem_alloc object live.  At the end of
 * the input a full walk and a lookup of every model key; the map is freed
 * and the framework fails the iteration on any leak or shim problem.
 *
 * Hash maps are created with BPF_F_ZERO_SEED (one bucket layout per key
 * set, as when the corpus was made).  The RHASH map refuses it; its seed is
 * the shim's get_random_u32(), which the fuzz framework restarts for every
 * input (fuzz/lib/fuzz.c), so an input's bucket order does not depend on
 * the inputs run before it and a crash replays alone.
 */
#include <linux/kernel.h>
#include <ksim/bpf.h>
#include <ksim/bpf_mem.h>
#include <ksim/fault.h>
#include <ksim/fuzz.h>
#include <qptrie/model.h>

#include <stdlib.h>
#include <string.h>

#define MAX_OPS		256
#define KMAX		KSIM_BPF_MODEL_KMAX	/* LPM: 4 + 16; hash: 64; dynptr: 32 */
#define VMAX		KSIM_BPF_MODEL_VMAX
#define NMAX		132			/* max_entries 128 (+ LRU rounding) */

enum {
	OP_UPDATE,		/* flags & 3: ANY, NOEXIST, EXIST, invalid */
	OP_LOOKUP,		/* flags & 4: with an invalid lookup flag; 0x10: a program's */
	OP_DELETE,
	OP_LOOKUP_AND_DELETE,
	OP_NEXT,		/* get_next_key from one key */
	OP_WALK,		/* full walk; flags 0xc0: a batch walk, 0x80: for_each, 0x40: bpf_iter (hash maps) */
	OP_WALK_DELETE,		/* walk, deleting keys as it goes */
	OP_FILL,		/* many updates of derived keys */
	OP_BARRIER,		/* rcu_barrier: deferred frees run */
	OP_NR,
};

static const char *const op_names[OP_NR] = {
	"update", "lookup", "delete", "lookup_and_delete", "get_next_key", "walk",
	"walk_delete", "fill", "barrier",
};

static struct {
	const struct ksim_bpf_variant *v;
	struct bpf_map *map;
	u32 ksize;		/* fixed key size (LPM: 4 + data bytes) */
	u32 maxlen;		/* dynptr: map_extra */
	u32 vsize;		/* bytes the driver copies (per-CPU: all CPUs) */
	u32 max;		/* map->max_entries after creation */
	unsigned long next_val;
	/*
	 * An allocation failed on purpose earlier in this input.  bpf_mem_alloc
	 * then may hand out NULL later: a failed prefill or refill leaves the
	 * per-CPU cache empty until the next refill (the kernel refills from
	 * irq_work, the shim right after an allocation), so -ENOMEM can come
	 * one op late.
	 */
	bool failed_before;
	struct ksim_bpf_model m;	/* kept last: its memory is reused */
} M;

/* The model's entries (the order ops pick them by: appended, deleted by swap with the last). */
#define MN	(M.m.n)
#define ME	(M.m.e)

/* The variants inputs index: all but the stand-ins (7.x: 16 today). */
static const struct ksim_bpf_variant *variants[32];
static int nr_variants;

static bool is(unsigned int kind)
{
	return M.v->kind & kind;
}

/* ---- keys ---- */

static u32 lpm_maxp(void)
{
	return (M.ksize - 4) * 8;
}

static int mfind(const u8 *key, u32 klen)
{
	return ksim_bpf_model_find(&M.m, key, klen);
}

/* A key derived from an id: few distinct keys, so ops collide. */
static u32 derive_key(u8 id, u8 *key)
{
	if (is(KSIM_BPF_KIND_DYNPTR)) {
		static const u8 alpha[] = { 0x00, 0x01, 0x10, 0x7f, 0x80, 0xff, 'a', 'b' };
		u32 len = 1 + id % M.maxlen;
		unsigned int x = id;

		for (u32 i = 0; i < len; i++, x = x * 5 + 1)
			key[i] = alpha[(x >> 1) & 7];
		return len;
	}
	if (is(KSIM_BPF_KIND_LPM)) {
		/* Nested prefixes: a few patterns, many prefix lengths. */
		static const u8 pat[] = { 0x00, 0x80, 0xc0, 0xff, 0x0f, 0xa5 };
		u32 plen = (id * 7u) % (lpm_maxp() + 1);

		memcpy(key, &plen, 4);
		for (u32 i = 0; i < M.ksize - 4; i++)
			key[4 + i] = pat[(id / 3 + i) % ARRAY_SIZE(pat)];
		/* Bits past the prefix are kept: they must not matter. */
		return M.ksize;
	}
	if (is(KSIM_BPF_KIND_ARRAY)) {
		/* an index; about one in five past the end */
		u32 idx = id % (M.max + M.max / 4 + 1);

		memcpy(key, &idx, 4);
		return 4;
	}
	memset(key, 0, M.ksize);
	key[0] = id & 0x3f;
	for (u32 i = 1; i < M.ksize; i++)
		key[i] = (u8)((id & 0x3f) * 31 + i);
	return M.ksize;
}

static u32 get_key(struct ksim_fuzz_in *in, u8 *key)
{
	u8 b = ksim_fuzz_u8(in);
	u32 len;

	if (b < 0xe0 || (b < 0xf0 && !MN))
		return derive_key(b, key);
	if (b < 0xf0) {
		struct ksim_bpf_ment *e = &ME[(b & 0xf) % MN];

		memcpy(key, e->key, e->klen);
		return e->klen;
	}
	if (is(KSIM_BPF_KIND_DYNPTR)) {
		/* May be longer than map_extra: the driver refuses it. */
		len = ksim_fuzz_u8(in) % (KMAX + 1);
		for (u32 i = 0; i < len; i++)
			key[i] = ksim_fuzz_u8(in);
		return len;
	}
	len = M.ksize;
	if (is(KSIM_BPF_KIND_LPM)) {
		u32 plen = ksim_fuzz_u8(in);	/* up to 255: past max_prefixlen is invalid */

		memcpy(key, &plen, 4);
		for (u32 i = 4; i < len; i++)
			key[i] = ksim_fuzz_u8(in);
		return len;
	}
	for (u32 i = 0; i < len; i++)
		key[i] = ksim_fuzz_u8(in);
	return len;
}

/* Malformed for the driver or the map (@write: update/delete): the errno it must give. */
static int key_invalid(const u8 *key, u32 klen, bool write)
{
	return ksim_bpf_model_key_error(&M.m, key, klen, write);
}

#define KEYSTR(k, l)	ksim_bpf_keystr(M.v->kind, (k), (l))

/* A verdict of the model (qptrie/model.h): fails the iteration if set. */
#define JUDGE(why) do {							\
	const char *_w = (why);						\
	KSIM_FUZZ_CHECK(!_w, "%s", _w);					\
} while (0)

static void gen_val(u8 seed, u8 *val)
{
	unsigned long c = ++M.next_val;

	for (u32 i = 0; i < M.vsize; i++)
		val[i] = (u8)(seed ^ (c * 31 + i * 7));
}

/* ---- checks ---- */

static void disarm(void)
{
	M.failed_before |= ksim_fuzz_fault_failures() > 0;
	ksim_fuzz_fault_disarm();
}

/*
 * The op's fault byte: >= 0xe0 allocation failures (ksim_fuzz_fault_arm()),
 * 0xc0..0xdf lock failures (res_spin_lock() on 7.x, the nested program at
 * htab_lock_bucket on 6.x), anything else none.
 */
static void fault_arm(struct ksim_fuzz_in *in)
{
	u8 b = in->pos < in->size ? in->data[in->pos] : 0;
	struct ksim_fault_config cfg = { .classes = KSIM_FAULT_LOCK };

	if (b < 0xc0 || b >= 0xe0) {
		ksim_fuzz_fault_arm(in);
		return;
	}
	in->pos++;
	cfg.nth = (b & 0xf) + 1;
	cfg.times = (b & 0x10) ? 3 : 1;
	ksim_fuzz_fault_set(&cfg);
	KSIM_FUZZ_TRACE("    fault: fail lock #%lu from here%s\n", cfg.nth,
			cfg.times > 1 ? " and the next two" : " (once)");
}

static unsigned long mem_live(void)
{
	unsigned long kmalloced, live;

	ksim_bpf_mem_totals(&kmalloced, &live);
	return live;
}

/*
 * A command refused by an injected fault: -ENOMEM only with an allocation
 * failure; a lock failure's errors as ksim_bpf_lock_error_ok() allows.  The
 * key must be unchanged and (update/delete: @live0 set) no bpf_mem object
 * left live.  Also: 6.x nested programs were all refused with -EBUSY.
 */
static bool refused(int err, const u8 *key, u32 klen, const char *what, bool update,
		    unsigned long live0)
{
	struct ksim_bpf_lockfail lf;
	u8 got[VMAX];
	bool lock;
	int i, e;

	ksim_bpf_last_lockfail(&lf);
	KSIM_FUZZ_CHECK(!lf.nested_not_busy, "%s(%s): a program re-entering the map returned %d, not -EBUSY",
			what, key ? KEYSTR(key, klen) : "-", lf.nested_err);
	lock = err && lf.injected && ksim_bpf_lock_error_ok(M.map, M.v->kind, update, err);
	if (!lock && err != -ENOMEM)
		return false;
	if (!lock)
		KSIM_FUZZ_CHECK(ksim_fault_class_failures(KSIM_FAULT_ALLOC) > 0 || M.failed_before,
				"%s(%s): -ENOMEM without an injected failure", what,
				key ? KEYSTR(key, klen) : "-");
	else
		KSIM_FUZZ_TRACE("    refused by a lock failure\n");
	if (live0 != ~0UL)
		KSIM_FUZZ_CHECK(mem_live() == live0, "%s(%s) refused with %d left %ld bpf_mem bytes live",
				what, key ? KEYSTR(key, klen) : "-", err, (long)(mem_live() - live0));
	if (!key || key_invalid(key, klen, false))
		return true;
	disarm();
	i = mfind(key, klen);
	if (is(KSIM_BPF_KIND_LPM))
		return true;	/* lookup is longest-prefix: the final check covers it */
	e = ksim_bpf_map_lookup(M.map, key, klen, got, 0);
	if (is(KSIM_BPF_KIND_LRU) && i >= 0 && e == -ENOENT) {
		ksim_bpf_model_del(&M.m, i);	/* LRU may have evicted it making room */
		return true;
	}
	KSIM_FUZZ_CHECK(e == (i >= 0 ? 0 : -ENOENT),
			"%s(%s) failed with %d but changed the key: lookup %d, model %s",
			what, KEYSTR(key, klen), err, e, i >= 0 ? "present" : "absent");
	if (i >= 0)
		KSIM_FUZZ_CHECK(ksim_bpf_value_eq(M.map, got, ME[i].val),
				"%s(%s) failed with %d but changed the value", what,
				KEYSTR(key, klen), err);
	return true;
}

/* LRU: drop the model keys the map evicted; only updates may evict. */
static void lru_reconcile(const u8 *must, u32 must_len)
{
	u32 n0 = MN;

	JUDGE(ksim_bpf_model_lru_reconcile(&M.m, must, must_len));
	if (MN != n0)
		KSIM_FUZZ_TRACE("    LRU evicted %u keys\n", n0 - MN);
}

static void check_lookup(const u8 *key, u32 klen, const char *when)
{
	u8 got[VMAX];
	int err = ksim_bpf_map_lookup(M.map, key, klen, got, 0);

	if (refused(err, NULL, 0, "lookup", false, ~0UL))
		return;
	KSIM_FUZZ_CHECK(!ksim_bpf_model_check_lookup(&M.m, key, klen, err, got), "%s: %s", when,
			ksim_bpf_model_check_lookup(&M.m, key, klen, err, got));
}

/*
 * get_next_key from @key (NULL: the first key) checked against the model;
 * returns its errno and the key in @next.
 */
static int check_next(const u8 *key, u32 klen, u8 *next, u32 *nlen)
{
	int err;

	*nlen = KMAX;
	err = ksim_bpf_map_get_next_key(M.map, key, klen, next, nlen);
	if (refused(err, NULL, 0, "get_next_key", false, ~0UL))
		return err;
	JUDGE(ksim_bpf_model_check_next(&M.m, key, klen, err, next, *nlen));
	return err;
}

/* Full walk: every model key exactly once; in order where the map promises it. */
static void check_walk(const char *when)
{
	const char *why;
	int err;

	why = ksim_bpf_model_walk(&M.m, &err);
	KSIM_FUZZ_CHECK(!why, "%s: %s", when, why);
	if (err == -ENOMEM)	/* LPM's get_next_key allocates its stack */
		refused(err, NULL, 0, "walk", false, ~0UL);
}

static void keyless_check_all(void);

static void check_all(const char *when)
{
	const char *why = ksim_bpf_model_pool(&M.m);

	KSIM_FUZZ_CHECK(!why, "%s: %s", when, why);
	check_walk(when);
	if (is(KSIM_BPF_KIND_KEYLESS)) {
		keyless_check_all();
		return;
	}
	for (u32 i = 0; i < MN; i++)
		check_lookup(ME[i].key, ME[i].klen, when);
}

/* ---- ops ---- */

/*
 * fl's bits 4-7 when its flags are the per-CPU slot (8): on trees with 7.x's
 * per-CPU flags, bits 4-5 pick BPF_F_CPU (0, 1), BPF_F_ALL_CPUS (2) or both
 * (3, refused), bits 6-7 BPF_ANY/NOEXIST/EXIST (3: ANY), and the value's
 * seed the CPU, nr_cpu_ids included (-ERANGE).
 */
static u64 cpu_flags(u8 fl, u8 seed)
{
#if KSIM_HAVE_BPF_F_CPU
	static const u64 kind[] = { BPF_F_CPU, BPF_F_CPU, BPF_F_ALL_CPUS, BPF_F_CPU | BPF_F_ALL_CPUS };
	u64 flags = kind[fl >> 4 & 3] | (fl >> 6) % 3;

	if (flags & BPF_F_CPU)
		flags |= (u64)(seed % (nr_cpu_ids + 1)) << 32;
	return flags;
#else
	return 8;	/* no such flag: -EINVAL */
#endif
}

static void do_update(const u8 *key, u32 klen, u8 fl, u8 seed)
{
	static const u64 bad[] = { 3, BPF_F_LOCK, 8, 1ULL << 32 };
	u8 val[VMAX];
	u64 flags = (fl & 3) != 3 ? fl & 3 : (fl >> 2 & 3) == 2 ? cpu_flags(fl, seed) : bad[fl >> 2 & 3];
	int i = mfind(key, klen), err, want, cpu_err;
	unsigned long live0 = mem_live();
	u64 eff = flags;	/* what the map does with them */

	/*
	 * 7.x per-CPU maps: BPF_F_CPU writes one CPU's value (a new element's
	 * other CPUs start zeroed), BPF_F_ALL_CPUS the one value to every CPU
	 * (the model: ksim_bpf_model_cpu_flags()).  Flags 3 is accepted as
	 * BPF_ANY, a kernel disagreement recorded in docs/findings.toml
	 * (bpf-percpu-update-flags, XFAIL of bpf/conformance-percpu), not
	 * re-reported here; a tree that refuses it (-EINVAL, the model's
	 * answer: that finding's fix) is judged by the model.
	 */
	cpu_err = ksim_bpf_model_cpu_flags(&M.m, flags, true, &eff);
	if (KSIM_HAVE_BPF_F_CPU && is(KSIM_BPF_KIND_PERCPU) && flags == 3)
		eff = BPF_ANY;
	gen_val(seed, val);
	err = ksim_bpf_map_update(M.map, key, klen, val, flags);
	if (flags == 3 && err == -EINVAL)
		eff = flags;
	KSIM_FUZZ_TRACE("    update(%s, flags %#llx) -> %d\n", KEYSTR(key, klen),
			(unsigned long long)flags, err);
	if (refused(err, key, klen, "update", true, live0))
		goto out;
	want = cpu_err < 0 ? cpu_err : ksim_bpf_model_update_expect(&M.m, key, klen, eff);
	if (err != want && ksim_bpf_update_lru_self_evicted(M.v->kind, i >= 0, eff, err)) {
		ksim_bpf_model_del(&M.m, i);
		i = -1;
		want = err;
	}
	KSIM_FUZZ_CHECK(err == want, "update(%s, flags %#llx) = %d, model %d (%u of %u keys)",
			KEYSTR(key, klen), (unsigned long long)flags, err, want, MN, M.max);
	if (!err) {
		KSIM_FUZZ_CHECK(MN < NMAX || i >= 0, "model full");
		if (!cpu_err && (flags & 8)) {
			/* that CPU's value only (the others: ksim_bpf_model_put_one_cpu()) */
			u8 got[VMAX];
			const char *why;

			KSIM_FUZZ_CHECK(!ksim_bpf_map_lookup(M.map, key, klen, got, 0),
					"update(%s, BPF_F_CPU): the key is gone", KEYSTR(key, klen));
			why = ksim_bpf_model_put_one_cpu(&M.m, key, klen, flags >> 32, val, got);
			KSIM_FUZZ_CHECK(!why, "BPF_F_CPU update (flags %#llx): %s",
					(unsigned long long)flags, why);
		} else if (!cpu_err) {
			ksim_bpf_model_put_all_cpus(&M.m, key, klen, val);	/* BPF_F_ALL_CPUS */
		} else {
			/* LPM: the latest bytes are stored */
			ksim_bpf_model_put(&M.m, key, klen, val);
		}
	}
out:
	if (is(KSIM_BPF_KIND_LRU))
		lru_reconcile(err ? NULL : key, klen);
	if (!err)
		check_lookup(key, klen, "after update");
}

static int do_delete(const u8 *key, u32 klen, bool and_lookup)
{
	u8 got[VMAX];
	int i = mfind(key, klen), err, want;
	const char *what = and_lookup ? "lookup_and_delete" : "delete";
	unsigned long live0 = mem_live();

	err = and_lookup ? ksim_bpf_map_lookup_and_delete(M.map, key, klen, got, 0) :
			   ksim_bpf_map_delete(M.map, key, klen);
	KSIM_FUZZ_TRACE("    %s(%s) -> %d\n", what, KEYSTR(key, klen), err);
	if (refused(err, key, klen, what, false, live0))
		return err;
	want = ksim_bpf_model_delete_expect(&M.m, key, klen);	/* arrays: -EINVAL */
	KSIM_FUZZ_CHECK(err == want, "%s(%s) = %d, model %d", what, KEYSTR(key, klen), err, want);
	if (!err) {
		if (and_lookup)
			KSIM_FUZZ_CHECK(ksim_bpf_value_eq(M.map, got, ME[i].val),
					"lookup_and_delete(%s): wrong value", KEYSTR(key, klen));
		ksim_bpf_model_del(&M.m, i);
	}
	return err;
}

/*
 * Walk with deletes: bit k of @mask decides whether the k-th key is
 * deleted; @before deletes it before stepping (the next get_next_key then
 * starts from a missing key), else after.
 */
static void walk_delete(u8 mask, bool before)
{
	u8 cur[KMAX], next[KMAX];
	u32 clen, nlen, steps = 0, limit = 9 * MN + 9;
	int err = check_next(NULL, 0, cur, &clen);

	KSIM_FUZZ_TRACE("    walk deleting keys (mask %#x) %s stepping\n", mask,
			before ? "before" : "after");
	while (!err) {
		bool del = mask >> (steps & 7) & 1;

		KSIM_FUZZ_CHECK(++steps <= limit, "walk with deletes does not end");
		if (del && before)
			do_delete(cur, clen, false);
		err = check_next(cur, clen, next, &nlen);
		if (del && !before)
			do_delete(cur, clen, false);
		memcpy(cur, next, nlen);
		clen = nlen;
	}
	if (err != -ENOMEM)
		KSIM_FUZZ_CHECK(err == -ENOENT, "walk with deletes ended with %d", err);
}

/* ---- maps without keys (queue, stack, bloom filter) ---- */

/* The value of a push: bloom filters from a space of 128 (lookups hit), the others all new. */
static void keyless_val(u8 id, u8 *val)
{
	if (!is(KSIM_BPF_KIND_BLOOM)) {
		gen_val(id, val);
		return;
	}
	memset(val, 0, M.vsize);
	for (u32 i = 0; i < M.vsize; i++)
		val[i] = (u8)((id & 0x7f) * (i + 1) + i);
}

static void do_push(u8 fl, u8 id)
{
	static const u64 bad[] = { 3, BPF_F_LOCK, 8, 1ULL << 32 };
	u64 flags = (fl & 3) == 3 ? bad[(fl >> 2) & 3] : fl & 3;
	u8 val[VMAX];
	int err, want;

	keyless_val(id, val);
	err = ksim_bpf_map_update(M.map, NULL, 0, val, flags);
	KSIM_FUZZ_TRACE("    push(flags %#llx) -> %d\n", (unsigned long long)flags, err);
	if (refused(err, NULL, 0, "push", true, ~0UL))
		return;
	want = ksim_bpf_model_update_expect(&M.m, NULL, 0, flags);
	KSIM_FUZZ_CHECK(err == want, "push(flags %#llx) = %d, model %d (%u of %u)",
			(unsigned long long)flags, err, want, MN, M.max);
	if (!err)
		ksim_bpf_model_put(&M.m, NULL, 0, val);
}

/* A peek (queue, stack), or a bloom filter asked for the value of @id. */
static void do_peek(u8 id)
{
	u8 got[VMAX];
	int err;

	keyless_val(id, got);
	err = ksim_bpf_map_lookup(M.map, NULL, 0, got, 0);
	KSIM_FUZZ_TRACE("    peek -> %d\n", err);
	if (refused(err, NULL, 0, "peek", false, ~0UL))
		return;
	JUDGE(ksim_bpf_model_check_lookup(&M.m, NULL, 0, err, got));
}

static void do_pop(void)
{
	u8 got[VMAX];
	int err = ksim_bpf_map_lookup_and_delete(M.map, NULL, 0, got, 0);

	KSIM_FUZZ_TRACE("    pop -> %d\n", err);
	if (refused(err, NULL, 0, "pop", false, ~0UL))
		return;
	JUDGE(ksim_bpf_model_check_pop(&M.m, err, got));
}

/* The end of the input: a bloom filter finds every value added; a queue or stack drains in order. */
static void keyless_check_all(void)
{
	u8 got[VMAX];
	int err;

	if (is(KSIM_BPF_KIND_BLOOM)) {
		for (u32 i = 0; i < MN; i++) {
			memcpy(got, ME[i].val, M.vsize);
			err = ksim_bpf_map_lookup(M.map, NULL, 0, got, 0);
			JUDGE(ksim_bpf_model_check_lookup(&M.m, NULL, 0, err, got));
		}
		return;
	}
	while (MN) {
		err = ksim_bpf_map_lookup_and_delete(M.map, NULL, 0, got, 0);
		JUDGE(ksim_bpf_model_check_pop(&M.m, err, got));
		if (err)
			break;
	}
	JUDGE(ksim_bpf_model_check_pop(&M.m, ksim_bpf_map_lookup_and_delete(M.map, NULL, 0, got, 0),
				       got));
}

/*
 * The same ops on a map without keys, reading the bytes the keyed ops read
 * (a key is one byte): push (update: a value id and a seed; fill: count, id,
 * stride), peek (lookup: a value id), pop (lookup_and_delete), and the
 * commands it refuses.
 */
static void run_keyless_op(struct ksim_fuzz_in *in, u8 op, u8 flags)
{
	u8 next[KMAX], id, b;
	u32 nlen, key = 0;
	int err;

	switch (op) {
	case OP_UPDATE:
		id = ksim_fuzz_u8(in);
		b = ksim_fuzz_u8(in);
		do_push(flags, is(KSIM_BPF_KIND_BLOOM) ? id : (u8)(id ^ b));
		break;
	case OP_FILL: {
		u32 count = (ksim_fuzz_u8(in) & 0x7f) + 1;
		u8 stride;

		id = ksim_fuzz_u8(in);
		stride = (ksim_fuzz_u8(in) & 7) + 1;
		for (u32 k = 0; k < count; k++)
			do_push(flags & 3, (u8)(id + k * stride));
		break;
	}
	case OP_LOOKUP:
		do_peek(ksim_fuzz_u8(in));
		break;
	case OP_LOOKUP_AND_DELETE:
		ksim_fuzz_u8(in);
		do_pop();
		break;
	case OP_DELETE:
		ksim_fuzz_u8(in);
		err = ksim_bpf_map_delete(M.map, NULL, 0);
		KSIM_FUZZ_CHECK(err == ksim_bpf_model_delete_expect(&M.m, NULL, 0),
				"delete of a map without keys = %d", err);
		break;
	case OP_NEXT:
		/* flags bit 0: with a key, which the driver refuses */
		ksim_fuzz_u8(in);
		check_next(flags & 1 ? (u8 *)&key : NULL, flags & 1 ? 4 : 0, next, &nlen);
		break;
	case OP_WALK_DELETE:
		ksim_fuzz_u8(in);
		fallthrough;
	case OP_WALK:
		check_walk("walk");	/* get_next_key refused */
		break;
	}
}

static void run_op(struct ksim_fuzz_in *in)
{
	uint8_t op = ksim_fuzz_u8(in) % OP_NR;
	uint8_t flags = ksim_fuzz_u8(in);
	u8 key[KMAX], next[KMAX];
	u32 klen, nlen;

	KSIM_FUZZ_TRACE("#%lu %s (flags %#x, %u keys)\n", in->nr_ops, op_names[op], flags, MN);
	fault_arm(in);
	if (is(KSIM_BPF_KIND_KEYLESS) && op != OP_BARRIER) {
		run_keyless_op(in, op, flags);
		disarm();
		ksim_fuzz_check_problems(op_names[op]);
		return;
	}
	switch (op) {
	case OP_UPDATE:
		klen = get_key(in, key);
		do_update(key, klen, flags, ksim_fuzz_u8(in));
		break;
	case OP_LOOKUP:
		klen = get_key(in, key);
		if ((flags & 4) && KSIM_HAVE_BPF_F_CPU && (flags & 0x30) == 0x20) {
			/* 7.x: BPF_F_CPU, CPU bits 6-7 (nr_cpu_ids included: -ERANGE) */
			u64 lf = 8 | (u64)((flags >> 6) % (nr_cpu_ids + 1)) << 32;
			u8 got[VMAX];
			int err = ksim_bpf_map_lookup(M.map, key, klen, got, lf);

			KSIM_FUZZ_TRACE("    lookup(%s, flags %#llx) -> %d\n", KEYSTR(key, klen),
					(unsigned long long)lf, err);
			if (!refused(err, NULL, 0, "lookup", false, ~0UL))
				JUDGE(ksim_bpf_model_check_lookup_flags(&M.m, key, klen, lf, err, got));
		} else if (flags & 4) {
			u8 got[VMAX];
			int err = ksim_bpf_map_lookup(M.map, key, klen, got, flags & 8 ? 4 : 2);

			KSIM_FUZZ_CHECK(err == -EINVAL, "lookup with flags %d = %d", flags & 8 ? 4 : 2,
					err);
		}
		if (flags & 0x10) {
			/* a program on CPU bit 5: bpf_map_lookup_elem(), or bit 6: _percpu_elem(flags >> 7) */
			int which = flags & 0x40 ? flags >> 7 : -1;

			KSIM_FUZZ_TRACE("    prog lookup(%s) on CPU %d, CPU %d's\n", KEYSTR(key, klen),
					flags >> 5 & 1, which);
			JUDGE(ksim_bpf_model_prog_lookup(&M.m, key, klen, flags >> 5 & 1, which));
			break;
		}
		KSIM_FUZZ_TRACE("    lookup(%s)\n", KEYSTR(key, klen));
		check_lookup(key, klen, "lookup");
		break;
	case OP_LOOKUP_AND_DELETE:
		/* The driver and kernel do it for hash maps (per-CPU: every CPU's value). */
		if (M.map->ops->map_lookup_and_delete_elem) {
			klen = get_key(in, key);
			do_delete(key, klen, true);
			break;
		}
		fallthrough;
	case OP_DELETE:
		klen = get_key(in, key);
		do_delete(key, klen, false);
		break;
	case OP_NEXT:
		klen = get_key(in, key);
		KSIM_FUZZ_TRACE("    get_next_key(%s)\n", flags & 1 ? "NULL" : KEYSTR(key, klen));
		check_next(flags & 1 ? NULL : key, klen, next, &nlen);
		break;
	case OP_WALK:
		if ((flags & 0xc0) == 0xc0 && is(KSIM_BPF_KIND_HASH)) {
			/* a batch walk of (flags & 0xf) + 1 entries a call; bit 5: and delete */
			const char *why;
			int err;

			KSIM_FUZZ_TRACE("    batch walk, %u a call%s\n", (flags & 0xf) + 1,
					flags & 0x20 ? ", deleting" : "");
			why = ksim_bpf_model_batch_walk(&M.m, flags & 0x20, (flags & 0xf) + 1, &err);
			KSIM_FUZZ_CHECK(!why, "batch walk: %s", why);
			break;
		}
		if ((flags & 0xc0) == 0x40 && M.map->ops->iter_seq_info) {
			/* a map element iterator, (flags & 7) + 1 objects a read(); a byte: which to retry */
			u8 retry = ksim_fuzz_u8(in);
			const char *why;
			int err;

			KSIM_FUZZ_TRACE("    iterator, %u a read, retry %#x\n", (flags & 7) + 1, retry);
			why = ksim_bpf_model_iter(&M.m, (flags & 7) + 1, retry, &err);
			KSIM_FUZZ_CHECK(!why, "iterator: %s", why);
			break;
		}
		if ((flags & 0xc0) == 0x80 && M.map->ops->map_for_each_callback) {
			/*
			 * bpf_for_each_map_elem() on CPU bit 5, stopping after
			 * flags & 0xf elements (0: never), bit 4: invalid flags;
			 * two bytes: which visits delete, which write the value
			 */
			u8 del = ksim_fuzz_u8(in), wr = ksim_fuzz_u8(in);
			long ret;

			KSIM_FUZZ_TRACE("    for_each on CPU %d, stop after %u, delete %#x, write %#x%s\n",
					flags >> 5 & 1, flags & 0xf, del, wr, flags & 0x10 ? ", flags 1" : "");
			JUDGE(ksim_bpf_model_for_each(&M.m, flags >> 5 & 1, flags & 0xf, del, wr,
						      !!(flags & 0x10), &ret));
			break;
		}
		check_walk("walk");
		break;
	case OP_WALK_DELETE:
		walk_delete(ksim_fuzz_u8(in), flags & 1);
		break;
	case OP_FILL: {
		u32 count = (ksim_fuzz_u8(in) & 0x7f) + 1;
		u8 id = ksim_fuzz_u8(in), stride = (ksim_fuzz_u8(in) & 7) + 1;

		KSIM_FUZZ_TRACE("    %u updates from key id %u step %u\n", count, id, stride);
		for (u32 k = 0; k < count; k++) {
			klen = derive_key((u8)(id + k * stride) % 0xe0, key);
			do_update(key, klen, flags & 3, (u8)k);
		}
		break;
	}
	case OP_BARRIER:
		disarm();
		rcu_barrier();
		break;
	}
	disarm();
	ksim_fuzz_check_problems(op_names[op]);
}

static void bpfmap_run(struct ksim_fuzz_in *in)
{
	u8 vb = ksim_fuzz_u8(in), cfg = ksim_fuzz_u8(in), mb = ksim_fuzz_u8(in);
	u8 kb = ksim_fuzz_u8(in), vsb = ksim_fuzz_u8(in);
	struct ksim_bpf_map_attr a = { 0 };
	int err;

	memset(&M, 0, offsetof(typeof(M), m));
	M.v = variants[vb % nr_variants];
	a.max_entries = (mb & 0x7f) + 1;
	a.value_size = vsb % 48 + 1;
	M.maxlen = (kb & 0x1f) + 1;
	ksim_bpf_attr_set_key(&a, M.v, is(KSIM_BPF_KIND_LPM) ? 4 + (kb & 0xf) + 1 :
				       is(KSIM_BPF_KIND_ARRAY) ? 4 : is(KSIM_BPF_KIND_KEYLESS) ? 0 :
				       (kb & 0x3f) + 1, M.maxlen);
	if (is(KSIM_BPF_KIND_BLOOM))
		a.map_extra = kb & 0xf;	/* hash functions (0: 5) */
	/* RHASH refuses BPF_F_ZERO_SEED (rhtab_map_alloc_check()); its seed is the shim's seeded PRNG */
	if (is(KSIM_BPF_KIND_HASH) && !is(KSIM_BPF_KIND_RHASH))
		a.map_flags = BPF_F_ZERO_SEED;
	M.ksize = a.key_size;
	ksim_bpf_mem_set_mode(cfg & 1 ? KSIM_BPF_MEM_CHECKING : KSIM_BPF_MEM_FAITHFUL);
	KSIM_FUZZ_TRACE("create %s key_size %u value_size %u max_entries %u map_extra %llu%s\n",
			M.v->name, a.key_size, a.value_size, a.max_entries,
			(unsigned long long)a.map_extra, cfg & 1 ? " [bpf_mem checking]" : "");
	ksim_fuzz_fault_arm(in);
	M.map = ksim_bpf_map_create(M.v, &a, &err);
	KSIM_FUZZ_TRACE("    -> %d\n", err);
	if (!M.map) {
		KSIM_FUZZ_CHECK(err == -ENOMEM && ksim_fuzz_fault_failures() > 0,
				"create %s (key %u value %u max %u) = %d", M.v->name, a.key_size,
				a.value_size, a.max_entries, err);
		disarm();
		goto out;
	}
	disarm();
	ksim_bpf_model_init(&M.m, M.v, M.map, NMAX);
	M.vsize = ksim_bpf_value_size(M.map);
	M.max = M.map->max_entries;
	KSIM_FUZZ_CHECK(M.max <= NMAX, "max_entries %u", M.max);
	while (ksim_fuzz_more(in) && in->nr_ops < MAX_OPS) {
		run_op(in);
		in->nr_ops++;
	}
	check_all("end of input");
	ksim_bpf_map_free(M.map);
out:
	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);
}

static void bpfmap_init(void)
{
	const struct ksim_bpf_variant *v;

	for (unsigned int i = 0; (v = ksim_bpf_variant(i)); i++)
		if (!(v->kind & KSIM_BPF_KIND_STAND_IN) && nr_variants < ARRAY_SIZE(variants))
			variants[nr_variants++] = v;
}

KSIM_FUZZ_TARGET(bpfmap, bpfmap_init, bpfmap_run);
