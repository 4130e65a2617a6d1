// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_stress: one BPF map variant (ksim/bpf.h, qptrie/) hammered by reader
 * threads doing what BPF programs do and writer threads doing what the
 * bpf(2) syscall and programs do.  One source, compiled once, one program
 * per variant (ksim_stress_variant, see qptrie/CMakeLists.txt): bpf_hash,
 * bpf_hash_noprealloc, bpf_lru_hash, bpf_percpu_hash,
 * bpf_percpu_hash_noprealloc, bpf_lru_percpu_hash, bpf_lpm_trie,
 * bpf_qp_trie_ref and, when KSRC has the posted series, bpf_qp_trie;
 * bpf_array and bpf_percpu_array (arraymap.c, below); the maps without
 * keys, bpf_queue, bpf_stack and bpf_bloom, in bpf_stress_keyless.c.
 *
 * Per-CPU maps hold one value per CPU; CPU c's copy is made of words
 * c * VWORDS .. (enc()'s index), so a copy written to or read from the
 * wrong CPU's place shows.  Writers update all copies from user space
 * (a program's update writes only its CPU's copy, which would leave
 * copies of different versions: not done here) and check every copy;
 * readers check the copy of the CPU they run on, judged as the hash maps'
 * (an update of a present key copies in place: a torn copy needs an
 * operation in flight).
 *
 * Keys and values.  NKEYS keys, generated from the seed (hash: 8 random
 * bytes; LPM: prefix length 8..32 and 4 data bytes with shared prefixes;
 * qp-trie: 1..16 bytes from a small alphabet, so keys share prefixes).  A
 * value is VWORDS 64-bit words; word i of key k at version v is
 * enc(k, v, i) = k << 48 | v << 16 | check(k, v, i): every word names its
 * key and version and is self-checking, so a torn value (words of two
 * writes), a value of another key, or memory that was never a value of this
 * map all show.
 *
 * Writers.  Key k belongs to writer k % W, the only thread that changes it,
 * so the writer keeps an exact model of its keys and checks every return
 * code (flags BPF_ANY/NOEXIST/EXIST, -ENOENT, -E2BIG/-ENOSPC only when the
 * map is near full, -ENOMEM only under fault injection, lock failures as
 * ksim_bpf_lock_error_ok() allows: --fault class=lock,...) and, after every
 * operation, the key's value (syscall lookup, a copy) against the model.
 * Operations: update and delete through the syscall driver and, a fifth of
 * the time, as a program (ksim_bpf_prog_update/delete under rcu_read_lock),
 * lookup_and_delete, lookup.  Per key it publishes version and op counters
 * (started before the operation, done after).  Writer w runs on CPU w
 * (hashtab's per-CPU map_locked counters assume one thread per CPU).
 *
 * Readers, as a BPF program: rcu_read_lock(); p = bpf_map_lookup_elem();
 * read the value through p; rcu_read_unlock().  What they may see depends
 * on what the kernel guarantees for the map:
 *
 * - tries (our qp-trie, the series, lpm_trie.c): a published value is never
 *   written again and its memory is reused only after a grace period, so
 *   the value must be untorn, of the looked-up key (LPM: of a key whose
 *   prefix covers the looked-up address), and of a version the key had
 *   during the section: done-version at section start <= v <= started-
 *   version at its end.  A free without RCU (the bpf_mem_alloc immediate-
 *   reuse hazard of the qp-trie cover letter) breaks this at once.
 * - kernel hash map (prealloc and BPF_F_NO_PREALLOC): an element is freed
 *   for immediate reuse (prealloc: pcpu_freelist / per-CPU extra_elems;
 *   no-prealloc: bpf_mem_cache_free, reused at once by design), so a program
 *   holding p can see the value change under it: another key's value, even
 *   a torn one.  What the kernel does guarantee: the element held key k when
 *   the lookup matched it, and it is freed only when k is deleted or
 *   replaced.  So: if the value is not an untorn in-window value of k, an
 *   operation on k must have been in flight or started during the section;
 *   and every word is still a well-formed word of some key and version that
 *   was written (the memory never leaves the map).
 * - LRU hash: elements are also evicted on other keys' updates, so only:
 *   every word well-formed, and an untorn value of k is in its window.
 * - arrays (arraymap.c): key k is index k; indices below max_entries are
 *   present from creation and never deleted (-EINVAL), the others never
 *   (update -E2BIG, lookup -ENOENT).  An update copies the value in place
 *   (no lock without BPF_F_LOCK), so every word must be of index k and of
 *   a version in its window, and a torn value needs an operation on k in
 *   flight or started during the section.  Setup checks every index reads
 *   zero, then writes version 1 everywhere, so readers never see zeroes.
 *
 * Readers also run bpf_for_each_map_elem() where the map has it (hash
 * maps: every key visited is ours and its words well-formed, the return is
 * the number of callbacks; no key is promised, see reader_for_each()).
 *
 * Readers also walk with get_next_key (1..8 steps from a key or from the
 * start): every key returned is one of ours; where the map promises the
 * successor of any key (our qp-trie: KSIM_BPF_KIND_SUCC_ANY) walks are
 * strictly increasing in its order even while writers run.  Maps whose
 * walk restarts at an absent key (hash, LPM, the series) may go back when a
 * writer deleted the key: no order is judged under writers there.  At the
 * end, with the writers stopped, the whole map is judged by the maps' one
 * model (qptrie/model.h: every key once, in order where promised; LRU: the
 * evicted keys dropped first) and every value is checked.
 *
 * Test-only mutants of our qp-trie (KSIM_QP_TRIE_REF_MUTANT, see
 * qptrie/qp_trie_ref.h): no-rcu frees without a grace period (the readers,
 * ASan and TSan must catch it); next-skip and next-repeat break its
 * get_next_key contract (the final walk must catch them).
 * stress/bpf_stress.cmake checks that they are caught.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <ksim/bpf.h>
#include <ksim/bpf_mem.h>
#include <ksim/fault.h>
#include <ksim/stress.h>
#include <qptrie/model.h>
#include <qptrie/qp_trie_ref.h>

#define NKEYS		1024
#define MAX_WRITERS	KSIM_NR_CPUS
#define VWORDS		8
#define KEYMAX		16
#define QP_MAXLEN	16
#define WALK_MAX	8
#define VALL		(VWORDS * KSIM_NR_CPUS)	/* a syscall value: per-CPU maps, every CPU's */

struct skey {
	/*
	 * 8-byte aligned, as a program's key variable of a u64-based type on
	 * its stack is, and as the syscall's kernel copy is: 7.x's RHASH
	 * map loads an 8-byte key as an unsigned long.
	 */
	u8 b[KEYMAX] __aligned(8);
	u32 len;
};

/* Published by the key's writer, read by readers (all atomic). */
struct kstate {
	u64 ver_started, ver_done;	/* versions: update started / last successful update done */
	u64 op_started, op_done;	/* any operation on the key */
	u64 del_started, del_done;	/* deletes (any kind, even failing) */
	u64 present;			/* per the model, after the last operation */
};

/* Writer-private model of one key. */
struct kmodel {
	bool present;
	u64 ver;
};

static const struct ksim_bpf_variant *V;
static struct bpf_map *map;
static struct skey keys[NKEYS];
static u32 order[NKEYS];		/* keys sorted by bytes (a prefix first) */
static struct kstate kst[NKEYS];
static struct kmodel model[NKEYS];
static int nr_writers;
static u32 max_entries;
static long present_total;		/* keys present per the models (atomic) */
static bool has_lookup_and_delete;
static u32 vcopies = 1;			/* per-CPU maps: one value per CPU */
static unsigned long reused_seen;	/* hash: reader saw another key's value (allowed) */

static bool is(unsigned int kind)
{
	return V->kind & kind;
}

static bool is_trie(void)
{
	return is(KSIM_BPF_KIND_DYNPTR) || is(KSIM_BPF_KIND_LPM);
}

/* ---- keys ---- */

static int key_cmp(const struct skey *a, const struct skey *b)
{
	return ksim_bpf_key_cmp(0, a->b, a->len, b->b, b->len);	/* bytes: an index only */
}

static int order_cmp(const void *x, const void *y)
{
	return key_cmp(&keys[*(const u32 *)x], &keys[*(const u32 *)y]);
}

/* The key id of @b, or -1 if it is not one of ours. */
static int find_key(const u8 *b, u32 len)
{
	struct skey k = { .len = len };
	int lo = 0, hi = NKEYS - 1;

	if (len > KEYMAX)
		return -1;
	memcpy(k.b, b, len);
	while (lo <= hi) {
		int mid = (lo + hi) / 2, c = key_cmp(&keys[order[mid]], &k);

		if (!c)
			return order[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

static void lpm_make(struct skey *k, u32 plen, u32 data)
{
	u32 be;

	if (plen < 32)
		data &= plen ? ~0U << (32 - plen) : 0;
	be = __builtin_bswap32(data);
	memcpy(k->b, &plen, 4);
	memcpy(k->b + 4, &be, 4);
	k->len = 8;
}

static u32 lpm_plen(const struct skey *k)
{
	return ksim_bpf_lpm_plen(k->b);
}

static u32 lpm_data(const struct skey *k)
{
	u32 be;

	memcpy(&be, k->b + 4, 4);
	return __builtin_bswap32(be);
}

/* Does key @j's prefix cover address @addr? */
static bool lpm_covers(const struct skey *j, u32 addr)
{
	struct skey a;

	lpm_make(&a, 32, addr);
	return ksim_bpf_lpm_covers(j->b, a.b);
}

static void gen_key(struct ksim_rng *r, struct skey *k)
{
	static const u8 alpha[] = { 0x00, 0x01, 0x10, 0x7f, 0x80, 0xfe, 0xff, 'a' };

	memset(k, 0, sizeof(*k));
	if (is(KSIM_BPF_KIND_DYNPTR)) {
		k->len = 1 + ksim_rng_below(r, QP_MAXLEN);
		for (u32 i = 0; i < k->len; i++)
			k->b[i] = alpha[ksim_rng_below(r, ARRAY_SIZE(alpha))];
	} else if (is(KSIM_BPF_KIND_LPM)) {
		/* few distinct high bits: many keys share prefixes */
		u32 data = (u32)ksim_rng_below(r, 4) << 30 | (u32)ksim_rng_below(r, 16) << 20 |
			   (u32)(ksim_rng_next(r) & 0xfffff);

		lpm_make(k, 8 + ksim_rng_below(r, 25), data);
	} else {
		u64 x = ksim_rng_next(r);

		memcpy(k->b, &x, 8);
		k->len = 8;
	}
}

static void make_keys(void)
{
	struct ksim_rng r;

	ksim_rng_seed(&r, ksim_seed() ^ 0x6b657973ULL);
	for (u32 i = 0; i < NKEYS; i++) {
		bool dup;

		if (is(KSIM_BPF_KIND_ARRAY)) {	/* key k is index k */
			memcpy(keys[i].b, &i, 4);
			keys[i].len = 4;
			order[i] = i;
			continue;
		}
		do {
			gen_key(&r, &keys[i]);
			dup = false;
			for (u32 j = 0; j < i && !dup; j++)
				dup = !key_cmp(&keys[i], &keys[j]);
		} while (dup);
		order[i] = i;
	}
	qsort(order, NKEYS, sizeof(order[0]), order_cmp);
}

/* ---- values ---- */

static u64 mix(u64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static u64 enc(u32 k, u64 v, u32 i)
{
	u64 w = (u64)k << 48 | (v & 0xffffffffULL) << 16;

	return w | (mix(w ^ ((u64)i << 8) ^ 0x5bd1e995) & 0xffff);
}

/* Word @i well-formed?  Then its key and version. */
static bool dec(u64 w, u32 i, u32 *k, u64 *v)
{
	*k = w >> 48;
	*v = (w >> 16) & 0xffffffffULL;
	return *k < NKEYS && enc(*k, *v, i) == w;
}

/* Per-CPU maps: CPU c's copy has words c * VWORDS.., so a copy in the wrong CPU's place shows. */
static void fill(u64 *val, u32 k, u64 v)
{
	for (u32 i = 0; i < vcopies * VWORDS; i++)
		val[i] = enc(k, v, i);
}

/* The first word index of the copy a program on this CPU sees. */
static u32 word_base(void)
{
	return vcopies > 1 ? (u32)smp_processor_id() * VWORDS : 0;
}

/*
 * Reading a value through the pointer a lookup returned, as a program does.
 * Two copies: TSan sees the kernel hash map's reads race with the reuse of
 * the element (intended: immediate reuse, see the header comment), and
 * shim/ksim/tsan.c suppresses exactly that function; the tries' values
 * must never race, so their readers use the other one.
 */
noinline void ksim_bpf_stress_read_value(const u64 *p, u64 *out);
noinline void ksim_bpf_stress_read_reused_value(const u64 *p, u64 *out, u32 n);

noinline void ksim_bpf_stress_read_value(const u64 *p, u64 *out)
{
	for (u32 i = 0; i < VWORDS; i++)
		out[i] = __atomic_load_n(&p[i], __ATOMIC_RELAXED);
}

noinline void ksim_bpf_stress_read_reused_value(const u64 *p, u64 *out, u32 n)
{
	for (u32 i = 0; i < n; i++)
		out[i] = __atomic_load_n(&p[i], __ATOMIC_RELAXED);
}

/* ---- writers ---- */

static bool full_error(int ret)
{
	return ret == ksim_bpf_full_error(V->kind);
}

/* Near full: other writers' operations in flight may hold the last slots. */
static bool near_full(void)
{
	return __atomic_load_n(&present_total, __ATOMIC_RELAXED) >= (long)max_entries - 2 * nr_writers;
}

/*
 * A lock failure in the writer's last command (ksim/bpf.h): with rqspinlock
 * (7.x) the command may fail with what the map promises for it, injected
 * (--fault class=lock,...) or real (a timeout or detected deadlock under
 * contention: -ETIMEDOUT/-EDEADLK); on 6.x every nested program must have
 * been refused with -EBUSY.
 */
static bool lock_errno(struct ksim_stress_thread *t, bool update, int ret)
{
	struct ksim_bpf_lockfail lf;

	ksim_bpf_last_lockfail(&lf);
	KSIM_STRESS_CHECK(t, !lf.nested_not_busy,
			  "a program re-entering the map returned %d, not -EBUSY", lf.nested_err);
	if (!ret)
		return false;
	if (lf.injected)
		return ksim_bpf_lock_error_ok(map, V->kind, update, ret);
	return KSIM_HAVE_RQSPINLOCK && (ret == -ETIMEDOUT || ret == -EDEADLK);
}

static bool fault_errno(int ret)
{
	return ret == -ENOMEM && ksim_fault_armed();
}

/* The key's state in the map against the model (syscall lookup: a copy). */
static void check_key(struct ksim_stress_thread *t, u32 k, const char *after)
{
	u64 val[VALL], want[VALL];
	size_t vbytes = vcopies * VWORDS * 8;
	struct kmodel *m = &model[k];
	int ret = ksim_bpf_map_lookup(map, keys[k].b, keys[k].len, val, 0);

	/*
	 * LRU: between the lookup and the copy, another writer's update can
	 * evict the element and reuse it for its key (the kernel's syscall
	 * copy has the same window): look again, the key is then gone.
	 */
	fill(want, k, m->ver);
	for (int i = 0; i < 8 && is(KSIM_BPF_KIND_LRU) && m->present && ret == 0 &&
	     memcmp(val, want, vbytes); i++)
		ret = ksim_bpf_map_lookup(map, keys[k].b, keys[k].len, val, 0);
	if (ret == -ENOENT && m->present && is(KSIM_BPF_KIND_LRU)) {
		m->present = false;	/* evicted by another key's update */
		__atomic_sub_fetch(&present_total, 1, __ATOMIC_RELAXED);
		ret = 0;
		goto out;
	}
	if (!m->present && ret == 0 && is(KSIM_BPF_KIND_LPM)) {
		/* longest-prefix match: another key's prefix may cover k */
		u32 gk;
		u64 gv;

		KSIM_STRESS_CHECK(t, dec(val[0], 0, &gk, &gv) && gk != k &&
				  lpm_plen(&keys[gk]) < lpm_plen(&keys[k]) &&
				  lpm_covers(&keys[gk], lpm_data(&keys[k])),
				  "after %s: absent LPM key %u: lookup found a value of key %u, no covering prefix",
				  after, k, gk);
		goto out;
	}
	if (!m->present) {
		KSIM_STRESS_CHECK(t, ret == -ENOENT, "after %s: key %u should be absent, lookup returned %d",
				  after, k, ret);
		goto out;
	}
	KSIM_STRESS_CHECK(t, ret == 0, "after %s: key %u (version %" PRIu64 ") missing: lookup returned %d",
			  after, k, m->ver, ret);
	if (ret)
		goto out;
	fill(want, k, m->ver);
	for (u32 c = 0; c < vcopies; c++) {
		u32 gk;
		u64 gv;
		bool ok;

		if (!memcmp(val + c * VWORDS, want + c * VWORDS, VWORDS * 8))
			continue;
		ok = dec(val[c * VWORDS], c * VWORDS, &gk, &gv);
		ksim_stress_fail(t, __FILE__, __LINE__,
				 "after %s: key %u should hold version %" PRIu64 ", map has %s key %u version %" PRIu64
				 " (CPU %u's copy)", after, k, m->ver, ok ? "" : "(garbage)", gk, gv, c);
		break;
	}
out:
	if (t)
		ksim_stress_checks(t, 1);
}

/* The maps without keys: their own producers, consumers and final check. */
#include "bpf_stress_keyless.c"

/* Arrays: an update returns exactly what the model says (ksim_bpf_update_expect()). */
static void array_update_done(struct ksim_stress_thread *t, u32 k, u64 f, u64 v, int ret, bool prog)
{
	int want = ksim_bpf_update_expect(V->kind, model[k].present, f, 0, max_entries);

	if (lock_errno(t, true, ret) || fault_errno(ret))
		return;
	if (ret != want) {
		ksim_stress_fail(t, __FILE__, __LINE__,
				 "%s update of index %u (max_entries %u) flags %" PRIu64 ": returned %d, want %d",
				 prog ? "program" : "syscall", k, max_entries, f, ret, want);
		return;
	}
	if (!ret) {
		model[k].ver = v;
		__atomic_store_n(&kst[k].ver_done, v, __ATOMIC_RELEASE);
	}
}

static void writer(struct ksim_stress_thread *t)
{
	int w = t->index;

	if (is(KSIM_BPF_KIND_KEYLESS)) {
		keyless_writer(t);
		return;
	}
	ksim_set_cpu(w);
	while (ksim_stress_running()) {
		u32 k = w + nr_writers * ksim_rng_below(&t->rng, NKEYS / nr_writers);
		struct kstate *s = &kst[k];
		struct kmodel *m = &model[k];
		unsigned int op = ksim_rng_below(&t->rng, 100);
		bool prog = ksim_rng_below(&t->rng, 5) == 0;
		bool lru = is(KSIM_BPF_KIND_LRU);
		u64 val[VALL];
		const char *what;
		int ret;

		__atomic_store_n(&s->op_started, s->op_started + 1, __ATOMIC_RELEASE);
		if (op >= 45 && op < 80)
			__atomic_store_n(&s->del_started, s->del_started + 1, __ATOMIC_RELEASE);
		if (op < 45) {
			static const u64 flags[] = { BPF_ANY, BPF_ANY, BPF_NOEXIST, BPF_EXIST };
			u64 f = flags[ksim_rng_below(&t->rng, 4)];
			u64 v = s->ver_started + 1;

			__atomic_store_n(&s->ver_started, v, __ATOMIC_RELEASE);
			fill(val, k, v);
			/* a program writes its own CPU's copy only: per-CPU maps update from user space */
			if (prog && vcopies == 1) {
				rcu_read_lock();
				ret = ksim_bpf_prog_update(map, keys[k].b, keys[k].len, val, f);
				rcu_read_unlock();
			} else {
				ret = ksim_bpf_map_update(map, keys[k].b, keys[k].len, val, f);
			}
			what = "update";
			if (is(KSIM_BPF_KIND_ARRAY)) {
				array_update_done(t, k, f, v, ret, prog);
			} else if (lock_errno(t, true, ret)) {
				/* refused: nothing changed (LRU: check_key sees evictions) */
			} else if (ret == 0 && (f != BPF_NOEXIST || !m->present || lru) &&
			    (f != BPF_EXIST || m->present)) {
				if (!m->present)
					__atomic_add_fetch(&present_total, 1, __ATOMIC_RELAXED);
				m->present = true;
				m->ver = v;
				__atomic_store_n(&s->ver_done, v, __ATOMIC_RELEASE);
			} else if (ret == -EEXIST && f == BPF_NOEXIST && m->present) {
			} else if (ret == -ENOENT && f == BPF_EXIST && (!m->present || lru)) {
				if (m->present) {	/* LRU: it was evicted */
					m->present = false;
					__atomic_sub_fetch(&present_total, 1, __ATOMIC_RELAXED);
				}
			} else if (!m->present && !lru && full_error(ret) && near_full()) {
			} else if (!fault_errno(ret)) {
				ksim_stress_fail(t, __FILE__, __LINE__,
						 "%s update key %u flags %" PRIu64 " (present %d, %ld keys of %u): returned %d",
						 prog ? "program" : "syscall", k, f, m->present,
						 __atomic_load_n(&present_total, __ATOMIC_RELAXED), max_entries, ret);
			}
		} else if (op < 80) {
			bool and_lookup = op >= 70 && has_lookup_and_delete;
			u64 want[VALL];

			if (and_lookup) {
				ret = ksim_bpf_map_lookup_and_delete(map, keys[k].b, keys[k].len, val, 0);
				what = "lookup_and_delete";
			} else if (prog) {
				rcu_read_lock();
				ret = ksim_bpf_prog_delete(map, keys[k].b, keys[k].len);
				rcu_read_unlock();
				what = "program delete";
			} else {
				ret = ksim_bpf_map_delete(map, keys[k].b, keys[k].len);
				what = "delete";
			}
			if (lock_errno(t, false, ret)) {
			} else if (is(KSIM_BPF_KIND_ARRAY)) {
				/* array_map_delete_elem(): nothing is ever deleted */
				KSIM_STRESS_CHECK(t, ret == -EINVAL || fault_errno(ret),
						  "%s of index %u returned %d", what, k, ret);
			} else if (ret == 0 && (m->present)) {
				if (and_lookup) {
					fill(want, k, m->ver);
					KSIM_STRESS_CHECK(t, !memcmp(val, want, vcopies * VWORDS * 8),
							  "lookup_and_delete of key %u: value is not version %" PRIu64,
							  k, m->ver);
				}
				m->present = false;
				__atomic_sub_fetch(&present_total, 1, __ATOMIC_RELAXED);
			} else if (ret == -ENOENT && (!m->present || lru)) {
				if (m->present) {
					m->present = false;
					__atomic_sub_fetch(&present_total, 1, __ATOMIC_RELAXED);
				}
			} else if (!fault_errno(ret)) {
				ksim_stress_fail(t, __FILE__, __LINE__, "%s of key %u (present %d) returned %d",
						 what, k, m->present, ret);
			}
		} else {
			what = "lookup";
		}
		check_key(t, k, what);
		__atomic_store_n(&s->present, m->present, __ATOMIC_RELEASE);
		if (op >= 45 && op < 80)
			__atomic_store_n(&s->del_done, s->del_done + 1, __ATOMIC_RELEASE);
		__atomic_store_n(&s->op_done, s->op_done + 1, __ATOMIC_RELEASE);
		ksim_stress_op(t);
	}
}

/* ---- readers ---- */

/*
 * Word @i of the value a program on this CPU reads: what is wrong with it,
 * or NULL and its key and version.  The map's memory only ever holds words
 * of values written to it.
 */
static const char *bad_word(u64 w, u32 i, u32 *k, u64 *v)
{
	if (!dec(w, word_base() + i, k, v))
		return "never a word of any value of this map";
	if (*v > __atomic_load_n(&kst[*k].ver_started, __ATOMIC_ACQUIRE))
		return "a word of a version never written";
	return NULL;
}

static void check_value(struct ksim_stress_thread *t, u32 k, u32 addr, const u64 *val,
			u64 ver_done0, u64 op_done0)
{
	const struct kstate *s = &kst[k];
	u64 ver_started1 = __atomic_load_n(&s->ver_started, __ATOMIC_ACQUIRE);
	u64 op_started1 = __atomic_load_n(&s->op_started, __ATOMIC_ACQUIRE);
	u32 k0 = 0, wk;
	u64 v0 = 0, wv;
	bool untorn = true;

	for (u32 i = 0; i < VWORDS; i++) {
		const char *bad = bad_word(val[i], i, &wk, &wv);

		if (bad) {
			ksim_stress_fail(t, __FILE__, __LINE__, "lookup of key %u: word %u of the value is %#"
					 PRIx64 ", %s", k, i, val[i], bad);
			return;
		}
		if (!i) {
			k0 = wk;
			v0 = wv;
		} else if (wk != k0 || wv != v0) {
			untorn = false;
		}
	}
	if (is(KSIM_BPF_KIND_LPM)) {
		KSIM_STRESS_CHECK(t, untorn && lpm_covers(&keys[k0], addr) &&
				  (k0 != k || (v0 >= ver_done0 && v0 <= ver_started1)),
				  "LPM lookup of %#x (key %u) found %s key %u (prefix /%u) version %" PRIu64
				  " (key %u versions %" PRIu64 "..%" PRIu64 " during the section)",
				  addr, k, untorn ? "" : "a TORN value starting with", k0, lpm_plen(&keys[k0]),
				  v0, k, ver_done0, ver_started1);
		return;
	}
	if (untorn && k0 == k && v0 >= ver_done0 && v0 <= ver_started1)
		return;
	if (is_trie()) {
		ksim_stress_fail(t, __FILE__, __LINE__,
				 "lookup of key %u found %s key %u version %" PRIu64
				 " (its versions during the section: %" PRIu64 "..%" PRIu64 ")",
				 k, untorn ? "" : "a TORN value starting with", k0, v0, ver_done0, ver_started1);
		return;
	}
	if (untorn && k0 == k) {
		ksim_stress_fail(t, __FILE__, __LINE__,
				 "lookup of key %u found its version %" PRIu64 " outside %" PRIu64 "..%" PRIu64,
				 k, v0, ver_done0, ver_started1);
		return;
	}
	/* kernel hash map: the element was reused (immediate reuse, allowed) */
	if (!is(KSIM_BPF_KIND_LRU))
		KSIM_STRESS_CHECK(t, op_started1 > op_done0,
				  "lookup of key %u: the element now holds %s key %u version %" PRIu64
				  ", yet no operation on key %u was in flight or started during the section",
				  k, untorn ? "" : "a torn value of", k0, v0, k);
	__atomic_add_fetch(&reused_seen, 1, __ATOMIC_RELAXED);
}

/*
 * Arrays: index k is found if and only if k < max_entries, whatever the
 * writers do.  The value is copied in place: every word is of index k and
 * of a version in its window, and a torn value needs an operation on k in
 * flight or started during the section.
 */
static void reader_array_lookup(struct ksim_stress_thread *t)
{
	u32 k = ksim_rng_below(&t->rng, NKEYS), wk;
	const struct kstate *s = &kst[k];
	u64 val[VWORDS], ver_done0, op_done0, ver_started1, wv, v0 = 0;
	bool untorn = true;
	u64 *p;

	rcu_read_lock();
	ver_done0 = __atomic_load_n(&s->ver_done, __ATOMIC_ACQUIRE);
	op_done0 = __atomic_load_n(&s->op_done, __ATOMIC_ACQUIRE);
	p = ksim_bpf_map_lookup_ptr(map, keys[k].b, keys[k].len);
	if (p)
		ksim_bpf_stress_read_reused_value(p, val, VWORDS);
	rcu_read_unlock();
	ksim_stress_checks(t, 1);
	if (!p != (k >= max_entries)) {
		ksim_stress_fail(t, __FILE__, __LINE__, "lookup of index %u (max_entries %u) found %s",
				 k, max_entries, p ? "a value" : "nothing");
		return;
	}
	if (!p)
		return;
	ver_started1 = __atomic_load_n(&s->ver_started, __ATOMIC_ACQUIRE);
	for (u32 i = 0; i < VWORDS; i++) {
		const char *bad = bad_word(val[i], i, &wk, &wv);

		if (!bad && wk != k)
			bad = "a word of another index";
		else if (!bad && (wv < ver_done0 || wv > ver_started1))
			bad = "a version outside the section's";
		if (bad) {
			ksim_stress_fail(t, __FILE__, __LINE__,
					 "lookup of index %u: word %u is %#" PRIx64 " (index %u version %" PRIu64
					 "), %s (versions %" PRIu64 "..%" PRIu64 " during the section)",
					 k, i, val[i], wk, wv, bad, ver_done0, ver_started1);
			return;
		}
		if (!i)
			v0 = wv;
		else if (wv != v0)
			untorn = false;
	}
	KSIM_STRESS_CHECK(t, untorn || __atomic_load_n(&s->op_started, __ATOMIC_ACQUIRE) > op_done0,
			  "lookup of index %u: a TORN value (word 0 version %" PRIu64
			  "), yet no operation on it was in flight or started during the section", k, v0);
}

static void reader_lookup(struct ksim_stress_thread *t)
{
	u32 k = ksim_rng_below(&t->rng, NKEYS), addr = 0;
	struct skey lk = keys[k];
	const struct kstate *s = &kst[k];
	u64 val[VWORDS], ver_done0, op_done0, del_done0, present0;
	u64 *p;

	if (is(KSIM_BPF_KIND_ARRAY)) {
		reader_array_lookup(t);
		return;
	}
	if (is(KSIM_BPF_KIND_LPM)) {
		/* a full-length address inside key k's prefix */
		u32 plen = lpm_plen(&keys[k]);

		addr = lpm_data(&keys[k]);
		if (plen < 32)
			addr |= (u32)ksim_rng_next(&t->rng) & (~0U >> plen);
		lpm_make(&lk, 32, addr);
	}
	rcu_read_lock();
	ver_done0 = __atomic_load_n(&s->ver_done, __ATOMIC_ACQUIRE);
	op_done0 = __atomic_load_n(&s->op_done, __ATOMIC_ACQUIRE);
	del_done0 = __atomic_load_n(&s->del_done, __ATOMIC_ACQUIRE);
	present0 = __atomic_load_n(&s->present, __ATOMIC_ACQUIRE);
	p = ksim_bpf_map_lookup_ptr(map, lk.b, lk.len);
	if (p) {
		if (is_trie())
			ksim_bpf_stress_read_value(p, val);
		else
			ksim_bpf_stress_read_reused_value(p, val, VWORDS);
	}
	rcu_read_unlock();
	/*
	 * Present when the section began and no delete started since: the
	 * lookup must find it (tries: a replace is one rcu_assign_pointer;
	 * LPM: the match is at least as long as the key).  LRU maps may
	 * evict it any time.  Kernel hash maps can miss it while it is being
	 * replaced, by design: the new element goes in at the bucket's head,
	 * but a reader already past the head whose next step was the old
	 * element skips it when it is unlinked (and with immediate reuse can
	 * also follow a reused element's stale ->next).  So for them: no
	 * operation at all on the key during the section, then it must be
	 * found (other keys' updates and deletes must never hide it).
	 */
	if (present0 && !p && !is_trie() &&
	    __atomic_load_n(&s->op_started, __ATOMIC_ACQUIRE) > op_done0)
		present0 = false;	/* allowed miss, see above */
	if (present0 && !is(KSIM_BPF_KIND_LRU) &&
	    __atomic_load_n(&s->del_started, __ATOMIC_ACQUIRE) == del_done0) {
		KSIM_STRESS_CHECK(t, p, "key %u was present during the whole section, lookup found nothing "
				  "(ops on it: %" PRIu64 " started, %" PRIu64 " done at start)",
				  k, __atomic_load_n(&s->op_started, __ATOMIC_RELAXED), op_done0);
		/* LPM: the longest match is k or a longer prefix */
		if (p && is(KSIM_BPF_KIND_LPM)) {
			u32 gk;
			u64 gv;

			KSIM_STRESS_CHECK(t, !dec(val[0], 0, &gk, &gv) ||
					  lpm_plen(&keys[gk]) >= lpm_plen(&keys[k]),
					  "LPM key %u (/%u) present during the section, lookup found shorter key %u (/%u)",
					  k, lpm_plen(&keys[k]), gk, lpm_plen(&keys[gk]));
		}
		ksim_stress_checks(t, 1);
	}
	if (p) {
		check_value(t, k, addr, val, ver_done0, op_done0);
		ksim_stress_checks(t, 1);
	}
}

static void reader_walk(struct ksim_stress_thread *t)
{
	u32 steps = 1 + ksim_rng_below(&t->rng, WALK_MAX), len = 0;
	struct skey cur = { .len = 0 }, next;
	bool from_start = ksim_rng_below(&t->rng, 4) == 0;
	int ret, j;

	if (!from_start) {
		cur = keys[ksim_rng_below(&t->rng, NKEYS)];
		len = cur.len;
	}
	for (u32 i = 0; i < steps; i++) {
		u32 nlen = is(KSIM_BPF_KIND_DYNPTR) ? map->map_extra : map->key_size;

		ret = ksim_bpf_map_get_next_key(map, len ? cur.b : NULL, len, next.b, &nlen);
		if (is(KSIM_BPF_KIND_ARRAY) && ret == -ENOENT) {
			u32 from = 0;

			memcpy(&from, cur.b, 4);
			KSIM_STRESS_CHECK(t, len && from == max_entries - 1,
					  "get_next_key(index %u) returned -ENOENT before the last index %u",
					  len ? from : 0, max_entries - 1);
		}
		if (ret == -ENOENT || fault_errno(ret))	/* LPM allocates its walk stack */
			return;
		KSIM_STRESS_CHECK(t, ret == 0, "get_next_key returned %d", ret);
		if (ret)
			return;
		next.len = nlen;
		j = find_key(next.b, nlen);
		KSIM_STRESS_CHECK(t, j >= 0, "get_next_key returned a key (%u bytes) that was never inserted",
				  nlen);
		/* arrays: the keys never change, the successor is exact (an index past the end: 0) */
		if (j >= 0 && is(KSIM_BPF_KIND_ARRAY)) {
			u32 from = 0, want = 0;

			if (len)
				memcpy(&from, cur.b, 4);
			if (len && from < max_entries)
				want = from + 1;
			KSIM_STRESS_CHECK(t, (u32)j == want && want < max_entries,
					  "get_next_key(index %u%s) returned index %d, want %u (max_entries %u)",
					  from, len ? "" : ": the first", j, want, max_entries);
		}
		if (j >= 0 && is(KSIM_BPF_KIND_SUCC_ANY) && len)
			KSIM_STRESS_CHECK(t, ksim_bpf_key_cmp(V->kind, next.b, nlen, cur.b, len) > 0,
					  "get_next_key went backwards (key %d after a larger key)", j);
		ksim_stress_checks(t, 1);
		if (j < 0)
			return;
		cur = next;
		len = nlen;
	}
}

struct for_each_ctx {
	struct ksim_stress_thread *t;
	u32 calls, stop;
	bool bad;
};

/* The program's callback: a key of ours, a value of well-formed words (elements are reused at once). */
static u64 reader_for_each_cb(u64 map_arg, u64 key_arg, u64 val_arg, u64 ctx_arg, u64 zero)
{
	struct for_each_ctx *c = (void *)(uintptr_t)ctx_arg;
	const u64 *p = (const u64 *)(uintptr_t)val_arg;
	u64 val[VWORDS], kw[KEYMAX / 8], wv;
	u32 wk;
	int j;

	c->calls++;
	/* the element may be reused under us, key included: read as the values are */
	if (is(KSIM_BPF_KIND_ARRAY))	/* a u32 on bpf_for_each_array_elem()'s stack */
		memcpy(kw, (const void *)(uintptr_t)key_arg, 4);
	else
		ksim_bpf_stress_read_reused_value((const u64 *)(uintptr_t)key_arg, kw, map->key_size / 8);
	j = find_key((const u8 *)kw, map->key_size);
	ksim_bpf_stress_read_reused_value(p, val, VWORDS);
	if ((struct bpf_map *)(uintptr_t)map_arg != map || zero || j < 0) {
		ksim_stress_fail(c->t, __FILE__, __LINE__, "for_each callback: map %s, key %s, fifth argument %llu",
				 (struct bpf_map *)(uintptr_t)map_arg == map ? "ours" : "NOT ours",
				 j < 0 ? "never inserted" : "ours", (unsigned long long)zero);
		c->bad = true;
		return 1;
	}
	if (is(KSIM_BPF_KIND_ARRAY) && (u32)j != c->calls - 1) {
		ksim_stress_fail(c->t, __FILE__, __LINE__, "for_each on an array: callback %u got index %d",
				 c->calls, j);
		c->bad = true;
		return 1;
	}
	for (u32 i = 0; i < VWORDS; i++) {
		const char *bad = bad_word(val[i], i, &wk, &wv);

		if (!bad && is(KSIM_BPF_KIND_ARRAY) && wk != (u32)j)
			bad = "a word of another index";	/* values are never moved */
		if (bad) {
			ksim_stress_fail(c->t, __FILE__, __LINE__, "for_each at key %d: word %u of the value is %#"
					 PRIx64 ", %s", j, i, val[i], bad);
			c->bad = true;
			return 1;
		}
	}
	return c->calls == c->stop;
}

/*
 * bpf_for_each_map_elem() as a program on this CPU while the writers run:
 * hash maps walk their buckets under RCU with no restart, so no key is
 * promised to be visited, but every one visited is ours with well-formed
 * words, and the return is the number of callbacks (up to the one that
 * stopped it).
 */
static void reader_for_each(struct ksim_stress_thread *t)
{
	struct for_each_ctx c = { .t = t, .stop = ksim_rng_below(&t->rng, 2) ? 0 : 1 + ksim_rng_below(&t->rng, 64) };
	long ret = ksim_bpf_prog_for_each(map, reader_for_each_cb, &c, 0);

	if (c.bad)
		return;
	KSIM_STRESS_CHECK(t, ret == (long)c.calls && (!c.stop || c.calls <= c.stop),
			  "for_each (stop after %u) = %ld after %u callbacks", c.stop, ret, c.calls);
	/* arrays: every index, in order, up to the stop */
	if (is(KSIM_BPF_KIND_ARRAY))
		KSIM_STRESS_CHECK(t, c.calls == (c.stop && c.stop < max_entries ? c.stop : max_entries),
				  "for_each on an array (stop after %u) visited %u of %u indices",
				  c.stop, c.calls, max_entries);
	ksim_stress_checks(t, 1);
}

static void reader(struct ksim_stress_thread *t)
{
	bool for_each = map->ops->map_for_each_callback != NULL;

	if (is(KSIM_BPF_KIND_KEYLESS)) {
		keyless_reader(t);
		return;
	}
	ksim_set_cpu(nr_writers + t->index);
	while (ksim_stress_running()) {
		u32 op = ksim_rng_below(&t->rng, 16);

		if (op < 12)
			reader_lookup(t);
		else if (op < 15 || !for_each)
			reader_walk(t);
		else
			reader_for_each(t);
		ksim_stress_op(t);
	}
}

/* ---- setup, final check ---- */

/*
 * Arrays: every index reads zero from creation (judged by the model), and
 * past the end nothing; then every index gets version 1, so that readers
 * only ever see words of values written.
 */
static void array_setup(void)
{
	struct ksim_bpf_model mm = { 0 };
	u64 val[VALL];
	const char *why = NULL;

	ksim_set_cpu(0);
	ksim_bpf_model_init(&mm, V, map, NKEYS);
	for (u32 k = 0; k < NKEYS && !why; k++) {
		int ret = ksim_bpf_map_lookup(map, keys[k].b, keys[k].len, val, 0);

		why = ksim_bpf_model_check_lookup(&mm, keys[k].b, keys[k].len, ret, val);
	}
	ksim_bpf_model_fini(&mm);
	if (why)
		ksim_stress_fail(NULL, __FILE__, __LINE__, "at creation: %s", why);
	for (u32 k = 0; k < max_entries; k++) {
		int ret;

		fill(val, k, 1);
		ret = ksim_bpf_map_update(map, keys[k].b, keys[k].len, val, BPF_ANY);
		if (ret)
			ksim_stress_fail(NULL, __FILE__, __LINE__, "first update of index %u = %d", k, ret);
		model[k].present = true;
		model[k].ver = 1;
		kst[k].ver_started = kst[k].ver_done = kst[k].present = 1;
	}
	ksim_set_cpu(-1);
}

static void setup(void)
{
	struct ksim_bpf_map_attr a = { .value_size = VWORDS * 8 };
	int err;

	V = ksim_bpf_variant_find(ksim_stress_variant);
	if (!V) {
		fprintf(stderr, "bpf_stress: map variant %s is not built in\n", ksim_stress_variant);
		exit(2);
	}
	nr_writers = ksim_stress_threads(1);
	if (nr_writers < 1 || nr_writers > MAX_WRITERS) {
		fprintf(stderr, "bpf_stress: 1..%d writers (one per simulated CPU)\n", MAX_WRITERS);
		exit(2);
	}
	if (!ksim_qp_trie_ref_mutant_env())
		exit(2);
	/*
	 * The kernel hash map reuses elements at once by design: checking mode
	 * would report that design (a program reading a freed element), so
	 * hash maps always run faithful.  The tries honour KSIM_BPF_MEM.
	 */
	if (!is_trie())
		ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);
	make_keys();
	max_entries = is(KSIM_BPF_KIND_LRU) ? NKEYS / 2 : NKEYS * 3 / 4;
	a.max_entries = max_entries;
	ksim_bpf_attr_set_key(&a, V, is(KSIM_BPF_KIND_ARRAY) ? 4 : 8, QP_MAXLEN);
	if (is(KSIM_BPF_KIND_KEYLESS))
		keyless_setup(&a);
	map = ksim_bpf_map_create(V, &a, &err);
	if (!map) {
		fprintf(stderr, "bpf_stress: creating %s failed: %d\n", V->name, err);
		exit(2);
	}
	has_lookup_and_delete = map->ops->map_lookup_and_delete_elem != NULL;
	if (is(KSIM_BPF_KIND_PERCPU))
		vcopies = nr_cpu_ids;
	if (is(KSIM_BPF_KIND_ARRAY))
		array_setup();
}

/* With the writers stopped: the map against the writers' models, by the maps' one model. */
static void teardown(void)
{
	struct ksim_bpf_model mm = { 0 };
	u64 val[VALL];
	const char *why;
	int err = -ENOENT;

	if (is(KSIM_BPF_KIND_KEYLESS)) {
		keyless_teardown();
		return;
	}
	ksim_set_cpu(0);
	ksim_bpf_model_init(&mm, V, map, NKEYS);
	for (u32 k = 0; k < NKEYS; k++) {
		if (!model[k].present)
			continue;
		fill(val, k, model[k].ver);
		ksim_bpf_model_put(&mm, keys[k].b, keys[k].len, val);
	}
	/* LRU: drop what other keys' updates evicted */
	why = is(KSIM_BPF_KIND_LRU) ? ksim_bpf_model_lru_reconcile(&mm, NULL, 0) : NULL;
	if (!why)
		why = ksim_bpf_model_walk(&mm, &err);
	if (why || err != -ENOENT)
		ksim_stress_fail(NULL, __FILE__, __LINE__, "final walk: %s (ended with %d)",
				 why ?: "", err);
	/* Quiescent now: every preallocated element in the map or back in its pool. */
	why = ksim_bpf_model_pool(&mm);
	if (why)
		ksim_stress_fail(NULL, __FILE__, __LINE__, "after the run: %s", why);
	for (u32 k = 0; k < NKEYS; k++) {
		model[k].present = ksim_bpf_model_find(&mm, keys[k].b, keys[k].len) >= 0;
		if (model[k].present)
			check_key(NULL, k, "the run");
	}
	if (ksim_verbose > 1 || reused_seen)
		fprintf(stderr, "# bpf %s: %u keys at the end; readers saw %lu reused elements (allowed)\n",
			V->name, mm.n, reused_seen);
	ksim_bpf_model_fini(&mm);
	ksim_bpf_map_free(map);
	ksim_set_cpu(-1);
}

/* The program's name: bpf_<variant>. */
static const char *program_name(void)
{
	static char name[64];

	snprintf(name, sizeof(name), "bpf_%s", ksim_stress_variant);
	return name;
}

KSIM_STRESS_READERS_WRITERS(program_name(),
	"BPF map (the program's name says which): readers look up values as BPF programs do (pointer under\n"
	"rcu_read_lock) and walk with get_next_key; writers update/delete their own keys and\n"
	"check every result against a model (see stress/bpf_stress.c for what is checked).")
