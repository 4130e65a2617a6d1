// SPDX-License-Identifier: GPL-2.0
/*
 * Special fields in hash map values (struct btf_record): a bpf_spin_lock,
 * a bpf_timer and two referenced kptrs, where the map type takes them
 * (syscall.c's map_check_btf(): spin lock in hash/rhash, timer also in
 * lru_hash, kptrs in every hash type).  Reaches hashtab.c's
 * htab_map_check_btf/bpf_ma_set_dtor/htab_*mem_dtor (7.x), the
 * check_and_free_fields (6.12) / check_and_cancel_fields (7.x) paths,
 * htab_free_prealloced_fields, the timers' map_release_uref and the
 * BPF_F_LOCK paths.
 *
 * One test per variant: a seeded random sequence (the seed printed) of
 * updates (the user's buffer carries garbage in every special field),
 * deletes, lookup_and_deletes, lookups (some with BPF_F_LOCK), and what
 * programs do: bpf_kptr_xchg() of a new object (or NULL) into a kptr field
 * of a live element, releasing what comes out, and bpf_timer_init().
 * LRU maps evict.  A kptr is an object of ours, released only through the
 * dtor its field's record names.  Oracles, after every operation:
 *  - every kptr field of every live element (every CPU's value) holds NULL
 *    or a live object of ours stored in that field, each object in at most
 *    one place; every timer field NULL or a live timer; every lock word 0:
 *    the garbage of user buffers never lands in a special field;
 *  - values read back match the model, their special fields zeroed
 *    (check_and_init_map_value());
 *  - a BPF_F_LOCK lookup/update of an element took that element's lock
 *    (the emulated bpf_spin_lock's last lock); an in-place BPF_F_LOCK
 *    update keeps the element's kptrs;
 *  - objects never released twice, nor through another field's dtor;
 *  - timers: every live timer is in a live element (deletes, replaces and
 *    evictions cancel them at once, on every tree);
 *  - kptrs, 6.12 (check_and_free_fields): every live object is in a live
 *    element (freed on delete/replace/eviction);  7.x (check_and_cancel_fields:
 *    kptrs stay with the element until it is really freed: prealloc maps at
 *    map free, bpf_mem_alloc maps by the dtor bpf_ma_set_dtor() installed)
 *    no such bound, but at the end:
 *  - dropping the last user reference (map_release_uref) frees every timer
 *    and bpf_timer_init() is then refused (-EPERM); the map's free releases
 *    every object still held: none leaked.
 */
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <ksim/bpf.h>
#include <ksim/test.h>

#if KSIM_HAVE_BPF_BTF_RECORD

#define VS		64	/* value_size */
#define OFF_LOCK	8
#define OFF_TIMER	16
#define OFF_KPTR1	32
#define OFF_KPTR2	48
#define NKEYS		48
#define MAX_ENTRIES	32
#define NOPS		3000
#define GARBAGE		0xa5

struct kobj {
	u32 id;
	u8 field;	/* 1 or 2: the kptr field it was stored in */
	bool released;
};

static struct kobj *objs;
static u32 nobjs, maxobjs;
static long released_total;

/* Called from RCU callbacks (another thread) while new_obj() adds objects. */
static bool is_obj(const void *p)
{
	u32 n = __atomic_load_n(&nobjs, __ATOMIC_ACQUIRE);

	return p >= (void *)objs && p < (void *)(objs + n) &&
	       ((uintptr_t)p - (uintptr_t)objs) % sizeof(*objs) == 0;
}

static void release(void *p, u8 field)
{
	struct kobj *o = p;

	if (!is_obj(p)) {
		KSIM_EXPECT(0, "dtor %u called on %p, not an object of ours", field, p);
		return;
	}
	/* atomics: bpf_mem_alloc units are freed (dtor) from RCU callbacks, on another thread */
	KSIM_EXPECT(!__atomic_exchange_n(&o->released, true, __ATOMIC_SEQ_CST),
		    "object %u released twice", o->id);
	KSIM_EXPECT(o->field == field, "object %u of field %u released by field %u's dtor",
		    o->id, o->field, field);
	__atomic_add_fetch(&released_total, 1, __ATOMIC_SEQ_CST);
}

static void dtor1(void *p) { release(p, 1); }
static void dtor2(void *p) { release(p, 2); }

static struct kobj *new_obj(u8 field)
{
	struct kobj *o;

	BUG_ON(nobjs == maxobjs);
	o = &objs[nobjs];
	o->id = nobjs;
	o->field = field;
	__atomic_store_n(&nobjs, nobjs + 1, __ATOMIC_RELEASE);
	return o;
}

struct fields_cfg {
	bool lock, timer;
	struct ksim_bpf_field f[4];
	u32 n;
};

static void cfg_for(const struct ksim_bpf_variant *v, struct fields_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->lock = v->map_type == BPF_MAP_TYPE_HASH;
#if KSIM_HAVE_BPF_RHASH
	c->lock |= v->map_type == BPF_MAP_TYPE_RHASH;
#endif
	c->timer = c->lock || v->map_type == BPF_MAP_TYPE_LRU_HASH;
	/* listed out of offset order: the record sorts them */
	c->f[c->n++] = (struct ksim_bpf_field){ BPF_KPTR_REF, OFF_KPTR2, dtor2 };
	if (c->timer)
		c->f[c->n++] = (struct ksim_bpf_field){ BPF_TIMER, OFF_TIMER, NULL };
	c->f[c->n++] = (struct ksim_bpf_field){ BPF_KPTR_REF, OFF_KPTR1, dtor1 };
	if (c->lock)
		c->f[c->n++] = (struct ksim_bpf_field){ BPF_SPIN_LOCK, OFF_LOCK, NULL };
}

/* Is byte @i of a value in a special field of this map? */
static bool in_field(const struct fields_cfg *c, u32 i)
{
	return (i >= OFF_KPTR1 && i < OFF_KPTR1 + 8) || (i >= OFF_KPTR2 && i < OFF_KPTR2 + 8) ||
	       (c->lock && i >= OFF_LOCK && i < OFF_LOCK + 4) ||
	       (c->timer && i >= OFF_TIMER && i < OFF_TIMER + 16);
}

static u8 data_byte(u32 gen, u32 cpu, u32 i)
{
	return (u8)(gen * 131 + cpu * 17 + i * 7 + 1);
}

struct run {
	const struct ksim_bpf_variant *v;
	struct bpf_map *map;
	struct fields_cfg c;
	bool percpu, lru, eager;
	u32 ncpus, vsize;
	u32 gen[NKEYS];		/* 0: absent, else the value's generation */
	u32 count;
	u32 inherited;		/* new elements (per CPU value) holding a kptr already */
	struct ksim_rng *rng;
};

static void fill(struct run *r, u8 *buf, u32 gen)
{
	for (u32 cpu = 0; cpu < (r->percpu ? r->ncpus : 1); cpu++)
		for (u32 i = 0; i < VS; i++)
			buf[cpu * VS + i] = in_field(&r->c, i) ? GARBAGE : data_byte(gen, cpu, i);
}

/* A value read back: @gen's data, special fields zeroed. */
static void check_value(struct run *r, const u8 *buf, u32 gen, u32 key, const char *what)
{
	for (u32 cpu = 0; cpu < (r->percpu ? r->ncpus : 1); cpu++)
		for (u32 i = 0; i < VS; i++) {
			u8 want = in_field(&r->c, i) ? 0 : data_byte(gen, r->percpu ? cpu : 0, i);

			if (buf[cpu * VS + i] != want) {
				KSIM_EXPECT(0, "%s key %u cpu %u: byte %u is %#x, want %#x%s", what, key,
					    cpu, i, buf[cpu * VS + i], want,
					    in_field(&r->c, i) ? " (special field)" : "");
				return;
			}
		}
}

/* A program's pointer to @cpu's value of @key (rcu_read_lock held). */
static u8 *val_ptr(struct run *r, u64 key, u32 cpu)
{
	if (r->percpu)
		return ksim_bpf_prog_lookup_percpu(r->map, &key, sizeof(key), cpu);
	return ksim_bpf_map_lookup_ptr(r->map, &key, sizeof(key));
}

/*
 * The invariants over all live elements.  @evict_ok: an LRU update just
 * ran, model keys it evicted leave the model.
 */
static void check_all(struct run *r, bool evict_ok, const char *after)
{
	static u8 seen[1 << 16];
	long in_map = 0, timers = 0;

	BUG_ON(nobjs > sizeof(seen));
	memset(seen, 0, nobjs);
	rcu_read_lock();
	for (u32 k = 0; k < NKEYS; k++) {
		if (!r->gen[k])
			continue;
		for (u32 cpu = 0; cpu < (r->percpu ? r->ncpus : 1); cpu++) {
			u8 *p = val_ptr(r, k, cpu);

			if (!p) {
				KSIM_EXPECT(r->lru && evict_ok && cpu == 0, "after %s: key %u missing", after, k);
				r->gen[k] = 0;
				r->count--;
				break;
			}
			for (int f = 1; f <= 2; f++) {
				struct kobj *o = READ_ONCE(*(struct kobj **)(p + (f == 1 ? OFF_KPTR1 : OFF_KPTR2)));

				if (!o)
					continue;
				if (!is_obj(o)) {
					KSIM_EXPECT(0, "after %s: key %u cpu %u kptr%d holds %p, not an object",
						    after, k, cpu, f, o);
					continue;
				}
				KSIM_EXPECT(!__atomic_load_n(&o->released, __ATOMIC_SEQ_CST), "after %s: key %u cpu %u kptr%d: object %u was released",
					    after, k, cpu, f, o->id);
				KSIM_EXPECT(o->field == f, "after %s: object %u of kptr%u in kptr%d",
					    after, o->id, o->field, f);
				KSIM_EXPECT(!seen[o->id], "after %s: object %u in two places", after, o->id);
				seen[o->id] = 1;
				in_map++;
			}
			if (r->c.lock)
				KSIM_EXPECT(READ_ONCE(*(u32 *)(p + OFF_LOCK)) == 0,
					    "after %s: key %u lock word %#x", after, k, *(u32 *)(p + OFF_LOCK));
			if (r->c.timer && READ_ONCE(*(void **)(p + OFF_TIMER)))
				timers++;
		}
	}
	rcu_read_unlock();
	/* a live timer outside live elements was not cancelled; garbage is not a timer */
	KSIM_EXPECT(ksim_bpf_timers_live() == timers, "after %s: %ld timers live, %ld in the map",
		    after, ksim_bpf_timers_live(), timers);
	if (r->eager)
		KSIM_EXPECT((long)nobjs - __atomic_load_n(&released_total, __ATOMIC_SEQ_CST) == in_map,
			    "after %s: %ld objects unreleased, %ld in live elements", after,
			    (long)nobjs - released_total, in_map);
}

static u64 pick_flags(struct run *r)
{
	static const u64 f[] = { BPF_ANY, BPF_ANY, BPF_NOEXIST, BPF_EXIST };

	return f[ksim_rng_below(r->rng, ARRAY_SIZE(f))];
}

static void op_update(struct run *r, u64 key, u8 *buf)
{
	u64 flags = pick_flags(r);
	bool locked = r->c.lock && ksim_rng_below(r->rng, 2);
	u32 gen = (u32)ksim_rng_next(r->rng) | 1;
	bool present = r->gen[key];
	struct kobj *k1 = NULL, *k2 = NULL;
	unsigned long n0, n1;
	u8 *p0 = NULL, *p1;
	void *last;
	int err, want = 0;

	if (locked)
		flags |= BPF_F_LOCK;
	fill(r, buf, gen);
	if (present && locked) {
		rcu_read_lock();
		p0 = val_ptr(r, key, 0);
		k1 = *(struct kobj **)(p0 + OFF_KPTR1);
		k2 = *(struct kobj **)(p0 + OFF_KPTR2);
		rcu_read_unlock();
	}
	ksim_bpf_spin_lock_last(&n0);
	err = ksim_bpf_map_update(r->map, &key, sizeof(key), buf, flags);
	last = ksim_bpf_spin_lock_last(&n1);
	if (present && (flags & ~BPF_F_LOCK) == BPF_NOEXIST)
		want = -EEXIST;
	else if (!present && (flags & ~BPF_F_LOCK) == BPF_EXIST)
		want = -ENOENT;
	else if (!present && !r->lru && r->count == MAX_ENTRIES)
		want = -E2BIG;
	/* LRU: the free node the update takes first may be this very key's */
	if (r->lru && present && err != want &&
	    ((want == -EEXIST && !err) || (!want && (flags & ~BPF_F_LOCK) == BPF_EXIST && err == -ENOENT))) {
		r->gen[key] = 0;
		r->count--;
		present = false;
		want = err;
	}
	KSIM_EXPECT(err == want, "update key %llu flags %#llx (present %d, %u in map): %d, want %d",
		    (unsigned long long)key, (unsigned long long)flags, present, r->count, err, want);
	if (err) {
		/* an LRU update takes a free node first, which may evict, then checks flags */
		check_all(r, r->lru, "failed update");
		return;
	}
	if (!present) {
		r->count++;
		/* 7.x: a reused element may come with an older kptr (counted, shown at the end) */
		rcu_read_lock();
		for (u32 cpu = 0; cpu < (r->percpu ? r->ncpus : 1); cpu++) {
			u8 *p = val_ptr(r, key, cpu);

			if (p && (*(void **)(p + OFF_KPTR1) || *(void **)(p + OFF_KPTR2)))
				r->inherited++;
		}
		rcu_read_unlock();
	}
	r->gen[key] = gen;
	if (present && locked) {
		/* in place, under the element's lock, its kptrs kept */
		rcu_read_lock();
		p1 = val_ptr(r, key, 0);
		KSIM_EXPECT(p1 == p0, "BPF_F_LOCK update of key %llu moved the element",
			    (unsigned long long)key);
		KSIM_EXPECT(n1 == n0 + 1 && last == p0 + OFF_LOCK,
			    "BPF_F_LOCK update of key %llu: %lu locks taken, last %p, element's %p",
			    (unsigned long long)key, n1 - n0, last, p0 + OFF_LOCK);
		KSIM_EXPECT(*(struct kobj **)(p1 + OFF_KPTR1) == k1 && *(struct kobj **)(p1 + OFF_KPTR2) == k2,
			    "BPF_F_LOCK update of key %llu changed its kptrs", (unsigned long long)key);
		rcu_read_unlock();
	}
	check_all(r, r->lru, "update");	/* an LRU update may evict any other key */
}

static void op_lookup(struct run *r, u64 key, u8 *buf, bool del)
{
	bool locked = r->c.lock && ksim_rng_below(r->rng, 2);
	u64 flags = locked ? BPF_F_LOCK : 0;
	unsigned long n0, n1;
	u8 *p = NULL;
	void *last;
	int err;

	if (locked && r->gen[key]) {
		rcu_read_lock();
		p = val_ptr(r, key, 0);
		rcu_read_unlock();
	}
	memset(buf, 0x5a, r->vsize);
	ksim_bpf_spin_lock_last(&n0);
	if (del)
		err = ksim_bpf_map_lookup_and_delete(r->map, &key, sizeof(key), buf, flags);
	else
		err = ksim_bpf_map_lookup(r->map, &key, sizeof(key), buf, flags);
	last = ksim_bpf_spin_lock_last(&n1);
	if (!r->gen[key]) {
		KSIM_EXPECT(err == -ENOENT, "%s of absent key %llu: %d", del ? "lookup_and_delete" : "lookup",
			    (unsigned long long)key, err);
		return;
	}
	KSIM_EXPECT(!err, "%s of key %llu: %d", del ? "lookup_and_delete" : "lookup",
		    (unsigned long long)key, err);
	if (err)
		return;
	check_value(r, buf, r->gen[key], key, del ? "lookup_and_delete" : "lookup");
	if (locked)
		KSIM_EXPECT(n1 == n0 + 1 && last == p + OFF_LOCK,
			    "BPF_F_LOCK %s of key %llu: %lu locks taken, last %p, element's %p",
			    del ? "lookup_and_delete" : "lookup", (unsigned long long)key, n1 - n0, last,
			    p + OFF_LOCK);
	if (del) {
		r->gen[key] = 0;
		r->count--;
		check_all(r, false, "lookup_and_delete");
	}
}

static void op_delete(struct run *r, u64 key)
{
	int err = ksim_bpf_map_delete(r->map, &key, sizeof(key));

	KSIM_EXPECT(err == (r->gen[key] ? 0 : -ENOENT), "delete key %llu (present %d): %d",
		    (unsigned long long)key, !!r->gen[key], err);
	if (!err && r->gen[key]) {
		r->gen[key] = 0;
		r->count--;
	}
	check_all(r, false, "delete");
}

/* bpf_kptr_xchg() from a program: a new object or NULL in, the old one released. */
static void op_xchg(struct run *r, u64 key)
{
	u32 cpu = r->percpu ? ksim_rng_below(r->rng, r->ncpus) : 0;
	u8 f = 1 + ksim_rng_below(r->rng, 2);
	struct kobj *in = ksim_rng_below(r->rng, 4) ? new_obj(f) : NULL, *old;
	u8 *p;

	rcu_read_lock();
	p = val_ptr(r, key, cpu);
	if (!p) {
		rcu_read_unlock();
		KSIM_EXPECT(!r->gen[key], "prog lookup of key %llu: NULL", (unsigned long long)key);
		if (in)
			release(in, f);	/* the program drops what it could not store */
		return;
	}
	old = xchg((struct kobj **)(p + (f == 1 ? OFF_KPTR1 : OFF_KPTR2)), in);
	rcu_read_unlock();
	if (old)
		release(old, f);
	check_all(r, false, "kptr_xchg");
}

static void op_timer(struct run *r, u64 key)
{
	void *old;
	u8 *p;
	int err;

	rcu_read_lock();
	p = val_ptr(r, key, 0);
	if (!p) {
		rcu_read_unlock();
		return;
	}
	old = READ_ONCE(*(void **)(p + OFF_TIMER));
	err = ksim_bpf_prog_timer_init(r->map, p);
	rcu_read_unlock();
	KSIM_EXPECT(err == (old ? -EBUSY : 0), "bpf_timer_init key %llu: %d", (unsigned long long)key, err);
	check_all(r, false, "timer_init");
}

static void run_variant(const char *name)
{
	const struct ksim_bpf_variant *v = ksim_bpf_variant_find(name);
	struct ksim_bpf_map_attr a = { .key_size = 8, .value_size = VS, .max_entries = MAX_ENTRIES };
	struct run r = { .v = v, .rng = ksim_test_rng() };
	u8 *buf;
	int err;

	/* the harness prints the run seed and the replay line; this is the test's own, derived from it */
	printf("# %s: test seed %llu\n", name, (unsigned long long)ksim_test_seed());
	KSIM_ASSERT(v, "no variant %s", name);
	r.percpu = v->kind & KSIM_BPF_KIND_PERCPU;
	r.lru = v->kind & KSIM_BPF_KIND_LRU;
	r.eager = !KSIM_HAVE_BPF_CANCEL_FIELDS;
	r.ncpus = num_possible_cpus();
	cfg_for(v, &r.c);
	a.fields = r.c.f;
	a.nr_fields = r.c.n;
	maxobjs = NOPS + 16;
	objs = calloc(maxobjs, sizeof(*objs));
	nobjs = 0;
	released_total = 0;
	r.map = ksim_bpf_map_create(v, &a, &err);
	KSIM_ASSERT(r.map, "create %s with %u fields: %d", name, r.c.n, err);
	r.vsize = ksim_bpf_value_size(r.map);
	buf = calloc(1, r.vsize);

	for (int i = 0; i < NOPS; i++) {
		u64 key = ksim_rng_below(r.rng, NKEYS);
		u32 op = ksim_rng_below(r.rng, 100);

		if (op < 30)
			op_update(&r, key, buf);
		else if (op < 40)
			op_delete(&r, key);
		else if (op < 47)
			op_lookup(&r, key, buf, true);
		else if (op < 60)
			op_lookup(&r, key, buf, false);
		else if (op < 90)
			op_xchg(&r, key);
		else if (r.c.timer)
			op_timer(&r, key);
	}

	printf("# %s: %u objects, %u new elements came with a kptr of an earlier one\n", name, nobjs,
	       r.inherited);
	if (r.eager)	/* 6.x freed it with the element: would have failed check_all() already */
		KSIM_EXPECT(r.inherited == 0, "%u new elements with a kptr", r.inherited);

	/* user space lets go, a program still holds the map: timers go (map_release_uref) */
	bpf_map_inc(r.map);
	ksim_bpf_map_free(r.map);
	KSIM_EXPECT(ksim_bpf_timers_live() == 0, "%ld timers live after the last user reference",
		    ksim_bpf_timers_live());
	if (r.c.timer) {
		for (u64 k = 0; k < NKEYS; k++) {
			u8 *p;

			rcu_read_lock();
			p = val_ptr(&r, k, 0);
			err = p ? ksim_bpf_prog_timer_init(r.map, p) : -EPERM;
			rcu_read_unlock();
			KSIM_EXPECT(err == -EPERM, "bpf_timer_init without user references: %d", err);
		}
	}
	bpf_map_put(r.map);	/* the program's reference: map_free */
	rcu_barrier();
	KSIM_EXPECT(released_total == nobjs, "%ld of %u objects released after map free (%s)",
		    released_total, nobjs, name);
	KSIM_EXPECT(ksim_bpf_timers_live() == 0, "%ld timers live after map free", ksim_bpf_timers_live());
	free(buf);
	free(objs);
	objs = NULL;
}

KSIM_TEST(btf_fields_hash) { run_variant("hash"); }
KSIM_TEST(btf_fields_hash_noprealloc) { run_variant("hash_noprealloc"); }
KSIM_TEST(btf_fields_lru_hash) { run_variant("lru_hash"); }
KSIM_TEST(btf_fields_lru_hash_nocommon) { run_variant("lru_hash_nocommon"); }
KSIM_TEST(btf_fields_percpu_hash) { run_variant("percpu_hash"); }
KSIM_TEST(btf_fields_percpu_hash_noprealloc) { run_variant("percpu_hash_noprealloc"); }
KSIM_TEST(btf_fields_lru_percpu_hash) { run_variant("lru_percpu_hash"); }
#if KSIM_HAVE_BPF_RHASH
KSIM_TEST(btf_fields_rhash) { run_variant("rhash"); }
#endif

/* What map_check_btf() refuses: fields a map type does not take, bad layouts. */
KSIM_TEST(btf_fields_refused)
{
	static const struct { const char *variant; struct ksim_bpf_field f[2]; u32 n; int err; } cases[] = {
		{ "lru_hash", { { BPF_SPIN_LOCK, 0, NULL } }, 1, -EOPNOTSUPP },
		{ "percpu_hash", { { BPF_TIMER, 0, NULL } }, 1, -EOPNOTSUPP },
		{ "lpm_trie", { { BPF_KPTR_REF, 0, dtor1 } }, 1, -EOPNOTSUPP },
		{ "hash", { { BPF_SPIN_LOCK, 0, NULL }, { BPF_SPIN_LOCK, 4, NULL } }, 2, -E2BIG },
		{ "hash", { { BPF_KPTR_REF, 4, dtor1 } }, 1, -EINVAL },		/* misaligned */
		{ "hash", { { BPF_KPTR_REF, 60, dtor1 } }, 1, -EINVAL },	/* past the value */
		{ "hash", { { BPF_KPTR_REF, 0, NULL } }, 1, -EINVAL },		/* no dtor */
		{ "hash", { { BPF_TIMER, 0, NULL }, { BPF_KPTR_REF, 8, dtor1 } }, 2, -EINVAL },
	};
	int err;

	for (u32 i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct ksim_bpf_variant *v = ksim_bpf_variant_find(cases[i].variant);
		struct ksim_bpf_map_attr a = { .key_size = 8, .value_size = VS, .max_entries = 4,
					       .fields = cases[i].f, .nr_fields = cases[i].n };
		struct bpf_map *m;

		m = ksim_bpf_map_create(v, &a, &err);
		KSIM_EXPECT(!m && err == cases[i].err, "case %u (%s): map %p, err %d, want %d", i,
			    cases[i].variant, m, err, cases[i].err);
		if (m)
			ksim_bpf_map_free(m);
	}

	/* BPF_F_LOCK needs a spin lock field: a map with other fields refuses it */
	{
		static const struct ksim_bpf_field f[] = { { BPF_TIMER, 0, NULL }, { BPF_KPTR_REF, 16, dtor1 } };
		struct ksim_bpf_map_attr a = { .key_size = 8, .value_size = VS, .max_entries = 4,
					       .fields = f, .nr_fields = 2 };
		struct bpf_map *m = ksim_bpf_map_create(ksim_bpf_variant_find("lru_hash"), &a, &err);
		u8 val[VS] = { 0 };
		u64 key = 1;

		KSIM_ASSERT(m, "lru_hash with a timer and a kptr: %d", err);
		KSIM_EXPECT(ksim_bpf_map_update(m, &key, 8, val, BPF_F_LOCK) == -EINVAL);
		KSIM_EXPECT(ksim_bpf_map_update(m, &key, 8, val, 0) == 0);
		KSIM_EXPECT(ksim_bpf_map_lookup(m, &key, 8, val, BPF_F_LOCK) == -EINVAL);
		KSIM_EXPECT(ksim_bpf_map_lookup_and_delete(m, &key, 8, val, BPF_F_LOCK) == -EINVAL);
		KSIM_EXPECT(ksim_bpf_map_lookup_and_delete(m, &key, 8, val, 0) == 0);
		ksim_bpf_map_free(m);
	}
}
#endif
