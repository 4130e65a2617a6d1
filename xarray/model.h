/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The xarray's model (xarray/model.c): one reference for every ksim test
 * of lib/xarray.c that checks results (the random-ops test, the fuzz
 * target).  What it models, from the API's documentation and the
 * kernel's own tests (lib/test_xarray.c):
 *
 *   - entries: an index maps to at most one entry; an entry covers an
 *     aligned range of 2^order indices (multi-index entries,
 *     CONFIG_XARRAY_MULTI), or, made by xa_store_range(), a run of slots
 *     of one node (any length; xa_get_order() is checked only for aligned
 *     power-of-two entries);
 *   - reserved entries (xa_reserve(), xa_insert(NULL), a NULL store in an
 *     allocating array): xa_load() returns NULL, xa_insert() -EBUSY,
 *     searches skip them;
 *   - marks (XA_MARK_0..2) belong to an entry, whichever index of it is
 *     named; a store over present entries keeps the OR of their marks, a
 *     NULL store drops them; in an allocating array (XA_FLAGS_ALLOC) mark
 *     0 is the free mark: clear on every present entry;
 *   - a store of order 0 inside a multi-index entry replaces the whole
 *     entry; a store of a higher order strictly inside a bigger entry is
 *     outside the API's contract (the caller splits first): not issued;
 *   - a split of an entry of order o to order n (xas_split(),
 *     xas_try_split()) leaves 2^(o-n) entries of order n, each with the
 *     split's value and the old entry's marks; xas_try_split() splits to
 *     any order from xas_try_split_min_order(o) up and refuses (-EINVAL)
 *     below it;
 *   - xa_extract() (checked with every xa_find op, same range and
 *     filter) copies the first n matching entries from start on, each
 *     once, in index order;
 *   - xa_find() returns the first matching entry with an index >= start
 *     (its index is somewhere in the entry), xa_find_after() the first
 *     that starts after the given index; xa_alloc() the lowest free index
 *     in its limit; __xa_alloc_cyclic() the lowest free index from its
 *     cursor up, else (returning 1: "after wrapping") from the limit's
 *     minimum up, and 1 also for the first allocation after the cursor
 *     went past U32_MAX; -ENOMEM only as -ENOMEM (never as a wrap).
 *
 * Where the xarray decides the shape (how xa_store_range() cuts its range
 * into runs), the model reads the cut from the xarray after the op and
 * checks it: the pieces must tile the range and carry the stored value.
 *
 * Every disagreement is a KSIM_P_TEST problem (the shim's one failure
 * sink): the test runner fails the test, the fuzz harness the input.
 */
#ifndef _KSIM_XARRAY_MODEL_H
#define _KSIM_XARRAY_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/xarray.h>

enum ksim_xa_op_kind {
	KSIM_XA_STORE,		/* xa_store(index), order 0 */
	KSIM_XA_STORE_ORDER,	/* xas_set_order() + xas_store() + xas_nomem() */
	KSIM_XA_STORE_RANGE,	/* xa_store_range(index, last) */
	KSIM_XA_ERASE,		/* xa_erase */
	KSIM_XA_INSERT,		/* xa_insert */
	KSIM_XA_CMPXCHG,	/* xa_cmpxchg, old right or wrong */
	KSIM_XA_RESERVE,	/* xa_reserve */
	KSIM_XA_RELEASE,	/* xa_release */
	KSIM_XA_LOAD,		/* xa_load */
	KSIM_XA_GET_ORDER,	/* xa_get_order */
	KSIM_XA_SET_MARK,	/* xa_set_mark */
	KSIM_XA_CLEAR_MARK,	/* xa_clear_mark */
	KSIM_XA_GET_MARK,	/* xa_get_mark */
	KSIM_XA_FIND,		/* xa_find, XA_PRESENT or a mark */
	KSIM_XA_FIND_AFTER,	/* xa_find_after */
	KSIM_XA_ALLOC,		/* xa_alloc (allocating arrays; else xa_store); F_CYCLIC: __xa_alloc_cyclic */
	KSIM_XA_DESTROY,	/* xa_destroy */
	KSIM_XA_SPLIT,		/* xas_split_alloc() + xas_split(); F_TRY: xas_try_split() */
	KSIM_XA_OP_NR,
};

/* Op flags. */
#define KSIM_XA_F_NULL		0x01	/* store NULL (an erase) */
#define KSIM_XA_F_NOWAIT	0x02	/* GFP_NOWAIT instead of GFP_KERNEL */
#define KSIM_XA_F_WRONG_OLD	0x04	/* cmpxchg: an old value that is not there */
#define KSIM_XA_F_MARKED	0x08	/* find: filter by the op's mark */
#define KSIM_XA_F_TRY		0x10	/* split: xas_try_split(), where the tree has it */
#define KSIM_XA_F_ANY_ORDER	0x20	/* split: the op's order, not xas_try_split_min_order() */
#define KSIM_XA_F_CYCLIC	0x40	/* alloc: __xa_alloc_cyclic() from the array's cursor */

struct ksim_xa_op {
	uint8_t kind;		/* enum ksim_xa_op_kind */
	uint8_t flags;
	uint8_t order;		/* STORE_ORDER; SPLIT: the new order (mod the entry's) */
	uint8_t mark;		/* 0..2 */
	unsigned long index;
	unsigned long last;	/* STORE_RANGE; FIND*: max; ALLOC: limit max */
};

/* One entry of the model: [first, last], 2^order indices when not a range piece. */
struct ksim_xa_entry {
	unsigned long first, last;
	unsigned long val;	/* xa_to_value(); KSIM_XA_RESERVED for a zero entry */
	unsigned int marks;	/* bit m: XA_MARK_m */
};
#define KSIM_XA_RESERVED	(~0UL)

struct ksim_xa_sim {
	struct xarray xa;
	bool alloc;		/* XA_FLAGS_ALLOC */
	struct ksim_xa_entry *e;	/* sorted, disjoint */
	size_t nr, cap;
	unsigned long next_val;
	u32 next_id;		/* xa_alloc_cyclic()'s cursor */
	bool id_wrapped;	/* it went past U32_MAX: the next allocation returns 1 */
	unsigned long ops, skipped, quirks, splits;
	unsigned long known;	/* results of a listed finding, accepted (model.c says where) */
	/* True when -ENOMEM is acceptable for the op that just ran (an
	 * allocation was failed on purpose); NULL: never. */
	bool (*enomem_ok)(void);
	bool trace;		/* print each op and its result */
};

void ksim_xa_sim_init(struct ksim_xa_sim *s, bool alloc);
/* Run one op on the xarray and check it against the model; updates the model. */
void ksim_xa_sim_op(struct ksim_xa_sim *s, const struct ksim_xa_op *op);
/*
 * The whole-array oracle: every entry (xas_for_each, with its order and
 * marks) equals the model, xa_load() agrees at both ends of each, and the
 * node structure is sound (ksim_xa_validate()).  Returns false (after
 * reporting) on a difference.
 */
bool ksim_xa_sim_check(struct ksim_xa_sim *s, const char *when);
void ksim_xa_sim_destroy(struct ksim_xa_sim *s);
/* Human-readable op, for traces and failure messages. */
const char *ksim_xa_op_str(const struct ksim_xa_op *op, char *buf, size_t len);

/*
 * Structural validation of an xarray's nodes (the xarray has no validator
 * of its own; XA_NODE_BUG_ON() checks a node only where the code touches
 * it): parent/offset/shift links, count = non-NULL slots, nr_values =
 * value slots, node marks = OR of the marks below, sibling slots point
 * back at a canonical slot and carry no marks.  Call with the xa_lock held
 * or under rcu_read_lock() with no writer.  Returns the number of problems
 * reported.
 */
unsigned int ksim_xa_validate(struct xarray *xa);

#endif
