// SPDX-License-Identifier: GPL-2.0
/*
 * lib/rhashtable.c's own API (the RHASH map uses a part of it), against a
 * model: seeded random operations on int keys, each checked as it
 * returns, the whole table every 512 ops and at the end.  The deferred
 * resize worker runs in phases (worker_tick()), so inserts also meet a
 * table past 100% load (rhashtable_insert_slow() and its GFP_ATOMIC
 * rehash); with --fault SPEC allocations fail and an insert may return
 * -ENOMEM (or -EBUSY while a rehash is pending) but must then leave the
 * table as it was.
 *
 *   rhashtable_api   rhashtable_lookup_insert_fast(), _lookup_get_insert_fast(),
 *                    _remove_fast(), _replace_fast(), _lookup_fast(), a
 *                    walk (rhashtable_walk_enter/start/next/stop/exit: every
 *                    key seen at least once, nothing absent; -EAGAIN
 *                    restarts are allowed), with and without
 *                    automatic_shrinking, and with max_size (-E2BIG exactly
 *                    from 2 * max_size elements on)
 *   rhltable_api     rhltable_insert(), _remove(), _lookup() with duplicate
 *                    keys: the list under a key is exactly the model's set (each
 *                    object once)
 */
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <ksim/fault.h>
#include <ksim/test.h>

#if KSIM_HAVE_BPF_RHASH
#define NKEYS	1024
#define NOBJS	(4 * NKEYS)
#define NOPS	30000

struct obj {
	int key;
	int id;			/* index in objs[] */
	struct rhash_head node;
	struct rhlist_head list;
	bool in;		/* the model: in the table */
};

static struct obj objs[NOBJS];
static struct obj *model[NKEYS];	/* rhashtable: the object under each key */
static unsigned long faults0;

static bool error_ok(int err)
{
	return (err == -ENOMEM || err == -EBUSY) && ksim_fault_failures() > faults0;
}

/* A free object (not in the table) for key k, or NULL. */
static struct obj *free_obj(struct ksim_rng *rng, int k)
{
	for (int tries = 0; tries < 8; tries++) {
		struct obj *o = &objs[ksim_rng_below(rng, NOBJS)];

		if (!o->in) {
			o->key = k;
			return o;
		}
	}
	return NULL;
}

static void reset_objs(void)
{
	memset(objs, 0, sizeof(objs));
	for (int i = 0; i < NOBJS; i++)
		objs[i].id = i;
}

/*
 * Phases of 2048 ops: the deferred resize worker (a workqueue in the
 * kernel) runs often, seldom, or not at all; stalled, a table that has
 * shrunk takes inserts past 100% load (the insert path's own GFP_ATOMIC
 * rehash, rhashtable_insert_slow()).
 */
static void worker_tick(struct ksim_rng *rng, unsigned int n, unsigned int *every)
{
	static const unsigned int choice[] = { 4, 512, 0 };

	if (n % 2048 == 0)
		*every = choice[ksim_rng_below(rng, ARRAY_SIZE(choice))];
	if (*every && ksim_rng_below(rng, *every) == 0)
		ksim_run_pending_work();
}

static unsigned int model_count(void)
{
	unsigned int n = 0;

	for (int k = 0; k < NKEYS; k++)
		n += model[k] != NULL;
	return n;
}

static void check_all(struct rhashtable *ht, const struct rhashtable_params *p, const char *when)
{
	struct rhashtable_iter iter;
	static unsigned char seen[NKEYS];
	struct obj *o;
	unsigned int restarts = 0;

	rcu_read_lock();
	for (int k = 0; k < NKEYS; k++) {
		o = rhashtable_lookup_fast(ht, &k, *p);
		KSIM_EXPECT(o == model[k], "%s: lookup(%d) = %p, model %p", when, k, o, model[k]);
	}
	rcu_read_unlock();
	KSIM_EXPECT(atomic_read(&ht->nelems) == (int)model_count(), "%s: nelems %d, model %u",
		    when, atomic_read(&ht->nelems), model_count());

	memset(seen, 0, sizeof(seen));
	rhashtable_walk_enter(ht, &iter);
	rhashtable_walk_start(&iter);
	while ((o = rhashtable_walk_next(&iter))) {
		if (IS_ERR(o)) {
			KSIM_EXPECT(PTR_ERR(o) == -EAGAIN, "%s: walk error %ld", when, PTR_ERR(o));
			if (PTR_ERR(o) != -EAGAIN || ++restarts > 100)
				break;
			continue;
		}
		KSIM_EXPECT(o->key >= 0 && o->key < NKEYS && model[o->key] == o,
			    "%s: the walk returned object %d (key %d), not in the table", when, o->id,
			    o->key);
		if (o->key >= 0 && o->key < NKEYS)
			seen[o->key] = 1;
	}
	rhashtable_walk_stop(&iter);
	rhashtable_walk_exit(&iter);
	for (int k = 0; k < NKEYS; k++)
		KSIM_EXPECT(!model[k] || seen[k], "%s: the walk missed key %d", when, k);
}

static void free_fn(void *ptr, void *arg)
{
	struct obj *o = ptr;
	unsigned int *n = arg;

	o->in = false;
	(*n)++;
}

static void run(unsigned int max_size, bool shrink)
{
	struct ksim_rng *rng = ksim_test_rng();
	const struct rhashtable_params p = {
		.key_len = sizeof(int),
		.key_offset = offsetof(struct obj, key),
		.head_offset = offsetof(struct obj, node),
		.automatic_shrinking = shrink,
		.max_size = max_size,
		.min_size = 4,
	};
	struct rhashtable ht;
	unsigned int freed = 0, worker_every, keys = NKEYS;

	reset_objs();
	memset(model, 0, sizeof(model));
	KSIM_ASSERT(!rhashtable_init(&ht, &p));
	for (unsigned int n = 0; n < NOPS && ksim_problem_count(KSIM_P_TEST) < 10; n++) {
		unsigned int op;
		struct obj *o, *got;
		bool full = max_size && model_count() >= 2 * max_size;
		int k, err;

		worker_tick(rng, n, &worker_every);
		if (n % 2048 == 0)	/* and few keys (the table shrinks) or many */
			keys = ksim_rng_below(rng, 2) ? 64 : NKEYS;
		op = ksim_rng_below(rng, 100);
		k = ksim_rng_below(rng, 4) ? ksim_rng_below(rng, keys) : ksim_rng_below(rng, NKEYS);
		o = free_obj(rng, k);
		faults0 = ksim_fault_failures();
		if (op < 30 && o) {
			err = rhashtable_lookup_insert_fast(&ht, &o->node, p);
			if (model[k]) {
				KSIM_EXPECT(err == -EEXIST, "lookup_insert(%d) of a present key: %d", k, err);
			} else if (full) {
				KSIM_EXPECT(err == -E2BIG, "lookup_insert(%d) with %u elements, max_size %u: %d",
					    k, model_count(), max_size, err);
			} else if (err) {
				KSIM_EXPECT(error_ok(err), "lookup_insert(%d): %d", k, err);
			} else {
				model[k] = o;
				o->in = true;
			}
		} else if (op < 45 && o) {
			got = rhashtable_lookup_get_insert_fast(&ht, &o->node, p);
			if (model[k]) {
				KSIM_EXPECT(got == model[k], "lookup_get_insert(%d) = %p, model %p", k, got,
					    model[k]);
			} else if (full) {
				KSIM_EXPECT(got == ERR_PTR(-E2BIG), "lookup_get_insert(%d) when full: %p",
					    k, got);
			} else if (IS_ERR(got)) {
				KSIM_EXPECT(error_ok(PTR_ERR(got)), "lookup_get_insert(%d): %ld", k,
					    PTR_ERR(got));
			} else {
				KSIM_EXPECT(!got, "lookup_get_insert(%d) of an absent key = %p", k, got);
				model[k] = o;
				o->in = true;
			}
		} else if (op < 65) {
			struct obj *victim = model[k] ? model[k] : o;

			if (!victim)
				continue;
			err = rhashtable_remove_fast(&ht, &victim->node, p);
			KSIM_EXPECT(err == (model[k] ? 0 : -ENOENT), "remove(%d): %d, model %s", k, err,
				    model[k] ? "present" : "absent");
			if (model[k] && !err) {
				model[k]->in = false;
				model[k] = NULL;
			}
		} else if (op < 75 && o) {
			struct obj *old = model[k] ? model[k] : &objs[(o->id + 1) % NOBJS];

			if (!model[k] && old->in)
				continue;
			if (!model[k])
				old->key = k;
			err = rhashtable_replace_fast(&ht, &old->node, &o->node, p);
			KSIM_EXPECT(err == (model[k] ? 0 : -ENOENT), "replace(%d): %d, model %s", k, err,
				    model[k] ? "present" : "absent");
			if (model[k] && !err) {
				old->in = false;
				model[k] = o;
				o->in = true;
			}
		} else {
			rcu_read_lock();
			got = rhashtable_lookup_fast(&ht, &k, p);
			rcu_read_unlock();
			KSIM_EXPECT(got == model[k], "lookup(%d) = %p, model %p", k, got, model[k]);
		}
		if (n % 512 == 511)
			check_all(&ht, &p, "every 512 ops");
	}
	check_all(&ht, &p, "at the end");
	if (ksim_verbose) {
		rcu_read_lock();
		printf("# %u keys at the end, table size %u, %lu allocation failures\n",
		       model_count(), rht_dereference_rcu(ht.tbl, &ht)->size, ksim_fault_failures());
		rcu_read_unlock();
	}
	ksim_run_pending_work();
	check_all(&ht, &p, "after the worker");
	rhashtable_free_and_destroy(&ht, free_fn, &freed);
	KSIM_EXPECT(freed == model_count(), "free_and_destroy freed %u objects, model %u", freed,
		    model_count());
	rcu_barrier();
}

KSIM_TEST(rhashtable_api)
{
	run(0, true);
}

KSIM_TEST(rhashtable_api_noshrink)
{
	run(0, false);
}

KSIM_TEST(rhashtable_api_max_size)
{
	run(64, true);
}

/* rhltable: duplicate keys, each key's list the model's set. */
KSIM_TEST(rhltable_api)
{
	struct ksim_rng *rng = ksim_test_rng();
	const struct rhashtable_params p = {
		.key_len = sizeof(int),
		.key_offset = offsetof(struct obj, key),
		.head_offset = offsetof(struct obj, list),
		.automatic_shrinking = true,
	};
	struct rhltable hlt;
	unsigned int worker_every;

	reset_objs();
	KSIM_ASSERT(!rhltable_init(&hlt, &p));
	for (unsigned int n = 0; n < NOPS && ksim_problem_count(KSIM_P_TEST) < 10; n++) {
		unsigned int op = ksim_rng_below(rng, 100);
		int k = ksim_rng_below(rng, 64);
		struct obj *o = &objs[ksim_rng_below(rng, NOBJS)];
		int err;

		worker_tick(rng, n, &worker_every);
		faults0 = ksim_fault_failures();
		if (op < 45) {
			if (o->in)
				continue;
			o->key = k;
			err = rhltable_insert(&hlt, &o->list, p);
			if (err)
				KSIM_EXPECT(error_ok(err), "rhltable_insert(%d): %d", k, err);
			else
				o->in = true;
		} else if (op < 75) {
			if (!o->in && ksim_rng_below(rng, 2))
				continue;
			err = rhltable_remove(&hlt, &o->list, p);
			KSIM_EXPECT(err == (o->in ? 0 : -ENOENT), "rhltable_remove(object %d, key %d): %d, "
				    "model %s", o->id, o->key, err, o->in ? "present" : "absent");
			if (!err)
				o->in = false;
		} else {
			static unsigned int listed[NOBJS], stamp;
			struct rhlist_head *list, *pos;
			struct obj *e;
			unsigned int found = 0, want = 0;

			stamp++;

			for (int i = 0; i < NOBJS; i++)
				want += objs[i].in && objs[i].key == k;
			rcu_read_lock();
			list = rhltable_lookup(&hlt, &k, p);
			rhl_for_each_entry_rcu(e, pos, list, list) {
				KSIM_EXPECT(e->in && e->key == k && listed[e->id] != stamp,
					    "rhltable_lookup(%d) lists object %d (key %d, %s)%s", k, e->id,
					    e->key, e->in ? "in" : "removed",
					    listed[e->id] == stamp ? " twice" : "");
				listed[e->id] = stamp;
				found++;
			}
			rcu_read_unlock();
			KSIM_EXPECT(found == want, "rhltable_lookup(%d): %u objects, model %u", k, found,
				    want);
		}
	}
	ksim_run_pending_work();
	rhltable_destroy(&hlt);
	rcu_barrier();
}
#endif
