// SPDX-License-Identifier: GPL-2.0
/*
 * The reference model of the BPF maps (qptrie/include/qptrie/model.h): what
 * each map documents, for every test, fuzz and stress program.  The
 * semantics are read from the trees' kernel/bpf/hashtab.c, lpm_trie.c,
 * arraymap.c, queue_stack_maps.c and bloom_filter.c (6.1, 6.12, 7.2 and 7.3
 * agree on everything judged here, 7.x lock failures aside) and from our
 * qp-trie's and the series' contracts.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/kernel.h>
#include <ksim/fault.h>
#include <qptrie/model.h>

/* ---- keys ---- */

u32 ksim_bpf_lpm_plen(const u8 *key)
{
	u32 p;

	memcpy(&p, key, 4);
	return p;
}

/* Bit @i (from the most significant bit of data[0]) of an LPM key. */
static int lpm_bit(const u8 *key, u32 i)
{
	return key[4 + i / 8] >> (7 - i % 8) & 1;
}

/* The first @bits bits of the data equal (__longest_prefix_match() >= @bits). */
static bool lpm_prefix_eq(const u8 *a, const u8 *b, u32 bits)
{
	u32 bytes = bits / 8;

	if (memcmp(a + 4, b + 4, bytes))
		return false;
	if (bits % 8)
		return !((a[4 + bytes] ^ b[4 + bytes]) & (u8)(0xff << (8 - bits % 8)));
	return true;
}

bool ksim_bpf_lpm_covers(const u8 *prefix, const u8 *key)
{
	u32 pl = ksim_bpf_lpm_plen(prefix);

	return pl <= ksim_bpf_lpm_plen(key) && lpm_prefix_eq(prefix, key, pl);
}

bool ksim_bpf_key_eq(unsigned int kind, const u8 *a, u32 alen, const u8 *b, u32 blen)
{
	if (alen != blen)
		return false;
	if (kind & KSIM_BPF_KIND_LPM)
		return ksim_bpf_lpm_plen(a) == ksim_bpf_lpm_plen(b) &&
		       lpm_prefix_eq(a, b, ksim_bpf_lpm_plen(a));
	return !memcmp(a, b, alen);
}

/*
 * LPM: trie_get_next_key() "follows postorder" (lpm_trie.c): child[0]'s
 * subtree, child[1]'s, then the node.  On keys: the first bit where the
 * prefixes differ decides (0 first); a prefix of the other comes after it.
 */
static int lpm_cmp(const u8 *a, const u8 *b)
{
	u32 pa = ksim_bpf_lpm_plen(a), pb = ksim_bpf_lpm_plen(b);

	for (u32 i = 0; i < min(pa, pb); i++)
		if (lpm_bit(a, i) != lpm_bit(b, i))
			return lpm_bit(a, i) - lpm_bit(b, i);
	return (pa < pb) - (pa > pb);
}

int ksim_bpf_key_cmp(unsigned int kind, const u8 *a, u32 alen, const u8 *b, u32 blen)
{
	int c;

	if (kind & KSIM_BPF_KIND_LPM)
		return lpm_cmp(a, b);
	if ((kind & KSIM_BPF_KIND_ARRAY) && alen == 4 && blen == 4) {
		u32 x, y;

		memcpy(&x, a, 4);
		memcpy(&y, b, 4);
		return (x > y) - (x < y);	/* index order, not byte order */
	}
	c = memcmp(a, b, min(alen, blen));
	return c ? c : (alen > blen) - (alen < blen);
}

const char *ksim_bpf_keystr(unsigned int kind, const u8 *key, u32 klen)
{
	static __thread char buf[4][160];
	static __thread int slot;
	char *s = buf[slot++ & 3];
	size_t o = 0, sz = sizeof(buf[0]);

	if (!key)
		return "NULL";
	if (!klen)
		return "(empty)";
	if ((kind & KSIM_BPF_KIND_LPM) && klen >= 4) {
		o = snprintf(s, sz, "/%u:", ksim_bpf_lpm_plen(key));
		key += 4;
		klen -= 4;
	}
	s[o] = 0;
	for (u32 i = 0; i < klen && o + 3 < sz; i++)
		o += snprintf(s + o, sz - o, "%02x", key[i]);
	return s;
}

/* ---- semantics ---- */

int ksim_bpf_full_error(unsigned int kind)
{
	return kind & KSIM_BPF_KIND_HASH ? -E2BIG : -ENOSPC;
}

int ksim_bpf_update_expect(unsigned int kind, bool present, u64 flags, unsigned int n,
			   unsigned int max)
{
	if (kind & KSIM_BPF_KIND_BLOOM)
		return flags != BPF_ANY ? -EINVAL : 0;	/* bloom_map_push_elem(); never full */
	/*
	 * queue_stack_map_push_elem(): BPF_NOEXIST or anything above
	 * BPF_EXIST -EINVAL; a full map -E2BIG unless BPF_EXIST ("force
	 * making room": the oldest element goes).
	 */
	if (kind & KSIM_BPF_KIND_KEYLESS)
		return (flags & BPF_NOEXIST) || flags > BPF_EXIST ? -EINVAL :
		       n >= max && !(flags & BPF_EXIST) ? -E2BIG : 0;
	if (flags > BPF_EXIST)
		return -EINVAL;
	/*
	 * array_map_update_elem(), bpf_percpu_array_update(): flags, then the
	 * index (-E2BIG past the end: "all elements were pre-allocated"), then
	 * BPF_NOEXIST (-EEXIST: "all elements already exist").
	 */
	if (kind & KSIM_BPF_KIND_ARRAY)
		return !present ? -E2BIG : flags == BPF_NOEXIST ? -EEXIST : 0;
	if (present)
		return flags == BPF_NOEXIST ? -EEXIST : 0;
	if (flags == BPF_EXIST)
		return -ENOENT;
	if (n >= max && !(kind & KSIM_BPF_KIND_LRU))
		return ksim_bpf_full_error(kind);
	return 0;
}

bool ksim_bpf_update_lru_self_evicted(unsigned int kind, bool present, u64 flags, int err)
{
	return present && (kind & KSIM_BPF_KIND_LRU) && flags <= BPF_EXIST &&
	       err == (flags == BPF_EXIST ? -ENOENT : 0);
}

bool ksim_bpf_lock_error_ok(const struct bpf_map *map, unsigned int kind, bool update, int err)
{
	if (err == -EDEADLK || err == -ETIMEDOUT)
		return true;
	/* queue_stack_maps.c: a failed raw_res_spin_lock_irqsave() is -EBUSY, nothing done */
	if ((kind & (KSIM_BPF_KIND_QUEUE | KSIM_BPF_KIND_STACK)) && err == -EBUSY)
		return true;
	if (!update || !(kind & KSIM_BPF_KIND_HASH))
		return false;
	if (kind & KSIM_BPF_KIND_LRU)
		return err == -ENOMEM;
	return err == -E2BIG && !(map->map_flags & BPF_F_NO_PREALLOC);
}

static bool percpu_map(const struct bpf_map *map)
{
	return map->map_type == BPF_MAP_TYPE_PERCPU_HASH ||
	       map->map_type == BPF_MAP_TYPE_LRU_PERCPU_HASH ||
	       map->map_type == BPF_MAP_TYPE_PERCPU_ARRAY;
}

bool ksim_bpf_value_eq(const struct bpf_map *map, const void *a, const void *b)
{
	u32 vs = map->value_size, stride = round_up(vs, 8);

	if (!percpu_map(map))
		return !memcmp(a, b, vs);
	for (u32 cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (memcmp((const u8 *)a + cpu * stride, (const u8 *)b + cpu * stride, vs))
			return false;
	return true;
}

/* ---- the model ---- */

static __thread char verdict[512];

__attribute__((format(printf, 1, 2)))
static const char *fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(verdict, sizeof(verdict), fmt, ap);
	va_end(ap);
	return verdict;
}

#define KS(k, l)	ksim_bpf_keystr(m->kind, (k), (l))

void ksim_bpf_model_init(struct ksim_bpf_model *m, const struct ksim_bpf_variant *v,
			 struct bpf_map *map, u32 cap)
{
	struct ksim_bpf_ment *e = m->e;

	if (e && m->cap < cap) {
		free(e);
		e = NULL;
	}
	if (!e)
		e = calloc(cap, sizeof(*e));
	else
		cap = m->cap;
	memset(m, 0, sizeof(*m));
	m->v = v;
	m->kind = v->kind;
	m->map = map;
	m->max = map->max_entries;
	m->vsize = ksim_bpf_value_size(map);
	m->cap = cap;
	m->e = e;
	if (!m->e || m->vsize > KSIM_BPF_MODEL_VMAX ||
	    ((m->kind & KSIM_BPF_KIND_ARRAY) && m->max > cap)) {
		fprintf(stderr, "ksim_bpf_model: %u entries of %u-byte values: too large\n",
			cap, m->vsize);
		abort();
	}
	/* an array holds every index from its creation, zeroed (array_map_alloc()) */
	if (m->kind & KSIM_BPF_KIND_ARRAY) {
		for (u32 i = 0; i < m->max; i++) {
			memcpy(m->e[i].key, &i, 4);
			m->e[i].klen = 4;
			memset(m->e[i].val, 0, m->vsize);
		}
		m->n = m->max;
	}
}

void ksim_bpf_model_fini(struct ksim_bpf_model *m)
{
	free(m->e);
	m->e = NULL;
	m->n = m->cap = 0;
}

int ksim_bpf_model_key_error(const struct ksim_bpf_model *m, const u8 *key, u32 klen, bool write)
{
	if (m->kind & KSIM_BPF_KIND_KEYLESS)
		return klen ? -EINVAL : 0;	/* the driver: a key for a map without keys */
	if (m->kind & KSIM_BPF_KIND_DYNPTR)
		return !klen || klen > m->map->map_extra ? -EINVAL : 0;
	if (klen != m->map->key_size)
		return -EINVAL;
	if ((m->kind & KSIM_BPF_KIND_LPM) && write &&
	    ksim_bpf_lpm_plen(key) > (m->map->key_size - 4) * 8)
		return -EINVAL;
	return 0;
}

int ksim_bpf_model_find(const struct ksim_bpf_model *m, const u8 *key, u32 klen)
{
	if (m->kind & KSIM_BPF_KIND_KEYLESS)
		return -1;
	for (u32 i = 0; i < m->n; i++)
		if (ksim_bpf_key_eq(m->kind, m->e[i].key, m->e[i].klen, key, klen))
			return i;
	return -1;
}

int ksim_bpf_model_lookup(const struct ksim_bpf_model *m, const u8 *key, u32 klen)
{
	int best = -1;

	if (ksim_bpf_model_key_error(m, key, klen, false))
		return -1;
	if (m->kind & KSIM_BPF_KIND_BLOOM)
		return -1;	/* a bloom filter is asked for a value: ksim_bpf_model_check_lookup() */
	/* a peek: the oldest element of a queue, the newest of a stack (e[] in push order) */
	if (m->kind & KSIM_BPF_KIND_KEYLESS)
		return !m->n ? -1 : m->kind & KSIM_BPF_KIND_QUEUE ? 0 : (int)m->n - 1;
	if (!(m->kind & KSIM_BPF_KIND_LPM))
		return ksim_bpf_model_find(m, key, klen);
	if (ksim_bpf_lpm_plen(key) > (m->map->key_size - 4) * 8)
		return -1;	/* trie_lookup_elem(): NULL */
	for (u32 i = 0; i < m->n; i++)
		if (ksim_bpf_lpm_covers(m->e[i].key, key) &&
		    (best < 0 || ksim_bpf_lpm_plen(m->e[i].key) > ksim_bpf_lpm_plen(m->e[best].key)))
			best = i;
	return best;
}

int ksim_bpf_model_update_expect(const struct ksim_bpf_model *m, const u8 *key, u32 klen,
				 u64 flags)
{
	int err = ksim_bpf_model_key_error(m, key, klen, true);

	if (flags > BPF_EXIST)
		return -EINVAL;
	if (err)
		return err;
	return ksim_bpf_update_expect(m->kind, ksim_bpf_model_find(m, key, klen) >= 0, flags,
				      m->n, m->max);
}

int ksim_bpf_model_cpu_flags(const struct ksim_bpf_model *m, u64 flags, bool update, u64 *rest)
{
	const u64 cpu_flags = 8 | 16;	/* BPF_F_CPU | BPF_F_ALL_CPUS (7.x uapi) */
	u64 low = (u32)flags & ~cpu_flags;

	*rest = flags;
	if (!KSIM_HAVE_BPF_F_CPU || !(flags & cpu_flags))
		return 1;
	if (!(m->kind & KSIM_BPF_KIND_PERCPU) || (flags & cpu_flags) == cpu_flags)
		return -EINVAL;
	if (flags & 8)
		/* the CPU must exist; a lookup takes no other flag here (no BPF_F_LOCK values) */
		return (flags >> 32) >= nr_cpu_ids ? -ERANGE : !update && low ? -EINVAL : (*rest = low, 0);
	/* BPF_F_ALL_CPUS: the upper bits name no CPU; a lookup cannot take it */
	if (!update || flags >> 32 || low)
		return -EINVAL;
	*rest = BPF_ANY;
	return 0;
}

int ksim_bpf_model_delete_expect(const struct ksim_bpf_model *m, const u8 *key, u32 klen)
{
	int err = ksim_bpf_model_key_error(m, key, klen, true);

	if (err)
		return err;
	if (m->kind & KSIM_BPF_KIND_BLOOM)
		return -EOPNOTSUPP;	/* bloom_map_delete_elem() */
	/* array_map_delete_elem(), queue_stack_map_delete_elem() */
	if (m->kind & (KSIM_BPF_KIND_ARRAY | KSIM_BPF_KIND_KEYLESS))
		return -EINVAL;
	return ksim_bpf_model_find(m, key, klen) >= 0 ? 0 : -ENOENT;
}

int ksim_bpf_model_find_value(const struct ksim_bpf_model *m, const void *val)
{
	for (u32 i = 0; i < m->n; i++)
		if (!memcmp(m->e[i].val, val, m->vsize))
			return i;
	return -1;
}

/* Maps without keys: @val appended (a push; a bloom filter's new value). */
static int model_append(struct ksim_bpf_model *m, const void *val)
{
	if (m->n >= m->cap) {
		fprintf(stderr, "ksim_bpf_model: full (%u values)\n", m->cap);
		abort();
	}
	m->e[m->n].klen = 0;
	memcpy(m->e[m->n].val, val, m->vsize);
	return m->n++;
}

int ksim_bpf_model_put(struct ksim_bpf_model *m, const u8 *key, u32 klen, const void *val)
{
	int i = ksim_bpf_model_find(m, key, klen);

	if (m->kind & KSIM_BPF_KIND_BLOOM) {	/* the set of values added */
		i = ksim_bpf_model_find_value(m, val);
		return i >= 0 ? i : model_append(m, val);
	}
	if (m->kind & KSIM_BPF_KIND_KEYLESS) {	/* a push; full (BPF_EXIST): the oldest goes */
		if (m->n >= m->max && m->n)
			memmove(&m->e[0], &m->e[1], --m->n * sizeof(m->e[0]));
		return model_append(m, val);
	}
	if (i < 0) {
		if (m->n >= m->cap || klen > KSIM_BPF_MODEL_KMAX) {
			fprintf(stderr, "ksim_bpf_model: full (%u entries) or key too long (%u)\n",
				m->cap, klen);
			abort();
		}
		i = m->n++;
	}
	memcpy(m->e[i].key, key, klen);	/* LPM: the bytes of the last update are stored */
	m->e[i].klen = klen;
	memcpy(m->e[i].val, val, m->vsize);
	return i;
}

const char *ksim_bpf_model_put_one_cpu(struct ksim_bpf_model *m, const u8 *key, u32 klen,
				       u32 cpu, const void *val, const void *got)
{
	u32 vs = m->map->value_size, stride = round_up(vs, 8);
	int i = ksim_bpf_model_find(m, key, klen);
	u8 keep[KSIM_BPF_MODEL_VMAX], fresh[KSIM_BPF_MODEL_VMAX];

	memset(fresh, 0, m->vsize);
	memcpy(fresh + cpu * stride, val, vs);
	memcpy(keep, i >= 0 ? m->e[i].val : fresh, m->vsize);
	memcpy(keep + cpu * stride, val, vs);
	if (ksim_bpf_value_eq(m->map, got, keep)) {
		ksim_bpf_model_put(m, key, klen, keep);
		return NULL;
	}
	if ((m->kind & KSIM_BPF_KIND_LRU) && ksim_bpf_value_eq(m->map, got, fresh)) {
		ksim_bpf_model_put(m, key, klen, fresh);
		return NULL;
	}
	return fail("update of CPU %u's value of %s: %s", cpu, KS(key, klen),
		    i >= 0 ? "the other CPUs' values changed" : "a new element's other CPUs not zero");
}

void ksim_bpf_model_put_all_cpus(struct ksim_bpf_model *m, const u8 *key, u32 klen, const void *val)
{
	u32 vs = m->map->value_size, stride = round_up(vs, 8);
	u8 all[KSIM_BPF_MODEL_VMAX] = { 0 };

	for (u32 cpu = 0; cpu < nr_cpu_ids; cpu++)
		memcpy(all + cpu * stride, val, vs);
	ksim_bpf_model_put(m, key, klen, all);
}

void ksim_bpf_model_del(struct ksim_bpf_model *m, int i)
{
	if (m->kind & KSIM_BPF_KIND_KEYLESS) {	/* keep the push order */
		memmove(&m->e[i], &m->e[i + 1], (m->n - i - 1) * sizeof(m->e[0]));
		m->n--;
		return;
	}
	m->e[i] = m->e[--m->n];
}

const char *ksim_bpf_model_check_pop(struct ksim_bpf_model *m, int err, const void *got)
{
	int j = ksim_bpf_model_lookup(m, NULL, 0);
	int want = j >= 0 ? 0 : -ENOENT;

	if (m->kind & KSIM_BPF_KIND_BLOOM)	/* no pop: the driver's -ENOTSUPP, as syscall.c */
		return err == -ENOTSUPP ? NULL : fail("pop of a bloom filter = %d, want -ENOTSUPP", err);
	if (err != want)
		return fail("pop = %d, model %d (%u elements)", err, want, m->n);
	if (err)
		return NULL;
	if (!ksim_bpf_value_eq(m->map, got, m->e[j].val)) {
		for (u32 i = 0; i < m->n; i++)
			if (ksim_bpf_value_eq(m->map, got, m->e[i].val))
				return fail("pop: element %u of %u (push order), model %s", i, m->n,
					    m->kind & KSIM_BPF_KIND_QUEUE ? "the oldest" : "the newest");
		return fail("pop: a value never pushed (or gone), %u elements", m->n);
	}
	ksim_bpf_model_del(m, j);
	return NULL;
}

const char *ksim_bpf_model_lru_reconcile(struct ksim_bpf_model *m, const u8 *must, u32 must_len)
{
	const char *why = NULL;
	u8 got[KSIM_BPF_MODEL_VMAX];

	for (int i = m->n - 1; i >= 0; i--) {
		if (ksim_bpf_map_lookup(m->map, m->e[i].key, m->e[i].klen, got, 0) != -ENOENT)
			continue;
		if (must && !why && ksim_bpf_key_eq(m->kind, m->e[i].key, m->e[i].klen, must, must_len))
			why = fail("LRU evicted the key it just stored (%s)", KS(must, must_len));
		ksim_bpf_model_del(m, i);
	}
	if (!why && m->n > m->max)
		why = fail("LRU holds %u keys > max_entries %u", m->n, m->max);
	return why;
}

/* What a lookup of @key must return; *@j the model entry it finds (or -1). */
static int lookup_expect(const struct ksim_bpf_model *m, const u8 *key, u32 klen, int *j)
{
	int kerr = ksim_bpf_model_key_error(m, key, klen, false);

	*j = ksim_bpf_model_lookup(m, key, klen);
	return kerr ?: (*j >= 0 ? 0 : -ENOENT);
}

const char *ksim_bpf_model_check_lookup(const struct ksim_bpf_model *m, const u8 *key, u32 klen,
					int err, const void *got)
{
	int kerr = ksim_bpf_model_key_error(m, key, klen, false);
	int j, want = lookup_expect(m, key, klen, &j);

	/* a bloom filter: @got is the value asked for; added ones must be found */
	if ((m->kind & KSIM_BPF_KIND_BLOOM) && !kerr) {
		j = ksim_bpf_model_find_value(m, got);
		if (j >= 0 && err)
			return fail("lookup of a value added (%u of %u) = %d: a false negative", j,
				    m->n, err);
		if (err && err != -ENOENT)
			return fail("lookup of a value not added = %d, want 0 or -ENOENT", err);
		return NULL;
	}

	if (err != want)
		return fail("lookup(%s) = %d, model %d%s%s", KS(key, klen), err, want,
			    j >= 0 ? " (entry " : "", j >= 0 ? KS(m->e[j].key, m->e[j].klen) : "");
	if (!err && !ksim_bpf_value_eq(m->map, got, m->e[j].val))
		return fail("lookup(%s): wrong value (model entry %s)", KS(key, klen),
			    KS(m->e[j].key, m->e[j].klen));
	return NULL;
}

const char *ksim_bpf_model_check_lookup_flags(const struct ksim_bpf_model *m, const u8 *key,
					      u32 klen, u64 flags, int err, const void *got)
{
	u64 rest;
	int want = ksim_bpf_model_cpu_flags(m, flags, false, &rest);
	u32 vs = m->map->value_size, stride = round_up(vs, 8);
	int j;

	if (want > 0)
		return ksim_bpf_model_check_lookup(m, key, klen, err, got);
	if (want < 0) {
		if (err != want)
			return fail("lookup(%s, flags %#llx) = %d, want %d", KS(key, klen),
				    (unsigned long long)flags, err, want);
		return NULL;
	}
	want = lookup_expect(m, key, klen, &j);
	if (err != want)
		return fail("lookup(%s, BPF_F_CPU %llu) = %d, model %d", KS(key, klen),
			    (unsigned long long)(flags >> 32), err, want);
	/* one value, that CPU's: ksim_bpf_value_size_flags() */
	if (!err && memcmp(got, m->e[j].val + (flags >> 32) * stride, vs))
		return fail("lookup(%s, BPF_F_CPU %llu): not that CPU's value", KS(key, klen),
			    (unsigned long long)(flags >> 32));
	return NULL;
}

/* The first model key in the map's order after @key (NULL: the first), or -1. */
static int model_succ(const struct ksim_bpf_model *m, const u8 *key, u32 klen)
{
	int best = -1;

	for (u32 i = 0; i < m->n; i++) {
		const struct ksim_bpf_ment *e = &m->e[i];

		if (key && ksim_bpf_key_cmp(m->kind, e->key, e->klen, key, klen) <= 0)
			continue;
		if (best < 0 || ksim_bpf_key_cmp(m->kind, e->key, e->klen,
						 m->e[best].key, m->e[best].klen) < 0)
			best = i;
	}
	return best;
}

const char *ksim_bpf_model_check_next(const struct ksim_bpf_model *m, const u8 *key, u32 klen,
				      int err, const u8 *next, u32 nlen)
{
	bool ordered = m->kind & KSIM_BPF_KIND_ORDERED;
	int kerr = key ? ksim_bpf_model_key_error(m, key, klen, false) : 0;
	int i, want;
	bool restart;

	if (kerr)
		return err == kerr ? NULL : fail("get_next_key(%s) = %d, want %d", KS(key, klen),
						 err, kerr);
	if (m->kind & KSIM_BPF_KIND_BLOOM)	/* bloom_map_get_next_key() */
		return err == -EOPNOTSUPP ? NULL : fail("get_next_key = %d, want -EOPNOTSUPP", err);
	if (m->kind & KSIM_BPF_KIND_KEYLESS)	/* queue_stack_map_get_next_key() */
		return err == -EINVAL ? NULL : fail("get_next_key = %d, want -EINVAL", err);
	i = key ? ksim_bpf_model_find(m, key, klen) : -1;
	restart = !key || (i < 0 && !(m->kind & KSIM_BPF_KIND_SUCC_ANY));
	if (ordered) {
		want = model_succ(m, restart ? NULL : key, klen);
		if (want < 0 && err != -ENOENT)
			return fail("get_next_key(%s%s) = %d %s, model: the end", KS(key, klen),
				    i < 0 && key ? ", absent" : "", err, err ? "" : KS(next, nlen));
		if (want >= 0 && (err || nlen != m->e[want].klen ||
				  memcmp(next, m->e[want].key, nlen)))
			return fail("get_next_key(%s%s) = %d %s, model %s %s", KS(key, klen),
				    i < 0 && key ? ", absent" : "", err, err ? "" : KS(next, nlen),
				    restart ? "first key" : "successor",
				    KS(m->e[want].key, m->e[want].klen));
	} else if (restart) {
		if (err != (m->n ? 0 : -ENOENT))
			return fail("get_next_key(%s) = %d with %u keys", KS(key, klen), err, m->n);
		if (key && !err && ksim_bpf_cmd_work_runs() && ksim_bpf_model_find(m, next, nlen) < 0) {
			return fail("get_next_key(absent %s) = %s, not a key of the map", KS(key, klen),
				    KS(next, nlen));
		} else if (key && !err && !ksim_bpf_cmd_work_runs()) {
			/*
			 * No order: "the first key" is whatever the map starts
			 * with now.  Unless a resize ran at the end of that
			 * command (RHASH): then it was the first key of the
			 * table before, and only a key of the map.
			 */
			u8 first[KSIM_BPF_MODEL_KMAX];
			u32 flen = sizeof(first);
			int ferr = ksim_bpf_map_get_next_key(m->map, NULL, 0, first, &flen);

			if (ferr || flen != nlen || memcmp(first, next, flen))
				return fail("get_next_key(absent %s) = %s, not the first key %s",
					    KS(key, klen), KS(next, nlen),
					    ferr ? "(none)" : KS(first, flen));
		}
	} else if (err && err != -ENOENT) {
		return fail("get_next_key(%s) = %d", KS(key, klen), err);
	}
	if (err)
		return NULL;
	i = ksim_bpf_model_find(m, next, nlen);
	if (i < 0)
		return fail("get_next_key(%s) = %s: not in the model", KS(key, klen), KS(next, nlen));
	/* The map hands back the key it stored (LPM: bits past the prefix too). */
	if (memcmp(next, m->e[i].key, nlen))
		return fail("get_next_key(%s) = %s, stored %s", KS(key, klen), KS(next, nlen),
			    KS(m->e[i].key, m->e[i].klen));
	if (key && ksim_bpf_key_eq(m->kind, next, nlen, key, klen))
		return fail("get_next_key(%s) returned the same key", KS(key, klen));
	return NULL;
}

const char *ksim_bpf_model_lookup_on_map(const struct ksim_bpf_model *m, const u8 *key, u32 klen)
{
	u8 got[KSIM_BPF_MODEL_VMAX];
	int err = ksim_bpf_map_lookup(m->map, key, klen, got, 0);

	return ksim_bpf_model_check_lookup(m, key, klen, err, got);
}

const char *ksim_bpf_model_next_on_map(const struct ksim_bpf_model *m, const u8 *key, u32 klen)
{
	u8 next[KSIM_BPF_MODEL_KMAX];
	u32 nlen = sizeof(next);
	int err = ksim_bpf_map_get_next_key(m->map, key, klen, next, &nlen);

	return ksim_bpf_model_check_next(m, key, klen, err, next, nlen);
}

const char *ksim_bpf_model_walk(const struct ksim_bpf_model *m, int *errp)
{
	u8 cur[KSIM_BPF_MODEL_KMAX], next[KSIM_BPF_MODEL_KMAX];
	u32 clen = 0, nlen, count = 0;
	bool *seen = calloc(m->n + 1, sizeof(*seen));
	const char *why = NULL;
	unsigned long runs0 = ksim_work_runs();
	int err;

	for (;;) {
		nlen = sizeof(next);
		err = ksim_bpf_map_get_next_key(m->map, count ? cur : NULL, clen, next, &nlen);
		if (err == -ENOMEM)
			break;
		why = ksim_bpf_model_check_next(m, count ? cur : NULL, clen, err, next, nlen);
		if (why || err)
			break;
		int i = ksim_bpf_model_find(m, next, nlen);

		/* RHASH resized during the walk: skips and repeats allowed (see the batch walk) */
		if (seen[i] && (m->kind & KSIM_BPF_KIND_RHASH) && ksim_work_runs() != runs0)
			break;
		if (seen[i]) {
			why = fail("walk returned %s twice (after %u keys of %u)", KS(next, nlen),
				   count, m->n);
			break;
		}
		seen[i] = true;
		count++;
		memcpy(cur, next, nlen);
		clen = nlen;
	}
	free(seen);
	*errp = err;
	if (!why && err == -ENOENT && count != m->n &&
	    !((m->kind & KSIM_BPF_KIND_RHASH) && ksim_work_runs() != runs0))
		why = fail("walk saw %u of %u keys", count, m->n);
	return why;
}

const char *ksim_bpf_model_batch_walk(struct ksim_bpf_model *m, bool del, u32 chunk, int *errp)
{
	u32 ks = m->map->key_size, vs = m->vsize, total = 0, n0 = m->n;
	/*
	 * The cursor: a u32 bucket number; RHASH (KSIM_BPF_KIND_RHASH,
	 * __rhtab_map_lookup_and_delete_batch()): the key of the next element
	 * to return, "stashed" only when one is left.
	 */
	bool rhash = m->kind & KSIM_BPF_KIND_RHASH, have_cursor = false, moved;
	unsigned long runs0 = ksim_work_runs();
	u64 batch[(KSIM_BPF_MODEL_KMAX + 7) / 8] = { 0 }, next[ARRAY_SIZE(batch)] = { 0 };
	u8 *keys = calloc(n0 + 1, ks), *vals = calloc(n0 + 1, vs);
	bool *seen = calloc(n0 + 1, sizeof(*seen));
	const char *why = NULL;
	int err, calls = 0, refused = 0;

	if (!chunk)
		chunk = 1;
	for (;;) {
		u32 count = chunk;
		/* room for what the model says is left (a map returning more fails below) */
		u32 room = n0 - total;

		if (count > room + 1)
			count = room + 1;
		err = ksim_bpf_map_lookup_batch(m->map, del,
						(rhash ? have_cursor : calls) ? batch : NULL, next,
						keys + (size_t)total * ks, vals + (size_t)total * vs,
						&count, 0);
		calls++;
		if (rhash && !err && count)
			have_cursor = true;
		if (err == -ENOTSUPP)
			break;
		if (count > room && rhash && ksim_work_runs() != runs0) {
			/*
			 * RHASH resized under the cursor: repeats may add up to
			 * more entries than keys (see below).  The buffers hold
			 * no more: the walk ends here, judged on what it returned.
			 */
			total += count;
			err = -ENOENT;
			break;
		}
		if (count > room) {
			why = fail("batch returned %u entries, %u keys left", count, room);
			break;
		}
		if (err == -ENOSPC) {
			if (count) {
				why = fail("batch: -ENOSPC with %u entries", count);
				break;
			}
			if (chunk > 2 * n0 + 2) {
				why = fail("batch: -ENOSPC with room for %u entries, %u keys", chunk, n0);
				break;
			}
			chunk *= 2;
			memcpy(batch, next, sizeof(batch));
			continue;
		}
		/*
		 * A bucket lock that failed, or an allocation failure (the key
		 * and value buffers): the call returns what it copied (and, with
		 * @del, deleted) before, the position of the bucket it stopped
		 * at, and the error; user space goes on from there.
		 */
		if (err && err != -ENOENT &&
		    (ksim_bpf_lock_error_ok(m->map, m->kind, false, err) ||
		     (err == -ENOMEM && ksim_fault_armed())) && ++refused < 1000) {
			total += count;
			memcpy(batch, next, sizeof(batch));
			continue;
		}
		if (err && err != -ENOENT) {
			why = fail("batch: %d", err);
			break;
		}
		total += count;
		memcpy(batch, next, sizeof(batch));
		if (err == -ENOENT)
			break;
		if (calls > 100000) {
			why = fail("batch walk did not end");
			break;
		}
	}
	*errp = err;
	/*
	 * RHASH: a resize between two calls (the deferred worker ran: the
	 * deletes of a lookup_and_delete batch shrink the table) reorders the
	 * table under the cursor, and the walk may skip or repeat keys
	 * (rhashtable_next_key(): "Callers MUST tolerate skipped and
	 * duplicated elements"): then only what it returned is judged.
	 */
	moved = rhash && ksim_work_runs() != runs0;
	for (u32 k = 0; !why && err == -ENOENT && k < total; k++) {
		int i = ksim_bpf_model_find(m, keys + (size_t)k * ks, ks);

		if (moved && i >= 0 && seen[i] && !del)
			continue;
		if (i < 0 || seen[i])
			why = fail("batch returned %s %s", KS(keys + (size_t)k * ks, ks),
				   i < 0 ? "not in the model" : "twice");
		else if (!ksim_bpf_value_eq(m->map, vals + (size_t)k * vs, m->e[i].val))
			why = fail("batch: wrong value for %s", KS(keys + (size_t)k * ks, ks));
		else
			seen[i] = true;
	}
	if (!why && err == -ENOENT && total != n0 && !moved)
		why = fail("batch walk returned %u of %u keys", total, n0);
	if (!why && err == -ENOENT && del && moved) {
		/* the keys returned left the map (highest index first: each swaps in the last) */
		for (int i = n0 - 1; i >= 0; i--)
			if (seen[i])
				ksim_bpf_model_del(m, i);
	} else if (!why && err == -ENOENT && del) {
		u8 k0[KSIM_BPF_MODEL_KMAX];
		u32 klen = sizeof(k0);

		m->n = 0;
		if (ksim_bpf_map_get_next_key(m->map, NULL, 0, k0, &klen) != -ENOENT)
			why = fail("keys left after a lookup_and_delete batch walk");
	}
	free(keys);
	free(vals);
	free(seen);
	return why;
}

/* ---- what a program sees ---- */

const char *ksim_bpf_model_prog_lookup(const struct ksim_bpf_model *m, const u8 *key, u32 klen,
				       u32 on_cpu, int which)
{
	u32 vs = m->map->value_size, stride = round_up(vs, 8);
	int j = ksim_bpf_model_lookup(m, key, klen);
	bool percpu = percpu_map(m->map), none;
	const char *why = NULL;
	u32 cpu = which < 0 ? on_cpu : (u32)which;
	void *p;

	if (ksim_bpf_model_key_error(m, key, klen, false))
		return NULL;	/* the verifier sizes a program's keys */
	ksim_set_cpu(on_cpu);
	rcu_read_lock();
	p = which < 0 ? ksim_bpf_map_lookup_ptr(m->map, key, klen) :
			ksim_bpf_prog_lookup_percpu(m->map, key, klen, which);
	/* bpf_map_lookup_percpu_elem(): NULL for a CPU past nr_cpu_ids */
	none = j < 0 || (which >= 0 && (!percpu || cpu >= nr_cpu_ids));
	if (none && p)
		why = fail("prog lookup(%s)%s: %p, model has none", KS(key, klen),
			   which >= 0 ? " of another CPU" : "", p);
	else if (!none && !p)
		why = fail("prog lookup(%s): NULL, model entry %s", KS(key, klen),
			   KS(m->e[j].key, m->e[j].klen));
	else if (!none && memcmp(p, m->e[j].val + (percpu ? cpu * stride : 0), vs))
		why = fail("prog lookup(%s): not %s value", KS(key, klen),
			   percpu ? "that CPU's" : "the model's");
	rcu_read_unlock();
	ksim_set_cpu(-1);
	return why;
}

struct for_each_ctx {
	struct ksim_bpf_model *m;
	u32 cpu, stop, calls;
	u8 del_mask, write_mask;
	bool *seen;
	int *dels;
	u32 nr_dels, first_del;	/* calls when the first delete was made */
	const char *why;
};

/* The callback the verifier would call: (map, key, value, ctx, 0); 1 stops. */
static u64 for_each_cb(u64 map_arg, u64 key_arg, u64 val_arg, u64 ctx_arg, u64 zero)
{
	struct for_each_ctx *c = (void *)(uintptr_t)ctx_arg;
	struct ksim_bpf_model *m = c->m;
	struct bpf_map *map = (void *)(uintptr_t)map_arg;
	u32 ks = map->key_size, vs = map->value_size, k = c->calls++;
	u8 *key = (void *)(uintptr_t)key_arg, *val = (void *)(uintptr_t)val_arg, *mv;
	int i = ksim_bpf_model_find(m, key, ks), err;

	if (c->why)
		return 1;
	if (map != m->map || zero) {
		c->why = fail("for_each callback: map %p (want %p), fifth argument %llu", map, m->map,
			      (unsigned long long)zero);
		return 1;
	}
	if (i < 0 || c->seen[i]) {
		c->why = fail("for_each visited %s %s", KS(key, ks), i < 0 ? "not in the model" : "twice");
		return 1;
	}
	c->seen[i] = true;
	mv = m->e[i].val + (percpu_map(map) ? c->cpu * round_up(vs, 8) : 0);
	if (memcmp(val, mv, vs)) {
		c->why = fail("for_each: %s has not the model's value%s", KS(key, ks),
			      percpu_map(map) ? " on this CPU" : "");
		return 1;
	}
	if (c->write_mask >> (k & 7) & 1) {	/* programs write values in place */
		for (u32 b = 0; b < vs; b++)
			mv[b] = val[b] = (u8)(val[b] * 7 + k + b + 1);
	}
	if (c->del_mask >> (k & 7) & 1) {	/* and may delete the element they visit */
		err = ksim_bpf_prog_delete(map, key, ks);
		if (m->kind & KSIM_BPF_KIND_ARRAY) {
			if (err != -EINVAL)	/* array_map_delete_elem(): kept */
				c->why = fail("for_each: deleting the visited %s = %d, want -EINVAL",
					      KS(key, ks), err);
			return c->stop && c->calls == c->stop;
		}
		if (!err && !c->nr_dels++)
			c->first_del = c->calls;
		if (!err)
			c->dels[c->nr_dels - 1] = i;
		else if (!ksim_bpf_lock_error_ok(map, m->kind, false, err))
			c->why = fail("for_each: deleting the visited %s = %d", KS(key, ks), err);
	}
	return c->stop && c->calls == c->stop;
}

static int int_cmp_desc(const void *a, const void *b)
{
	return *(const int *)b - *(const int *)a;
}

const char *ksim_bpf_model_for_each(struct ksim_bpf_model *m, u32 cpu, u32 stop, u8 del_mask,
				    u8 write_mask, u64 flags, long *retp)
{
	struct for_each_ctx c = {
		.m = m, .cpu = cpu, .stop = stop, .del_mask = del_mask, .write_mask = write_mask,
		.seen = calloc(m->n + 1, sizeof(bool)), .dels = calloc(m->n + 1, sizeof(int)),
	};
	u32 n0 = m->n, want = stop && stop < n0 ? stop : n0, seen = 0;
	long ret;

	if (!c.seen || !c.dels) {
		free(c.seen);
		free(c.dels);
		*retp = -ENOMEM;
		return fail("for_each: out of memory in the model");
	}
	ksim_set_cpu(cpu);
	ret = ksim_bpf_prog_for_each(m->map, for_each_cb, &c, flags);
	ksim_set_cpu(-1);
	*retp = ret;
	for (u32 i = 0; i < n0; i++)
		seen += c.seen[i];
	if (ret == -ENOTSUPP)
		;
	else if (flags && ret != -EINVAL)
		c.why = c.why ?: fail("for_each with flags %llu = %ld, want -EINVAL",
				      (unsigned long long)flags, ret);
	else if (flags && c.calls)
		c.why = c.why ?: fail("for_each with flags %llu called back %u times",
				      (unsigned long long)flags, c.calls);
	else if (!flags && !c.why && (m->kind & KSIM_BPF_KIND_RHASH) && c.nr_dels &&
		 ret == (long)seen && seen >= c.first_del && seen <= want)
		;	/* RHASH: the walk may end after a delete (bpf_each_rhash_elem()) */
	else if (!flags && !c.why && (ret != (long)want || seen != want))
		c.why = fail("for_each (stop after %u) = %ld, visited %u of %u keys, want %u", stop, ret,
			     seen, n0, want);
	/* the deletes leave the model last, highest index first (each swaps in the last entry) */
	qsort(c.dels, c.nr_dels, sizeof(*c.dels), int_cmp_desc);
	for (u32 k = 0; k < c.nr_dels; k++)
		ksim_bpf_model_del(m, c.dels[k]);
	free(c.seen);
	free(c.dels);
	return c.why;
}

struct iter_ctx {
	struct ksim_bpf_model *m;
	u8 retry_mask;
	u32 visits, shown, finals;
	u64 session;
	bool *seen, *retried;
	const char *why;
};

/* The iterator program: each element once (one retried first when asked), then the final call. */
static int iter_prog(struct bpf_iter__bpf_map_elem *ctx, void *arg)
{
	struct iter_ctx *c = arg;
	struct ksim_bpf_model *m = c->m;
	u32 ks = m->map->key_size, k = c->visits++;
	int i;

	if (c->why)
		return 0;
	if (!c->session)
		c->session = ctx->meta->session_id;
	if (ctx->map != m->map || ctx->meta->session_id != c->session) {
		c->why = fail("iterator: map %p (want %p), session %llu (was %llu)", ctx->map, m->map,
			      (unsigned long long)ctx->meta->session_id, (unsigned long long)c->session);
		return 0;
	}
	if (c->finals) {
		c->why = fail("iterator: a call after the final one");
		return 0;
	}
	if (!ctx->key || !ctx->value) {
		if (ctx->key || ctx->value)
			c->why = fail("iterator: key %p with value %p", ctx->key, ctx->value);
		c->finals++;
		return 0;
	}
	if (ctx->meta->seq_num != c->shown) {
		c->why = fail("iterator: seq_num %llu for the object after %u shown",
			      (unsigned long long)ctx->meta->seq_num, c->shown);
		return 0;
	}
	i = ksim_bpf_model_find(m, ctx->key, ks);
	if (i < 0 || c->seen[i]) {
		c->why = fail("iterator visited %s %s", KS(ctx->key, ks), i < 0 ? "not in the model" : "twice");
		return 0;
	}
	if (!ksim_bpf_value_eq(m->map, ctx->value, m->e[i].val)) {
		c->why = fail("iterator: %s has not the model's value", KS(ctx->key, ks));
		return 0;
	}
	if (!c->retried[i] && (c->retry_mask >> (k & 7) & 1)) {
		c->retried[i] = true;	/* asks for it again */
		return 1;
	}
	c->seen[i] = true;
	c->shown++;
	return 0;
}

const char *ksim_bpf_model_iter(struct ksim_bpf_model *m, u32 chunk, u8 retry_mask, int *errp)
{
	struct iter_ctx c = {
		.m = m, .retry_mask = retry_mask,
		.seen = calloc(m->n + 1, sizeof(bool)), .retried = calloc(m->n + 1, sizeof(bool)),
	};
	int err;

	if (!c.seen || !c.retried) {
		free(c.seen);
		free(c.retried);
		*errp = -ENOMEM;
		return fail("iterator: out of memory in the model");
	}
	err = ksim_bpf_map_iter(m->map, iter_prog, &c, chunk);
	*errp = err;
	if (err == -ENOTSUPP)
		;
	else if (err && !(err == -ENOMEM && ksim_fault_armed()))
		c.why = c.why ?: fail("iterator read = %d", err);
	else if (!err && !c.why && (c.shown != m->n || c.finals != 1))
		c.why = fail("iterator showed %u of %u keys, %u final calls", c.shown, m->n, c.finals);
	free(c.seen);
	free(c.retried);
	return c.why;
}

const char *ksim_bpf_model_mem_usage(struct ksim_bpf_model *m)
{
	u64 u = ksim_bpf_map_mem_usage(m->map);
	bool prealloc = !(m->map->map_flags & BPF_F_NO_PREALLOC);
	const char *why = NULL;

	if (!u || !(m->kind & KSIM_BPF_KIND_HASH))
		return NULL;
	if (!m->mu) {
		/* the first sample */
	} else if (prealloc) {
		if (u != m->mu)
			why = fail("mem_usage of a preallocated map went from %llu to %llu (%u -> %u keys)",
				   (unsigned long long)m->mu, (unsigned long long)u, m->mu_n, m->n);
	} else if (m->n != m->mu_n) {
		s64 du = (s64)(u - m->mu), dn = (s64)m->n - (s64)m->mu_n;

		if (du % dn || du / dn <= 0 || (m->mu_per_key && (u64)(du / dn) != m->mu_per_key))
			why = fail("mem_usage %llu at %u keys after %llu at %u keys (%llu a key before)",
				   (unsigned long long)u, m->n, (unsigned long long)m->mu, m->mu_n,
				   (unsigned long long)m->mu_per_key);
		else
			m->mu_per_key = du / dn;
	} else if (u != m->mu) {
		why = fail("mem_usage went from %llu to %llu at %u keys", (unsigned long long)m->mu,
			   (unsigned long long)u, m->n);
	}
	m->mu = u;
	m->mu_n = m->n;
	return why;
}

const char *ksim_bpf_model_pool(const struct ksim_bpf_model *m)
{
	struct ksim_htab_pool p;

	if (!(m->kind & KSIM_BPF_KIND_KERNEL))
		return NULL;
	if (ksim_lpm_pool(m->map, &p)) {
		if (p.in_map != m->n)
			return fail("pool: %u keys in the trie, the model holds %u", p.in_map, m->n);
		if (p.ma_live != p.nodes)
			return fail("pool: %u nodes reachable in the trie, %lu allocated from its "
				    "bpf_mem_alloc (%ld %s)", p.nodes, p.ma_live, (long)(p.ma_live - p.nodes),
				    p.ma_live > p.nodes ? "lost: allocated, unreachable, never freed" :
				    "freed while reachable");
		return NULL;
	}
	if (!ksim_htab_pool(m->map, &p))
		return NULL;
	if (p.rhash && p.nelems != p.in_map)
		return fail("pool: %u elements in the rhashtable's buckets, its nelems counts %u",
			    p.in_map, p.nelems);
	if (p.in_map != m->n && !(m->kind & KSIM_BPF_KIND_LRU))
		return fail("pool: %u elements in the buckets, the model holds %u", p.in_map, m->n);
	if (p.mem_alloc && p.ma_live != p.in_map)
		return fail("pool: %u elements in the buckets, %lu allocated from the map's bpf_mem_alloc "
			    "(%ld %s)", p.in_map, p.ma_live, (long)(p.ma_live - p.in_map),
			    p.ma_live > p.in_map ? "lost: allocated, in no bucket, never freed" :
			    "freed while in a bucket");
	if (p.mem_alloc && p.percpu && p.pcpu_ma_live != p.in_map)
		return fail("pool: %u elements in the buckets, %lu per-CPU values allocated from the map's "
			    "pcpu_ma (%ld %s)", p.in_map, p.pcpu_ma_live, (long)(p.pcpu_ma_live - p.in_map),
			    p.pcpu_ma_live > p.in_map ? "lost" : "freed while in use");
	if (p.mem_alloc)
		return NULL;
	if (!p.lru && p.in_map + p.free + p.extra != p.total)
		return fail("pool: %u elements in the map + %u on the free lists + %u extra = %u "
			    "of %u preallocated: %d %s", p.in_map, p.free, p.extra,
			    p.in_map + p.free + p.extra, p.total,
			    (int)(p.total - (p.in_map + p.free + p.extra)),
			    p.in_map + p.free + p.extra < p.total ? "lost" : "counted twice");
	if (p.lru && p.on_lists != p.total)
		return fail("pool: %u of %u preallocated LRU nodes on the LRU lists (%d %s)",
			    p.on_lists, p.total, (int)(p.total - p.on_lists),
			    p.on_lists < p.total ? "lost" : "counted twice");
	if (p.lru && p.in_map + p.free + p.pending_free != p.total)
		return fail("pool: %u LRU nodes in the map + %u free + %u pending free = %u of %u",
			    p.in_map, p.free, p.pending_free, p.in_map + p.free + p.pending_free,
			    p.total);
	return NULL;
}
