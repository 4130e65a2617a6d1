// SPDX-License-Identifier: GPL-2.0
/*
 * maple_stress: the kernel's lib/maple_tree.c (ksim_maple) in RCU mode,
 * readers walking while writers store, erase, insert, split and merge ranges.
 *
 * Writers.  Writer w owns one region of the index space and is the only
 * thread that changes it, so it keeps an exact model of its region and checks
 * every return value against it (differential): the old entry mtree_erase()
 * returns, -EEXIST from mtree_insert_range(), -ENOMEM only when fault
 * injection failed an allocation, and after a failed store the region is
 * unchanged.  Every few hundred operations it compares the whole region with
 * the model, and writer 0 runs mt_validate() under the tree lock.
 *
 * Readers: the validity oracle.  Every store carries a unique value
 * (xa_mk_value(seq << 3 | writer)).  Each writer logs its operations
 * (seq, range, store/erase, failed) in a ring and publishes two counters:
 * `started` before it touches the tree and `done` after.  A reader takes
 * done0 = done for every region at the start of its RCU read-side section
 * and started1 = started at its end.  For an index i it saw holding value v,
 * the states i can legitimately have had during the section are: the result
 * of the last successful operation <= done0 covering i (the state when the
 * section began), and the result of every operation in (done0, started1]
 * covering i.  v must be one of those; a value from a failed store, from
 * another writer's region, or outside any region is always wrong; for a
 * range [first, last] reported with v, the range must lie within the range
 * v was stored over.  If the ring has wrapped past what a check needs, the
 * check is skipped and counted, never guessed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/maple_tree.h>
#include <linux/xarray.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <ksim/fault.h>
#include <ksim/ksim.h>
#include <ksim/sched.h>
#include <ksim/stress.h>

#define MAX_WRITERS	8
#define REGION_SPAN	(1UL << 20)	/* distance between region bases */
#define REGION_BASE	(1UL << 16)	/* first region starts here, so low indices stay empty */
#define REGION_SIZE	1024		/* indices a writer uses */
#define LOG_SIZE	(1U << 15)
#define MAX_OBS		64

enum { OP_STORE, OP_ERASE };

struct region {
	unsigned long started, done;	/* seq numbers, release/acquire */
	struct ksim_oplog_entry log[LOG_SIZE];
	unsigned long model[REGION_SIZE];	/* writer-private: value id, 0 = empty */
	unsigned long seq;			/* writer-private */
};

static struct maple_tree tree;
static struct region *regions;
static int nr_writers;
static unsigned long skipped_checks;

static unsigned long region_base(int w)
{
	return REGION_BASE + w * REGION_SPAN;
}

static void *value_of(unsigned long seq, int w)
{
	return xa_mk_value(seq << 3 | w);
}

/*
 * KSIM_MAPLE_TRACE=A-B (with --sched): between scheduler steps A and B print
 * every writer operation (and the tree after it, with "+dump": A-B+dump) and
 * every step of a reader's walk with the maple state it left, which is what a
 * single-threaded reduction of a failure needs.  Printing runs with yield
 * points off (only the baton holder runs), so the schedule stays that of the
 * run without the trace.
 */
static unsigned long trace_from, trace_to;
static bool trace_dump;

static bool tracing(unsigned long *step)
{
	if (!trace_to)
		return false;
	*step = ksim_sched_steps(NULL);
	return *step >= trace_from && *step <= trace_to;
}

static void trace_init(void)
{
	const char *v = getenv("KSIM_MAPLE_TRACE");
	int end = 0;

	if (!v)
		return;
	if (sscanf(v, "%lu-%lu%n", &trace_from, &trace_to, &end) != 2 ||
	    (v[end] && strcmp(v + end, "+dump"))) {
		fprintf(stderr, "maple_stress: KSIM_MAPLE_TRACE=%s: expected FIRST-LAST[+dump] (steps)\n", v);
		exit(2);
	}
	trace_dump = v[end] != 0;
}

static void trace_op(int w, unsigned long seq, const char *what, unsigned long first,
		     unsigned long last, int ret, bool done)
{
	uint32_t yield = ksim_yield_threshold;
	unsigned long step;

	if (!tracing(&step))
		return;
	ksim_yield_threshold = 0;
	fprintf(stderr, "# trace step %lu: writer %d seq %lu %s [%lu, %lu] = %d\n", step, w, seq,
		what, first, last, ret);
	if (trace_dump && done) {
		rcu_read_lock();	/* mt_dump() reads like an RCU reader */
#if KSIM_HAVE_MT_DUMP_FORMAT
		mt_dump(&tree, mt_dump_dec);
#else
		mt_dump(&tree);
#endif
		rcu_read_unlock();
	}
	ksim_yield_threshold = yield;
}

static void trace_mas(const char *what, const struct ma_state *mas, void *entry)
{
	unsigned long step;

	if (!tracing(&step))
		return;
	fprintf(stderr, "# trace step %lu: reader %s [%lu, %lu] = %p (node %p offset %u min %lu max %lu",
		step, what, mas->index, mas->last, entry, mas->node, mas->offset, mas->min, mas->max);
#if KSIM_HAVE_MAS_STATUS
	fprintf(stderr, " end %u status %d", mas->end, mas->status);
#endif
	fprintf(stderr, ")\n");
}

/* ---- writers (each publishes its operations in ksim_oplog, ksim/stress.h) ---- */

static void model_set(struct region *r, int w, unsigned long first, unsigned long last,
		      unsigned long id)
{
	for (unsigned long i = first; i <= last; i++)
		r->model[i - region_base(w)] = id;
}

/*
 * Compare the whole region with the model (the region only changes under its
 * writer).  @t is NULL for the final check after all threads stopped.
 */
static void check_region(struct ksim_stress_thread *t, struct region *r, int w)
{
	unsigned long base = region_base(w), covered = 0, expect = 0;
	MA_STATE(mas, &tree, base, base);
	void *entry;

	for (int i = 0; i < REGION_SIZE; i++)
		expect += r->model[i] != 0;
	rcu_read_lock();
	mas_for_each(&mas, entry, base + REGION_SIZE - 1) {
		unsigned long id = xa_to_value(entry);

		KSIM_STRESS_CHECK(t, xa_is_value(entry), "non-value entry %p at %lu", entry, mas.index);
		KSIM_STRESS_CHECK(t, mas.index >= base && mas.last < base + REGION_SIZE,
				  "entry %lu at [%lu, %lu] crosses region %d [%lu, %lu]", id,
				  mas.index, mas.last, w, base, base + REGION_SIZE - 1);
		if (t && !ksim_stress_running())
			break;
		for (unsigned long i = mas.index; i <= mas.last; i++) {
			if (r->model[i - base] != id) {
				ksim_stress_fail(t, __FILE__, __LINE__,
						 "region %d index %lu: tree has %lu over [%lu, %lu], model %lu",
						 w, i, id, mas.index, mas.last, r->model[i - base]);
				break;
			}
		}
		covered += mas.last - mas.index + 1;
	}
	rcu_read_unlock();
	KSIM_STRESS_CHECK(t, covered == expect || (t && !ksim_stress_running()),
			  "region %d: tree covers %lu indices, model %lu", w, covered, expect);
	if (t)
		ksim_stress_checks(t, 1);
}

static unsigned long rand_len(struct ksim_stress_thread *t)
{
	unsigned int p = ksim_rng_below(&t->rng, 100);

	if (p < 50)
		return 1 + ksim_rng_below(&t->rng, 4);
	if (p < 95)
		return 1 + ksim_rng_below(&t->rng, 48);
	return 1 + ksim_rng_below(&t->rng, REGION_SIZE / 2);	/* spans many entries: merges */
}

static void writer(struct ksim_stress_thread *t)
{
	int w = t->index;
	struct region *r = &regions[w];
	unsigned long base = region_base(w), nr = 0;

	while (ksim_stress_running()) {
		unsigned int op = ksim_rng_below(&t->rng, 100);
		unsigned long len = rand_len(t);
		unsigned long first = base + ksim_rng_below(&t->rng, REGION_SIZE - len + 1);
		unsigned long last = first + len - 1;
		unsigned long seq = ++r->seq, old_id = 0;
		unsigned int kind = OP_STORE;
		bool occupied = false;
		void *entry = value_of(seq, w), *old;
		int ret = 0, expect_ret = 0;

		if (op >= 55 && op < 70) {
			/* mtree_erase(): removes the whole entry containing the index. */
			unsigned long i = first;

			old_id = r->model[i - base];
			first = last = i;
			while (old_id && first > base && r->model[first - 1 - base] == old_id)
				first--;
			while (old_id && last < base + REGION_SIZE - 1 && r->model[last + 1 - base] == old_id)
				last++;
			kind = OP_ERASE;
		} else if (op >= 40 && op < 55) {
			kind = OP_ERASE;
		}
		ksim_oplog_put(r->log, LOG_SIZE, seq, first, last, kind);
		__atomic_store_n(&r->started, seq, __ATOMIC_RELEASE);
		trace_op(w, seq, op < 40 ? "start store" : op < 55 ? "start store NULL" :
			 op < 70 ? "start erase" : op < 80 ? "start insert" : "start mas_store_gfp",
			 first, last, 0, false);

		if (op < 40) {
			ret = mtree_store_range(&tree, first, last, entry, GFP_KERNEL);
		} else if (op < 55) {
			ret = mtree_store_range(&tree, first, last, NULL, GFP_KERNEL);
		} else if (op < 70) {
			old = mtree_erase(&tree, first);
			KSIM_STRESS_CHECK(t, old == (old_id ? value_of(old_id >> 3, w) : NULL),
					  "mtree_erase(%lu) returned %p, model has id %lu", first, old, old_id);
			/*
			 * mtree_erase() has no error return: when it cannot
			 * allocate it leaves the entry in place (the kernel's
			 * GFP_KERNEL allocations of this size do not fail).
			 */
			if (old && ksim_fault_armed() && mtree_load(&tree, first) == old)
				ret = -ENOMEM;
		} else if (op < 80) {
			for (unsigned long i = first; i <= last; i++)
				occupied |= r->model[i - base] != 0;
			expect_ret = occupied ? -EEXIST : 0;
			ret = mtree_insert_range(&tree, first, last, entry, GFP_KERNEL);
		} else {
			/* The advanced API, as kernel callers use it. */
			MA_STATE(mas, &tree, first, last);

			mas_lock(&mas);
			ret = mas_store_gfp(&mas, entry, GFP_KERNEL);
			mas_unlock(&mas);
		}

		if (ret == -ENOMEM && ksim_fault_armed()) {
			ksim_oplog_set_failed(r->log, LOG_SIZE, seq);
		} else if (ret != expect_ret) {
			ksim_stress_fail(t, __FILE__, __LINE__, "op %u on [%lu, %lu] returned %d, expected %d",
					 op, first, last, ret, expect_ret);
		} else if (ret) {
			ksim_oplog_set_failed(r->log, LOG_SIZE, seq);
		} else {
			model_set(r, w, first, last, kind == OP_STORE ? (seq << 3 | w) : 0);
		}
		/* Spot-check both ends of what changed (or did not). */
		for (int k = 0; k < 2; k++) {
			unsigned long i = k ? last : first;
			void *got = mtree_load(&tree, i);
			unsigned long id = r->model[i - base];

			KSIM_STRESS_CHECK(t, got == (id ? xa_mk_value(id) : NULL),
					  "after op %u (ret %d) on [%lu, %lu]: mtree_load(%lu) = %p, model id %lu",
					  op, ret, first, last, i, got, id);
		}
		ksim_stress_checks(t, 2);
		trace_op(w, seq, "done", first, last, ret, true);
		__atomic_store_n(&r->done, seq, __ATOMIC_RELEASE);
		ksim_stress_op(t);

		if (++nr % 512 == 0)
			check_region(t, r, w);
		if (w == 0 && nr % 2048 == 0) {
			unsigned long before = ksim_problem_total();

			mtree_lock(&tree);
			mt_validate(&tree);
			mtree_unlock(&tree);
			KSIM_STRESS_CHECK(t, ksim_problem_total() == before, "mt_validate() failed");
			ksim_stress_checks(t, 1);
		}
	}
}

/* ---- readers ---- */

struct obs {
	unsigned long first, last;
	void *entry;
	const char *how;
};

struct snapshot {
	unsigned long done0[MAX_WRITERS];
	unsigned long started1[MAX_WRITERS];
};

static void history(struct region *r, unsigned long index, unsigned long from, unsigned long to)
{
	struct ksim_oplog_entry e;
	int n = 0;

	for (unsigned long k = to; k > 0 && n < 12; k--) {
		if (!ksim_oplog_get(r->log, LOG_SIZE, k, &e))
			break;
		if (index < e.first || index > e.last)
			continue;
		fprintf(stderr, "    seq %lu: %s [%lu, %lu]%s%s\n", k, e.kind == OP_STORE ? "store" : "erase",
			e.first, e.last, e.failed ? " (failed)" : "", k <= from ? " (before section)" : "");
		n++;
		if (k <= from && !e.failed)
			break;
	}
}

/* Was @entry a state of @index at some point of the section? */
static void check_one(struct ksim_stress_thread *t, const struct snapshot *s, unsigned long index,
		      const struct obs *o)
{
	unsigned long off = index - REGION_BASE, id = 0, seq = 0;
	int w = off / REGION_SPAN;
	struct region *r;
	struct ksim_oplog_entry e;

	if (index < REGION_BASE || w >= nr_writers || off % REGION_SPAN >= REGION_SIZE) {
		KSIM_STRESS_CHECK(t, o->entry == NULL, "%s: index %lu is in no region, yet holds %p",
				  o->how, index, o->entry);
		return;
	}
	r = &regions[w];
	if (o->entry) {
		if (!xa_is_value(o->entry)) {
			ksim_stress_fail(t, __FILE__, __LINE__, "%s: index %lu holds %p, not a value we stored",
					 o->how, index, o->entry);
			return;
		}
		id = xa_to_value(o->entry);
		seq = id >> 3;
		if ((int)(id & 7) != w || seq == 0 || seq > s->started1[w]) {
			ksim_stress_fail(t, __FILE__, __LINE__,
					 "%s: index %lu (region %d) holds id %lu (writer %lu, seq %lu; started %lu)",
					 o->how, index, w, id, id & 7, seq, s->started1[w]);
			return;
		}
		if (ksim_oplog_get(r->log, LOG_SIZE, seq, &e)) {
			if (e.failed || e.kind != OP_STORE || o->first < e.first || o->last > e.last) {
				ksim_stress_fail(t, __FILE__, __LINE__,
						 "%s: [%lu, %lu] holds seq %lu, which %s [%lu, %lu]", o->how,
						 o->first, o->last, seq,
						 e.failed ? "FAILED to store over" :
						 e.kind != OP_STORE ? "erased" : "was stored over only", e.first, e.last);
				return;
			}
		}
	}
	for (unsigned long k = s->started1[w]; ; k--) {
		if (k == 0) {
			if (!id)
				return;
			break;
		}
		if (!ksim_oplog_get(r->log, LOG_SIZE, k, &e)) {
			__atomic_add_fetch(&skipped_checks, 1, __ATOMIC_RELAXED);
			return;
		}
		if (index < e.first || index > e.last || e.failed)
			continue;
		if ((e.kind == OP_STORE ? k : 0) == seq)
			return;
		if (k <= s->done0[w])
			break;
	}
	ksim_stress_fail(t, __FILE__, __LINE__,
			 "%s: index %lu (range [%lu, %lu]) holds %s%lu, never its value during the section "
			 "(region %d, done at start %lu, started at end %lu); its history, newest first:",
			 o->how, index, o->first, o->last, id ? "seq " : "NULL", seq, w,
			 s->done0[w], s->started1[w]);
	history(r, index, s->done0[w], s->started1[w]);
}

static unsigned long rand_index(struct ksim_stress_thread *t)
{
	int w = ksim_rng_below(&t->rng, nr_writers);

	/* Mostly inside a region, sometimes in the empty space around it. */
	if (ksim_rng_below(&t->rng, 16) == 0)
		return region_base(w) - 8 + ksim_rng_below(&t->rng, REGION_SIZE + 16);
	return region_base(w) + ksim_rng_below(&t->rng, REGION_SIZE);
}

static void reader(struct ksim_stress_thread *t)
{
	struct obs obs[MAX_OBS];
	struct snapshot s;

	while (ksim_stress_running()) {
		unsigned int op = ksim_rng_below(&t->rng, 4);
		unsigned long index = rand_index(t), prev, step;
		int n = 0, steps = 1 + ksim_rng_below(&t->rng, 24);
		MA_STATE(mas, &tree, index, index);
		void *entry;

		rcu_read_lock();
		if (tracing(&step))
			fprintf(stderr, "# trace step %lu: reader op %u from %lu, up to %d steps\n", step, op,
				index, steps);
		for (int w = 0; w < nr_writers; w++)
			s.done0[w] = __atomic_load_n(&regions[w].done, __ATOMIC_ACQUIRE);
		switch (op) {
		case 0:
			entry = mas_walk(&mas);
			trace_mas("mas_walk", &mas, entry);
			obs[n++] = (struct obs){ mas.index, mas.last, entry, "mas_walk" };
			if (mas.index > index || mas.last < index)
				ksim_stress_fail(t, __FILE__, __LINE__, "mas_walk(%lu) gave range [%lu, %lu]",
						 index, mas.index, mas.last);
			break;
		case 1:
			prev = 0;
			while (n < steps && (entry = mas_find(&mas, ULONG_MAX)) != NULL) {
				/*
				 * In RCU mode a walk that finds its node dead
				 * re-walks from the last index, so it may return
				 * an overlapping or the same range again; it must
				 * never return a range wholly before the last one.
				 */
				if (n && mas.last < prev) {
					ksim_stress_fail(t, __FILE__, __LINE__,
							 "mas_find(from %lu) went backwards: [%lu, %lu] = %p after one starting at %lu",
							 index, mas.index, mas.last, entry, prev);
					for (int k = 0; k < n; k++)
						fprintf(stderr, "    earlier in this walk: [%lu, %lu] = %p\n",
							obs[k].first, obs[k].last, obs[k].entry);
				}
				trace_mas("mas_find", &mas, entry);
				prev = mas.index;
				obs[n++] = (struct obs){ mas.index, mas.last, entry, "mas_find" };
			}
			break;
		case 2:
			entry = mas_walk(&mas);
			trace_mas("mas_walk", &mas, entry);
			prev = mas.last;
			while (n < steps && (entry = mas_prev(&mas, 0)) != NULL) {
				trace_mas("mas_prev", &mas, entry);
				/* The mirror image of mas_find's check. */
				if (mas.index > prev)
					ksim_stress_fail(t, __FILE__, __LINE__,
							 "mas_prev went forwards: [%lu, %lu] before one ending at %lu",
							 mas.index, mas.last, prev);
				prev = mas.last;
				/*
				 * mas_prev() derives a range's end from the
				 * index it came from (mas->last = mas->index - 1)
				 * rather than re-reading the pivot, so after a
				 * concurrent in-place store (which does not kill
				 * the node) the end can be stale: seen as [66000,
				 * 66403] for a value stored over [66000, 66025].
				 * Only the reported start is checked.
				 */
				obs[n++] = (struct obs){ mas.index, mas.index, entry, "mas_prev" };
			}
			break;
		default: {
			unsigned long i = index;

			mt_for_each(&tree, entry, i, index + 4 * REGION_SIZE) {
				/* mt_find() leaves i one past the entry's last index. */
				obs[n++] = (struct obs){ i - 1, i - 1, entry, "mt_for_each" };
				if (n == steps)
					break;
			}
			break;
		}
		}
		for (int w = 0; w < nr_writers; w++)
			s.started1[w] = __atomic_load_n(&regions[w].started, __ATOMIC_ACQUIRE);
		rcu_read_unlock();

		for (int k = 0; k < n && ksim_stress_running(); k++) {
			check_one(t, &s, obs[k].first, &obs[k]);
			if (obs[k].last != obs[k].first)
				check_one(t, &s, obs[k].last, &obs[k]);
		}
		ksim_stress_checks(t, n);
		ksim_stress_op(t);
	}
}

static void setup(void)
{
	trace_init();
	nr_writers = ksim_stress_threads(1);
	if (nr_writers > MAX_WRITERS || nr_writers < 1) {
		fprintf(stderr, "maple_stress: 1..%d writers\n", MAX_WRITERS);
		exit(2);
	}
	regions = calloc(nr_writers, sizeof(*regions));
	if (!regions)
		exit(2);
	mt_init_flags(&tree, MT_FLAGS_USE_RCU);
}

static void teardown(void)
{
	unsigned long before = ksim_problem_total();

	/* Final state: the whole tree against the models, and the structure. */
	for (int w = 0; w < nr_writers; w++)
		check_region(NULL, &regions[w], w);
	mtree_lock(&tree);
	mt_validate(&tree);
	mtree_unlock(&tree);
	if (ksim_problem_total() != before)
		ksim_stress_fail(NULL, __FILE__, __LINE__, "final mt_validate() failed");
	mtree_destroy(&tree);
	if (ksim_verbose > 1 || skipped_checks)
		fprintf(stderr, "# maple: %lu reader checks skipped (log wrapped)\n", skipped_checks);
	free(regions);
}

KSIM_STRESS_READERS_WRITERS("maple",
	"lib/maple_tree.c in RCU mode: readers (mas_walk, mas_find, mas_prev, mt_for_each)\n"
	"check every entry they see against the writers' operation logs; writers check\n"
	"every result against an exact model of their region.")
