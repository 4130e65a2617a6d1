/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maple tree's model: what a tree of non-NULL entries holds, as sorted,
 * disjoint intervals [first, last] -> val (val != 0).  NULL ranges are the
 * gaps between them.  Plain C with no kernel headers, so every user (the
 * fuzz target fuzz/maple.c, the API tests maple/tests/) shares one copy of
 * the semantics: a store of [first, last] overwrites whatever overlaps and
 * splits the intervals it cuts; storing 0 erases.
 */
#ifndef _KSIM_MAPLE_MODEL_H
#define _KSIM_MAPLE_MODEL_H

#include <stdbool.h>
#include <stddef.h>

struct ksim_ival {
	unsigned long first, last, val;	/* val != 0 */
};

struct ksim_maple_model {
	struct ksim_ival *iv;		/* nr intervals, ascending */
	size_t nr, cap;
	struct ksim_ival *scratch;	/* cap entries, for the stores */
};

/* Room for @n intervals (aborts when out of memory). */
void ksim_maple_model_reserve(struct ksim_maple_model *m, size_t n);
/* Empty it (keeps the memory) / give the memory back. */
void ksim_maple_model_clear(struct ksim_maple_model *m);
void ksim_maple_model_free(struct ksim_maple_model *m);
/* Copy @src into @dst (for trees duplicated by mtree_dup()). */
void ksim_maple_model_copy(struct ksim_maple_model *dst, const struct ksim_maple_model *src);

/* Index of the first interval with last >= @index (m->nr if none). */
size_t ksim_maple_model_lower(const struct ksim_maple_model *m, unsigned long index);
/* The interval holding @index, or NULL. */
const struct ksim_ival *ksim_maple_model_at(const struct ksim_maple_model *m, unsigned long index);
/* Whether any entry lies in [first, last]. */
bool ksim_maple_model_any(const struct ksim_maple_model *m, unsigned long first,
			  unsigned long last);
/* The value at @index (0: NULL). */
unsigned long ksim_maple_model_load(const struct ksim_maple_model *m, unsigned long index);
/*
 * The maximal range around @index with one value: the entry's interval, or
 * for a NULL index the gap between its neighbours (what mas_walk() reports).
 */
unsigned long ksim_maple_model_range(const struct ksim_maple_model *m, unsigned long index,
				     unsigned long *first, unsigned long *last);

/* [first, last] = val (0 erases). */
void ksim_maple_model_store(struct ksim_maple_model *m, unsigned long first, unsigned long last,
			    unsigned long val);
/* Many stores at once, by one merge: @b ascending and disjoint, val 0 erases. */
void ksim_maple_model_store_sorted(struct ksim_maple_model *m, const struct ksim_ival *b, size_t n);

/* Lowest start of @size free indices in [min, max]; false if none. */
bool ksim_maple_model_gap(const struct ksim_maple_model *m, unsigned long min, unsigned long max,
			  unsigned long size, unsigned long *start);
/* Highest last of @size free indices in [min, max]; false if none. */
bool ksim_maple_model_gap_rev(const struct ksim_maple_model *m, unsigned long min,
			      unsigned long max, unsigned long size, unsigned long *lastp);

#endif
