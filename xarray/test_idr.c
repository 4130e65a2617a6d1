// SPDX-License-Identifier: GPL-2.0
/*
 * lib/idr.c's IDR and IDA against a model: seeded random operations, each
 * checked as it returns, the whole state every 256 ops and at the end.
 * The kernel's idr-test.c checks many fixed cases; these add random mixes,
 * the cyclic cursor, a base of 1, and (with --fault SPEC) allocation
 * failures, after which -ENOMEM must leave everything as it was.
 *
 *   idr_api   idr_alloc() (plain and after idr_preload() under the lock, as
 *             callers do), idr_alloc_cyclic() against the model's cursor,
 *             idr_remove(), idr_find(), idr_replace(), idr_get_next(); NULL
 *             pointers hold an ID (idr_find() says NULL, idr_get_next()
 *             skips it); half the runs with idr_init_base(idr, 1)
 *   ida_api   ida_alloc_range() (GFP_KERNEL and GFP_NOWAIT), ida_free();
 *             ida_exists() and ida_find_first_range() where the tree has
 *             them (7.2+)
 *
 * IDs live in two windows, [0, 4096) and the 4096 below INT_MAX, and every
 * range lies in one of them, so the lowest free ID is always one the model
 * holds.
 */
#include <linux/idr.h>
#include <ksim/fault.h>
#include <ksim/test.h>

#define WIN	4096
#define NSLOT	(2 * WIN)
#define NOPS	20000

/* Slot k of the model <-> ID; increasing in k. */
static unsigned int id_of(unsigned int k)
{
	return k < WIN ? k : INT_MAX - (NSLOT - 1 - k);
}

static bool busy[NSLOT];
static void *ptr[NSLOT];
static u64 objs[NSLOT];

static unsigned long faults0;

/* xarray/radix_tree.c: this thread's preloaded nodes back to the slab */
int radix_tree_cpu_dead(unsigned int cpu);

static bool enomem_ok(int err)
{
	return err == -ENOMEM && ksim_fault_failures() > faults0;
}

/* A range [lo, hi] of slots inside one window (IDs between them free too). */
static void rand_range(struct ksim_rng *rng, unsigned int *lo, unsigned int *hi)
{
	unsigned int base = ksim_rng_below(rng, 2) ? WIN : 0;
	/* a quarter near a 1024-ID chunk's start: the IDA's value entries (bits 0..62) */
	unsigned int a = ksim_rng_below(rng, 4) ? ksim_rng_below(rng, WIN) :
		ksim_rng_below(rng, WIN / 1024) * 1024 + ksim_rng_below(rng, 80);
	unsigned int b = ksim_rng_below(rng, 8) ? a + ksim_rng_below(rng, 64) :
		ksim_rng_below(rng, WIN);

	if (b >= WIN)
		b = WIN - 1;
	if (b < a) {
		unsigned int t = a;

		a = b;
		b = t;
	}
	*lo = base + a;
	*hi = base + b;
}

/* The lowest free slot in [lo, hi], or -1. */
static int first_free(unsigned int lo, unsigned int hi)
{
	for (unsigned int k = lo; k <= hi; k++)
		if (!busy[k])
			return k;
	return -1;
}

/* The slot of an ID in the model's windows, or -1. */
static int slot_of(unsigned long id)
{
	if (id < WIN)
		return id;
	if (id <= INT_MAX && id > (unsigned long)INT_MAX - WIN)
		return NSLOT - 1 - (INT_MAX - id);
	return -1;
}

static void idr_check_all(struct idr *idr, const char *when)
{
	int next_busy = -1;

	for (int k = NSLOT - 1; k >= 0; k--) {
		void *got = idr_find(idr, id_of(k));

		KSIM_EXPECT(got == ptr[k], "%s: idr_find(%u) = %p, model %p", when, id_of(k), got,
			    ptr[k]);
		if (busy[k] && ptr[k])
			next_busy = k;
		if (k % 97 == 0) {
			int id = id_of(k);

			got = idr_get_next(idr, &id);
			KSIM_EXPECT(got == (next_busy >= 0 ? ptr[next_busy] : NULL) &&
				    (next_busy < 0 || id == (int)id_of(next_busy)),
				    "%s: idr_get_next(%u) = %p at %d, model %p at %d", when, id_of(k),
				    got, id, next_busy >= 0 ? ptr[next_busy] : NULL,
				    next_busy >= 0 ? (int)id_of(next_busy) : -1);
		}
	}
}

KSIM_TEST(idr_api)
{
	struct ksim_rng *rng = ksim_test_rng();
	unsigned int base = ksim_rng_below(rng, 2);
	u32 cursor = 0;
	struct idr idr;

	idr_init_base(&idr, base);
	memset(busy, 0, sizeof(busy));
	memset(ptr, 0, sizeof(ptr));
	for (unsigned int k = 0; k < base; k++)
		busy[k] = true;		/* below the base: never handed out */
	for (unsigned int n = 0; n < NOPS && ksim_problem_count(KSIM_P_TEST) < 10; n++) {
		unsigned int op = ksim_rng_below(rng, 100), lo, hi, k = ksim_rng_below(rng, NSLOT);
		void *p = ksim_rng_below(rng, 8) ? &objs[k] : NULL, *got;
		int id, want;

		rand_range(rng, &lo, &hi);
		faults0 = ksim_fault_failures();
		if (op < 30) {
			/* idr_alloc(start, end): end 0 is "up to INT_MAX" (the top slot) */
			int start = id_of(lo), end = hi == NSLOT - 1 ? 0 : (int)id_of(hi) + 1;

			want = first_free(lo, hi);
			if (op < 15) {
				id = idr_alloc(&idr, p, start, end, GFP_KERNEL);
			} else {
				idr_preload(GFP_KERNEL);
				idr_lock(&idr);
				id = idr_alloc(&idr, p, start, end, GFP_NOWAIT);
				idr_unlock(&idr);
				idr_preload_end();
			}
			if (want < 0) {
				KSIM_EXPECT(id == -ENOSPC, "idr_alloc([%d, %d)) of a full range = %d",
					    start, end, id);
			} else if (id < 0) {
				KSIM_EXPECT(enomem_ok(id), "idr_alloc([%d, %d)) = %d, model %u", start,
					    end, id, id_of(want));
			} else {
				KSIM_EXPECT(id == (int)id_of(want), "idr_alloc([%d, %d)) = %d, model %u",
					    start, end, id, id_of(want));
				busy[want] = true;
				ptr[want] = p;
			}
		} else if (op < 45) {
			/* idr_alloc_cyclic(): from the cursor, else from start */
			int start, end, from, before = idr_get_cursor(&idr);

			/* a third: a few IDs around the cursor (the wrap's edges) */
			if (op % 3 == 0 && slot_of(cursor) >= 0) {
				int c = slot_of(cursor), d = ksim_rng_below(rng, 3);

				lo = c >= d && (c - d < WIN) == (c < WIN) ? c - d : c;
				hi = lo + ksim_rng_below(rng, 4);
				if (hi >= NSLOT || (lo < WIN) != (hi < WIN))
					hi = lo;	/* within one window */
			}
			start = id_of(lo);
			end = hi == NSLOT - 1 ? 0 : (int)id_of(hi) + 1;
			from = start;

			if ((int)cursor > start)
				from = cursor;
			want = slot_of(from) >= 0 && (unsigned int)slot_of(from) <= hi ?
				first_free(slot_of(from), hi) : -1;
			/* (a cursor between the windows is above any range of the low one) */
			if (want < 0 && from > start)
				want = first_free(lo, hi);
			KSIM_EXPECT(before == (int)cursor, "idr_get_cursor() = %d, model %u", before,
				    cursor);
			id = idr_alloc_cyclic(&idr, p, start, end, GFP_KERNEL);
			if (want < 0) {
				KSIM_EXPECT(id == -ENOSPC, "idr_alloc_cyclic([%d, %d)) of a full range = %d",
					    start, end, id);
			} else if (id < 0) {
				KSIM_EXPECT(enomem_ok(id), "idr_alloc_cyclic([%d, %d)) = %d, model %u",
					    start, end, id, id_of(want));
			} else {
				KSIM_EXPECT(id == (int)id_of(want),
					    "idr_alloc_cyclic([%d, %d)) from cursor %u = %d, model %u",
					    start, end, cursor, id, id_of(want));
				busy[want] = true;
				ptr[want] = p;
				cursor = (u32)id + 1;
			}
			if (id < 0)
				KSIM_EXPECT(idr_get_cursor(&idr) == before,
					    "a failed idr_alloc_cyclic() moved the cursor from %d to %d",
					    before, idr_get_cursor(&idr));
		} else if (op < 60) {
			if (k < base)
				continue;
			got = idr_remove(&idr, id_of(k));
			KSIM_EXPECT(got == ptr[k], "idr_remove(%u) = %p, model %p", id_of(k), got, ptr[k]);
			busy[k] = false;
			ptr[k] = NULL;
		} else if (op < 70) {
			if (k < base)
				continue;
			got = idr_replace(&idr, p, id_of(k));
			if (!busy[k]) {
				KSIM_EXPECT(got == ERR_PTR(-ENOENT), "idr_replace() of the free ID %u = %p",
					    id_of(k), got);
			} else {
				KSIM_EXPECT(got == ptr[k], "idr_replace(%u) = %p, model %p", id_of(k), got,
					    ptr[k]);
				ptr[k] = p;
			}
		} else if (op < 85) {
			got = idr_find(&idr, id_of(k));
			KSIM_EXPECT(got == ptr[k], "idr_find(%u) = %p, model %p", id_of(k), got, ptr[k]);
		} else {
			int from = id_of(k), j;

			for (j = k; j < NSLOT && !(busy[j] && ptr[j]); j++)
				;
			got = idr_get_next(&idr, &from);
			KSIM_EXPECT(got == (j < NSLOT ? ptr[j] : NULL) &&
				    (j == NSLOT || from == (int)id_of(j)),
				    "idr_get_next(%u) = %p at %d, model %p at %d", id_of(k), got, from,
				    j < NSLOT ? ptr[j] : NULL, j < NSLOT ? (int)id_of(j) : -1);
		}
		if (n % 256 == 255)
			idr_check_all(&idr, "every 256 ops");
	}
	idr_check_all(&idr, "at the end");
	idr_destroy(&idr);
	KSIM_EXPECT(idr_is_empty(&idr), "IDR not empty after idr_destroy()");
	radix_tree_cpu_dead(0);	/* the preloaded nodes back to the slab */
}

/* Is @id allocated?  ida_exists() where the tree has it, else take and give back. */
static bool ida_has(struct ida *ida, unsigned int id)
{
#if KSIM_HAVE_IDA_EXISTS
	return ida_exists(ida, id);
#else
	int got;

	ksim_fault_suspend();
	got = ida_alloc_range(ida, id, id, GFP_KERNEL);
	ksim_fault_resume();
	if (got < 0)
		return true;
	ida_free(ida, got);
	return false;
#endif
}

static void ida_check_all(struct ida *ida, const char *when, unsigned int step)
{
	for (unsigned int k = 0; k < NSLOT; k += step)
		KSIM_EXPECT(ida_has(ida, id_of(k)) == busy[k], "%s: ID %u %s, model %s", when,
			    id_of(k), busy[k] ? "free" : "allocated", busy[k] ? "allocated" : "free");
}

KSIM_TEST(ida_api)
{
	struct ksim_rng *rng = ksim_test_rng();
	DEFINE_IDA(ida);

	memset(busy, 0, sizeof(busy));
	for (unsigned int n = 0; n < NOPS && ksim_problem_count(KSIM_P_TEST) < 10; n++) {
		unsigned int op = ksim_rng_below(rng, 100), lo, hi, k = ksim_rng_below(rng, NSLOT);
		int id, want;

		rand_range(rng, &lo, &hi);
		faults0 = ksim_fault_failures();
		if (op < 50) {
			want = first_free(lo, hi);
			id = ida_alloc_range(&ida, id_of(lo), id_of(hi),
					     op & 1 ? GFP_KERNEL : GFP_NOWAIT);
			if (want < 0) {
				KSIM_EXPECT(id == -ENOSPC, "ida_alloc_range(%u, %u) of a full range = %d",
					    id_of(lo), id_of(hi), id);
			} else if (id < 0) {
				KSIM_EXPECT(enomem_ok(id), "ida_alloc_range(%u, %u) = %d, model %u",
					    id_of(lo), id_of(hi), id, id_of(want));
			} else {
				KSIM_EXPECT(id == (int)id_of(want), "ida_alloc_range(%u, %u) = %d, model %u",
					    id_of(lo), id_of(hi), id, id_of(want));
				busy[want] = true;
			}
		} else if (op < 90) {
			/* free an allocated ID: the first at or after k */
			unsigned int j = k;

			while (j < NSLOT && !busy[j])
				j++;
			if (j == NSLOT)
				continue;
			ida_free(&ida, id_of(j));
			busy[j] = false;
		} else {
#if KSIM_HAVE_IDA_EXISTS
			/*
			 * From a start inside a 1024-ID chunk whose bits all lie
			 * below it, ida_find_first_range() says -ENOENT without
			 * looking at the next chunks (finding
			 * ida-find-first-range-stops-at-chunk, regression/).
			 * Issued only from a chunk's first ID (IDA_BITMAP_BITS
			 * divides both windows' starts), or for one ID
			 * (ida_exists(), what the in-tree callers use).
			 */
			if (ksim_rng_below(rng, 4))
				lo -= (lo % WIN) % IDA_BITMAP_BITS;
			else
				hi = lo;
			want = -1;
			for (unsigned int j = lo; j <= hi && want < 0; j++)
				if (busy[j])
					want = j;
			id = ida_find_first_range(&ida, id_of(lo), id_of(hi));
			KSIM_EXPECT(id == (want < 0 ? -ENOENT : (int)id_of(want)),
				    "ida_find_first_range(%u, %u) = %d, model %d", id_of(lo), id_of(hi),
				    id, want < 0 ? -ENOENT : (int)id_of(want));
#endif
			KSIM_EXPECT(ida_has(&ida, id_of(k)) == busy[k], "ID %u %s, model %s", id_of(k),
				    busy[k] ? "free" : "allocated", busy[k] ? "allocated" : "free");
		}
		if (n % 256 == 255)
			ida_check_all(&ida, "every 256 ops", KSIM_HAVE_IDA_EXISTS ? 1 : 61);
	}
	ida_check_all(&ida, "at the end", 1);
	ida_destroy(&ida);
	KSIM_EXPECT(ida_is_empty(&ida), "IDA not empty after ida_destroy()");
}

/* idr_alloc_cyclic() at the edges of its wrap, fixed cases. */
KSIM_TEST(idr_cyclic_edges)
{
	struct idr idr;
	int id;

	idr_init(&idr);
	for (int i = 0; i < 10; i++)
		KSIM_ASSERT(idr_alloc(&idr, &objs[i], 0, 0, GFP_KERNEL) == i);
	idr_remove(&idr, 5);
	/* the cursor just above a free start, everything from it up full */
	idr_set_cursor(&idr, 6);
	id = idr_alloc_cyclic(&idr, &objs[5], 5, 10, GFP_KERNEL);
	KSIM_EXPECT(id == 5, "cursor 6, [6, 9] full, 5 free: idr_alloc_cyclic(5, 10) = %d", id);
	KSIM_EXPECT(idr_get_cursor(&idr) == 6, "cursor %u after allocating 5", idr_get_cursor(&idr));
	/* full range */
	id = idr_alloc_cyclic(&idr, &objs[10], 5, 10, GFP_KERNEL);
	KSIM_EXPECT(id == -ENOSPC, "[5, 9] full: idr_alloc_cyclic() = %d", id);
	/* the cursor past the end: from the start */
	idr_remove(&idr, 7);
	idr_set_cursor(&idr, 100);
	id = idr_alloc_cyclic(&idr, &objs[7], 0, 10, GFP_KERNEL);
	KSIM_EXPECT(id == 7, "cursor 100, 7 free in [0, 9]: idr_alloc_cyclic() = %d", id);
	/* a cursor beyond INT_MAX reads as negative: from the start */
	idr_remove(&idr, 3);
	idr_set_cursor(&idr, 0x80000000u);
	id = idr_alloc_cyclic(&idr, &objs[3], 2, 0, GFP_KERNEL);
	KSIM_EXPECT(id == 3, "cursor 2^31, 3 free: idr_alloc_cyclic(2, 0) = %d", id);
	/* after INT_MAX the cursor wraps to the start */
	id = idr_alloc_cyclic(&idr, &objs[11], INT_MAX, 0, GFP_KERNEL);
	KSIM_EXPECT(id == INT_MAX, "idr_alloc_cyclic(INT_MAX, 0) = %d", id);
	id = idr_alloc_cyclic(&idr, &objs[12], 0, 0, GFP_KERNEL);
	KSIM_EXPECT(id == 10, "after INT_MAX: idr_alloc_cyclic(0, 0) = %d, want 10", id);
	idr_destroy(&idr);
}
