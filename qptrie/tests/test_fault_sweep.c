// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation-failure sweeps over the BPF maps (the shim's one fault engine,
 * ksim/fault.h).  Per map variant, a fixed sequence of operations (create,
 * updates with every flag, deletes, lookups, lookup_and_delete,
 * get_next_key, free) is first run with the engine counting: T eligible
 * allocations.  Then, for nth = 1..T, the sequence runs again with the nth
 * allocation failing.  Each run checks:
 *
 * - every return code against the maps' model (qptrie/model.h): -ENOMEM
 *   is accepted only from the call during which the failure was injected,
 *   and then the map must be unchanged (the key's lookup still matches the
 *   model); get_next_key by the variant's contract;
 * - after every operation, the key's value; at the end, a full
 *   get_next_key walk equals the model (LRU: after dropping the keys the
 *   map evicted, which only updates may do);
 * - after every operation, the preallocated pool is conserved
 *   (ksim_bpf_model_pool()); at the end, a preallocated hash map emptied
 *   takes max_entries new keys (refill());
 * - after the map is freed and RCU callbacks ran, no object is left
 *   (error paths that forget a free show as a leak with its nth).
 *
 * Lock-failure sweeps (fault class lock) run the same sequence with the nth
 * failable lock acquisition failing instead: res_spin_lock() on trees with
 * rqspinlock (the command may return only what ksim_bpf_lock_error_ok()
 * allows, with the map unchanged, and no bpf_mem_alloc object may stay
 * live from a refused command); on 6.1/6.12 the nested program at
 * htab_lock_bucket (ksim/bpf.h), which the kernel must refuse with -EBUSY
 * while the command itself succeeds as modelled.  Variants without such
 * sites on a tree (6.x tries) have nothing to sweep.
 *
 * Queues and stacks (no keys) run pushes, peeks and pops instead, a peek
 * judged after each, and are drained in the model's order at the end.
 *
 * The sequences are fixed (seeded from the variant's name, not the run
 * seed): the sweep is exhaustive and replays identically.
 */
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/random.h>
#include <ksim/bpf.h>
#include <ksim/bpf_mem.h>
#include <ksim/fault.h>
#include <ksim/slab.h>
#include <ksim/test.h>
#include <qptrie/model.h>

#define NK	40		/* key space */
#define MAXE	24		/* max_entries: the space overfills the map */
#define VS	16
#define NOPS	300
#define KLEN_MAX 8

static const struct ksim_bpf_variant *V;
static unsigned int sweep_class;	/* KSIM_FAULT_ALLOC or KSIM_FAULT_LOCK */
static unsigned long nested_total;	/* nested programs run (6.x lock sweeps) */

static bool is(unsigned int kind)
{
	return V->kind & kind;
}

/* Key @k's bytes: 8-byte hash keys, LPM /32 keys, 1..8-byte qp-trie keys, array indexes. */
static u32 key_of(u32 k, u8 *b)
{
	if (is(KSIM_BPF_KIND_DYNPTR)) {
		u32 len = 1 + k % KLEN_MAX;

		for (u32 i = 0; i < len; i++)
			b[i] = "ab\x00\xff"[(k >> i) & 3] + (i == len - 1 ? (u8)(k / 4) : 0);
		return len;
	}
	if (is(KSIM_BPF_KIND_LPM)) {
		u32 plen = 32, data = __builtin_bswap32(0x0a000000 | k << 4);

		memcpy(b, &plen, 4);
		memcpy(b + 4, &data, 4);
		return 8;
	}
	if (is(KSIM_BPF_KIND_ARRAY)) {	/* k >= MAXE: past the end */
		memcpy(b, &k, 4);
		return 4;
	}
	memset(b, 0, 8);
	b[0] = (u8)k;
	b[5] = 0x5a;
	return 8;
}

static bool injected_since(unsigned long *seen)
{
	unsigned long f = ksim_fault_failures();
	bool ret = f != *seen;

	*seen = f;
	return ret;
}

/*
 * After a command: a lock failure in it (class lock) that explains @ret.
 * Nested programs (6.x) must have been refused with -EBUSY; a command that
 * failed because of an injected lock failure must not leave bpf_mem_alloc
 * objects behind (@live0: requested bytes live before it).
 */
static bool lock_refused(struct bpf_map *m, bool update, int ret, unsigned long live0,
			 unsigned long nth, int step)
{
	struct ksim_bpf_lockfail lf;
	unsigned long kmalloced, live;

	ksim_bpf_last_lockfail(&lf);
	nested_total += lf.nested;
	if (lf.nested_not_busy)
		ksim_test_fail(__FILE__, __LINE__, "nested program refused",
			       "%s nth=%lu step %d: the re-entering delete returned %d, not -EBUSY",
			       V->name, nth, step, lf.nested_err);
	if (!lf.injected || !ret || !ksim_bpf_lock_error_ok(m, V->kind, update, ret))
		return false;
	ksim_bpf_mem_totals(&kmalloced, &live);
	if (live != live0)
		ksim_test_fail(__FILE__, __LINE__, "no leak after a refused command",
			       "%s nth=%lu step %d: %ld bpf_mem bytes left live by a command refused with %d",
			       V->name, nth, step, (long)(live - live0), ret);
	return true;
}

/* The key's state against the model; LRU: it may have been evicted. */
static bool check_key(struct bpf_map *m, struct ksim_bpf_model *M, u32 k, unsigned long nth, int step)
{
	u8 kb[KLEN_MAX], val[KSIM_BPF_MODEL_VMAX];
	u32 len = key_of(k, kb);
	int ret = ksim_bpf_map_lookup(m, kb, len, val, 0), i = ksim_bpf_model_find(M, kb, len);
	const char *why;

	if (ret == -ENOENT && i >= 0 && is(KSIM_BPF_KIND_LRU)) {
		ksim_bpf_model_del(M, i);
		return true;
	}
	why = ksim_bpf_model_check_lookup(M, kb, len, ret, val);
	if (why)
		ksim_test_fail(__FILE__, __LINE__, "map == model", "%s nth=%lu step %d: key %u: %s",
			       V->name, nth, step, k, why);
	return !why;
}

/* LRU maps: forget the keys the map evicted (before judging a walk). */
static bool lru_reconcile(struct ksim_bpf_model *M, unsigned long nth, int step)
{
	const char *why = is(KSIM_BPF_KIND_LRU) ? ksim_bpf_model_lru_reconcile(M, NULL, 0) : NULL;

	if (why)
		ksim_test_fail(__FILE__, __LINE__, "LRU", "%s nth=%lu step %d: %s", V->name, nth, step, why);
	return !why;
}

/*
 * After the run's refused and failed commands, a preallocated hash map
 * still holds max_entries keys: emptied, it takes MAXE new ones, each
 * update 0 (an element a refused update kept from the pool shows here as
 * -E2BIG before the map is full).  No failures injected meanwhile.  LRU
 * maps may evict before they are full (a CPU's local free list can be empty
 * while others' are not): the pool check judges them (ksim_bpf_model_pool()).
 */
static const char *refill(struct bpf_map *m, struct ksim_bpf_model *M, unsigned long nth)
{
	u8 kb[KLEN_MAX], val[VS] = { 0 };
	const char *why = NULL;
	int ret;

	if (!is(KSIM_BPF_KIND_HASH) || is(KSIM_BPF_KIND_LRU) || !is(KSIM_BPF_KIND_KERNEL) ||
	    (m->map_flags & BPF_F_NO_PREALLOC))
		return NULL;
	ksim_fault_suspend();
	while (M->n) {
		ret = ksim_bpf_map_delete(m, M->e[0].key, M->e[0].klen);
		if (ret) {
			why = "";
			ksim_test_fail(__FILE__, __LINE__, "refill", "%s nth=%lu: delete of a present key = %d",
				       V->name, nth, ret);
			break;
		}
		ksim_bpf_model_del(M, 0);
	}
	for (u32 k = 0; !why && k < MAXE; k++) {
		u32 len = key_of(k, kb);

		ret = ksim_bpf_map_update(m, kb, len, val, BPF_NOEXIST);
		if (ret) {
			why = "";
			ksim_test_fail(__FILE__, __LINE__, "refill",
				       "%s nth=%lu: emptied, the map refused key %u of %u: %d", V->name, nth,
				       k + 1, MAXE, ret);
		} else {
			ksim_bpf_model_put(M, kb, len, val);
		}
	}
	if (!why && (why = ksim_bpf_model_pool(M)))
		ksim_test_fail(__FILE__, __LINE__, "refill", "%s nth=%lu: %s", V->name, nth, why);
	ksim_fault_resume();
	return why;
}

/*
 * A step on a map without keys (queue, stack): a push with any flags, a
 * peek, a pop, or a refused delete / get_next_key, then a peek judged.
 * False after a mismatch.
 */
static bool keyless_step(struct bpf_map *m, struct ksim_bpf_model *M, struct ksim_rng *rng,
			 unsigned long nth, int step, unsigned long *seen)
{
	u32 op = ksim_rng_below(rng, 100), nlen = 8;
	u8 val[KSIM_BPF_MODEL_VMAX], nb[8];
	const char *why = NULL;
	unsigned long kmalloced, live0;
	int ret, expect = 0;

	ksim_bpf_mem_totals(&kmalloced, &live0);
	/* pushes outnumber pops: the map fills up (-E2BIG; BPF_EXIST drops the oldest) */
	if (op < 55) {
		static const u64 flags[] = { BPF_ANY, BPF_ANY, BPF_EXIST, BPF_EXIST, BPF_NOEXIST, 3 };
		u64 f = flags[ksim_rng_below(rng, ARRAY_SIZE(flags))];

		memset(val, 0, VS);
		memcpy(val, &step, sizeof(step));
		expect = ksim_bpf_model_update_expect(M, NULL, 0, f);
		ret = ksim_bpf_map_update(m, NULL, 0, val, f);
		if (ret == -ENOMEM && injected_since(seen))
			;
		else if (lock_refused(m, true, ret, live0, nth, step))
			;	/* 7.x: -EBUSY, nothing pushed */
		else if (ret != expect)
			why = "push";
		else if (!ret)
			ksim_bpf_model_put(M, NULL, 0, val);
	} else if (op < 70) {
		/* a bloom filter is asked for a value: one added, or one perhaps not */
		memset(val, 0, VS);
		if (M->n && ksim_rng_below(rng, 2))
			memcpy(val, M->e[ksim_rng_below(rng, M->n)].val, VS);
		else
			val[5] = (u8)ksim_rng_next(rng);
		ret = ksim_bpf_map_lookup(m, NULL, 0, val, 0);
		if (!lock_refused(m, false, ret, live0, nth, step))
			why = ksim_bpf_model_check_lookup(M, NULL, 0, ret, val);
	} else if (op < 90) {
		ret = ksim_bpf_map_lookup_and_delete(m, NULL, 0, val, 0);
		if (!lock_refused(m, false, ret, live0, nth, step))
			why = ksim_bpf_model_check_pop(M, ret, val);
	} else if (op < 95) {
		ret = ksim_bpf_map_delete(m, NULL, 0);
		expect = ksim_bpf_model_delete_expect(M, NULL, 0);
		if (ret != expect)
			why = "delete";
	} else {
		ret = ksim_bpf_map_get_next_key(m, NULL, 0, nb, &nlen);
		why = ksim_bpf_model_check_next(M, NULL, 0, ret, nb, nlen);
	}
	if (!why) {
		/* a peek (bloom: the newest value added is found) */
		if (M->n)
			memcpy(val, M->e[M->n - 1].val, VS);
		ret = ksim_bpf_map_lookup(m, NULL, 0, val, 0);
		if (!lock_refused(m, false, ret, live0, nth, step))
			why = ksim_bpf_model_check_lookup(M, NULL, 0, ret, val);
	}
	if (why)
		ksim_test_fail(__FILE__, __LINE__, "map == model", "%s nth=%lu step %d op %u: %s (%d, model %d)",
			       V->name, nth, step, op, why, ret, expect);
	return !why;
}

/*
 * One run of the fixed sequence.  Returns false after the first mismatch
 * (the rest of the run would only repeat it).
 */
static bool run(unsigned long nth)
{
	struct ksim_bpf_map_attr a = { .value_size = VS, .max_entries = MAXE };
	struct ksim_bpf_model M = { 0 };
	struct ksim_rng rng;
	unsigned long seen = ksim_fault_failures();
	struct bpf_map *m;
	u8 kb[KLEN_MAX], nb[KLEN_MAX + 8], val[KSIM_BPF_MODEL_VMAX];
	const char *why = NULL;
	int err, ret;
	u32 h = 0;

	for (const char *p = V->name; *p; p++)
		h = h * 31 + *p;
	ksim_rng_seed(&rng, h);
	ksim_random_reseed(h);	/* same hash seeds: same buckets, same lock sites */
	ksim_bpf_attr_set_key(&a, V, is(KSIM_BPF_KIND_ARRAY) ? 4 : is(KSIM_BPF_KIND_KEYLESS) ? 0 : 8,
			      KLEN_MAX);
	m = ksim_bpf_map_create(V, &a, &err);
	if (!m) {
		if (err == -ENOMEM && injected_since(&seen))
			return true;
		ksim_test_fail(__FILE__, __LINE__, "create", "%s nth=%lu: create failed with %d", V->name, nth, err);
		return false;
	}
	ksim_bpf_model_init(&M, V, m, is(KSIM_BPF_KIND_BLOOM) ? NOPS : NK);	/* bloom: every value pushed */
	for (int step = 0; step < NOPS; step++) {
		u32 k = ksim_rng_below(&rng, NK), len = key_of(k, kb);
		u32 op = ksim_rng_below(&rng, 100);
		int i = ksim_bpf_model_find(&M, kb, len);
		unsigned long kmalloced, live0;
		bool ok = true;
		int expect;

		if (is(KSIM_BPF_KIND_KEYLESS)) {
			if (!keyless_step(m, &M, &rng, nth, step, &seen)) {
				why = "";
				break;
			}
			continue;
		}
		if (is(KSIM_BPF_KIND_LRU)) {	/* refresh: the LRU may have evicted it */
			check_key(m, &M, k, nth, step);
			i = ksim_bpf_model_find(&M, kb, len);
		}
		ksim_bpf_mem_totals(&kmalloced, &live0);
		if (op < 50) {
			static const u64 flags[] = { BPF_ANY, BPF_ANY, BPF_NOEXIST, BPF_EXIST };
			u64 f = flags[ksim_rng_below(&rng, 4)];

			for (u32 b = 0; b < M.vsize; b++)	/* per-CPU: every CPU's */
				val[b] = (u8)(step * 7 + b + k);
			expect = ksim_bpf_model_update_expect(&M, kb, len, f);
			ret = ksim_bpf_map_update(m, kb, len, val, f);
			if (lock_refused(m, true, ret, live0, nth, step)) {
			} else if (ret == -ENOMEM && injected_since(&seen)) {
			} else if (ret == expect) {
				if (!ret)
					ksim_bpf_model_put(&M, kb, len, val);
			} else if (ksim_bpf_update_lru_self_evicted(V->kind, i >= 0, f, ret)) {
				if (ret)
					ksim_bpf_model_del(&M, i);
				else
					ksim_bpf_model_put(&M, kb, len, val);
			} else {
				ok = false;
			}
		} else if (op < 75 || (op < 80 && !m->ops->map_lookup_and_delete_elem)) {
			ret = ksim_bpf_map_delete(m, kb, len);
			expect = ksim_bpf_model_delete_expect(&M, kb, len);
			if (lock_refused(m, false, ret, live0, nth, step)) {
			} else if (ret == -ENOMEM && injected_since(&seen)) {
			} else if (ret == expect) {
				if (!ret && i >= 0)
					ksim_bpf_model_del(&M, i);
			} else {
				ok = false;
			}
		} else if (op < 80) {
			ret = ksim_bpf_map_lookup_and_delete(m, kb, len, val, 0);
			expect = i >= 0 ? 0 : -ENOENT;
			if (lock_refused(m, false, ret, live0, nth, step)) {
			} else if (ret == -ENOMEM && injected_since(&seen)) {
			} else if (ret == expect && (ret || !memcmp(val, M.e[i].val, VS))) {
				if (i >= 0)
					ksim_bpf_model_del(&M, i);
			} else {
				ok = false;
			}
		} else if (op < 90) {
			u32 nlen = sizeof(nb);
			const u8 *from = ksim_rng_below(&rng, 3) ? kb : NULL;

			if (!lru_reconcile(&M, nth, step))
				break;
			ret = ksim_bpf_map_get_next_key(m, from, len, nb, &nlen);
			expect = 0;
			if (!(ret == -ENOMEM && injected_since(&seen)))
				why = ksim_bpf_model_check_next(&M, from, len, ret, nb, nlen);
			if (why) {
				ksim_test_fail(__FILE__, __LINE__, "get_next_key", "%s nth=%lu step %d: %s",
					       V->name, nth, step, why);
				break;
			}
		} else {
			ret = 0;
			expect = 0;
		}
		if (!ok) {
			ksim_test_fail(__FILE__, __LINE__, "ret == expect",
				       "%s nth=%lu step %d op %u key %u: returned %d, model expects %d",
				       V->name, nth, step, op, k, ret, expect);
			why = "";
			break;
		}
		if (!check_key(m, &M, k, nth, step)) {
			why = "";
			break;
		}
		/*
		 * The element count behind the memory estimate follows the
		 * model, failures included (LRU maps preallocate: a constant,
		 * whatever they evicted).
		 */
		why = ksim_bpf_model_mem_usage(&M);
		if (why) {
			ksim_test_fail(__FILE__, __LINE__, "mem_usage", "%s nth=%lu step %d: %s", V->name, nth,
				       step, why);
			break;
		}
		/* An element a refused update took from the pool went back. */
		why = ksim_bpf_model_pool(&M);
		if (why) {
			ksim_test_fail(__FILE__, __LINE__, "pool", "%s nth=%lu step %d: %s", V->name, nth,
				       step, why);
			break;
		}
		/*
		 * Objects freed with bpf_mem_cache_free_rcu() (7.x lpm_trie)
		 * return to the cache when their grace period ends, on the RCU
		 * worker's time: without this the next refill's allocations
		 * (which the engine counts) would depend on timing.  Only the
		 * LPM trie does that, and the barrier costs a grace period.
		 */
		if (is(KSIM_BPF_KIND_LPM))
			rcu_barrier();
	}
	/* bloom filters: every value added is found */
	for (u32 i = 0; !why && is(KSIM_BPF_KIND_BLOOM) && i < M.n; i++) {
		memcpy(val, M.e[i].val, VS);
		ret = ksim_bpf_map_lookup(m, NULL, 0, val, 0);
		why = ksim_bpf_model_check_lookup(&M, NULL, 0, ret, val);
		if (why)
			ksim_test_fail(__FILE__, __LINE__, "found", "%s nth=%lu: %s", V->name, nth, why);
	}
	/* queues and stacks: drained, every element in the model's order */
	while (!why && is(KSIM_BPF_KIND_KEYLESS) && !is(KSIM_BPF_KIND_BLOOM)) {
		unsigned long kmalloced, live0;

		ksim_bpf_mem_totals(&kmalloced, &live0);
		ret = ksim_bpf_map_lookup_and_delete(m, NULL, 0, val, 0);
		if (lock_refused(m, false, ret, live0, nth, NOPS))
			continue;	/* the failure was one: pop again */
		why = ksim_bpf_model_check_pop(&M, ret, val);
		if (why)
			ksim_test_fail(__FILE__, __LINE__, "drain", "%s nth=%lu: %s", V->name, nth, why);
		if (ret)
			break;
	}
	/* the whole map: a walk from the start (-ENOMEM injected: start over) */
	if (!why && !is(KSIM_BPF_KIND_KEYLESS) && lru_reconcile(&M, nth, NOPS)) {
		do {
			why = ksim_bpf_model_walk(&M, &err);
		} while (!why && err == -ENOMEM && injected_since(&seen));
		if (why || err != -ENOENT)
			ksim_test_fail(__FILE__, __LINE__, "walk", "%s nth=%lu: %s (ended with %d)",
				       V->name, nth, why ?: "", err);
	}
	if (!why)
		why = refill(m, &M, nth);
	ksim_bpf_map_free(m);
	ksim_bpf_model_fini(&M);
	return !why;
}

static bool run_nth(void *arg, unsigned long nth)
{
	(void)arg;
	return run(nth);
}

static void sweep_cls(const char *name, unsigned int cls)
{
	unsigned long total, injected;

	V = ksim_bpf_variant_find(name);
	KSIM_ASSERT(V, "variant %s not built", name);
	sweep_class = cls;
	nested_total = 0;
	ksim_set_cpu(0);
	total = ksim_test_fault_sweep(name, cls, run_nth, NULL, &injected);
	ksim_set_cpu(-1);
	if (cls == KSIM_FAULT_LOCK && !total) {
		if (ksim_verbose > 1)
			printf("# %s: no failable lock on this tree\n", name);
		return;
	}
	KSIM_ASSERT(total > 0, "%s: the sequence made no allocation the engine saw", name);
	if (ksim_verbose > 1)
		printf("# %s: %lu %s swept, %lu failures injected\n", name, total,
		       cls == KSIM_FAULT_LOCK ? "lock acquisitions" : "allocations", injected);
	KSIM_EXPECT(injected == total, "%s: %lu of %lu runs had their failure injected", name, injected, total);
	/* Without rqspinlock every injected lock failure is a nested program that ran. */
	if (cls == KSIM_FAULT_LOCK && !KSIM_HAVE_RQSPINLOCK)
		KSIM_EXPECT(nested_total == injected, "%s: %lu nested programs for %lu failures",
			    name, nested_total, injected);
}

static void sweep(const char *name)
{
	sweep_cls(name, KSIM_FAULT_ALLOC);
}

KSIM_TEST(sweep_hash) { sweep("hash"); }
KSIM_TEST(sweep_hash_noprealloc) { sweep("hash_noprealloc"); }
KSIM_TEST(sweep_lru_hash) { sweep("lru_hash"); }
KSIM_TEST(sweep_lpm_trie) { sweep("lpm_trie"); }
KSIM_TEST(sweep_qp_trie_ref) { sweep("qp_trie_ref"); }
KSIM_TEST(sweep_array) { sweep("array"); }
KSIM_TEST(sweep_percpu_array) { sweep("percpu_array"); }
KSIM_TEST(sweep_queue) { sweep("queue"); }
KSIM_TEST(sweep_stack) { sweep("stack"); }
KSIM_TEST(sweep_bloom) { sweep("bloom"); }
#if KSIM_HAVE_BPF_RHASH
KSIM_TEST(sweep_rhash) { sweep("rhash"); }
#endif
/* bpf_mem_alloc's checking mode: nothing is reused, every unit is new */
KSIM_TEST(sweep_hash_noprealloc_checking)
{
	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_CHECKING);
	sweep("hash_noprealloc");
	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);
}
KSIM_TEST(sweep_qp_trie_ref_checking)
{
	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_CHECKING);
	sweep("qp_trie_ref");
	ksim_bpf_mem_set_mode(KSIM_BPF_MEM_FAITHFUL);
}
#if KSIM_HAVE_QP_TRIE_SERIES
KSIM_TEST(sweep_qp_trie) { sweep("qp_trie"); }
#endif

/* Lock failures (class lock): res_spin_lock() on 7.x, the nested program on 6.x. */
KSIM_TEST(sweep_locks_hash) { sweep_cls("hash", KSIM_FAULT_LOCK); }
KSIM_TEST(sweep_locks_hash_noprealloc) { sweep_cls("hash_noprealloc", KSIM_FAULT_LOCK); }
KSIM_TEST(sweep_locks_lru_hash) { sweep_cls("lru_hash", KSIM_FAULT_LOCK); }
KSIM_TEST(sweep_locks_lru_hash_nocommon) { sweep_cls("lru_hash_nocommon", KSIM_FAULT_LOCK); }
KSIM_TEST(sweep_locks_lpm_trie) { sweep_cls("lpm_trie", KSIM_FAULT_LOCK); }
KSIM_TEST(sweep_locks_qp_trie_ref) { sweep_cls("qp_trie_ref", KSIM_FAULT_LOCK); }
/* 7.x queue_stack_maps.c: a failed rqspinlock is -EBUSY, nothing done (6.x: no such lock) */
KSIM_TEST(sweep_locks_queue) { sweep_cls("queue", KSIM_FAULT_LOCK); }
KSIM_TEST(sweep_locks_stack) { sweep_cls("stack", KSIM_FAULT_LOCK); }
