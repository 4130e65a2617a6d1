// SPDX-License-Identifier: GPL-2.0
/*
 * The xarray's model and the op runner that checks lib/xarray.c against
 * it (see model.h for what is modelled).  Shared by xarray/test_model.c
 * (seeded random ops) and fuzz/xarray.c (ops decoded from the input).
 */
#include <linux/xarray.h>
#include <linux/bitops.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <ksim/ksim.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

static const char *const op_names[KSIM_XA_OP_NR] = {
	"xa_store", "xas_store_order", "xa_store_range", "xa_erase", "xa_insert",
	"xa_cmpxchg", "xa_reserve", "xa_release", "xa_load", "xa_get_order",
	"xa_set_mark", "xa_clear_mark", "xa_get_mark", "xa_find", "xa_find_after",
	"xa_alloc", "xa_destroy", "xas_split",
};

#define FAIL(s, op, fmt, ...) do {					\
	char __b[160];							\
	ksim_problem(KSIM_P_TEST, __FILE__, __LINE__, "op #%lu %s: " fmt, \
		     (s)->ops, ksim_xa_op_str(op, __b, sizeof(__b)), ##__VA_ARGS__); \
} while (0)

const char *ksim_xa_op_str(const struct ksim_xa_op *op, char *buf, size_t len)
{
	const char *name = op->kind < KSIM_XA_OP_NR ? op_names[op->kind] : "?";

	snprintf(buf, len, "%s(index %lu, last %lu, order %u, mark %u, flags %#x)",
		 name, op->index, op->last, op->order, op->mark, op->flags);
	return buf;
}

/* ---- the model: sorted, disjoint entries ---- */

static void m_reserve(struct ksim_xa_sim *s, size_t n)
{
	if (n <= s->cap)
		return;
	while (s->cap < n)
		s->cap = s->cap ? s->cap * 2 : 256;
	s->e = realloc(s->e, s->cap * sizeof(*s->e));
	if (!s->e)
		abort();
}

/* Index of the first entry with last >= index (s->nr if none). */
static size_t m_lower(const struct ksim_xa_sim *s, unsigned long index)
{
	size_t lo = 0, hi = s->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->e[mid].last < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct ksim_xa_entry *m_at(struct ksim_xa_sim *s, unsigned long index)
{
	size_t i = m_lower(s, index);

	return i < s->nr && s->e[i].first <= index ? &s->e[i] : NULL;
}

/* Remove every entry overlapping [first, last]; returns the OR of their marks. */
static unsigned int m_remove(struct ksim_xa_sim *s, unsigned long first, unsigned long last)
{
	size_t i = m_lower(s, first), j = i;
	unsigned int marks = 0;

	while (j < s->nr && s->e[j].first <= last)
		marks |= s->e[j++].marks;
	memmove(&s->e[i], &s->e[j], (s->nr - j) * sizeof(*s->e));
	s->nr -= j - i;
	return marks;
}

/* Insert an entry into a free range. */
static void m_insert(struct ksim_xa_sim *s, unsigned long first, unsigned long last,
		     unsigned long val, unsigned int marks)
{
	size_t i;

	m_reserve(s, s->nr + 1);
	i = m_lower(s, first);
	memmove(&s->e[i + 1], &s->e[i], (s->nr - i) * sizeof(*s->e));
	s->e[i] = (struct ksim_xa_entry){ first, last, val, marks };
	s->nr++;
}

/* Marks the model keeps: in an allocating array mark 0 is the xarray's own. */
static unsigned int user_marks(const struct ksim_xa_sim *s, unsigned int marks)
{
	return s->alloc ? marks & ~1u : marks;
}

static void *raw_entry(unsigned long val)
{
	if (!val)
		return NULL;
	return val == KSIM_XA_RESERVED ? XA_ZERO_ENTRY : xa_mk_value(val);
}

/* What xa_load() and friends return for an entry (zero entries read as NULL). */
static void *user_entry(const struct ksim_xa_entry *e)
{
	return e && e->val != KSIM_XA_RESERVED ? xa_mk_value(e->val) : NULL;
}

static unsigned long val_of(void *entry)
{
	if (!entry)
		return 0;
	if (xa_is_zero(entry))
		return KSIM_XA_RESERVED;
	if (xa_is_value(entry))
		return xa_to_value(entry);
	return KSIM_XA_RESERVED - 1;	/* never stored: reported as a mismatch */
}

/* xa_get_order() of an entry: ceil(log2(size)) (a run of n slots reads as order ceil(log2(n))). */
static unsigned int entry_order(const struct ksim_xa_entry *e)
{
	unsigned long size = e->last - e->first + 1;

	if (!size)
		return BITS_PER_LONG;
	return size == 1 ? 0 : BITS_PER_LONG - __builtin_clzl(size - 1);
}

/*
 * The indices of the entry an xa_state points at: its canonical slot and
 * the sibling slots after it (xa_store_range() makes runs of any length,
 * not only aligned powers of two, so xas_get_order() cannot say).
 */
static void xas_extent(struct xa_state *xas, unsigned long *first, unsigned long *last)
{
	struct xa_node *node = xas->xa_node;
	unsigned int n = 1;

	if (!node || xas_invalid(xas)) {
		*first = *last = xas->xa_index;
		return;
	}
	while (xas->xa_offset + n < XA_CHUNK_SIZE &&
	       xa_is_sibling(rcu_dereference_raw(node->slots[xas->xa_offset + n])))
		n++;
	*first = xas->xa_index & ~((1UL << node->shift) - 1);
	*last = *first + ((unsigned long)n << node->shift) - 1;
}

static gfp_t op_gfp(const struct ksim_xa_op *op)
{
	return op->flags & KSIM_XA_F_NOWAIT ? GFP_NOWAIT | __GFP_NOWARN : GFP_KERNEL;
}

static unsigned long new_val(struct ksim_xa_sim *s, const struct ksim_xa_op *op)
{
	return op->flags & KSIM_XA_F_NULL ? 0 : ++s->next_val;
}

/*
 * An error result: only -ENOMEM, and only when an allocation was failed on
 * purpose.  Returns true if @err is an error (the model stays unchanged).
 */
static bool op_error(struct ksim_xa_sim *s, const struct ksim_xa_op *op, int err)
{
	if (!err)
		return false;
	if (err != -ENOMEM || !s->enomem_ok || !s->enomem_ok())
		FAIL(s, op, "unexpected error %d", err);
	return true;
}

/* ---- ops ---- */

/* A store of order 0 at @index (xa_store, xa_cmpxchg): the entry it lands in. */
static void model_store_at(struct ksim_xa_sim *s, unsigned long index, unsigned long val)
{
	struct ksim_xa_entry *e = m_at(s, index);
	unsigned long first = e ? e->first : index, last = e ? e->last : index;
	unsigned int marks = e ? e->marks : 0;

	m_remove(s, first, last);
	if (val)
		m_insert(s, first, last, val, user_marks(s, marks));
}

static void op_store(struct ksim_xa_sim *s, const struct ksim_xa_op *op)
{
	struct ksim_xa_entry *e = m_at(s, op->index);
	void *want = user_entry(e), *ret;
	unsigned long val = new_val(s, op);

	ret = xa_store(&s->xa, op->index, raw_entry(val), op_gfp(op));
	if (xa_is_err(ret)) {
		op_error(s, op, xa_err(ret));
		return;
	}
	if (ret != want)
		FAIL(s, op, "returned %lu, model %lu", val_of(ret), val_of(want));
	/* An allocating array keeps a NULL store's index busy (a zero entry). */
	if (!val && s->alloc)
		val = KSIM_XA_RESERVED;
	model_store_at(s, op->index, val);
}

/* Does an entry bigger than [first, last] contain part of it? */
static bool inside_bigger(struct ksim_xa_sim *s, unsigned long first, unsigned long last)
{
	size_t i = m_lower(s, first);

	for (; i < s->nr && s->e[i].first <= last; i++)
		if (s->e[i].first < first || s->e[i].last > last)
			return true;
	return false;
}

static void op_store_order(struct ksim_xa_sim *s, const struct ksim_xa_op *op)
{
	unsigned int order = op->order;
	unsigned long size = 1UL << order;
	unsigned long first = op->index & ~(size - 1), last = first + size - 1;
	unsigned long val;
	XA_STATE_ORDER(xas, &s->xa, op->index, order);
	unsigned int marks;

	if (inside_bigger(s, first, last)) {
		s->skipped++;	/* outside the API's contract: split first */
		return;
	}
	val = new_val(s, op);
	do {
		xas_lock(&xas);
		xas_store(&xas, raw_entry(val));
		xas_unlock(&xas);
	} while (xas_nomem(&xas, op_gfp(op)));
	if (op_error(s, op, xas_error(&xas)))
		return;
	marks = m_remove(s, first, last);
	if (val)
		m_insert(s, first, last, val, marks);
	if (xa_load(&s->xa, first) != raw_entry(val) || xa_load(&s->xa, last) != raw_entry(val))
		FAIL(s, op, "[%lu, %lu] reads %lu and %lu after storing %lu", first, last,
		     val_of(xa_load(&s->xa, first)), val_of(xa_load(&s->xa, last)), val);
	if (val && xa_get_order(&s->xa, first) != (int)order)
		FAIL(s, op, "xa_get_order(%lu) = %d after a store of order %u", first,
		     xa_get_order(&s->xa, first), order);
}

static void op_store_range(struct ksim_xa_sim *s, const struct ksim_xa_op *op)
{
	unsigned long first = op->index, last = op->last, val, next;
	struct ksim_xa_entry *old;
	size_t i, nold;
	void *ret;

	if (last >= first && inside_bigger(s, first, last)) {
		s->skipped++;
		return;
	}
	val = new_val(s, op);
	ret = xa_store_range(&s->xa, first, last, raw_entry(val), op_gfp(op));
	if (last < first) {
		if (xa_err(ret) != -EINVAL)
			FAIL(s, op, "last < first returned %d, not -EINVAL", xa_err(ret));
		return;
	}
	if (xa_is_err(ret)) {
		op_error(s, op, xa_err(ret));
		return;
	}
	if (ret)
		FAIL(s, op, "returned %lu, not NULL", val_of(ret));
	/* The entries it replaced, for the pieces' marks. */
	i = m_lower(s, first);
	for (nold = 0; i + nold < s->nr && s->e[i + nold].first <= last; nold++)
		;
	old = malloc((nold + 1) * sizeof(*old));
	memcpy(old, &s->e[i], nold * sizeof(*old));
	m_remove(s, first, last);
	/* The cut is the xarray's: read it back and check it tiles the range. */
	next = first;
	if (val) {
		XA_STATE(xas, &s->xa, first);
		void *entry;

		rcu_read_lock();
		xas_for_each(&xas, entry, last) {
			unsigned long pfirst, plast;
			unsigned int marks = 0;

			if (xa_is_retry(entry))
				continue;
			xas_extent(&xas, &pfirst, &plast);
			if (pfirst != next || plast > last || entry != raw_entry(val)) {
				FAIL(s, op, "piece [%lu, %lu] = %lu, expected one from %lu to at most %lu = %lu",
				     pfirst, plast, val_of(entry), next, last, val);
				break;
			}
			for (size_t k = 0; k < nold; k++)
				if (old[k].first <= plast && old[k].last >= pfirst)
					marks |= old[k].marks;
			m_insert(s, pfirst, plast, val, marks);
			next = plast + 1;
			if (!next)
				break;
		}
		rcu_read_unlock();
		if (next != last + 1)
			FAIL(s, op, "pieces end at %lu, not at %lu", next - 1, last);
	}
	free(old);
}

static void op_erase(struct ksim_xa_sim *s, const struct ksim_xa_op *op)
{
	struct ksim_xa_entry *e = m_at(s, op->index);
	void *want = user_entry(e), *ret;

	ret = xa_erase(&s->xa, op->index);
	if (ret != want)
		FAIL(s, op, "returned %lu, model %lu", val_of(ret), val_of(want));
	if (e)
		m_remove(s, e->first, e->last);
}

static void op_insert(struct ksim_xa_sim *s, const struct ksim_xa_op *op)
{
	struct ksim_xa_entry *e = m_at(s, op->index);
	unsigned long val = new_val(s, op);
	int ret = xa_insert(&s->xa, op->index, raw_entry(val), op_gfp(op));

	if (e) {
		if (ret != -EBUSY)
			FAIL(s, op, "over an entry returned %d, not -EBUSY", ret);
		return;
	}
	if (op_error(s, op, ret))
		return;
	m_insert(s, op->index, op->index, val ? val : KSIM_XA_RESERVED, 0);
}

static void op_cmpxchg(struct ksim_xa_sim *s, const struct ksim_xa_op *op)
{
	struct ksim_xa_entry *e = m_at(s, op->index);
	void *curr = e ? raw_entry(e->val) : NULL;
	void *old = op->flags & KSIM_XA_F_WRONG_OLD ? xa_mk_value(LONG_MAX) : curr;
	unsigned long val = new_val(s, op);
	void *ret = xa_cmpxchg(&s->xa, op->index, old, raw_entry(val), op_gfp(op));

	if (xa_is_err(ret)) {
		op_error(s, op, xa_err(ret));
		return;
	}
	if (ret != user_entry(e))
		FAIL(s, op, "returned %lu, model %lu", val_of(ret), val_of(user_entry(e)));
	if (old == curr)
		model_store_at(s, op->index, val);
}

static void op_reserve(struct ksim_xa_sim *s, const struct ksim_xa_op *op)
{
	struct ksim_xa_entry *e = m_at(s, op->index);
	int ret = xa_reserve(&s->xa, op->index, op_gfp(op));

	if (op_error(s, op, ret))
		return;
	if (!e)
		m_insert(s, op->index, op->index, KSIM_XA_RESERVED, 0);
}

static void op_release(struct ksim_xa_sim *s, const struct ksim_xa_op *op)
{
	struct ksim_xa_entry *e = m_at(s, op->index);

	xa_release(&s->xa, op->index);
	if (e && e->val == KSIM_XA_RESERVED)
		m_remove(s, e->first, e->last);
}

static void op_mark(struct ksim_xa_sim *s, const struct ksim_xa_op *op)
{
	struct ksim_xa_entry *e = m_at(s, op->index);
	xa_mark_t mark = (xa_mark_t)op->mark;
	bool got;

	switch (op->kind) {
	case KSIM_XA_SET_MARK:
		xa_set_mark(&s->xa, op->index, mark);
		if (e)
			e->marks |= 1u << op->mark;
		break;
	case KSIM_XA_CLEAR_MARK:
		xa_clear_mark(&s->xa, op->index, mark);
		if (e)
			e->marks &= ~(1u << op->mark);
		break;
	default:
		got = xa_get_mark(&s->xa, op->index, mark);
		if (got != (e && (e->marks & (1u << op->mark))))
			FAIL(s, op, "returned %d, model %d", got, !!(e && (e->marks & (1u << op->mark))));
	}
}

static bool matches(const struct ksim_xa_entry *e, const struct ksim_xa_op *op)
{
	if (e->val == KSIM_XA_RESERVED)
		return false;	/* searches skip zero entries */
	return !(op->flags & KSIM_XA_F_MARKED) || (e->marks & (1u << op->mark));
}

/*
 * xa_extract() from the same start, up to the same max, with the same
 * filter (read-only, so a find op checks it too): up to n entries, each
 * once (a multi-index entry or xa_store_range() piece once, the one
 * containing start included), in index order, reserved entries skipped.
 */
static void extract(struct ksim_xa_sim *s, const struct ksim_xa_op *op, xa_mark_t filter)
{
	unsigned int n = 1 + (op->order & 7), got, want = 0;
	void *dst[8];
	size_t i;

	got = xa_extract(&s->xa, dst, op->index, op->last, n, filter);
	for (i = m_lower(s, op->index); i < s->nr && s->e[i].first <= op->last && want < n; i++) {
		if (!matches(&s->e[i], op))
			continue;
		if (want < got && dst[want] != user_entry(&s->e[i])) {
			FAIL(s, op, "xa_extract(n=%u): entry %u is %lu, model %lu at [%lu, %lu]", n,
			     want, val_of(dst[want]), val_of(user_entry(&s->e[i])), s->e[i].first,
			     s->e[i].last);
			return;
		}
		want++;
	}
	if (got != want)
		FAIL(s, op, "xa_extract(n=%u) copied %u entries, model %u", n, got, want);
}

static void op_find(struct ksim_xa_sim *s, const struct ksim_xa_op *op)
{
	bool after = op->kind == KSIM_XA_FIND_AFTER;
	unsigned long index = op->index, max = op->last, from;
	xa_mark_t filter = op->flags & KSIM_XA_F_MARKED ? (xa_mark_t)op->mark : XA_PRESENT;
	const struct ksim_xa_entry *want = NULL;
	void *ret;
	size_t i;

	if (after && index == ULONG_MAX)
		from = 0;	/* nothing is after ULONG_MAX */
	else
		from = after ? index + 1 : index;
	if (!(after && index == ULONG_MAX)) {
		for (i = m_lower(s, from); i < s->nr && s->e[i].first <= max; i++) {
			if (after && s->e[i].first < from)
				continue;	/* started at or before index */
			if (matches(&s->e[i], op)) {
				want = &s->e[i];
				break;
			}
		}
	}
	ret = after ? xa_find_after(&s->xa, &index, max, filter) :
		      xa_find(&s->xa, &index, max, filter);
	/*
	 * Observed on every tree (xarray/README.md, candidate): with a mark
	 * filter, xa_find_after() returns the entry that contains index + 1
	 * when it began at or before index and is marked (xas_find_marked()
	 * moves a start on a sibling slot back to the canonical one, and
	 * xas_sibling() then sees no sibling), so xa_for_each_marked() does
	 * not end on such an entry.  Accepted here, counted in s->quirks.
	 */
	if (after && (op->flags & KSIM_XA_F_MARKED) && ret && from) {
		const struct ksim_xa_entry *c = m_at(s, from);

		if (c && c->first < from && matches(c, op) && ret == user_entry(c) &&
		    index >= c->first && index <= c->last) {
			s->quirks++;
			return;
		}
	}
	if (ret != user_entry(want)) {
		FAIL(s, op, "returned %lu at %lu, model %lu at [%lu, %lu]", val_of(ret), index,
		     val_of(user_entry(want)), want ? want->first : 0, want ? want->last : 0);
		return;
	}
	if (want && (index < want->first || index > want->last))
		FAIL(s, op, "index %lu is outside the entry [%lu, %lu]", index, want->first, want->last);
	if (!want && index != op->index)
		FAIL(s, op, "found nothing but moved the index to %lu", index);
	if (!after)
		extract(s, op, filter);
}

/* The lowest index in [from, to] with no entry (not even a reserved one), or -1. */
static long first_free(struct ksim_xa_sim *s, unsigned long from, unsigned long to)
{
	for (unsigned long i = from; i <= to; i++)
		if (!m_at(s, i))
			return i;
	return -1;
}

/*
 * __xa_alloc_cyclic(): "The search for an empty entry will start at @next
 * and will wrap around if necessary"; returns 0, or 1 "if the allocation
 * succeeded after wrapping", -ENOMEM "if memory could not be allocated",
 * -EBUSY "if there are no free entries in @limit".
 */
static void op_alloc_cyclic(struct ksim_xa_sim *s, const struct ksim_xa_op *op)
{
	u32 min = (u32)op->index, max = (u32)op->last, id = 0xdeadbeef, next = s->next_id;
	u32 from = next > min ? next : min;
	unsigned long val = new_val(s, op);
	long want = first_free(s, from, max);
	int want_ret = s->id_wrapped ? 1 : 0, ret;
	bool above = want >= 0, known = false;

	if (!above && from > min) {
		want = first_free(s, min, max);
		want_ret = 1;
	}
	/* __xa_alloc_cyclic(): 7.x's xa_alloc_cyclic() returns 0 after a wrap too */
	xa_lock(&s->xa);
	ret = __xa_alloc_cyclic(&s->xa, &id, raw_entry(val), XA_LIMIT(min, max), &s->next_id,
				op_gfp(op));
	xa_unlock(&s->xa);
	if (want < 0) {
		if (ret != -EBUSY)
			FAIL(s, op, "full limit [%u, %u] returned %d, not -EBUSY", min, max, ret);
		return;
	}
	if (ret < 0) {
		op_error(s, op, ret);
		if (s->next_id != next)
			FAIL(s, op, "cursor moved from %u to %u by a failed allocation", next,
			     s->next_id);
		return;
	}
	/*
	 * A failed node allocation above the cursor makes it start again at
	 * the limit's minimum and report a wrap: intended, not in the
	 * kernel-doc (finding xarray-alloc-cyclic-nomem-wraps, kind doc, every
	 * tree, xarray/regression/).
	 * Accepted only when an allocation was failed on purpose, and only
	 * as that: the lowest free index from the minimum, returning 1.
	 */
	if (above && ret == 1 && s->enomem_ok && s->enomem_ok() && from > min &&
	    (long)id == first_free(s, min, max)) {
		s->known++;
		known = true;
		want = id;
		want_ret = 1;
	}
	if (id != want || ret != want_ret) {
		FAIL(s, op, "allocated %u and returned %d from cursor %u in [%u, %u], model %ld "
		     "and %d", id, ret, next, min, max, want, want_ret);
		return;
	}
	if (s->next_id != id + 1)
		FAIL(s, op, "cursor %u after allocating %u", s->next_id, id);
	if (above && !known)
		s->id_wrapped = false;	/* the first search succeeded */
	if (s->next_id == 0)
		s->id_wrapped = true;
	m_insert(s, id, id, val ? val : KSIM_XA_RESERVED, 0);
}

static void op_alloc(struct ksim_xa_sim *s, const struct ksim_xa_op *op)
{
	u32 min = (u32)op->index, max = (u32)op->last, id = 0xdeadbeef, want = 0;
	unsigned long val = new_val(s, op);
	bool have = false;
	unsigned long i;
	int ret;

	if (op->flags & KSIM_XA_F_CYCLIC) {
		op_alloc_cyclic(s, op);
		return;
	}
	for (i = min; i <= max; i++) {
		if (!m_at(s, i)) {
			want = i;
			have = true;
			break;
		}
	}
	ret = xa_alloc(&s->xa, &id, raw_entry(val), XA_LIMIT(min, max), op_gfp(op));
	if (!have) {
		if (ret != -EBUSY)
			FAIL(s, op, "full limit [%u, %u] returned %d, not -EBUSY", min, max, ret);
		return;
	}
	if (op_error(s, op, ret))
		return;
	if (id != want)
		FAIL(s, op, "allocated %u, model %u", id, want);
	m_insert(s, id, id, val ? val : KSIM_XA_RESERVED, 0);
}

/* Shape an op to the array: what the model does not cover is changed, not skipped. */
static void normalize(const struct ksim_xa_sim *s, struct ksim_xa_op *op)
{
	op->mark %= XA_MAX_MARKS;
	if (s->alloc && op->mark == 0)
		op->mark = 1;	/* mark 0 is the free mark */
	op->order %= 16;
	if (s->alloc && (op->kind == KSIM_XA_STORE_ORDER || op->kind == KSIM_XA_STORE_RANGE))
		op->kind = KSIM_XA_STORE;	/* raw multi-index stores ignore the free mark */
	if (!s->alloc && op->kind == KSIM_XA_ALLOC)
		op->kind = KSIM_XA_STORE;
	if ((op->kind == KSIM_XA_FIND || op->kind == KSIM_XA_FIND_AFTER) && op->last < op->index)
		op->last = ULONG_MAX;
	/*
	 * xa_store_range() up to ULONG_MAX never returns: its loop's
	 * first += xas_size() wraps to 0 and it goes on storing from index 0
	 * (lib/xarray.c, every tree from 6.1 to 7.3; no in-tree caller stores
	 * up to ULONG_MAX: mm/memremap.c stores PFN ranges).  Not issued:
	 * finding xarray-store-range-ulong-max, xarray/regression/.
	 */
	if (op->kind == KSIM_XA_STORE_RANGE && op->last == ULONG_MAX)
		op->last = ULONG_MAX - 1;
	if (op->kind == KSIM_XA_STORE_RANGE && op->last != op->index - 1 &&
	    op->last - op->index > 4096 && op->last > op->index)
		op->last = op->index + (op->last & 4095);	/* bounded: pieces are walked */
	if (op->kind == KSIM_XA_ALLOC) {
		op->index &= 0xffffffff;
		op->last = op->index + (op->last & 0xff);
		if (op->last > 0xffffffff)
			op->last = 0xffffffff;
	}
}

static void op_load(struct ksim_xa_sim *s, const struct ksim_xa_op *op)
{
	struct ksim_xa_entry *e = m_at(s, op->index);
	void *ret = xa_load(&s->xa, op->index);

	if (ret != user_entry(e))
		FAIL(s, op, "returned %lu, model %lu", val_of(ret), val_of(user_entry(e)));
}

static void op_get_order(struct ksim_xa_sim *s, const struct ksim_xa_op *op)
{
	struct ksim_xa_entry *e = m_at(s, op->index);
	int order = xa_get_order(&s->xa, op->index);
	unsigned long size = e ? e->last - e->first + 1 : 1;

	/*
	 * Only an aligned power-of-two entry has an order: xas_get_order()
	 * counts sibling slots at offset + 2^k without asking whose they
	 * are, so for a run that xa_store_range() made it may count the
	 * next run's siblings too.
	 */
	if (e && (!size || (size & (size - 1)) || (e->first & (size - 1))))
		return;
	if (order != (e ? (int)entry_order(e) : 0))
		FAIL(s, op, "returned %d, model %u", order, e ? entry_order(e) : 0);
}

static void op_destroy(struct ksim_xa_sim *s, const struct ksim_xa_op *op)
{
	xa_destroy(&s->xa);
	s->nr = 0;
	if (!xa_empty(&s->xa))
		FAIL(s, op, "array not empty after xa_destroy()");
}

/*
 * Split the aligned power-of-two entry at op->index (order o >= 1) into
 * entries of order n, each with one new value (F_NULL: the old one) and
 * the entry's marks, as the page cache splits a large folio's entry.
 * Without F_TRY: xas_split_alloc() outside the lock, then xas_split(), as
 * mm/huge_memory.c's uniform split; n = op->order % o, for o < n - n %
 * XA_CHUNK_SHIFT + 2 * XA_CHUNK_SHIFT (a larger split WARNs: "no support
 * for splitting really large entries yet").  With F_TRY:
 * xas_try_split() under the lock (allocating one node with GFP_NOWAIT if
 * it needs one), as mm/filemap.c, mm/shmem.c and the non-uniform split
 * call it: n = xas_try_split_min_order(o), or with F_ANY_ORDER any n < o,
 * which it must refuse with -EINVAL below the minimum ("If more new
 * xa_node are needed, the function gives EINVAL error").
 */
static void op_split(struct ksim_xa_sim *s, const struct ksim_xa_op *op)
{
	struct ksim_xa_entry *e = m_at(s, op->index);
	unsigned long first, size, val;
	unsigned int o, n, marks, min = 0;
	bool try = false;
	void *entry;
	int err;

	if (!e || e->val == KSIM_XA_RESERVED) {
		s->skipped++;
		return;
	}
	first = e->first;
	size = e->last - e->first + 1;
	if (size < 2 || (size & (size - 1)) || (first & (size - 1))) {
		s->skipped++;	/* not a multi-index entry (a run of xa_store_range()) */
		return;
	}
	o = __builtin_ctzl(size);
	n = op->order % o;
#if KSIM_HAVE_XAS_TRY_SPLIT
	try = op->flags & KSIM_XA_F_TRY;
	if (try) {
		min = xas_try_split_min_order(o);
		if (min >= o || (o % XA_CHUNK_SHIFT == 0 ? min != o - 1 :
				 min != o - o % XA_CHUNK_SHIFT))
			FAIL(s, op, "xas_try_split_min_order(%u) = %u", o, min);
		if (!(op->flags & KSIM_XA_F_ANY_ORDER))
			n = min + op->order % (o - min);
		/*
		 * Below the minimum xas_try_split() compares only the new
		 * order's sibling count: from an order that is a multiple of
		 * XA_CHUNK_SHIFT to o - 1 - k * XA_CHUNK_SHIFT it "succeeds"
		 * with two entries of order o - 1 (7.2, 7.3; finding
		 * xarray-try-split-below-min, xarray/regression/).  No
		 * in-tree caller asks for it.  Not issued.
		 */
		if (n < min && o % XA_CHUNK_SHIFT == 0 &&
		    n % XA_CHUNK_SHIFT == (o - 1) % XA_CHUNK_SHIFT) {
			s->skipped++;
			return;
		}
	}
#endif
	if (!try && o >= n - n % XA_CHUNK_SHIFT + 2 * XA_CHUNK_SHIFT) {
		s->skipped++;
		return;
	}
	/*
	 * Where xas_split() fills a new child node (n below the entry's
	 * level) with entries that have siblings (n not a multiple of
	 * XA_CHUNK_SHIFT), 6.1 sets the entry's marks on every slot, siblings
	 * too: a mark then outlives xa_clear_mark() of every entry and
	 * xa_find() returns a sibling entry (finding
	 * xarray-split-sibling-marks, xarray/regression/).  6.1's callers
	 * split to order 0 or unmarked shadow entries.  Not issued there.
	 */
	if (!KSIM_HAVE_XAS_SPLIT_CANONICAL_MARKS && e->marks && n % XA_CHUNK_SHIFT &&
	    n - n % XA_CHUNK_SHIFT < o - o % XA_CHUNK_SHIFT) {
		s->skipped++;
		return;
	}
	val = op->flags & KSIM_XA_F_NULL ? e->val : ++s->next_val;
	entry = xa_mk_value(val);
	{
		XA_STATE_ORDER(xas, &s->xa, first, n);

		if (!try) {
			xas_split_alloc(&xas, entry, o, op_gfp(op));
			if (op_error(s, op, xas_error(&xas)))
				return;
			xas_lock(&xas);
			xas_split(&xas, entry, o);
			xas_unlock(&xas);
		} else {
#if KSIM_HAVE_XAS_TRY_SPLIT
			xas_lock(&xas);
			xas_try_split(&xas, entry, o);
			xas_unlock(&xas);
#endif
		}
		err = xas_error(&xas);
	}
	if (try && n < min) {
		if (err != -EINVAL)
			FAIL(s, op, "xas_try_split() of an order-%u entry at %lu to order %u, "
			     "below xas_try_split_min_order() = %u: error %d, not -EINVAL",
			     o, first, n, min, err);
		return;
	}
	if (op_error(s, op, err))
		return;
	s->splits++;
	marks = m_remove(s, first, first + size - 1);
	for (unsigned long k = 0; k < size >> n; k++)
		m_insert(s, first + (k << n), first + ((k + 1) << n) - 1, val, marks);
	if (xa_load(&s->xa, first) != entry || xa_load(&s->xa, first + size - 1) != entry)
		FAIL(s, op, "[%lu, %lu] reads %lu and %lu after splitting to %lu", first,
		     first + size - 1, val_of(xa_load(&s->xa, first)),
		     val_of(xa_load(&s->xa, first + size - 1)), val);
	else if (xa_get_order(&s->xa, first) != (int)n ||
		 xa_get_order(&s->xa, first + size - 1) != (int)n)
		FAIL(s, op, "xa_get_order() = %d at %lu and %d at %lu after a split of order %u "
		     "to order %u", xa_get_order(&s->xa, first), first,
		     xa_get_order(&s->xa, first + size - 1), first + size - 1, o, n);
}

static void (*const op_fn[KSIM_XA_OP_NR])(struct ksim_xa_sim *s, const struct ksim_xa_op *op) = {
	[KSIM_XA_STORE] = op_store,		[KSIM_XA_STORE_ORDER] = op_store_order,
	[KSIM_XA_STORE_RANGE] = op_store_range,	[KSIM_XA_ERASE] = op_erase,
	[KSIM_XA_INSERT] = op_insert,		[KSIM_XA_CMPXCHG] = op_cmpxchg,
	[KSIM_XA_RESERVE] = op_reserve,		[KSIM_XA_RELEASE] = op_release,
	[KSIM_XA_LOAD] = op_load,		[KSIM_XA_GET_ORDER] = op_get_order,
	[KSIM_XA_SET_MARK] = op_mark,		[KSIM_XA_CLEAR_MARK] = op_mark,
	[KSIM_XA_GET_MARK] = op_mark,		[KSIM_XA_FIND] = op_find,
	[KSIM_XA_FIND_AFTER] = op_find,		[KSIM_XA_ALLOC] = op_alloc,
	[KSIM_XA_DESTROY] = op_destroy,		[KSIM_XA_SPLIT] = op_split,
};

void ksim_xa_sim_op(struct ksim_xa_sim *s, const struct ksim_xa_op *in)
{
	struct ksim_xa_op op = *in;
	char buf[160];

	normalize(s, &op);
	s->ops++;
	if (s->trace)
		printf("#%lu %s\n", s->ops, ksim_xa_op_str(&op, buf, sizeof(buf)));
	if (op.kind < KSIM_XA_OP_NR && op_fn[op.kind])
		op_fn[op.kind](s, &op);
}

/* ---- whole-array checks ---- */

static unsigned int vfail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static unsigned int vfail(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ksim_problem(KSIM_P_TEST, __FILE__, __LINE__, "xarray structure: %s", msg);
	return 1;
}

static bool node_any_mark(const struct xa_node *node, unsigned int m)
{
	for (unsigned int i = 0; i < XA_MARK_LONGS; i++)
		if (node->marks[m][i])
			return true;
	return false;
}

static unsigned int validate_node(struct xarray *xa, struct xa_node *node,
				  struct xa_node *parent, unsigned int offset,
				  unsigned int shift, unsigned int depth)
{
	unsigned int bad = 0, count = 0, values = 0;

	if (depth > BITS_PER_LONG / XA_CHUNK_SHIFT + 1)
		return vfail("node %p: deeper than an index has bits", node);
	if (node->parent != parent)
		bad += vfail("node %p: parent %p, reached from %p", node, node->parent, parent);
	if (parent && node->offset != offset)
		bad += vfail("node %p: offset %u, in slot %u", node, node->offset, offset);
	if (node->shift != shift)
		bad += vfail("node %p: shift %u, expected %u", node, node->shift, shift);
	if (node->array != xa)
		bad += vfail("node %p: array %p, not %p", node, node->array, xa);
	for (unsigned int j = 0; j < XA_CHUNK_SIZE; j++) {
		void *e = rcu_dereference_raw(node->slots[j]);

		if (!e)
			continue;
		count++;
		if (xa_is_value(e))
			values++;
		if (xa_is_sibling(e)) {
			unsigned int c = xa_to_sibling(e);
			void *ce = c < j ? rcu_dereference_raw(node->slots[c]) : NULL;

			if (c >= j || !ce || xa_is_sibling(ce) || xa_is_node(ce))
				bad += vfail("node %p slot %u: sibling of slot %u", node, j, c);
			for (unsigned int k = c + 1; k < j; k++)
				if (rcu_dereference_raw(node->slots[k]) != e)
					bad += vfail("node %p slot %u: not a sibling of slot %u between them",
						     node, k, c);
			if (ce && xa_is_value(ce))
				values++;	/* a value entry's siblings count as values */
			for (unsigned int m = 0; m < XA_MAX_MARKS; m++)
				if (test_bit(j, node->marks[m]))
					bad += vfail("node %p slot %u: sibling carries mark %u", node, j, m);
			continue;
		}
		if (xa_is_node(e)) {
			struct xa_node *child = xa_to_node(e);

			if (!shift) {
				bad += vfail("node %p slot %u: node below the bottom level", node, j);
				continue;
			}
			for (unsigned int m = 0; m < XA_MAX_MARKS; m++)
				if (test_bit(j, node->marks[m]) != node_any_mark(child, m))
					bad += vfail("node %p slot %u: mark %u is %d, the child has %s",
						     node, j, m, test_bit(j, node->marks[m]),
						     node_any_mark(child, m) ? "some" : "none");
			bad += validate_node(xa, child, node, j, shift - XA_CHUNK_SHIFT, depth + 1);
		}
	}
	/* Marks on empty slots. */
	for (unsigned int j = 0; j < XA_CHUNK_SIZE; j++) {
		if (rcu_dereference_raw(node->slots[j]))
			continue;
		for (unsigned int m = 0; m < XA_MAX_MARKS; m++) {
			/* An allocating array marks free slots with XA_FREE_MARK. */
			if (m == 0 && (xa->xa_flags & XA_FLAGS_TRACK_FREE))
				continue;
			if (test_bit(j, node->marks[m]))
				bad += vfail("node %p slot %u: empty slot carries mark %u", node, j, m);
		}
	}
	if (node->count != count)
		bad += vfail("node %p: count %u, %u slots used", node, node->count, count);
	if (node->nr_values != values)
		bad += vfail("node %p: nr_values %u, %u value slots", node, node->nr_values, values);
	return bad;
}

unsigned int ksim_xa_validate(struct xarray *xa)
{
	void *head = rcu_dereference_raw(xa->xa_head);
	struct xa_node *node;
	unsigned int bad;

	if (!xa_is_node(head))
		return 0;
	node = xa_to_node(head);
	bad = validate_node(xa, node, NULL, 0, node->shift, 0);
	for (unsigned int m = 0; m < XA_MAX_MARKS; m++) {
		if (m == 0 && (xa->xa_flags & XA_FLAGS_TRACK_FREE))
			continue;
		if (!!xa_marked(xa, (xa_mark_t)m) != node_any_mark(node, m))
			bad += vfail("array mark %u is %d, the root node has %s", m,
				     !!xa_marked(xa, (xa_mark_t)m),
				     node_any_mark(node, m) ? "some" : "none");
	}
	return bad;
}

bool ksim_xa_sim_check(struct ksim_xa_sim *s, const char *when)
{
	XA_STATE(xas, &s->xa, 0);
	unsigned long before = ksim_problem_count(KSIM_P_TEST);
	size_t i = 0;
	void *entry;

	xa_lock(&s->xa);
	ksim_xa_validate(&s->xa);
	xas_for_each(&xas, entry, ULONG_MAX) {
		unsigned long first, last;
		unsigned int marks = 0;
		const struct ksim_xa_entry *e = i < s->nr ? &s->e[i] : NULL;

		xas_extent(&xas, &first, &last);

		for (unsigned int m = 0; m < XA_MAX_MARKS; m++)
			if (xas_get_mark(&xas, (xa_mark_t)m))
				marks |= 1u << m;
		if (s->alloc && (marks & 1))
			ksim_problem(KSIM_P_TEST, __FILE__, __LINE__,
				     "%s: present entry [%lu, %lu] carries the free mark", when, first, last);
		if (!e || e->first != first || e->last != last || e->val != val_of(entry) ||
		    e->marks != user_marks(s, marks)) {
			ksim_problem(KSIM_P_TEST, __FILE__, __LINE__,
				     "%s: xarray [%lu, %lu] = %lu marks %#x, model [%lu, %lu] = %lu marks %#x",
				     when, first, last, val_of(entry), user_marks(s, marks),
				     e ? e->first : 0, e ? e->last : 0, e ? e->val : 0, e ? e->marks : 0);
			break;
		}
		i++;
	}
	xa_unlock(&s->xa);
	if (ksim_problem_count(KSIM_P_TEST) == before && i != s->nr)
		ksim_problem(KSIM_P_TEST, __FILE__, __LINE__, "%s: xarray has %zu entries, model %zu",
			     when, i, s->nr);
	for (i = 0; i < s->nr && ksim_problem_count(KSIM_P_TEST) == before; i++) {
		void *want = user_entry(&s->e[i]);

		if (xa_load(&s->xa, s->e[i].first) != want || xa_load(&s->xa, s->e[i].last) != want)
			ksim_problem(KSIM_P_TEST, __FILE__, __LINE__,
				     "%s: xa_load() of [%lu, %lu] disagrees with the walk", when,
				     s->e[i].first, s->e[i].last);
	}
	if (ksim_problem_count(KSIM_P_TEST) != before) {
		xa_dump(&s->xa);
		return false;
	}
	return true;
}

void ksim_xa_sim_init(struct ksim_xa_sim *s, bool alloc)
{
	memset(s, 0, sizeof(*s));
	s->alloc = alloc;
	xa_init_flags(&s->xa, alloc ? XA_FLAGS_ALLOC : 0);
	m_reserve(s, 256);
}

void ksim_xa_sim_destroy(struct ksim_xa_sim *s)
{
	xa_destroy(&s->xa);
	free(s->e);
	s->e = NULL;
	s->nr = s->cap = 0;
}
