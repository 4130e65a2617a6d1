// SPDX-License-Identifier: GPL-2.0
/*
 * xarray_stress: the kernel's lib/xarray.c (ksim_xarray), RCU readers
 * (xa_load, xas_for_each and xas_for_each_marked under rcu_read_lock())
 * against writers (xa_store, xa_erase, xa_store_range, xa_set_mark,
 * xa_clear_mark under the xa_lock the API takes).
 *
 * Writers.  Writer w owns one region of the index space and is the only
 * thread that changes it, so it keeps an exact model of its region and
 * checks every return value against it: the old entry xa_store() and
 * xa_erase() return, -ENOMEM only while fault injection is armed, nothing
 * changed by a failed store.  Every few hundred operations it compares its
 * whole region with the model; writer 0 also runs the structural check of
 * xarray/model.c (ksim_xa_validate()) under the xa_lock.
 *
 * Readers: the validity oracle of maple_stress.c.  Every store carries a
 * unique value (xa_mk_value(seq << 3 | writer)); each writer logs its
 * operations (seq, range, store/erase, failed) in a ring and publishes
 * `started` before it touches the array and `done` after.  A reader takes
 * done0 = done at the start of its RCU read-side section and started1 =
 * started at its end.  A value v seen at index i is valid only if it was
 * stored over i by i's writer, by a store that did not fail, and either
 * in (done0, started1] or as the last successful operation <= done0
 * covering i; an empty index is valid if the last operation <= done0
 * covering i was an erase (or none), or an erase covering i is in
 * (done0, started1].  When the ring has wrapped past what a check needs, or
 * the check would walk more than MAX_SCAN entries, it is skipped and
 * counted, never guessed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/xarray.h>
#include <linux/rcupdate.h>
#include <ksim/fault.h>
#include <ksim/ksim.h>
#include <ksim/stress.h>

#include "model.h"

#define MAX_WRITERS	8
#define REGION_SPAN	(1UL << 20)
#define REGION_BASE	(1UL << 16)	/* low indices stay empty */
#define REGION_SIZE	1024
#define LOG_SIZE	(1U << 14)
#define MAX_OBS		64
#define MARK		XA_MARK_1
/* How far back a reader's check walks a log; a longer walk is skipped and
 * counted (it costs more than the read it checks under TSan). */
#define MAX_SCAN	1024

enum { OP_STORE, OP_ERASE };

struct region {
	unsigned long started, done;	/* seq numbers, release/acquire */
	struct ksim_oplog_entry log[LOG_SIZE];
	unsigned long model[REGION_SIZE];	/* writer-private: seq << 3 | w, 0 = empty */
	unsigned long seq;			/* writer-private */
};

static DEFINE_XARRAY(array);
static struct region *regions;
static int nr_writers;
static unsigned long skipped_checks;

static unsigned long region_base(int w)
{
	return REGION_BASE + w * REGION_SPAN;
}

/* The whole region against the writer's model (under the xa_lock). */
static void check_region(struct ksim_stress_thread *t, struct region *r, int w)
{
	unsigned long base = region_base(w);

	xa_lock(&array);
	for (unsigned long i = 0; i < REGION_SIZE; i++) {
		void *e = xa_load(&array, base + i);
		void *want = r->model[i] ? xa_mk_value(r->model[i]) : NULL;

		KSIM_STRESS_CHECK(t, e == want, "region %d index %lu holds %p, model %p", w,
				  base + i, e, want);
		if (e != want)
			break;
	}
	if (w == 0)
		KSIM_STRESS_CHECK(t, ksim_xa_validate(&array) == 0, "the node structure is damaged");
	xa_unlock(&array);
}

static void model_set(struct region *r, unsigned long first, unsigned long last,
		      unsigned long v)
{
	for (unsigned long i = first; i <= last; i++)
		r->model[i] = v;
}

static void writer(struct ksim_stress_thread *t)
{
	int w = t->index;
	struct region *r = &regions[w];
	unsigned long base = region_base(w);

	while (ksim_stress_running()) {
		unsigned int what = ksim_rng_below(&t->rng, 100);
		unsigned long i = ksim_rng_below(&t->rng, REGION_SIZE), last = i;
		unsigned long seq, v;
		unsigned int kind = OP_STORE;
		bool failed = false;
		void *old;

		if (what >= 85) {
			/* Marks: not part of the value oracle; readers filter by them. */
			if (what & 1)
				xa_set_mark(&array, base + i, MARK);
			else
				xa_clear_mark(&array, base + i, MARK);
			ksim_stress_op(t);
			continue;
		}
		/*
		 * A store or erase of one index inside a multi-index entry acts
		 * on the whole entry, and a range store that cuts into one is
		 * outside the API's contract (xarray/model.h): single-index ops
		 * stay in the lower half of the region, range stores and range
		 * erases (a NULL range store) cover whole aligned 64-index
		 * blocks of the upper half.
		 */
		i %= REGION_SIZE / 2;
		last = i;
		if (what >= 60) {
			i = REGION_SIZE / 2 + 64 * ksim_rng_below(&t->rng, REGION_SIZE / 128);
			last = i + 63;
			if (what >= 78)
				kind = OP_ERASE;
		} else if (what >= 35) {
			kind = OP_ERASE;
		}
		seq = ++r->seq;
		v = seq << 3 | w;
		ksim_oplog_put(r->log, LOG_SIZE, seq, base + i, base + last, kind);
		__atomic_store_n(&r->started, seq, __ATOMIC_RELEASE);
		if (kind == OP_ERASE && last != i) {
			old = xa_store_range(&array, base + i, base + last, NULL, GFP_KERNEL);
			KSIM_STRESS_CHECK(t, old == NULL, "xa_store_range(%lu, %lu, NULL) returned %p",
					  base + i, base + last, old);
		} else if (kind == OP_ERASE) {
			old = xa_erase(&array, base + i);
			KSIM_STRESS_CHECK(t, old == (r->model[i] ? xa_mk_value(r->model[i]) : NULL),
					  "xa_erase(%lu) returned %p, model %#lx", base + i, old,
					  r->model[i]);
		} else if (last == i) {
			old = xa_store(&array, base + i, xa_mk_value(v), GFP_KERNEL);
			if (xa_is_err(old)) {
				failed = true;
				KSIM_STRESS_CHECK(t, xa_err(old) == -ENOMEM && ksim_fault_armed(),
						  "xa_store(%lu) failed with %d", base + i, xa_err(old));
			} else {
				KSIM_STRESS_CHECK(t, old == (r->model[i] ? xa_mk_value(r->model[i]) : NULL),
						  "xa_store(%lu) returned %p, model %#lx", base + i, old,
						  r->model[i]);
			}
		} else {
			old = xa_store_range(&array, base + i, base + last, xa_mk_value(v), GFP_KERNEL);
			if (xa_is_err(old)) {
				failed = true;
				KSIM_STRESS_CHECK(t, xa_err(old) == -ENOMEM && ksim_fault_armed(),
						  "xa_store_range(%lu, %lu) failed with %d", base + i,
						  base + last, xa_err(old));
			}
		}
		if (failed)
			ksim_oplog_set_failed(r->log, LOG_SIZE, seq);
		else
			model_set(r, i, last, kind == OP_ERASE ? 0 : v);
		__atomic_store_n(&r->done, seq, __ATOMIC_RELEASE);
		ksim_stress_op(t);
		if (seq % 512 == 0) {
			check_region(t, r, w);
			__atomic_add_fetch(&t->checks, 1, __ATOMIC_RELAXED);
		}
	}
}

struct obs {
	unsigned long index;
	void *entry;
};

/* Records what a walk saw; false once @obs is full. */
static bool observe(struct obs *obs, int *n, unsigned long index, void *entry)
{
	obs[*n].index = index;
	obs[(*n)++].entry = entry;
	return *n < MAX_OBS;
}

/*
 * Is @entry a state index @i can have had during a read section that began
 * after op done0 finished and ended before op started1 began?
 */
static void check_one(struct ksim_stress_thread *t, unsigned long i, void *entry,
		      unsigned long done0, unsigned long started1, const char *how)
{
	unsigned long rel = i - REGION_BASE, w = rel / REGION_SPAN, off = rel % REGION_SPAN;
	struct region *r;
	struct ksim_oplog_entry le;
	unsigned long seq;

	if (i < REGION_BASE || w >= (unsigned long)nr_writers || off >= REGION_SIZE) {
		KSIM_STRESS_CHECK(t, entry == NULL, "%s: index %lu is in no region, yet holds %p",
				  how, i, entry);
		return;
	}
	r = &regions[w];
	if (entry) {
		unsigned long v;

		KSIM_STRESS_CHECK(t, xa_is_value(entry), "%s: non-value entry %p at %lu", how, entry, i);
		if (!xa_is_value(entry))
			return;
		v = xa_to_value(entry);
		seq = v >> 3;
		KSIM_STRESS_CHECK(t, (v & 7) == w, "%s: index %lu holds writer %lu's value in writer %lu's region",
				  how, i, v & 7, w);
		KSIM_STRESS_CHECK(t, seq <= started1, "%s: index %lu holds seq %lu, not started before %lu",
				  how, i, seq, started1);
		if (!ksim_oplog_get(r->log, LOG_SIZE, seq, &le)) {
			__atomic_add_fetch(&skipped_checks, 1, __ATOMIC_RELAXED);
			return;
		}
		KSIM_STRESS_CHECK(t, le.kind == OP_STORE && le.first <= i && i <= le.last && !le.failed,
				  "%s: index %lu holds seq %lu, which was %s [%lu, %lu]%s", how, i, seq,
				  le.kind == OP_STORE ? "a store over" : "an erase of", le.first, le.last,
				  le.failed ? " and failed" : "");
		if (seq > done0)
			return;
		/* Stored before the section: no later successful op <= done0 may cover i. */
		if (done0 - seq >= MAX_SCAN) {
			__atomic_add_fetch(&skipped_checks, 1, __ATOMIC_RELAXED);
			return;
		}
		for (unsigned long s = seq + 1; s <= done0; s++) {
			if (!ksim_oplog_get(r->log, LOG_SIZE, s, &le)) {
				__atomic_add_fetch(&skipped_checks, 1, __ATOMIC_RELAXED);
				return;
			}
			KSIM_STRESS_CHECK(t, le.failed || i < le.first || i > le.last,
					  "%s: index %lu holds seq %lu, overwritten by seq %lu (done %lu) before the read",
					  how, i, seq, s, done0);
		}
		return;
	}
	/* Empty: an erase covers i in (done0, started1], or the last op <= done0 does not store. */
	if (started1 - done0 >= MAX_SCAN) {
		__atomic_add_fetch(&skipped_checks, 1, __ATOMIC_RELAXED);
		return;
	}
	for (seq = done0 + 1; seq <= started1; seq++) {
		if (!ksim_oplog_get(r->log, LOG_SIZE, seq, &le)) {
			__atomic_add_fetch(&skipped_checks, 1, __ATOMIC_RELAXED);
			return;
		}
		if (le.kind == OP_ERASE && le.first <= i && i <= le.last)
			return;
	}
	for (seq = done0; seq > 0; seq--) {
		if (done0 - seq >= MAX_SCAN) {
			__atomic_add_fetch(&skipped_checks, 1, __ATOMIC_RELAXED);
			return;
		}
		if (!ksim_oplog_get(r->log, LOG_SIZE, seq, &le)) {
			__atomic_add_fetch(&skipped_checks, 1, __ATOMIC_RELAXED);
			return;
		}
		if (le.failed || i < le.first || i > le.last)
			continue;
		KSIM_STRESS_CHECK(t, le.kind == OP_ERASE,
				  "%s: index %lu is empty, but seq %lu (done %lu) stored over [%lu, %lu]",
				  how, i, seq, done0, le.first, le.last);
		return;
	}
}

static void reader(struct ksim_stress_thread *t)
{
	struct obs obs[MAX_OBS];

	while (ksim_stress_running()) {
		int w = ksim_rng_below(&t->rng, nr_writers);
		struct region *r = &regions[w];
		unsigned long base = region_base(w), done0, started1;
		unsigned int mode = ksim_rng_below(&t->rng, 3);
		const char *how = mode == 0 ? "xa_load" : mode == 1 ? "xas_for_each" :
				  "xas_for_each_marked";
		int n = 0;

		rcu_read_lock();
		done0 = __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);
		if (mode == 0) {
			unsigned long i = base + ksim_rng_below(&t->rng, REGION_SIZE);

			observe(obs, &n, i, xa_load(&array, i));
		} else {
			unsigned long from = base + ksim_rng_below(&t->rng, REGION_SIZE);
			XA_STATE(xas, &array, from);
			void *entry;

			if (mode == 1) {
				xas_for_each(&xas, entry, base + REGION_SIZE - 1) {
					if (!xas_retry(&xas, entry) &&
					    !observe(obs, &n, xas.xa_index, entry))
						break;
				}
			} else {
				xas_for_each_marked(&xas, entry, base + REGION_SIZE - 1, MARK) {
					if (!xas_retry(&xas, entry) &&
					    !observe(obs, &n, xas.xa_index, entry))
						break;
				}
			}
		}
		started1 = __atomic_load_n(&r->started, __ATOMIC_ACQUIRE);
		rcu_read_unlock();
		for (int k = 0; k < n; k++)
			check_one(t, obs[k].index, obs[k].entry, done0, started1, how);
		__atomic_add_fetch(&t->checks, n, __ATOMIC_RELAXED);
		ksim_stress_op(t);
	}
}

static void setup(void)
{
	nr_writers = ksim_stress_threads(1);
	if (nr_writers > MAX_WRITERS || nr_writers < 1) {
		fprintf(stderr, "xarray_stress: 1..%d writers\n", MAX_WRITERS);
		exit(2);
	}
	regions = calloc(nr_writers, sizeof(*regions));
	if (!regions)
		exit(2);
}

static void teardown(void)
{
	for (int w = 0; w < nr_writers; w++)
		check_region(NULL, &regions[w], w);
	xa_destroy(&array);
	if (ksim_verbose > 1 || skipped_checks)
		fprintf(stderr, "# xarray: %lu reader checks skipped (log wrapped or too far back)\n", skipped_checks);
	free(regions);
}

KSIM_STRESS_READERS_WRITERS("xarray",
	"lib/xarray.c: RCU readers (xa_load, xas_for_each, xas_for_each_marked) check every\n"
	"entry they see against the writers' operation logs; writers (xa_store, xa_erase,\n"
	"xa_store_range, marks) check every result against an exact model of their region.")
