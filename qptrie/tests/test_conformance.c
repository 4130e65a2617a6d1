// SPDX-License-Identifier: GPL-2.0
/*
 * Conformance of every map variant (qptrie/variants.c: kernel hashtab.c
 * prealloc / BPF_F_NO_PREALLOC / LRU / per-CPU, lpm_trie.c, our reference
 * qp-trie, the qp-trie series when built) against a reference model,
 * driven only through the syscall-like driver (ksim/bpf.h), judged by the
 * maps' one reference model (qptrie/model.h):
 *
 * - random update (all four flag values, incl. an invalid one), delete,
 *   lookup, lookup_and_delete, get_next_key from random keys; every return
 *   code and every value compared with the model after every operation;
 * - the map filled to max_entries: -E2BIG (hash), -ENOSPC (tries), LRU
 *   evicts instead (model: map keys stay a subset, nothing vanishes on
 *   lookup/delete, the key just written is present);
 * - get_next_key by the variant's contract (hash: no order, an absent key
 *   restarts; LPM: postorder, an absent key restarts; our qp-trie: the byte
 *   order successor of any key; the series and its stand-in
 *   qp_trie_ref_restart: an absent key restarts), full walks (each key
 *   once, in order where promised) and walks that delete as they go;
 * - arrays (arraymap.c): every index present from creation with a zeroed
 *   value, updates past the end -E2BIG, BPF_NOEXIST -EEXIST, deletes
 *   -EINVAL (a program's too), get_next_key in index order (an index past
 *   the end restarts at 0, the last ends the walk);
 * - queues and stacks (queue_stack_maps.c): pushes, peeks and pops against
 *   the model's values in push order, full maps (-E2BIG; BPF_EXIST drops
 *   the oldest), the refused commands, then drained in order;
 * - bloom filters (bloom_filter.c): every value added found, others
 *   perhaps (fewer than half of them, as a sanity bound);
 * - create-time checks (bad sizes, flags).
 * Runs in both bpf_mem_alloc modes (faithful; checking by *_checking), and
 * with lock failures (*_lockfail: fault class lock, p=0.05): a command in
 * which a lock failed may return only what ksim_bpf_lock_error_ok() allows,
 * and then changes nothing (LRU: evictions aside) and leaves no
 * bpf_mem_alloc object behind; on 6.1/6.12 every nested program (ksim/bpf.h)
 * must be refused with -EBUSY.
 */
#include <linux/kernel.h>
#include <linux/jhash.h>
#include <ksim/bpf.h>
#include <ksim/bpf_mem.h>
#include <ksim/fault.h>
#include <ksim/test.h>
#include <qptrie/model.h>
#include <qptrie/qp_trie_ref.h>

#define KMAX	64
#define VMAX	KSIM_BPF_MODEL_VMAX
#define NMAX	512

static struct {
	const struct ksim_bpf_variant *v;
	struct bpf_map *map;
	struct ksim_bpf_model m;
	u32 ksize;
	/* key generation */
	u32 space;
	u32 maxlen;		/* dynptr keys */
} M;

/* A verdict of the model: a failure of this test where it is not NULL. */
#define JUDGE(why) do {							\
	const char *_w = (why);						\
	if (_w)								\
		ksim_test_fail(__FILE__, __LINE__, "model", "%s", _w);	\
} while (0)

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

/*
 * Updates with flags BPF_NOEXIST|BPF_EXIST (3), which must be refused, one
 * in 16; off for the vf_ tests, which check the rest of the per-CPU maps'
 * contract on trees where that refusal is a known finding
 * (bpf-percpu-update-flags: it would stop them early).
 */
static bool bad_flags = true;

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

/* LRU: drop model keys the map evicted; nothing else may change. */
static void lru_reconcile(const u8 *must_key, u32 must_len)
{
	if (is(KSIM_BPF_KIND_LRU))
		JUDGE(ksim_bpf_model_lru_reconcile(&M.m, must_key, must_len));
}

/* Full walk: every model key exactly once, nothing else, in order where promised. */
static void check_walk(void)
{
	int err;

	JUDGE(ksim_bpf_model_walk(&M.m, &err));
	KSIM_EXPECT_EQ(err, -ENOENT);
}

/*
 * An update's result against the model (an LRU may evict the very key it
 * updates: *@i becomes -1).  False: a lock was refused, nothing to check.
 */
static bool judge_update(const char *what, const u8 *key, u32 klen, u64 flags, int err, int *i,
			 unsigned long live0)
{
	int want;

	if (lock_refused(true, err, live0)) {
		lru_reconcile(NULL, klen);
		return false;
	}
	want = ksim_bpf_model_update_expect(&M.m, key, klen, flags);
	if (err != want && ksim_bpf_update_lru_self_evicted(M.v->kind, *i >= 0, flags, err)) {
		ksim_bpf_model_del(&M.m, *i);
		*i = -1;
		want = err;
	}
	if (err != want)
		ksim_test_fail(__FILE__, __LINE__, what, "flags %llu: got %d want %d (n %u)",
			       (unsigned long long)flags, err, want, M.m.n);
	return true;
}

/*
 * A program on this CPU using a per-CPU hash (htab_percpu_map_lookup_elem()
 * and htab_percpu_map_update_elem(), their LRU twins): a lookup returns this
 * CPU's value; an update writes this CPU's value only, and a new element's
 * other CPUs read zero (pcpu_init_value()).
 */
static void prog_percpu_op(struct ksim_rng *r, const u8 *key, u32 klen, int i, unsigned long live0)
{
	u32 vs = M.map->value_size;
	u64 flags = ksim_rng_below(r, 3);
	u8 val[VMAX], full[VMAX];
	int err, cpu;

	cpu = ksim_rng_below(r, nr_cpu_ids);
	ksim_set_cpu(cpu);	/* the program runs on a CPU of its own choosing */
	if (ksim_rng_below(r, 2)) {
		/* its own CPU's value, or bpf_map_lookup_percpu_elem() of any (or a bad) CPU */
		int which = ksim_rng_below(r, 2) ? -1 : (int)ksim_rng_below(r, nr_cpu_ids + 1);

		ksim_set_cpu(-1);
		JUDGE(ksim_bpf_model_prog_lookup(&M.m, key, klen, cpu, which));
		return;
	}
	rcu_read_lock();
	for (u32 b = 0; b < vs; b++)
		val[b] = (u8)ksim_rng_next(r);
	err = ksim_bpf_prog_update(M.map, key, klen, val, flags);
	rcu_read_unlock();
	ksim_set_cpu(-1);
	if (!judge_update("prog update", key, klen, flags, err, &i, live0))
		return;
	if (!err) {
		KSIM_EXPECT_EQ(ksim_bpf_map_lookup(M.map, key, klen, full, 0), 0);
		JUDGE(ksim_bpf_model_put_one_cpu(&M.m, key, klen, cpu, val, full));
	}
	lru_reconcile(err ? NULL : key, klen);
}

static void one_op(struct ksim_rng *r)
{
	u8 key[KMAX], val[VMAX], got[VMAX];
	u32 klen = gen_key(r, key);
	int i = ksim_bpf_model_find(&M.m, key, klen), err, want;
	unsigned int op = ksim_rng_below(r, 100);
	unsigned long live0 = mem_live();

	if (op < 45) {
		u64 flags = !bad_flags || ksim_rng_below(r, 16) ? ksim_rng_below(r, 3) : 3;

		gen_val(r, val);
		err = ksim_bpf_map_update(M.map, key, klen, val, flags);
		if (!judge_update("update", key, klen, flags, err, &i, live0))
			return;
		if (!err) {
			KSIM_ASSERT(M.m.n < NMAX || i >= 0);
			ksim_bpf_model_put(&M.m, key, klen, val);
		}
		lru_reconcile(err ? NULL : key, klen);
	} else if (op < 65) {
		err = ksim_bpf_map_delete(M.map, key, klen);
		if (lock_refused(false, err, live0))
			return;
		want = ksim_bpf_model_delete_expect(&M.m, key, klen);
		if (err != want)
			ksim_test_fail(__FILE__, __LINE__, "delete", "got %d want %d", err, want);
		if (!err && i >= 0)
			ksim_bpf_model_del(&M.m, i);
	} else if (op < 85 && op >= 81) {
		/* a program's lookup: a pointer to the element's value */
		JUDGE(ksim_bpf_model_prog_lookup(&M.m, key, klen, ksim_rng_below(r, nr_cpu_ids), -1));
	} else if (op < 85) {
		err = ksim_bpf_map_lookup(M.map, key, klen, got, 0);
		JUDGE(ksim_bpf_model_check_lookup(&M.m, key, klen, err, got));
		/* a bad flag is refused */
		KSIM_EXPECT_EQ(ksim_bpf_map_lookup(M.map, key, klen, got, 4), -EINVAL);
	} else if (op < 90 && is(KSIM_BPF_KIND_PERCPU) && ksim_rng_below(r, 2)) {
		prog_percpu_op(r, key, klen, i, live0);
	} else if (op < 90 && M.map->ops->map_lookup_and_delete_elem) {
		err = ksim_bpf_map_lookup_and_delete(M.map, key, klen, got, 0);
		if (lock_refused(false, err, live0))
			return;
		want = i >= 0 ? 0 : -ENOENT;
		if (err != want)
			ksim_test_fail(__FILE__, __LINE__, "lookup_and_delete", "got %d want %d", err, want);
		if (!err && i >= 0) {
			KSIM_EXPECT(ksim_bpf_value_eq(M.map, got, M.m.e[i].val),
				    "lookup_and_delete: wrong value");
			ksim_bpf_model_del(&M.m, i);
		}
	} else if (op < 97) {
		if (M.m.n && ksim_rng_below(r, 2)) {
			u32 j = ksim_rng_below(r, M.m.n);

			JUDGE(ksim_bpf_model_next_on_map(&M.m, M.m.e[j].key, M.m.e[j].klen));
		} else {
			JUDGE(ksim_bpf_model_next_on_map(&M.m, key, klen));
		}
	} else if (op < 98 || !M.map->ops->map_for_each_callback) {
		check_walk();
	} else if (op < 99) {
		/* bpf_for_each_map_elem(): sometimes stopped early, writing, deleting */
		u32 stop = ksim_rng_below(r, 3) ? 0 : ksim_rng_below(r, M.m.n + 2);
		u8 del = ksim_rng_below(r, 2) ? 0 : ksim_rng_next(r), wr = ksim_rng_next(r);
		u64 flags = ksim_rng_below(r, 16) ? 0 : 1;
		long ret;

		JUDGE(ksim_bpf_model_for_each(&M.m, ksim_rng_below(r, nr_cpu_ids), stop, del, wr,
					      flags, &ret));
	} else if (M.map->ops->iter_seq_info && ksim_rng_below(r, 2)) {
		/* a map element iterator read in chunks, its program asking for some elements again */
		JUDGE(ksim_bpf_model_iter(&M.m, 1 + ksim_rng_below(r, 8),
					  ksim_rng_below(r, 2) ? 0 : ksim_rng_next(r), &err));
	} else {
		/* a batch walk (hash maps); one in four deletes everything it returns */
		bool del = !ksim_rng_below(r, 4);

		JUDGE(ksim_bpf_model_batch_walk(&M.m, del, 1 + ksim_rng_below(r, 16), &err));
		if (err != -ENOTSUPP)
			KSIM_EXPECT_EQ(err, -ENOENT);
	}
}

/*
 * Walk, deleting about half the keys after stepping past them: every key
 * present at the start is seen once (the next key is asked for before the
 * delete, so no map restarts).
 */
static void walk_and_delete(struct ksim_rng *r)
{
	u8 cur[KMAX], next[KMAX];
	u32 clen, nlen = sizeof(next);
	struct ksim_bpf_model snap = { 0 };
	u8 seen[NMAX] = { 0 };
	u32 visited = 0, steps = 0;
	bool bad = false;
	/*
	 * RHASH: the deletes shrink the table between two calls (the deferred
	 * worker), and a walk across a resize may skip or repeat keys
	 * (rhashtable_next_key()): judged only while no resize ran.
	 */
	bool rhash = M.v->kind & KSIM_BPF_KIND_RHASH;
	unsigned long runs0 = ksim_work_runs();
	int err;

	ksim_bpf_model_init(&snap, M.v, M.map, NMAX);
	for (u32 i = 0; i < M.m.n; i++)
		ksim_bpf_model_put(&snap, M.m.e[i].key, M.m.e[i].klen, M.m.e[i].val);
	err = ksim_bpf_map_get_next_key(M.map, NULL, 0, cur, &nlen);
	clen = nlen;
	while (!err && steps++ < 4 * NMAX) {
		int s = ksim_bpf_model_find(&snap, cur, clen);

		/* (a break, not an ASSERT: the snapshot is freed below) */
		if (s < 0) {
			KSIM_EXPECT(0, "walk with deletes: unknown key");
			bad = true;
			break;
		}
		if (seen[s] && !(rhash && ksim_work_runs() != runs0)) {
			/* "twice": the words the next-repeat mutant tests look for */
			KSIM_EXPECT(0, "walk with deletes: a key returned twice (after %u keys)", visited);
			bad = true;
			break;
		}
		seen[s] = 1;
		visited++;
		nlen = sizeof(next);
		err = ksim_bpf_map_get_next_key(M.map, cur, clen, next, &nlen);
		if (!is(KSIM_BPF_KIND_ARRAY) && ksim_rng_below(r, 2) &&
		    ksim_bpf_model_find(&M.m, cur, clen) >= 0) {
			KSIM_EXPECT_EQ(ksim_bpf_map_delete(M.map, cur, clen), 0);
			ksim_bpf_model_del(&M.m, ksim_bpf_model_find(&M.m, cur, clen));
		}
		memcpy(cur, next, nlen);
		clen = nlen;
	}
	if (!bad && (!rhash || ksim_work_runs() == runs0)) {
		KSIM_EXPECT_EQ(err, -ENOENT);
		KSIM_EXPECT_EQ(visited, snap.n);
	}
	ksim_bpf_model_fini(&snap);
}

/*
 * After the run (refused commands, lock failures and all): emptied, a hash
 * map takes max_entries new keys again, one CPU after another, and refuses
 * the next with -E2BIG.  An element a refused update took and never gave
 * back shows here as an early -E2BIG, whatever the pool counts say.
 * LRU maps not: a pristine LRU map evicts before it is full (a CPU
 * refilling its local free list shrinks the lists when the global free
 * list is short, while other CPUs' local lists hold free nodes:
 * bpf_lru_list_pop_free_to_local(); 7.3.4, the same refill of 256 keys
 * from rotating CPUs after these runs: 182-252 of them left), so
 * ksim_bpf_model_pool() counts the nodes there instead.  Not the rhashtable map (its deletes shrink the
 * table from a deferred worker).
 */
static void check_capacity(void)
{
	static u8 key[KMAX], val[VMAX];
	u32 max = M.map->max_entries, klen = M.ksize, nlen, i;
	int err = 0;

	if (!is(KSIM_BPF_KIND_HASH) || is(KSIM_BPF_KIND_LRU) || is(KSIM_BPF_KIND_RHASH) ||
	    is(KSIM_BPF_KIND_DYNPTR) || klen < sizeof(i) || ksim_problem_count(KSIM_P_TEST))
		return;
	ksim_fault_suspend();	/* the run's refusals are what is judged, not new ones */
	for (i = 0; i < 4 * NMAX; i++) {
		nlen = sizeof(key);
		if (ksim_bpf_map_get_next_key(M.map, NULL, 0, key, &nlen))
			break;
		err = ksim_bpf_map_delete(M.map, key, nlen);
		KSIM_EXPECT(!err, "emptying the map: delete = %d", err);
		if (err)
			break;
	}
	ksim_bpf_model_fini(&M.m);
	ksim_bpf_model_init(&M.m, M.v, M.map, NMAX);
	memset(val, 0x5a, sizeof(val));
	for (i = 0; i <= max && !err; i++) {
		memset(key, 0, klen);
		memcpy(key, &i, sizeof(i));
		ksim_set_cpu(i % nr_cpu_ids);	/* each CPU's freelist (pcpu_freelist_pop() steals too) */
		err = ksim_bpf_map_update(M.map, key, klen, val, BPF_NOEXIST);
		ksim_set_cpu(-1);
		if (i < max)
			KSIM_EXPECT(!err, "%s emptied after the run: new key %u of max_entries %u refused with %d",
				    M.v->name, i + 1, max, err);
		else
			KSIM_EXPECT(err == -E2BIG, "%s refilled: key %u past max_entries %u: %d, not -E2BIG",
				    M.v->name, i + 1, max, err);
		if (!err)
			ksim_bpf_model_put(&M.m, key, klen, val);
	}
	JUDGE(ksim_bpf_model_pool(&M.m));
	ksim_fault_resume();
}

static void run_variant(const char *name, u32 ksize, u32 vsize, u32 max, u32 ops)
{
	const struct ksim_bpf_variant *v = ksim_bpf_variant_find(name);
	struct ksim_rng *r = ksim_test_rng();
	struct ksim_bpf_map_attr a = { 0 };
	int err;

	KSIM_ASSERT(v, "variant %s not built", name);
	KSIM_ASSERT(ksim_qp_trie_ref_mutant_env());
	memset(&M, 0, sizeof(M));
	M.v = v;
	M.maxlen = 6;	/* dynptr keys generated: 1..6 bytes of a map_extra KMAX */
	ksim_bpf_attr_set_key(&a, v, is(KSIM_BPF_KIND_LPM) ? 8 : ksize, KMAX);
	M.ksize = a.key_size;
	a.value_size = vsize;
	a.max_entries = max;
	M.space = max + max / 4;
	M.map = ksim_bpf_map_create(v, &a, &err);
	KSIM_ASSERT(M.map, "create %s: %d", name, err);
	ksim_bpf_model_init(&M.m, v, M.map, NMAX);
	for (u32 i = 0; i < ops; i++) {
		one_op(r);
		JUDGE(ksim_bpf_model_mem_usage(&M.m));
		JUDGE(ksim_bpf_model_pool(&M.m));
		if (ksim_problem_count(KSIM_P_TEST) > 5)
			break;
	}
	check_walk();
	ksim_fault_suspend();	/* its deletes must succeed */
	walk_and_delete(r);
	ksim_fault_resume();
	check_walk();
	/* fill up, then past the limit */
	for (u32 i = 0; i < 4 * max && ksim_problem_count(KSIM_P_TEST) <= 5; i++) {
		one_op(r);
		JUDGE(ksim_bpf_model_mem_usage(&M.m));
		JUDGE(ksim_bpf_model_pool(&M.m));
	}
	check_capacity();
	ksim_bpf_map_free(M.map);
	ksim_bpf_model_fini(&M.m);
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
	unsigned long failed = ksim_problem_count(KSIM_P_TEST);	\
									\
	lock_refusals = nested_runs = 0;				\
	ksim_fault_set(&cfg);						\
	run_variant(variant, ks, vs, max, ops);				\
	if (ksim_verbose > 1)						\
		printf("# %s: %lu lock failures injected, %lu commands refused, " \
		       "%lu nested programs\n", variant, ksim_fault_failures(), \
		       lock_refusals, nested_runs);			\
	/* a run a failure stopped early says nothing about what it reached */ \
	KSIM_EXPECT(ksim_problem_count(KSIM_P_TEST) != failed ||	\
		    !KSIM_HAVE_RQSPINLOCK || !(M.v->kind & KSIM_BPF_KIND_KERNEL) || \
		    lock_refusals > 0, "%s: no command was refused", variant); \
	KSIM_EXPECT(ksim_problem_count(KSIM_P_TEST) != failed ||	\
		    KSIM_HAVE_RQSPINLOCK || !(M.v->kind & KSIM_BPF_KIND_HASH) || \
		    nested_runs > 0, "%s: no nested program ran", variant); \
	ksim_fault_reset();						\
}

CONF_LOCKS(hash, "hash", 8, 16, 64, 4000)
CONF_LOCKS(hash_noprealloc, "hash_noprealloc", 8, 16, 64, 4000)
CONF_LOCKS(lru_hash, "lru_hash", 8, 16, 256, 4000)
CONF_LOCKS(lru_hash_nocommon, "lru_hash_nocommon", 8, 16, 256, 4000)
CONF_LOCKS(percpu_hash, "percpu_hash", 8, 12, 64, 3000)
CONF_LOCKS(percpu_hash_noprealloc, "percpu_hash_noprealloc", 8, 12, 64, 3000)
CONF_LOCKS(percpu_lru_hash, "lru_percpu_hash", 8, 12, 256, 3000)
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
CONF(percpu_lru_hash, "lru_percpu_hash", 8, 12, 256, 4000)
CONF(percpu_lru_hash_nocommon, "lru_percpu_hash_nocommon", 8, 12, 256, 4000)
/* the per-CPU maps without the known-refused flags (bad_flags above) */
#define CONF_VF(tname, variant, ks, vs, max, ops)			\
KSIM_TEST(vf_##tname)							\
{									\
	bad_flags = false;						\
	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);			\
	run_variant(variant, ks, vs, max, ops);				\
	bad_flags = true;						\
}
CONF_VF(percpu_hash, "percpu_hash", 8, 12, 64, 4000)
CONF_VF(percpu_hash_noprealloc, "percpu_hash_noprealloc", 8, 12, 64, 4000)
CONF_VF(percpu_lru_hash, "lru_percpu_hash", 8, 12, 256, 4000)
CONF_VF(percpu_lru_hash_nocommon, "lru_percpu_hash_nocommon", 8, 12, 256, 4000)
CONF(lpm_trie, "lpm_trie", 8, 16, 64, 6000)
CONF(qp_trie_ref, "qp_trie_ref", 0, 16, 128, 8000)
/* the series' shape (absent key restarts, BTF-typed key) on our qp-trie */
CONF(qp_trie_ref_restart, "qp_trie_ref_restart", 0, 16, 128, 8000)
#if KSIM_HAVE_QP_TRIE_SERIES
CONF(qp_trie_series, "qp_trie", 0, 16, 128, 8000)
#endif
#if KSIM_HAVE_BPF_RHASH
/* 7.x's rhashtable map: the long-key fast path (8 bytes) and jhash keys */
CONF(rhash_k8, "rhash", 8, 16, 64, 6000)
CONF(rhash_k13, "rhash", 13, 24, 100, 6000)
#endif
/* arraymap.c (no lock to fail: no _lockfail); values of 1 byte and of one not a multiple of 8 */
CONF(array, "array", 4, 16, 64, 4000)
CONF(array_v13, "array", 4, 13, 100, 4000)
CONF(array_v1, "array", 4, 1, 7, 2000)
/*
 * The per-CPU array without update flags 3 (vf_: in bpf/conformance):
 * 7.2 and 7.3's bpf_percpu_array_update() takes them as BPF_ANY, as the
 * per-CPU hashes do (bpf-percpu-update-flags); 6.x refuse them.
 */
CONF_VF(percpu_array, "percpu_array", 4, 12, 64, 3000)
CONF_VF(percpu_array_v5, "percpu_array", 4, 5, 33, 3000)

/*
 * Array update flags beyond 0..3: BPF_F_LOCK without a spin lock in the
 * value -EINVAL (array_map_update_elem(); the per-CPU array refuses it
 * outright), also with an index past the end; the error order of
 * BPF_NOEXIST past the end (-E2BIG first).
 */
KSIM_TEST(array_update_flags)
{
	static const char *const names[] = { "array", "percpu_array" };

	for (size_t n = 0; n < ARRAY_SIZE(names); n++) {
		const struct ksim_bpf_variant *v = ksim_bpf_variant_find(names[n]);
		struct ksim_bpf_map_attr a = { .key_size = 4, .value_size = 8, .max_entries = 4 };
		u8 val[VMAX] = { 1 }, got[VMAX];
		u32 in = 3, past = 4, next;
		struct bpf_map *map;
		int err;

		KSIM_ASSERT(v, "variant %s not built", names[n]);
		map = ksim_bpf_map_create(v, &a, &err);
		KSIM_ASSERT(map, "create %s: %d", names[n], err);
		KSIM_EXPECT_EQ(ksim_bpf_map_update(map, &in, 4, val, BPF_F_LOCK), -EINVAL);
		KSIM_EXPECT_EQ(ksim_bpf_map_update(map, &in, 4, val, BPF_F_LOCK | BPF_EXIST), -EINVAL);
		KSIM_EXPECT_EQ(ksim_bpf_map_update(map, &past, 4, val, BPF_F_LOCK), -EINVAL);
		KSIM_EXPECT_EQ(ksim_bpf_map_update(map, &past, 4, val, BPF_NOEXIST), -E2BIG);
		KSIM_EXPECT_EQ(ksim_bpf_map_update(map, &in, 4, val, BPF_NOEXIST), -EEXIST);
		KSIM_EXPECT_EQ(ksim_bpf_map_update(map, &in, 4, val, BPF_EXIST), 0);
		KSIM_EXPECT_EQ(ksim_bpf_map_lookup(map, &in, 4, got, 0), 0);
		KSIM_EXPECT(got[0] == 1, "%s: the value written with BPF_EXIST", names[n]);
		KSIM_EXPECT_EQ(ksim_bpf_map_lookup(map, &past, 4, got, 0), -ENOENT);
		KSIM_EXPECT_EQ(ksim_bpf_map_lookup_and_delete(map, &in, 4, got, 0), -ENOTSUPP);
		/* the last index ends the walk; past the end restarts */
		KSIM_EXPECT_EQ(ksim_bpf_map_get_next_key(map, &in, 4, &next, &(u32){ 4 }), -ENOENT);
		KSIM_EXPECT(!ksim_bpf_map_get_next_key(map, &past, 4, &next, &(u32){ 4 }) && next == 0,
			    "%s: get_next_key past the end", names[n]);
		ksim_bpf_map_free(map);
	}
}

/*
 * Maps without keys (queue_stack_maps.c): random pushes with every flag
 * value, peeks, pops, and the commands they refuse (delete, get_next_key,
 * a key given), each judged by the model; every value pushed is distinct,
 * so a pop from the wrong end names where it came from.  Drained at the
 * end: every element in order, then -ENOENT.
 */
static void run_keyless(const char *name, u32 vsize, u32 max, u32 ops)
{
	const struct ksim_bpf_variant *v = ksim_bpf_variant_find(name);
	struct ksim_rng *r = ksim_test_rng();
	struct ksim_bpf_map_attr a = { .value_size = vsize, .max_entries = max };
	u8 val[VMAX], got[VMAX], next[8];
	u32 pushed = 0, nlen, key = 0;
	int err;

	KSIM_ASSERT(v, "variant %s not built", name);
	memset(&M, 0, sizeof(M));
	M.v = v;
	M.map = ksim_bpf_map_create(v, &a, &err);
	KSIM_ASSERT(M.map, "create %s: %d", name, err);
	ksim_bpf_model_init(&M.m, v, M.map, NMAX);
	for (u32 i = 0; i < ops && ksim_problem_count(KSIM_P_TEST) <= 5; i++) {
		unsigned int op = ksim_rng_below(r, 100);

		if (op < 45) {
			u64 flags = ksim_rng_below(r, 8) ? ksim_rng_below(r, 3) :
				    ksim_rng_below(r, 2) ? 3 : BPF_F_LOCK;
			int want = ksim_bpf_model_update_expect(&M.m, NULL, 0, flags);

			memset(val, 0, vsize);
			memcpy(val, &pushed, min_t(u32, 4, vsize));
			val[vsize - 1] ^= (u8)(pushed >> 8);
			pushed++;
			err = ksim_bpf_map_update(M.map, NULL, 0, val, flags);
			if (err != want)
				ksim_test_fail(__FILE__, __LINE__, "push", "flags %llu: got %d want %d (n %u)",
					       (unsigned long long)flags, err, want, M.m.n);
			else if (!err)
				ksim_bpf_model_put(&M.m, NULL, 0, val);
		} else if (op < 65) {
			JUDGE(ksim_bpf_model_lookup_on_map(&M.m, NULL, 0));
		} else if (op < 90) {
			err = ksim_bpf_map_lookup_and_delete(M.map, NULL, 0, got, 0);
			JUDGE(ksim_bpf_model_check_pop(&M.m, err, got));
		} else if (op < 94) {
			KSIM_EXPECT_EQ(ksim_bpf_map_delete(M.map, NULL, 0),
				       ksim_bpf_model_delete_expect(&M.m, NULL, 0));
		} else if (op < 97) {
			JUDGE(ksim_bpf_model_next_on_map(&M.m, NULL, 0));
		} else {
			/* a key for a map without keys; a pop with flags */
			JUDGE(ksim_bpf_model_lookup_on_map(&M.m, (u8 *)&key, 4));
			KSIM_EXPECT_EQ(ksim_bpf_map_lookup_and_delete(M.map, NULL, 0, got, BPF_F_LOCK),
				       -EINVAL);
			nlen = sizeof(next);
			JUDGE(ksim_bpf_model_check_next(&M.m, (u8 *)&key, 4,
				ksim_bpf_map_get_next_key(M.map, &key, 4, next, &nlen), next, nlen));
		}
	}
	while (M.m.n && ksim_problem_count(KSIM_P_TEST) <= 5) {
		err = ksim_bpf_map_lookup_and_delete(M.map, NULL, 0, got, 0);
		JUDGE(ksim_bpf_model_check_pop(&M.m, err, got));
		if (err)
			break;
	}
	KSIM_EXPECT_EQ(ksim_bpf_map_lookup_and_delete(M.map, NULL, 0, got, 0), -ENOENT);
	KSIM_EXPECT_EQ(ksim_bpf_map_lookup(M.map, NULL, 0, got, 0), -ENOENT);
	ksim_bpf_map_free(M.map);
	ksim_bpf_model_fini(&M.m);
}

/* small maps fill up (-E2BIG, BPF_EXIST overwriting) */
KSIM_TEST(queue) { run_keyless("queue", 8, 16, 4000); }
KSIM_TEST(queue_v13) { run_keyless("queue", 13, 5, 2000); }
KSIM_TEST(queue_v1) { run_keyless("queue", 1, 64, 2000); }
KSIM_TEST(stack) { run_keyless("stack", 8, 16, 4000); }
KSIM_TEST(stack_v13) { run_keyless("stack", 13, 5, 2000); }
KSIM_TEST(stack_v1) { run_keyless("stack", 1, 64, 2000); }

/*
 * Bloom filters (bloom_filter.c): values from a space of @space, added
 * (BPF_ANY; other flags refused) and asked for; every value added must be
 * found after every step that could lose it (the model: the set added);
 * values not added may be found.  A sanity bound beyond the contract: with
 * no more values added than max_entries (the size the bit array is made
 * for), fewer than half the values not added may be found (a filter that
 * finds everything fails it).  @nr_hash: map_extra (0: the default 5).
 */
static void run_bloom(u32 vsize, u32 max, u32 space, u64 nr_hash, u32 ops)
{
	const struct ksim_bpf_variant *v = ksim_bpf_variant_find("bloom");
	struct ksim_rng *r = ksim_test_rng();
	struct ksim_bpf_map_attr a = { .value_size = vsize, .max_entries = max, .map_extra = nr_hash };
	unsigned long absent = 0, found = 0;
	u8 val[VMAX], next[8];
	u32 nlen;
	int err;

	KSIM_ASSERT(v, "variant bloom not built");
	memset(&M, 0, sizeof(M));
	M.v = v;
	M.map = ksim_bpf_map_create(v, &a, &err);
	KSIM_ASSERT(M.map, "create bloom v%u max %u: %d", vsize, max, err);
	ksim_bpf_model_init(&M.m, v, M.map, space);
	for (u32 i = 0; i < ops && ksim_problem_count(KSIM_P_TEST) <= 5; i++) {
		unsigned int op = ksim_rng_below(r, 100);
		u32 id = ksim_rng_below(r, space);

		memset(val, 0, vsize);
		for (u32 b = 0; b < vsize; b++)
			val[b] = (u8)((id >> (8 * (b % 4))) + b / 4 * 0x3b);
		if (op < 30 && M.m.n < max) {
			u64 flags = ksim_rng_below(r, 8) ? BPF_ANY : 1 + ksim_rng_below(r, 4);
			int want = ksim_bpf_model_update_expect(&M.m, NULL, 0, flags);

			err = ksim_bpf_map_update(M.map, NULL, 0, val, flags);
			if (err != want)
				ksim_test_fail(__FILE__, __LINE__, "push", "flags %llu: got %d want %d",
					       (unsigned long long)flags, err, want);
			else if (!err)
				ksim_bpf_model_put(&M.m, NULL, 0, val);
		} else if (op < 90) {
			bool added = ksim_bpf_model_find_value(&M.m, val) >= 0;

			err = ksim_bpf_map_lookup(M.map, NULL, 0, val, 0);
			JUDGE(ksim_bpf_model_check_lookup(&M.m, NULL, 0, err, val));
			absent += !added;
			found += !added && !err;
		} else if (op < 94) {
			KSIM_EXPECT_EQ(ksim_bpf_map_delete(M.map, NULL, 0),
				       ksim_bpf_model_delete_expect(&M.m, NULL, 0));
		} else if (op < 97) {
			JUDGE(ksim_bpf_model_check_pop(&M.m, ksim_bpf_map_lookup_and_delete(M.map, NULL, 0,
											val, 0), val));
		} else {
			nlen = sizeof(next);
			JUDGE(ksim_bpf_model_check_next(&M.m, NULL, 0,
				ksim_bpf_map_get_next_key(M.map, NULL, 0, next, &nlen), next, nlen));
		}
	}
	/* every value added, found at the end */
	for (u32 i = 0; i < M.m.n && ksim_problem_count(KSIM_P_TEST) <= 5; i++) {
		memcpy(val, M.m.e[i].val, vsize);
		JUDGE(ksim_bpf_model_check_lookup(&M.m, NULL, 0,
						  ksim_bpf_map_lookup(M.map, NULL, 0, val, 0), val));
	}
	if (ksim_verbose > 1)
		printf("# bloom v%u max %u hashes %llu: %u values added, %lu of %lu not added found\n",
		       vsize, max, (unsigned long long)nr_hash, M.m.n, found, absent);
	KSIM_EXPECT(absent > 100 && found < absent / 2,
		    "bloom: %lu of %lu values not added found (%u added, max_entries %u)", found,
		    absent, M.m.n, max);
	ksim_bpf_map_free(M.map);
	ksim_bpf_model_fini(&M.m);
}

/* jhash2 (value_size % 4 == 0) and jhash; the default 5 hash functions, 1, 3, 15 */
KSIM_TEST(bloom) { run_bloom(8, 100, 400, 0, 4000); }
KSIM_TEST(bloom_v13_h3) { run_bloom(13, 64, 300, 3, 3000); }
KSIM_TEST(bloom_v1_h3) { run_bloom(1, 40, 256, 3, 2000); }
/* one hash function: 256 bits for 100 values, about a third of them set */
KSIM_TEST(bloom_h1) { run_bloom(8, 100, 400, 1, 3000); }
KSIM_TEST(bloom_v4_h15) { run_bloom(4, 200, 500, 15, 4000); }

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
		/* array_map_alloc_check(): u32 keys, a value, at least one entry */
		{ "array", { .key_size = 8, .value_size = 8, .max_entries = 4 }, -EINVAL },
		{ "array", { .key_size = 4, .value_size = 0, .max_entries = 4 }, -EINVAL },
		{ "array", { .key_size = 4, .value_size = 8, .max_entries = 0 }, -EINVAL },
		{ "percpu_array", { .key_size = 4, .value_size = 8, .max_entries = 4,
				    .map_flags = BPF_F_MMAPABLE }, -EINVAL },
		/* queue_stack_map_alloc_check(): no key, a value, at least one entry */
		{ "queue", { .key_size = 4, .value_size = 8, .max_entries = 4 }, -EINVAL },
		{ "stack", { .key_size = 0, .value_size = 0, .max_entries = 4 }, -EINVAL },
		{ "stack", { .key_size = 0, .value_size = 8, .max_entries = 0 }, -EINVAL },
		/* bloom_map_alloc(): no key, a value, an entry, at most 15 hash functions */
		{ "bloom", { .key_size = 4, .value_size = 8, .max_entries = 4 }, -EINVAL },
		{ "bloom", { .key_size = 0, .value_size = 8, .max_entries = 4, .map_extra = 16 }, -EINVAL },
		{ "bloom", { .key_size = 0, .value_size = 8, .max_entries = 0 }, -EINVAL },
		{ "qp_trie_ref", { .key_size = 4, .value_size = 8, .max_entries = 4, .map_extra = 8 }, -EINVAL },
		{ "qp_trie_ref", { .key_size = 16, .value_size = 0, .max_entries = 4, .map_extra = 8 }, -EINVAL },
		/* the BTF-typed key shape refuses the v1 flag */
		{ "qp_trie_ref_restart", { .key_size = 16, .value_size = 8, .max_entries = 4, .map_extra = 8,
					   .map_flags = BPF_F_DYNPTR_KEY }, -EINVAL },
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

/*
 * Two keys whose 32-bit hashes are equal (found by brute force for
 * BPF_F_ZERO_SEED's hashrnd 0, 6-byte keys: jhash() in every tree) share a
 * bucket and a hash: the map must still tell them apart by their bytes.
 * Random keys never collide in full, so nothing else checks this.
 */
struct hk {
	u32 hash;
	u8 key[6];
};

static int hk_cmp(const void *a, const void *b)
{
	const struct hk *x = a, *y = b;

	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

static bool find_collision(u8 *a, u8 *b)
{
	const u32 n = 1u << 18;
	struct hk *t = calloc(n, sizeof(*t));
	bool found = false;

	for (u32 i = 0; i < n; i++) {
		u32 v = i * 2654435761u;

		memcpy(t[i].key, &v, 4);
		t[i].key[4] = (u8)i;
		t[i].key[5] = (u8)(i >> 8);
		t[i].hash = jhash(t[i].key, 6, 0);
	}
	qsort(t, n, sizeof(*t), hk_cmp);
	for (u32 i = 1; i < n && !found; i++)
		if (t[i].hash == t[i - 1].hash && memcmp(t[i].key, t[i - 1].key, 6)) {
			memcpy(a, t[i - 1].key, 6);
			memcpy(b, t[i].key, 6);
			found = true;
		}
	free(t);
	return found;
}

KSIM_TEST(hash_collisions)
{
	static const char *const variants[] = { "hash", "hash_noprealloc", "lru_hash", "lru_hash_nocommon" };
	u8 a[6], b[6], k[8], va[8] = "AAAAAAA", vb[8] = "BBBBBBB", got[8];
	u32 klen;

	KSIM_ASSERT(find_collision(a, b), "no two keys with one hash among 2^18");
	KSIM_ASSERT(jhash(a, 6, 0) == jhash(b, 6, 0));
	for (unsigned int v = 0; v < ARRAY_SIZE(variants); v++) {
		const struct ksim_bpf_variant *var = ksim_bpf_variant_find(variants[v]);
		struct ksim_bpf_map_attr at = { .key_size = 6, .value_size = 8, .max_entries = 16,
						.map_flags = BPF_F_ZERO_SEED };
		struct bpf_map *m;
		int err;

		KSIM_ASSERT(var, "variant %s", variants[v]);
		m = ksim_bpf_map_create(var, &at, &err);
		KSIM_ASSERT(m, "%s: create: %d", variants[v], err);
		KSIM_EXPECT_EQ(ksim_bpf_map_update(m, a, 6, va, BPF_ANY), 0);
		KSIM_EXPECT(ksim_bpf_map_lookup(m, b, 6, got, 0) == -ENOENT,
			    "%s: the colliding key found before it was stored", variants[v]);
		KSIM_EXPECT_EQ(ksim_bpf_map_update(m, b, 6, vb, BPF_EXIST), -ENOENT);
		KSIM_EXPECT_EQ(ksim_bpf_map_delete(m, b, 6), -ENOENT);
		KSIM_EXPECT_EQ(ksim_bpf_map_update(m, b, 6, vb, BPF_NOEXIST), 0);
		KSIM_EXPECT(!ksim_bpf_map_lookup(m, a, 6, got, 0) && !memcmp(got, va, 8), "%s: a", variants[v]);
		KSIM_EXPECT(!ksim_bpf_map_lookup(m, b, 6, got, 0) && !memcmp(got, vb, 8), "%s: b", variants[v]);
		KSIM_EXPECT_EQ(ksim_bpf_map_delete(m, a, 6), 0);
		KSIM_EXPECT(!ksim_bpf_map_lookup(m, b, 6, got, 0) && !memcmp(got, vb, 8),
			    "%s: b after deleting a", variants[v]);
		KSIM_EXPECT_EQ(ksim_bpf_map_lookup(m, a, 6, got, 0), -ENOENT);
		klen = sizeof(k);
		KSIM_EXPECT(!ksim_bpf_map_get_next_key(m, NULL, 0, k, &klen) && !memcmp(k, b, 6),
			    "%s: the walk", variants[v]);
		KSIM_EXPECT_EQ(ksim_bpf_map_get_next_key(m, b, 6, k, &klen), -ENOENT);
		KSIM_EXPECT(!ksim_bpf_map_lookup_and_delete(m, b, 6, got, 0) && !memcmp(got, vb, 8),
			    "%s: lookup_and_delete", variants[v]);
		ksim_bpf_map_free(m);
	}
}
