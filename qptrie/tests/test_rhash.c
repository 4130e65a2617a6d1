// SPDX-License-Identifier: GPL-2.0
/*
 * 7.x's BPF_MAP_TYPE_RHASH (hashtab.c's rhtab_*, on lib/rhashtable.c): the
 * resize, which the conformance suite's small maps barely reach.
 *
 * - rhash_grow_shrink_k8 / _k12 (the long-key fast path and jhash): insert
 *   past 75% load again and again, so the deferred worker
 *   (rht_deferred_worker(), run at the end of each command) doubles the
 *   table, then delete most keys so it shrinks (automatic_shrinking); every
 *   key inserted and not deleted is found with its value, every deleted one
 *   is not, a get_next_key walk of the quiet table sees each key once, and
 *   the table really grew (load <= 75% after the worker) and shrank;
 * - rhash_rehash_nomem: the same growth with every flat bucket-table
 *   allocation failing (site bucket_table_alloc): the worker fails and
 *   queues itself again, inserts past 100% load fall back to a nested table
 *   (GFP_ATOMIC); then with the nested tables failing too, inserts past
 *   100% return -ENOMEM.  What the map must still do: an update returns 0
 *   or -ENOMEM, a failed one leaves no trace, every key in the map is
 *   found, a walk sees each once; once allocations work again the worker
 *   (re-armed) makes the table flat and big enough; nothing leaks.
 */
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include <ksim/bpf.h>
#include <ksim/fault.h>
#include <ksim/slab.h>
#include <ksim/test.h>

#if KSIM_HAVE_BPF_RHASH
/* qptrie/kernel/hashtab.c */
unsigned int ksim_rhtab_table(struct bpf_map *map, bool *nested, bool *rehashing);

#define NKEYS	3000

#define NMAP	8192
static u8 in_map[NMAP];

static void key_of(u8 *k, u32 ks, u32 i)
{
	memset(k, 0, ks);
	memcpy(k, &i, sizeof(i));
	k[ks - 1] ^= (u8)(i * 31);
}

static u64 val_of(u32 i)
{
	return (u64)i * 2654435761u + 1;
}

static struct bpf_map *create(u32 ks, u32 max)
{
	struct ksim_bpf_map_attr a = { .key_size = ks, .value_size = 8, .max_entries = max };
	const struct ksim_bpf_variant *v = ksim_bpf_variant_find("rhash");
	struct bpf_map *m = NULL;
	int err = -ENOENT;

	if (v)
		m = ksim_bpf_map_create(v, &a, &err);
	KSIM_EXPECT(m, "create rhash: %d", err);
	return m;
}

/* Every key 0..@n-1: found with its value when in_map[], else -ENOENT. */
static void check_all(struct bpf_map *m, u32 ks, u32 n, const char *when)
{
	u8 k[16];
	u64 v;

	for (u32 i = 0; i < n; i++) {
		int err;

		key_of(k, ks, i);
		err = ksim_bpf_map_lookup(m, k, ks, &v, 0);
		if (in_map[i]) {
			KSIM_EXPECT(!err && v == val_of(i), "%s: key %u: lookup %d, value %llu", when,
				    i, err, (unsigned long long)v);
		} else {
			KSIM_EXPECT(err == -ENOENT, "%s: absent key %u: lookup %d", when, i, err);
		}
		if (ksim_problem_count(KSIM_P_TEST) > 5)
			return;
	}
}

/*
 * A get_next_key walk of a table no command changes: each key once, all of
 * them.  @quiet: no resize may run meanwhile (with allocations failing the
 * worker runs, fails and changes nothing).
 */
static void check_walk(struct bpf_map *m, u32 ks, u32 n, bool quiet)
{
	u8 cur[16], next[16], seen[NMAP] = { 0 };
	u32 nlen = sizeof(next), count = 0, want = 0, i;
	unsigned long runs0 = ksim_work_runs();
	int err;

	for (i = 0; i < n; i++)
		want += in_map[i];
	err = ksim_bpf_map_get_next_key(m, NULL, 0, next, &nlen);
	while (!err) {
		memcpy(&i, next, sizeof(i));
		KSIM_ASSERT(i < n && in_map[i] && !seen[i], "walk: key %u %s", i,
			    i < n && in_map[i] ? "twice" : "not in the map");
		seen[i] = 1;
		count++;
		memcpy(cur, next, ks);
		nlen = sizeof(next);
		err = ksim_bpf_map_get_next_key(m, cur, ks, next, &nlen);
	}
	KSIM_EXPECT_EQ(err, -ENOENT);
	KSIM_EXPECT(count == want, "walk saw %u of %u keys", count, want);
	KSIM_EXPECT(!quiet || ksim_work_runs() == runs0, "a walk ran the resize worker");
}

/* With allocations working, the worker finished each rehash by a command's end. */
static unsigned int table(struct bpf_map *m, bool *nested)
{
	bool rehashing;
	unsigned int size = ksim_rhtab_table(m, nested, &rehashing);

	KSIM_EXPECT(!rehashing, "a rehash still under way after a command");
	return size;
}

/*
 * With allocations failing, one may be: the worker that would move the keys
 * into a nested future table first tries a bigger flat one, fails, and
 * queues itself again (rht_deferred_worker()); the keys stay where they
 * are, new ones go to the future table.
 */
static unsigned int table_failing(struct bpf_map *m, bool *nested)
{
	bool rehashing;

	return ksim_rhtab_table(m, nested, &rehashing);
}

static void grow_shrink(u32 ks)
{
	u8 k[16];
	u64 v;
	u32 n = 0, keep = 40;
	unsigned int size, size0, max_size = 0, grows = 0;
	unsigned long runs0 = ksim_work_runs();
	bool nested;

	memset(in_map, 0, sizeof(in_map));
	struct bpf_map *m = create(ks, 2 * NKEYS);

	if (!m)
		return;
	size0 = table(m, &nested);
	for (; n < NKEYS; n++) {
		key_of(k, ks, n);
		v = val_of(n);
		KSIM_EXPECT_EQ(ksim_bpf_map_update(m, k, ks, &v, BPF_NOEXIST), 0);
		in_map[n] = 1;
		size = table(m, &nested);
		KSIM_EXPECT(!nested, "nested table without an allocation failure");
		if (size > max_size) {
			grows += max_size != 0;
			max_size = size;
			check_all(m, ks, n + 1, "after a grow");
		}
		/* the worker ran at the end of the update: load <= 75% */
		KSIM_EXPECT(n + 1 <= size / 4 * 3, "%u keys in %u buckets after the worker", n + 1, size);
		if (ksim_problem_count(KSIM_P_TEST) > 5)
			break;
	}
	KSIM_EXPECT(grows >= 4, "table grew %u times (%u -> %u buckets)", grows, size0, max_size);
	check_all(m, ks, NKEYS, "after the inserts");
	check_walk(m, ks, NKEYS, true);
	/* delete all but @keep, checking everything each time the table shrinks */
	for (u32 i = NKEYS; i-- > keep;) {
		unsigned int before = table(m, &nested);

		key_of(k, ks, i);
		KSIM_EXPECT_EQ(ksim_bpf_map_delete(m, k, ks), 0);
		in_map[i] = 0;
		if (table(m, &nested) < before)
			check_all(m, ks, NKEYS, "after a shrink");
		if (ksim_problem_count(KSIM_P_TEST) > 5)
			break;
	}
	size = table(m, &nested);
	/* rht_shrink_below_30(): no shrink while keys >= 30% of the buckets */
	KSIM_EXPECT(keep >= size * 3 / 10 && size < max_size,
		    "%u buckets for %u keys after the deletes (max was %u)", size, keep, max_size);
	check_all(m, ks, NKEYS, "after the deletes");
	check_walk(m, ks, NKEYS, true);
	KSIM_EXPECT(ksim_work_runs() > runs0, "the resize worker never ran");
	if (ksim_verbose > 1)
		printf("# k%u: %u -> %u -> %u buckets, %lu worker runs\n", ks, size0, max_size, size,
		       ksim_work_runs() - runs0);
	ksim_bpf_map_free(m);
}

KSIM_TEST(rhash_grow_shrink_k8) { grow_shrink(8); }
KSIM_TEST(rhash_grow_shrink_k12) { grow_shrink(12); }

/* Insert keys @from..@to-1 with @sites failing: 0 or -ENOMEM, and a failure leaves no trace. */
static u32 insert_failing(struct bpf_map *m, u32 from, u32 to, unsigned int *nomem)
{
	u8 k[16];
	u64 v;
	u32 n = from;

	for (; n < to; n++) {
		int err;

		key_of(k, 8, n);
		v = val_of(n);
		err = ksim_bpf_map_update(m, k, 8, &v, BPF_NOEXIST);
		KSIM_EXPECT(!err || err == -ENOMEM, "update of key %u under failing tables: %d", n, err);
		in_map[n] = !err;
		*nomem += err == -ENOMEM;
		if (ksim_problem_count(KSIM_P_TEST) > 5)
			break;
	}
	return n;
}

KSIM_TEST(rhash_rehash_nomem)
{
	struct ksim_fault_config flat = { .probability = 1.0, .times = -1, .nr_sites = 1,
					  .sites = { "bucket_table_alloc" } };
	struct ksim_fault_config all = { .probability = 1.0, .times = -1, .nr_sites = 3,
		.sites = { "bucket_table_alloc", "nested_table_alloc", "nested_bucket_table_alloc" } };
	struct ksim_slab_stats before, after;
	unsigned int size0, size, nomem = 0, nomem2 = 0;
	unsigned long failures;
	bool nested, was_nested = false;
	u32 n;
	u8 k[16];
	u64 v;

	memset(in_map, 0, sizeof(in_map));
	rcu_barrier();
	ksim_slab_totals(&before);
	struct bpf_map *m = create(8, 2 * NKEYS);

	KSIM_ASSERT(m, "no map");

	/*
	 * Nested tables are made only for 1024 buckets or more
	 * (nested_bucket_table_alloc()): first 380 keys, 512 buckets.
	 */
	n = insert_failing(m, 0, 380, &nomem);
	size0 = table(m, &nested);
	KSIM_EXPECT(size0 == 512 && !nomem, "%u buckets for %u keys, %u -ENOMEM", size0, n, nomem);
	/* phase 1: flat tables fail; past 100% load the insert path goes nested */
	ksim_fault_set(&flat);
	n = insert_failing(m, n, 4 * size0, &nomem);
	size = table_failing(m, &nested);
	was_nested = nested;
	/* still failing: the worker retries at each command's end and fails */
	check_all(m, 8, n, "flat tables failing");
	check_walk(m, 8, n, false);
	failures = ksim_fault_failures();
	ksim_fault_reset();
	KSIM_EXPECT(failures > 0, "no bucket table allocation failed");
	KSIM_EXPECT(was_nested, "no nested table with the flat ones failing (%u buckets)", size);
	if (ksim_verbose > 1)
		printf("# flat tables failing: %u failures, %u -ENOMEM, %u -> %u buckets%s\n",
		       (unsigned int)failures, nomem, size0, size, nested ? " (nested)" : "");
	/* allocations work again: a command's end runs the re-armed worker */
	key_of(k, 8, 0);
	ksim_bpf_map_lookup(m, k, 8, &v, 0);
	size = table(m, &nested);
	KSIM_EXPECT(!nested, "table still nested once allocations work (was %s)",
		    was_nested ? "nested" : "flat");
	check_all(m, 8, n, "after the retry");

	/* phase 2: nested tables fail too: past 100% load, -ENOMEM */
	size0 = size;
	ksim_fault_set(&all);
	n = insert_failing(m, n, min_t(u32, n + 2 * size0, NMAP), &nomem2);
	check_all(m, 8, n, "all tables failing");
	check_walk(m, 8, n, false);
	failures = ksim_fault_failures();
	ksim_fault_reset();
	KSIM_EXPECT(nomem2 > 0, "no insert failed with every bucket table failing (%lu failures)",
		    failures);
	key_of(k, 8, 0);
	ksim_bpf_map_lookup(m, k, 8, &v, 0);
	u32 cnt = 0;

	for (u32 i = 0; i < n; i++)
		cnt += in_map[i];
	size = table(m, &nested);
	KSIM_EXPECT(!nested && cnt <= size / 4 * 3, "%u keys in %u buckets%s after the retry", cnt,
		    size, nested ? " (nested)" : "");
	check_all(m, 8, n, "after the second retry");
	if (ksim_verbose > 1)
		printf("# all tables failing: %lu failures, %u -ENOMEM; %u keys, %u buckets\n",
		       failures, nomem2, cnt, size);
	ksim_bpf_map_free(m);
	rcu_barrier();
	ksim_slab_totals(&after);
	KSIM_EXPECT(after.live == before.live, "%ld objects leaked", (long)(after.live - before.live));
}
#endif
