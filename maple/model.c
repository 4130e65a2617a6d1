// SPDX-License-Identifier: GPL-2.0
/*
 * The maple tree's interval model (model.h).  Kept out of the fuzz target's
 * translation unit: AFL++ instruments after inlining, and the fuzz build's
 * denylist (fuzz/CMakeLists.txt) leaves this file uninstrumented.
 */
#include "model.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void ksim_maple_model_reserve(struct ksim_maple_model *m, size_t n)
{
	if (n <= m->cap)
		return;
	while (m->cap < n)
		m->cap = m->cap ? m->cap * 2 : 1024;
	m->iv = realloc(m->iv, m->cap * sizeof(*m->iv));
	m->scratch = realloc(m->scratch, m->cap * sizeof(*m->scratch));
	if (!m->iv || !m->scratch)
		abort();
}

void ksim_maple_model_clear(struct ksim_maple_model *m)
{
	m->nr = 0;
}

void ksim_maple_model_free(struct ksim_maple_model *m)
{
	free(m->iv);
	free(m->scratch);
	memset(m, 0, sizeof(*m));
}

void ksim_maple_model_copy(struct ksim_maple_model *dst, const struct ksim_maple_model *src)
{
	ksim_maple_model_reserve(dst, src->nr);
	if (src->nr)
		memcpy(dst->iv, src->iv, src->nr * sizeof(*src->iv));
	dst->nr = src->nr;
}

size_t ksim_maple_model_lower(const struct ksim_maple_model *m, unsigned long index)
{
	size_t lo = 0, hi = m->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->iv[mid].last < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct ksim_ival *ksim_maple_model_at(const struct ksim_maple_model *m, unsigned long index)
{
	size_t i = ksim_maple_model_lower(m, index);

	return i < m->nr && m->iv[i].first <= index ? &m->iv[i] : NULL;
}

bool ksim_maple_model_any(const struct ksim_maple_model *m, unsigned long first,
			  unsigned long last)
{
	size_t i = ksim_maple_model_lower(m, first);

	return i < m->nr && m->iv[i].first <= last;
}

unsigned long ksim_maple_model_load(const struct ksim_maple_model *m, unsigned long index)
{
	const struct ksim_ival *iv = ksim_maple_model_at(m, index);

	return iv ? iv->val : 0;
}

unsigned long ksim_maple_model_range(const struct ksim_maple_model *m, unsigned long index,
				     unsigned long *first, unsigned long *last)
{
	size_t i = ksim_maple_model_lower(m, index);

	if (i < m->nr && m->iv[i].first <= index) {
		*first = m->iv[i].first;
		*last = m->iv[i].last;
		return m->iv[i].val;
	}
	*first = i ? m->iv[i - 1].last + 1 : 0;
	*last = i < m->nr ? m->iv[i].first - 1 : ULONG_MAX;
	return 0;
}

void ksim_maple_model_store(struct ksim_maple_model *m, unsigned long first, unsigned long last,
			    unsigned long val)
{
	size_t i = ksim_maple_model_lower(m, first), j = i, n = 0;

	ksim_maple_model_reserve(m, m->nr + 2);
	/* Part of an interval left of first survives. */
	if (i < m->nr && m->iv[i].first < first) {
		m->scratch[n] = m->iv[i];
		m->scratch[n++].last = first - 1;
	}
	if (val)
		m->scratch[n++] = (struct ksim_ival){ first, last, val };
	while (j < m->nr && m->iv[j].first <= last)
		j++;
	/* Part of the last overlapped interval right of last survives. */
	if (j > i && m->iv[j - 1].last > last) {
		m->scratch[n] = m->iv[j - 1];
		m->scratch[n++].first = last + 1;
	}
	memmove(&m->iv[i + n], &m->iv[j], (m->nr - j) * sizeof(*m->iv));
	memcpy(&m->iv[i], m->scratch, n * sizeof(*m->iv));
	m->nr = m->nr - (j - i) + n;
}

/*
 * One merge for a batch of stores: ksim_maple_model_store() moves the
 * array's tail on every store, which made the model a tenth of a fuzzing
 * run when bursts went through it.
 */
void ksim_maple_model_store_sorted(struct ksim_maple_model *m, const struct ksim_ival *b, size_t n)
{
	size_t i = 0, out = 0;
	struct ksim_ival cur;
	bool have = false;
	struct ksim_ival *t;

	ksim_maple_model_reserve(m, m->nr + 2 * n + 1);
	for (size_t j = 0; j < n; j++) {
		/* Intervals wholly below b[j] stay. */
		for (;;) {
			if (!have) {
				if (i == m->nr)
					break;
				cur = m->iv[i++];
				have = true;
			}
			if (cur.last >= b[j].first)
				break;
			m->scratch[out++] = cur;
			have = false;
		}
		/* The part of cur left of b[j] stays. */
		if (have && cur.first < b[j].first) {
			m->scratch[out] = cur;
			m->scratch[out++].last = b[j].first - 1;
		}
		/* Intervals inside b[j] go; one reaching past it keeps its right part. */
		while (have && cur.last <= b[j].last) {
			have = false;
			if (i < m->nr && m->iv[i].first <= b[j].last) {
				cur = m->iv[i++];
				have = true;
			}
		}
		if (have && cur.first <= b[j].last)
			cur.first = b[j].last + 1;
		if (b[j].val)
			m->scratch[out++] = b[j];
	}
	if (have)
		m->scratch[out++] = cur;
	while (i < m->nr)
		m->scratch[out++] = m->iv[i++];
	t = m->iv;
	m->iv = m->scratch;
	m->scratch = t;
	m->nr = out;
}

bool ksim_maple_model_gap(const struct ksim_maple_model *m, unsigned long min, unsigned long max,
			  unsigned long size, unsigned long *start)
{
	unsigned long cand = min;

	for (size_t i = ksim_maple_model_lower(m, min); i < m->nr; i++) {
		if (m->iv[i].first > max)
			break;
		if (m->iv[i].first > cand && m->iv[i].first - cand >= size)
			break;
		if (m->iv[i].last == ULONG_MAX)
			return false;
		cand = m->iv[i].last + 1;
		if (cand > max)
			return false;
	}
	if (cand > max || max - cand < size - 1)
		return false;
	*start = cand;
	return true;
}

bool ksim_maple_model_gap_rev(const struct ksim_maple_model *m, unsigned long min,
			      unsigned long max, unsigned long size, unsigned long *lastp)
{
	unsigned long cand = max;
	size_t i = ksim_maple_model_lower(m, max);

	/* Intervals that start at or below max, from the top down. */
	if (i < m->nr && m->iv[i].first <= max)
		i++;
	while (i-- > 0) {
		if (m->iv[i].last < min)
			break;
		if (m->iv[i].last < cand && cand - m->iv[i].last >= size)
			break;
		if (m->iv[i].first == 0 || m->iv[i].first - 1 < min)
			return false;
		if (m->iv[i].first - 1 < cand)
			cand = m->iv[i].first - 1;
	}
	if (cand < min || cand - min < size - 1)
		return false;
	*lastp = cand;
	return true;
}
