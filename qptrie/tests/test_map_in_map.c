// SPDX-License-Identifier: GPL-2.0
/*
 * Map-in-map: BPF_MAP_TYPE_HASH_OF_MAPS (hashtab.c's fd-map functions) and
 * BPF_MAP_TYPE_ARRAY_OF_MAPS (arraymap.c's array_of_maps_map_ops: the fd
 * array functions) on the tree's kernel/bpf/map_in_map.c, inner maps taken
 * by fd (shim/kernel/bpf/map_fd.c).  Every case runs on both outer maps,
 * the outer map its parameter (outer_v; the array's cases are *_array);
 * one model serves both, with the array's rules where arraymap.c differs.
 *
 * The oracle is a small model of who holds each inner map: its fd (the
 * user's reference until ksim_bpf_map_free() closes it) and the outer map's
 * entries.  After every command each inner map still alive has exactly that
 * many references (map->refcnt) and its id; one whose last reference went
 * is freed at once, except when an outer map let go of it by replace or
 * delete at some point (map_fd_put_ptr(need_defer): free_after_rcu_gp or
 * free_after_mult_rcu_gp stays set), when it must still be there, id 0,
 * until a grace period ends and gone after it (RCU callbacks run inline
 * here: at rcu_barrier() or inside a map's free; the map is then freed by
 * a work item, as bpf_map_free_rcu_gp() does).  Inner maps are hash maps
 * whose map_free is counted, so "freed" is observed, not inferred.
 *
 * The array's rules (arraymap.c, the same in 6.1, 6.12, 7.2, 7.3 but for
 * the free): keys are u32 indices below max_entries, every slot there from
 * creation, empty or holding an inner map.  bpf_fd_array_map_update_elem()
 * takes BPF_ANY only (BPF_NOEXIST, BPF_EXIST: -EINVAL, checked before the
 * index and the fd), an index past the end is -E2BIG (update and delete),
 * -ENOENT for a user lookup, NULL for a program's; an update replaces in
 * place (the old map put with need_defer), a delete of an empty slot is
 * -ENOENT; get_next_key walks every index, the empty ones too, and an index
 * past the end restarts at 0; nothing is allocated per element.  The outer
 * map's free puts every inner map: with need_defer false
 * (bpf_fd_array_map_clear(map, false), as fd_htab_map_free()), but on
 * trees whose clear takes no need_defer (6.1.y:
 * !KSIM_HAVE_BPF_FD_ARRAY_CLEAR_NEED_DEFER) through the delete path,
 * deferred.  Creation: BPF_F_NO_PREALLOC, BPF_F_INNER_MAP (plain arrays
 * only), BPF_F_RDONLY_PROG/WRONLY_PROG, a key that is not 4 bytes and
 * max_entries 0 are -EINVAL (fd_array_map_alloc_check(),
 * array_map_alloc_check()).  array_of_map_gen_lookup() is not run: the
 * shim's interpreter knows only hashtab.c's instructions (no BPF_JGE,
 * ALU32, shifts).
 *
 * - mim_basics, mim_basics_array: creation errors (value_size, bad fd,
 *   map-in-map as inner; the array's own flags and shapes), the outer map
 *   failing to allocate after the template was copied (copy freed), the
 *   meta check (key_size, value_size, type, flags refused with -EINVAL;
 *   max_entries may differ for hash inner maps: bpf_map_meta_equal()
 *   ignores it; inner arrays: array_map_meta_equal() wants it equal unless
 *   the template has BPF_F_INNER_MAP), the id from a user lookup, the inner
 *   map from a program lookup and a lookup in it, the array's keys (past
 *   the end, refused flags, empty slots, the index walk), replace and
 *   delete deferring the free, the outer map's free not deferring it
 *   (6.1.y's array: deferring), the sleepable outer map's deferral flag;
 * - mim_random, mim_random_array: random commands (update with good,
 *   closed and mismatched fds and every flag, delete, both lookups,
 *   get_next_key walks, closing fds, new inner maps, grace periods)
 *   against the model, from the run's seed (printed; --seed replays); the
 *   hash alternates prealloc and BPF_F_NO_PREALLOC outer maps;
 * - mim_readers, mim_readers_array: reader threads using inner maps while
 *   they are replaced and deleted (each held only by the outer entry): the
 *   grace period must keep them alive for the readers (ASan sees a use
 *   after free if not);
 * - mim_sweep, mim_sweep_noprealloc, mim_sweep_array: a fixed sequence of
 *   the same commands with the nth allocation failing, for every n the
 *   sequence reaches (create and update included): -ENOMEM only from the
 *   command the failure was injected into, which then changed nothing (the
 *   old inner map still in place, every refcount as before), and no object
 *   left at the end.  The array's failures are the inner and outer maps'
 *   creation and an update's value copy (the syscall's, before the map
 *   sees it), and each of its updates allocates exactly that once, its
 *   deletes, lookups and walks nothing; the hash's updates also take an
 *   element.  No _noprealloc for the array: array_map_alloc_check()
 *   refuses BPF_F_NO_PREALLOC.
 */
#include <pthread.h>

#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include <linux/random.h>
#include <ksim/bpf.h>
#include <ksim/fault.h>
#include <ksim/rcu.h>
#include <ksim/slab.h>
#include <ksim/test.h>

#if KSIM_HAVE_BPF_HTAB_OF_MAPS
extern const struct bpf_map_ops htab_map_ops, htab_of_maps_map_ops, array_of_maps_map_ops;

#define KS	4	/* inner and outer key size */
#define IVS	8	/* inner value size */
#define IMAX	4	/* inner max_entries (the template's) */
#define NKEYS	10	/* outer key space */
#define OMAX	6	/* outer max_entries: the key space overfills it */
#define NREC	256	/* inner maps one run may create */
#define NLIVE	8	/* inner maps alive at once */

/* Inner hash maps whose map_free we see. */
static struct bpf_map_ops counted_ops;
static const struct ksim_bpf_variant inner_v = {
	"hash_counted", &counted_ops, BPF_MAP_TYPE_HASH, 0, KSIM_BPF_KIND_HASH | KSIM_BPF_KIND_KERNEL,
};
/* The outer maps: each test runs on one, its parameter (outer_v). */
static const struct ksim_bpf_variant outer_hash_v = {
	"hash_of_maps", &htab_of_maps_map_ops, BPF_MAP_TYPE_HASH_OF_MAPS, 0,
	KSIM_BPF_KIND_HASH | KSIM_BPF_KIND_KERNEL,
};
static const struct ksim_bpf_variant outer_array_v = {
	"array_of_maps", &array_of_maps_map_ops, BPF_MAP_TYPE_ARRAY_OF_MAPS, 0,
	KSIM_BPF_KIND_ARRAY | KSIM_BPF_KIND_ORDERED | KSIM_BPF_KIND_KERNEL,
};
static const struct ksim_bpf_variant *outer_v = &outer_hash_v;

static bool outer_array(void)
{
	return outer_v == &outer_array_v;
}

/*
 * The array's free puts every inner map through bpf_fd_array_map_clear():
 * with need_defer false where it takes the flag (as fd_htab_map_free()),
 * else (6.1.y) through the delete path, need_defer true.
 */
static bool outer_free_defers(void)
{
	return outer_array() && !KSIM_HAVE_BPF_FD_ARRAY_CLEAR_NEED_DEFER;
}

/* What the model knows of one inner map. */
struct inner {
	struct bpf_map *m;
	int fd;
	u32 id;
	u64 val;		/* its key 0's value (has_val) */
	bool has_val;
	bool open;		/* fd not closed */
	int outer_refs;		/* outer entries holding it */
	bool defer;		/* an outer map put it with need_defer */
	bool freed;		/* map_free ran */
	unsigned long zero_gps;	/* gps when the last reference went */
	bool bad;		/* a mismatched map (never accepted) */
};
static struct inner rec[NREC];
static int nrec;
static int outer_slot[NKEYS];	/* rec index, -1: absent */
/*
 * Grace periods: one may end inside rcu_barrier() (grace_period()) or a
 * map's free (bpf_mem_alloc_destroy() waits for one): such a section is
 * open (may_gp) or has ended (gps counts them).  An inner map whose last
 * reference went with gps == n may be freed (after its grace period, by a
 * work item: at the end of any later command) only once gps > n, or in the
 * section it went in.  Updates, deletes and lookups end no grace period.
 */
static bool may_gp;
static unsigned long gps;
static const char *ctx = "";	/* for messages */
static unsigned long ctx_nth;
static int ctx_step;

static void counted_free(struct bpf_map *m)
{
	int i;

	for (i = 0; i < nrec; i++)
		if (rec[i].m == m && !rec[i].freed)
			break;
	if (i == nrec) {
		ksim_test_fail(__FILE__, __LINE__, "a tracked map", "%s nth=%lu step %d: unknown map freed",
			       ctx, ctx_nth, ctx_step);
	} else {
		/* put with need_defer once: freed after a grace period (the flag says so), not before */
		bool flagged = m->free_after_rcu_gp || m->free_after_mult_rcu_gp;

		if (rec[i].defer != flagged || (flagged && !may_gp && gps == rec[i].zero_gps))
			ksim_test_fail(__FILE__, __LINE__, "freed when due", "%s nth=%lu step %d: inner %d "
				       "(put with need_defer: %d, free_after_*_gp: %d) freed %s", ctx, ctx_nth,
				       ctx_step, i, rec[i].defer, flagged,
				       may_gp ? "" : "before a grace period");
		rec[i].freed = true;
	}
	htab_map_ops.map_free(m);
}

static void setup(void)
{
	counted_ops = htab_map_ops;
	counted_ops.map_free = counted_free;
	nrec = 0;
	memset(rec, 0, sizeof(rec));
	for (int k = 0; k < NKEYS; k++)
		outer_slot[k] = -1;
	/* callbacks run at rcu_barrier() only: "not freed before the grace period" is decidable */
	ksim_rcu_set_inline_callbacks(true);
}

/* A grace period, and the RCU callbacks it lets run (inline: only here). */
static void grace_period(void)
{
	may_gp = true;
	rcu_barrier();
	ksim_run_pending_work();	/* the frees bpf_map_put() queued after the grace period */
	may_gp = false;
	gps++;
}

static void teardown(void)
{
	grace_period();
	ksim_rcu_set_inline_callbacks(false);
}

static int refs(const struct inner *r)
{
	return r->open + r->outer_refs;
}

/*
 * Every inner map against the model; @gp: a grace period just ended.
 * Returns false on the first mismatch.
 */
static bool check_inners(bool gp)
{
	for (int i = 0; i < nrec; i++) {
		struct inner *r = &rec[i];
		long have;

		if (r->freed) {
			if (refs(r))
				goto fail_freed;
			continue;
		}
		if (!refs(r)) {
			/* last reference gone: only a deferred free may still be pending, and not past a GP */
			if (!r->defer || gp) {
				ksim_test_fail(__FILE__, __LINE__, "freed", "%s nth=%lu step %d: inner %d (defer %d) "
					       "not freed with no reference left%s", ctx, ctx_nth, ctx_step, i,
					       r->defer, gp ? " after a grace period" : "");
				return false;
			}
			if (r->m->id != 0) {
				ksim_test_fail(__FILE__, __LINE__, "id freed", "%s nth=%lu step %d: inner %d id %u "
					       "after its last put", ctx, ctx_nth, ctx_step, i, r->m->id);
				return false;
			}
			continue;
		}
		have = atomic64_read(&r->m->refcnt);
		if (have != refs(r) || r->m->id != r->id) {
			ksim_test_fail(__FILE__, __LINE__, "refcnt", "%s nth=%lu step %d: inner %d: refcnt %ld "
				       "(model %d: fd %d + %d outer entries), id %u (was %u)", ctx, ctx_nth,
				       ctx_step, i, have, refs(r), r->open, r->outer_refs, r->m->id, r->id);
			return false;
		}
		continue;
fail_freed:
		ksim_test_fail(__FILE__, __LINE__, "not freed", "%s nth=%lu step %d: inner %d freed with %d "
			       "references (fd %d, %d outer entries)", ctx, ctx_nth, ctx_step, i, refs(r),
			       r->open, r->outer_refs);
		return false;
	}
	return true;
}

/* A new inner map (@v, sizes): tracked, its fd taken, key 0 -> a value.  -1 if creation failed. */
static int new_inner(const struct ksim_bpf_variant *v, u32 ks, u32 vs, u32 max, u32 flags, bool bad,
		     int *errp)
{
	struct ksim_bpf_map_attr a = { .key_size = ks, .value_size = vs, .max_entries = max,
				       .map_flags = flags };
	struct inner *r;
	u8 key[16] = { 0 }, val[16] = { 0 };
	struct bpf_map *m;

	if (nrec == NREC)
		return -1;
	m = ksim_bpf_map_create(v, &a, errp);
	if (!m)
		return -1;
	r = &rec[nrec];
	memset(r, 0, sizeof(*r));
	r->m = m;
	r->fd = ksim_bpf_map_fd(m);
	r->id = m->id;
	r->open = true;
	r->bad = bad;
	r->val = 0x1000 + nrec;
	memcpy(val, &r->val, sizeof(r->val));
	r->has_val = !ksim_bpf_map_update(m, key, ks, val, BPF_ANY);
	KSIM_EXPECT(r->fd >= 0, "fd %d", r->fd);
	return nrec++;
}

static int good_inner(u32 max, int *errp)
{
	return new_inner(&inner_v, KS, IVS, max, 0, false, errp);
}

static void close_inner(int i)
{
	bool counted = rec[i].m->ops == &counted_ops;

	may_gp = true;
	ksim_bpf_map_free(rec[i].m);
	rec[i].open = false;
	rec[i].zero_gps = gps;
	may_gp = false;
	gps++;
	if (!counted)	/* the LRU map: never in an outer map, gone now */
		rec[i].freed = true;
}

/* The model's side of an outer entry dropped: by replace/delete (@defer) or the outer map's free. */
static void drop_ref(int i, bool defer)
{
	rec[i].outer_refs--;
	rec[i].zero_gps = gps;
	if (defer)
		rec[i].defer = true;
}

static struct bpf_map *new_outer(u32 flags, int tmpl, int *errp)
{
	struct ksim_bpf_map_attr a = { .key_size = KS, .value_size = sizeof(u32), .max_entries = OMAX,
				       .map_flags = flags, .inner_map_fd = rec[tmpl].fd };

	return ksim_bpf_map_create(outer_v, &a, errp);
}

static void free_outer(struct bpf_map *o)
{
	may_gp = true;
	ksim_bpf_map_free(o);
	for (int k = 0; k < NKEYS; k++) {
		/* fd_htab_map_free(), bpf_fd_array_map_clear(map, false): need_defer false (6.1.y's array: true) */
		if (outer_slot[k] >= 0)
			drop_ref(outer_slot[k], outer_free_defers());
		outer_slot[k] = -1;
	}
	may_gp = false;
	gps++;
}

/* A program's bpf_map_lookup_elem() on the outer map, then on the inner map it returned. */
static bool prog_lookup(struct bpf_map *o, u32 k)
{
	u8 key[KS] = { 0 };
	struct bpf_map *in;
	bool ok = true;

	rcu_read_lock();
	in = ksim_bpf_map_lookup_ptr(o, &k, KS);
	if (outer_slot[k] < 0) {
		ok = !in;
	} else {
		struct inner *r = &rec[outer_slot[k]];
		u64 *v;

		ok = in == r->m;
		if (ok) {
			v = ksim_bpf_map_lookup_ptr(in, key, KS);
			ok = r->has_val ? v && *v == r->val : !v;
		}
	}
	rcu_read_unlock();
	if (!ok)
		ksim_test_fail(__FILE__, __LINE__, "program lookup", "%s nth=%lu step %d: key %u: got map %p, "
			       "model inner %d", ctx, ctx_nth, ctx_step, k, (void *)in, outer_slot[k]);
	return ok;
}

static bool user_lookup(struct bpf_map *o, u32 k)
{
	u32 id = 0;
	int ret = ksim_bpf_map_lookup(o, &k, KS, &id, 0);
	bool ok = outer_slot[k] < 0 ? ret == -ENOENT : !ret && id == rec[outer_slot[k]].id;

	if (!ok)
		ksim_test_fail(__FILE__, __LINE__, "user lookup", "%s nth=%lu step %d: key %u: ret %d id %u, model "
			       "inner %d id %u", ctx, ctx_nth, ctx_step, k, ret, id, outer_slot[k],
			       outer_slot[k] < 0 ? 0 : rec[outer_slot[k]].id);
	return ok;
}

static int outer_count(void)
{
	int n = 0;

	for (int k = 0; k < NKEYS; k++)
		n += outer_slot[k] >= 0;
	return n;
}

/*
 * get_next_key from the start.  Hash: every present key once, nothing
 * else.  Array (bpf_array_get_next_key()): every index in order, the empty
 * ones too, then -ENOENT; it allocates nothing (no -ENOMEM).
 */
static bool walk(struct bpf_map *o, bool *nomem)
{
	bool seen[NKEYS] = { false };
	u32 k, nk, len;
	int ret, n = 0;
	void *from = NULL;

	*nomem = false;
	if (outer_array()) {
		for (;;) {
			len = KS;
			ret = ksim_bpf_map_get_next_key(o, from, KS, &nk, &len);
			if (ret)
				break;
			if (nk != (u32)n || ++n > OMAX) {
				ksim_test_fail(__FILE__, __LINE__, "walk", "%s nth=%lu step %d: index %u after "
					       "%d indices", ctx, ctx_nth, ctx_step, nk, n);
				return false;
			}
			k = nk;
			from = &k;
		}
		if (ret != -ENOENT || n != OMAX) {
			ksim_test_fail(__FILE__, __LINE__, "walk", "%s nth=%lu step %d: ended %d after %d "
				       "indices, max_entries %d", ctx, ctx_nth, ctx_step, ret, n, OMAX);
			return false;
		}
		return true;
	}
	for (;;) {
		len = KS;
		ret = ksim_bpf_map_get_next_key(o, from, KS, &nk, &len);
		if (ret)
			break;
		if (nk >= NKEYS || seen[nk] || outer_slot[nk] < 0 || ++n > NKEYS) {
			ksim_test_fail(__FILE__, __LINE__, "walk", "%s nth=%lu step %d: key %u (twice %d)",
				       ctx, ctx_nth, ctx_step, nk, nk < NKEYS && seen[nk]);
			return false;
		}
		seen[nk] = true;
		k = nk;
		from = &k;
	}
	if (ret == -ENOMEM) {
		*nomem = true;
		return true;
	}
	if (ret != -ENOENT || n != outer_count()) {
		ksim_test_fail(__FILE__, __LINE__, "walk", "%s nth=%lu step %d: ended %d after %d keys, model %d",
			       ctx, ctx_nth, ctx_step, ret, n, outer_count());
		return false;
	}
	return true;
}

/*
 * What an update of key @k with flags @f returns, @fd_err being what
 * taking the fd gives (0: a map of the template's shape; -EBADF,
 * -EINVAL: a mismatch).  Hash (bpf_fd_htab_map_update_elem()): the fd
 * first, then htab_map_update_elem()'s flags, -E2BIG when full.  Array
 * (bpf_fd_array_map_update_elem()): BPF_ANY only (BPF_NOEXIST and
 * BPF_EXIST are -EINVAL, not the hash's -EEXIST/-ENOENT), then the index
 * (< max_entries, else -E2BIG), then the fd; a present slot is replaced
 * in place, an empty one filled.
 */
static int expect_update(u32 k, u64 f, int fd_err)
{
	bool present = outer_slot[k] >= 0;

	if (outer_array()) {
		if (f != BPF_ANY)
			return -EINVAL;
		if (k >= OMAX)
			return -E2BIG;
		return fd_err;
	}
	if (fd_err)
		return fd_err;
	if (present && f == BPF_NOEXIST)
		return -EEXIST;
	if (!present && f == BPF_EXIST)
		return -ENOENT;
	if (!present && outer_count() == OMAX)
		return -E2BIG;
	return 0;
}

/* Delete: -ENOENT when absent; the array's index past max_entries is -E2BIG (__fd_array_map_delete_elem()). */
static int expect_delete(u32 k)
{
	if (outer_array() && k >= OMAX)
		return -E2BIG;
	return outer_slot[k] >= 0 ? 0 : -ENOENT;
}

static bool injected_since(unsigned long *seen)
{
	unsigned long f = ksim_fault_failures();
	bool ret = f != *seen;

	*seen = f;
	return ret;
}

static int live_inners(void)
{
	int n = 0;

	for (int i = 0; i < nrec; i++)
		n += !rec[i].freed && (rec[i].open || rec[i].outer_refs);
	return n;
}

/* Closed fds are reused (the lowest free one, as the kernel's): is @fd open now? */
static bool fd_in_use(int fd, struct bpf_map *o)
{
	if (fd == ksim_bpf_map_fd(o))
		return true;
	for (int i = 0; i < nrec; i++)
		if (rec[i].open && rec[i].fd == fd)
			return true;
	return false;
}

/* A random open inner map (good or @bad ones), -1 if none. */
static int pick_open(struct ksim_rng *rng, bool bad)
{
	int cand[NREC], n = 0;

	for (int i = 0; i < nrec; i++)
		if (rec[i].open && rec[i].bad == bad)
			cand[n++] = i;
	return n ? cand[ksim_rng_below(rng, n)] : -1;
}

/*
 * One run: @nops random commands from @seed on an outer map (outer_v) with
 * @oflags; @nth > 0: the fault engine fails the nth allocation, and
 * -ENOMEM is accepted from the command it was injected into (which must
 * then have changed nothing).  Returns false after the first mismatch.
 *
 * Where an allocation can fail differs.  Both: the inner maps' creation,
 * the outer map's (bpf_map_meta_alloc()'s copy of the template, then the
 * map itself: htab_map_alloc()'s, array_map_alloc()'s
 * bpf_map_area_alloc()), the syscall's copy of an update's value.  Hash:
 * the element an update inserts too (prealloc: taken from the free list,
 * BPF_F_NO_PREALLOC: bpf_mem_cache_alloc()).  Array: nothing else, the
 * slots being there from the start: while the engine counts (the sweep),
 * every update makes exactly one allocation (the value copy, before the
 * map sees the command) and a delete, lookup or walk none.
 */
static bool run(u64 seed, int nops, u32 oflags, unsigned long nth, const char *name)
{
	unsigned long seen = ksim_fault_failures();
	struct ksim_rng rng;
	struct bpf_map *o;
	int tmpl, err, ret, step;
	bool ok = true;

	ctx = name;
	ctx_nth = nth;
	ctx_step = -1;
	setup();
	ksim_rng_seed(&rng, seed);
	ksim_random_reseed(seed);
	tmpl = good_inner(IMAX, &err);
	if (tmpl < 0) {
		KSIM_EXPECT(err == -ENOMEM && injected_since(&seen), "%s nth=%lu: template: %d", name, nth, err);
		teardown();
		return true;
	}
	o = new_outer(oflags, tmpl, &err);
	if (!o) {
		KSIM_EXPECT(err == -ENOMEM && injected_since(&seen), "%s nth=%lu: outer: %d", name, nth, err);
		close_inner(tmpl);
		ok = check_inners(false);
		goto out;
	}
	/* mismatched maps: key size, value size, type, flags */
	new_inner(&inner_v, 8, IVS, IMAX, 0, true, &err);
	new_inner(&inner_v, KS, 16, IMAX, 0, true, &err);
	new_inner(ksim_bpf_variant_find("lru_hash"), KS, IVS, IMAX, 0, true, &err);
	new_inner(&inner_v, KS, IVS, IMAX, BPF_F_NO_PREALLOC, true, &err);
	for (step = 0; step < nops && ok; step++) {
		u32 op = ksim_rng_below(&rng, 100), k = ksim_rng_below(&rng, NKEYS);
		bool present = outer_slot[k] >= 0;
		unsigned long calls = ksim_fault_calls();
		long allocs = -1;	/* the array's allocations in this command; -1: not judged */

		ctx_step = step;
		if (op < 40) {
			static const u64 flags[] = { BPF_ANY, BPF_ANY, BPF_NOEXIST, BPF_EXIST };
			u64 f = flags[ksim_rng_below(&rng, 4)];
			u32 how = ksim_rng_below(&rng, 10);
			int i = -1, fd, expect;

			if (how == 0) {			/* a closed or never-opened fd */
				fd = 2000 + (int)ksim_rng_below(&rng, 50);
				for (int j = 0; j < nrec; j++)
					if (!rec[j].open && ksim_rng_below(&rng, 2) && !fd_in_use(rec[j].fd, o))
						fd = rec[j].fd;
				expect = expect_update(k, f, -EBADF);
			} else if (how == 1) {		/* mismatched meta, or the outer map itself */
				i = pick_open(&rng, true);
				fd = i < 0 ? ksim_bpf_map_fd(o) : rec[i].fd;
				i = -1;
				expect = expect_update(k, f, -EINVAL);
			} else {
				i = pick_open(&rng, false);
				if (i < 0)
					continue;
				fd = rec[i].fd;
				expect = expect_update(k, f, 0);
			}
			allocs = 1;
			ret = ksim_bpf_map_update(o, &k, KS, &fd, f);
			if (ret == -ENOMEM && injected_since(&seen)) {
				/* nothing changed: checked below */
			} else if (ret != expect) {
				ksim_test_fail(__FILE__, __LINE__, "update", "%s nth=%lu step %d: key %u fd %d "
					       "(inner %d) flags %llu: %d, model %d", name, nth, step, k, fd, i,
					       (unsigned long long)f, ret, expect);
				ok = false;
			} else if (!ret) {
				if (present)
					drop_ref(outer_slot[k], true);	/* replaced: need_defer */
				rec[i].outer_refs++;
				outer_slot[k] = i;
			}
		} else if (op < 55) {
			int expect = expect_delete(k);

			allocs = 0;
			ret = ksim_bpf_map_delete(o, &k, KS);
			if (ret == -ENOMEM && injected_since(&seen)) {
			} else if (ret != expect) {
				ksim_test_fail(__FILE__, __LINE__, "delete", "%s nth=%lu step %d: key %u: %d, "
					       "model %d (present %d)", name, nth, step, k, ret, expect, present);
				ok = false;
			} else if (present) {
				drop_ref(outer_slot[k], true);
				outer_slot[k] = -1;
			}
		} else if (op < 65) {
			allocs = 0;
			ok = user_lookup(o, k);
		} else if (op < 75) {
			allocs = 0;
			ok = prog_lookup(o, k);
		} else if (op < 80) {
			bool nomem;

			allocs = 0;
			ok = walk(o, &nomem);
			if (nomem && !injected_since(&seen)) {
				ksim_test_fail(__FILE__, __LINE__, "walk", "%s nth=%lu step %d: -ENOMEM", name,
					       nth, step);
				ok = false;
			}
		} else if (op < 87) {
			int i = pick_open(&rng, false);

			if (i >= 0)
				close_inner(i);
		} else if (op < 95) {
			if (live_inners() < NLIVE &&
			    good_inner(ksim_rng_below(&rng, 2) ? IMAX : 2 * IMAX, &err) >= 0) {
				/* a failed element update (the driver's value copy) leaves it empty */
				if (!rec[nrec - 1].has_val && !injected_since(&seen)) {
					ksim_test_fail(__FILE__, __LINE__, "inner update", "%s nth=%lu step %d",
						       name, nth, step);
					ok = false;
				}
			} else if (live_inners() < NLIVE) {
				if (!(err == -ENOMEM && injected_since(&seen))) {
					ksim_test_fail(__FILE__, __LINE__, "create", "%s nth=%lu step %d: inner: %d",
						       name, nth, step, err);
					ok = false;
				}
			}
		} else {
			grace_period();
			ok = check_inners(true);
		}
		if (ok && outer_array() && allocs >= 0 && ksim_fault_armed() &&
		    ksim_fault_calls() - calls != (unsigned long)allocs) {
			ksim_test_fail(__FILE__, __LINE__, "allocations", "%s nth=%lu step %d: op %u key %u: "
				       "%lu allocations, the array's model %ld", name, nth, step, op, k,
				       ksim_fault_calls() - calls, allocs);
			ok = false;
		}
		/* the key, whatever the command: the user and the program see the model */
		ok = ok && check_inners(false) && user_lookup(o, k) && prog_lookup(o, k);
	}
	ctx_step = nops;
	free_outer(o);
	ok = ok && check_inners(false);
out:
	for (int i = 0; i < nrec; i++)
		if (rec[i].open)
			close_inner(i);
	ok = ok && check_inners(false);
	grace_period();
	ok = ok && check_inners(true);
	for (int i = 0; i < nrec && ok; i++)
		if (!rec[i].freed && rec[i].m->ops == &counted_ops) {
			ksim_test_fail(__FILE__, __LINE__, "all freed", "%s nth=%lu: inner %d never freed",
				       name, nth, i);
			ok = false;
		}
	teardown();
	return ok;
}

/*
 * The array's own: what fd_array_map_alloc_check() and array_map_alloc_check()
 * refuse at creation (each -EINVAL, the template's reference untouched).
 */
static void array_create_checks(int tmpl)
{
	static const struct {
		u32 ks, max, flags;
		const char *what;
	} refused[] = {
		{ 8, OMAX, 0, "key_size 8 (an index is a u32)" },
		{ KS, 0, 0, "max_entries 0" },
		{ KS, OMAX, BPF_F_NO_PREALLOC, "BPF_F_NO_PREALLOC (not in ARRAY_CREATE_FLAG_MASK)" },
		{ KS, OMAX, BPF_F_INNER_MAP, "BPF_F_INNER_MAP (BPF_MAP_TYPE_ARRAY only)" },
		{ KS, OMAX, BPF_F_RDONLY_PROG, "BPF_F_RDONLY_PROG (fd arrays)" },
		{ KS, OMAX, BPF_F_WRONLY_PROG, "BPF_F_WRONLY_PROG (fd arrays)" },
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(refused); i++) {
		struct ksim_bpf_map_attr a = { .key_size = refused[i].ks, .value_size = sizeof(u32),
					       .max_entries = refused[i].max, .map_flags = refused[i].flags,
					       .inner_map_fd = rec[tmpl].fd };
		struct bpf_map *bad;
		int err;

		bad = ksim_bpf_map_create(outer_v, &a, &err);
		KSIM_EXPECT(!bad && err == -EINVAL, "%s: %d", refused[i].what, err);
		ksim_bpf_map_free(bad);
	}
	KSIM_EXPECT(atomic64_read(&rec[tmpl].m->refcnt) == 1, "refused creations keep no reference");
}

/*
 * The outer map's own memory failing after bpf_map_meta_alloc() took the
 * template's copy: htab_of_map_alloc() and array_of_map_alloc() must free
 * that copy.  The sweep cannot get there for the array: its one failure
 * in bpf_map_area_alloc() is the kmalloc, which the vmalloc behind it
 * makes good; here every bpf_map_area_alloc() fails.
 */
static void outer_alloc_fails(int tmpl)
{
	struct ksim_fault_config cfg = { .nth = 1, .times = -1, .nr_sites = 1, .sites = { "bpf_map_area_alloc" } };
	struct ksim_slab_stats before, after;
	struct bpf_map *o;
	int err;

	ksim_slab_totals(&before);
	ksim_fault_set(&cfg);
	o = new_outer(0, tmpl, &err);
	ksim_fault_reset();
	ksim_slab_totals(&after);
	KSIM_EXPECT(!o && err == -ENOMEM, "outer with bpf_map_area_alloc() failing: %d", err);
	ksim_bpf_map_free(o);
	KSIM_EXPECT(after.live == before.live, "%ld objects left by the failed creation",
		    (long)(after.live - before.live));
	KSIM_EXPECT(atomic64_read(&rec[tmpl].m->refcnt) == 1, "the failed creation keeps no reference");
}

/*
 * The array's keys, with key 1 holding an inner map (@o, the model's
 * slots): indices past max_entries, the flags it refuses, an empty slot,
 * get_next_key over the empty slots.  Nothing may change.
 */
static void array_keys(struct bpf_map *o, int in)
{
	u32 far = U32_MAX, nk = 0, len;
	int fd = rec[in].fd, bad_fd = 999, err;
	u32 k;

	/* bpf_fd_array_map_update_elem(): the index checked before the fd is taken */
	for (k = OMAX; k < NKEYS; k++) {
		err = ksim_bpf_map_update(o, &k, KS, &fd, BPF_ANY);
		KSIM_EXPECT(err == -E2BIG, "update index %u of %d: %d", k, OMAX, err);
		err = ksim_bpf_map_update(o, &k, KS, &bad_fd, BPF_ANY);
		KSIM_EXPECT(err == -E2BIG, "update index %u, bad fd: %d", k, err);
		err = ksim_bpf_map_delete(o, &k, KS);
		KSIM_EXPECT(err == -E2BIG, "delete index %u: %d", k, err);
		KSIM_EXPECT(user_lookup(o, k) && prog_lookup(o, k), "index %u", k);
	}
	err = ksim_bpf_map_update(o, &far, KS, &fd, BPF_ANY);
	KSIM_EXPECT(err == -E2BIG, "update index U32_MAX: %d", err);
	err = ksim_bpf_map_lookup(o, &far, KS, &nk, 0);
	KSIM_EXPECT(err == -ENOENT, "user lookup index U32_MAX: %d", err);
	rcu_read_lock();
	KSIM_EXPECT(!ksim_bpf_map_lookup_ptr(o, &far, KS), "program lookup index U32_MAX");
	rcu_read_unlock();
	/* BPF_ANY only: the flags go before the index and the fd */
	for (k = 0; k < 2; k++) {	/* key 0 empty, key 1 present */
		static const u64 flags[] = { BPF_NOEXIST, BPF_EXIST };

		for (unsigned int i = 0; i < ARRAY_SIZE(flags); i++) {
			err = ksim_bpf_map_update(o, &k, KS, &fd, flags[i]);
			KSIM_EXPECT(err == -EINVAL, "key %u flags %llu: %d", k, (unsigned long long)flags[i], err);
		}
	}
	err = ksim_bpf_map_update(o, &far, KS, &bad_fd, BPF_NOEXIST);
	KSIM_EXPECT(err == -EINVAL, "index U32_MAX, bad fd, BPF_NOEXIST: %d", err);
	k = 0;
	err = ksim_bpf_map_delete(o, &k, KS);
	KSIM_EXPECT(err == -ENOENT, "delete an empty slot: %d", err);
	/* get_next_key: every index, the empty ones too; past the end or none: index 0 */
	{
		bool nomem;

		KSIM_EXPECT(walk(o, &nomem), "walk");
	}
	for (k = OMAX - 1; k <= OMAX; k++) {
		len = KS;
		nk = 77;
		err = ksim_bpf_map_get_next_key(o, &k, KS, &nk, &len);
		if (k == OMAX - 1)
			KSIM_EXPECT(err == -ENOENT, "get_next_key(last): %d next %u", err, nk);
		else
			KSIM_EXPECT(!err && nk == 0, "get_next_key(%u): %d next %u, not index 0", k, err, nk);
	}
	len = KS;
	err = ksim_bpf_map_get_next_key(o, &far, KS, &nk, &len);
	KSIM_EXPECT(!err && nk == 0, "get_next_key(U32_MAX): %d next %u", err, nk);
	KSIM_EXPECT(check_inners(false) && user_lookup(o, 0) && user_lookup(o, 1) && prog_lookup(o, 1),
		    "after the array's refused commands");
}

/*
 * Inner maps that are arrays, in either outer map: the meta check is then
 * arraymap.c's array_map_meta_equal(), which unlike the hash maps' also
 * wants the same max_entries, unless the template has BPF_F_INNER_MAP
 * (whose inner maps must have it too: the flags are compared).
 */
static void inner_arrays(void)
{
	const struct ksim_bpf_variant *av = ksim_bpf_variant_find("array");
	struct ksim_bpf_map_attr a = { .key_size = KS, .value_size = IVS, .max_entries = IMAX };
	struct bpf_map *tmpl[2], *outer[2] = { NULL, NULL }, *in[4] = { NULL };
	u64 val = 0x17, *v;
	u32 k = 0, key0 = 0;
	int err, fd;

	KSIM_ASSERT(av, "the array variant");
	for (int t = 0; t < 2; t++) {
		struct ksim_bpf_map_attr oa = { .key_size = KS, .value_size = sizeof(u32),
						.max_entries = OMAX };

		a.map_flags = t ? BPF_F_INNER_MAP : 0;
		tmpl[t] = ksim_bpf_map_create(av, &a, &err);
		KSIM_ASSERT(tmpl[t], "array template %d: %d", t, err);
		oa.inner_map_fd = ksim_bpf_map_fd(tmpl[t]);
		outer[t] = ksim_bpf_map_create(outer_v, &oa, &err);
		KSIM_ASSERT(outer[t], "outer with array template %d: %d", t, err);
	}
	/* in[0]: the template's shape; in[1]: twice the entries; in[2], in[3]: the same with BPF_F_INNER_MAP */
	for (int i = 0; i < 4; i++) {
		a.map_flags = i >= 2 ? BPF_F_INNER_MAP : 0;
		a.max_entries = i & 1 ? 2 * IMAX : IMAX;
		in[i] = ksim_bpf_map_create(av, &a, &err);
		KSIM_ASSERT(in[i], "inner array %d: %d", i, err);
		val = 0x17 + i;
		KSIM_EXPECT(!ksim_bpf_map_update(in[i], &key0, KS, &val, BPF_ANY), "inner array %d value", i);
	}
	/* template without BPF_F_INNER_MAP: the same max_entries and flags only */
	for (int i = 0; i < 4; i++) {
		k = i;
		fd = ksim_bpf_map_fd(in[i]);
		err = ksim_bpf_map_update(outer[0], &k, KS, &fd, BPF_ANY);
		KSIM_EXPECT(i == 0 ? !err : err == -EINVAL, "array template, inner array %d: %d", i, err);
	}
	/* with it: any max_entries, but the flag too */
	for (int i = 0; i < 4; i++) {
		k = i;
		fd = ksim_bpf_map_fd(in[i]);
		err = ksim_bpf_map_update(outer[1], &k, KS, &fd, BPF_ANY);
		KSIM_EXPECT(i >= 2 ? !err : err == -EINVAL, "BPF_F_INNER_MAP template, inner array %d: %d", i, err);
	}
	for (int i = 0; i < 4; i++)
		KSIM_EXPECT(atomic64_read(&in[i]->refcnt) == 1 + (i == 0 || i >= 2),
			    "inner array %d: refcnt %lld", i, (long long)atomic64_read(&in[i]->refcnt));
	/* a program finds the inner array, and its element in it */
	for (int i = 0; i < 4; i++) {
		struct bpf_map *o = outer[i >= 2], *got;

		k = i;
		rcu_read_lock();
		got = ksim_bpf_map_lookup_ptr(o, &k, KS);
		v = got ? ksim_bpf_map_lookup_ptr(got, &key0, KS) : NULL;
		KSIM_EXPECT(i == 1 ? !got : got == in[i] && v && *v == 0x17 + (u64)i,
			    "program lookup %d: %p (inner %p), value %llx", i, (void *)got, (void *)in[i],
			    v ? (unsigned long long)*v : 0ULL);
		rcu_read_unlock();
	}
	for (int t = 0; t < 2; t++) {
		ksim_bpf_map_free(outer[t]);
		ksim_bpf_map_free(tmpl[t]);
	}
	/* the outer maps' free put them: only the fds are left */
	for (int i = 0; i < 4; i++) {
		KSIM_EXPECT(atomic64_read(&in[i]->refcnt) == 1, "inner array %d after the outer maps: refcnt %lld",
			    i, (long long)atomic64_read(&in[i]->refcnt));
		ksim_bpf_map_free(in[i]);
	}
	grace_period();	/* 6.1.y's array put them with need_defer */
}

static void basics(const struct ksim_bpf_variant *ov)
{
	struct ksim_bpf_map_attr a = { .key_size = KS, .value_size = 8, .max_entries = OMAX };
	/* the hash replaces with BPF_EXIST (or BPF_ANY); the array takes BPF_ANY only */
	u64 replace = ov == &outer_array_v ? BPF_ANY : BPF_EXIST;
	struct bpf_map *o, *bad;
	int tmpl, big, other, err, fd;
	u32 k = 1, id;

	outer_v = ov;
	ctx = outer_array() ? "basics_array" : "basics";
	setup();
	tmpl = good_inner(IMAX, &err);
	KSIM_ASSERT(tmpl >= 0, "create: %d", err);
	/* fd_htab_map_alloc_check(), fd_array_map_alloc_check(): the value is a u32 fd */
	a.inner_map_fd = rec[tmpl].fd;
	bad = ksim_bpf_map_create(outer_v, &a, &err);
	KSIM_EXPECT(!bad && err == -EINVAL, "value_size 8: %d", err);
	a.value_size = sizeof(u32);
	a.inner_map_fd = 999;
	bad = ksim_bpf_map_create(outer_v, &a, &err);
	KSIM_EXPECT(!bad && err == -EBADF, "bad inner fd: %d", err);
	if (outer_array())
		array_create_checks(tmpl);
	outer_alloc_fails(tmpl);
	o = new_outer(0, tmpl, &err);
	KSIM_ASSERT(o, "outer: %d", err);
	/* map-in-map as the template: "Does not support >1 level" */
	a.inner_map_fd = ksim_bpf_map_fd(o);
	bad = ksim_bpf_map_create(outer_v, &a, &err);
	KSIM_EXPECT(!bad && err == -EINVAL, "outer map as inner template: %d", err);
	KSIM_EXPECT(atomic64_read(&rec[tmpl].m->refcnt) == 1, "the template keeps no reference");

	/* the meta check: each difference refused, no reference taken */
	{
		int bads[] = {
			new_inner(&inner_v, 8, IVS, IMAX, 0, true, &err),
			new_inner(&inner_v, KS, 16, IMAX, 0, true, &err),
			new_inner(ksim_bpf_variant_find("lru_hash"), KS, IVS, IMAX, 0, true, &err),
			new_inner(&inner_v, KS, IVS, IMAX, BPF_F_NO_PREALLOC, true, &err),
		};
		for (unsigned int i = 0; i < ARRAY_SIZE(bads); i++) {
			KSIM_ASSERT(bads[i] >= 0, "mismatched inner %u", i);
			fd = rec[bads[i]].fd;
			err = ksim_bpf_map_update(o, &k, KS, &fd, BPF_ANY);
			KSIM_EXPECT(err == -EINVAL, "mismatched inner %u: %d", i, err);
		}
		fd = ksim_bpf_map_fd(o);
		err = ksim_bpf_map_update(o, &k, KS, &fd, BPF_ANY);
		KSIM_EXPECT(err == -EINVAL, "the outer map into itself: %d", err);
		KSIM_EXPECT(check_inners(false), "after refused updates");
	}
	/* max_entries may differ (hash maps' map_meta_equal ignores it) */
	big = good_inner(2 * IMAX, &err);
	fd = rec[big].fd;
	err = ksim_bpf_map_update(o, &k, KS, &fd, BPF_ANY);
	KSIM_EXPECT(!err, "inner with other max_entries: %d", err);
	rec[big].outer_refs++;
	outer_slot[k] = big;
	KSIM_EXPECT(check_inners(false) && user_lookup(o, k) && prog_lookup(o, k), "after insert");
	id = 0;
	KSIM_EXPECT(!ksim_bpf_map_lookup(o, &k, KS, &id, 0) && id == rec[big].m->id && id,
		    "user lookup: id %u, map id %u", id, rec[big].m->id);
	if (outer_array())
		array_keys(o, big);

	/* replace after closing the fd: the last reference goes, the free waits for a GP */
	close_inner(big);
	KSIM_EXPECT(check_inners(false), "closed, still in the outer map");
	other = good_inner(IMAX, &err);
	fd = rec[other].fd;
	KSIM_EXPECT(ksim_bpf_map_update(o, &k, KS, &fd, replace) == 0, "replace");
	drop_ref(big, true);
	rec[other].outer_refs++;
	outer_slot[k] = other;
	KSIM_EXPECT(!rec[big].freed, "replaced inner freed before the grace period");
	/* no sleepable user: one RCU grace period (6.12+), not RCU tasks trace (6.1: always) */
	if (!rec[big].freed)	/* else freed memory */
		KSIM_EXPECT(KSIM_HAVE_BPF_FD_PUT_SLEEPABLE ?
			    rec[big].m->free_after_rcu_gp && !rec[big].m->free_after_mult_rcu_gp :
			    rec[big].m->free_after_mult_rcu_gp, "deferral: rcu %d mult %d",
			    rec[big].m->free_after_rcu_gp, rec[big].m->free_after_mult_rcu_gp);
	KSIM_EXPECT(check_inners(false) && prog_lookup(o, k), "after replace");
	grace_period();
	KSIM_EXPECT(rec[big].freed, "replaced inner not freed after the grace period");
	KSIM_EXPECT(check_inners(true), "after replace + GP");

	/* delete: the same */
	close_inner(other);
	KSIM_EXPECT(ksim_bpf_map_delete(o, &k, KS) == 0, "delete");
	drop_ref(other, true);
	outer_slot[k] = -1;
	KSIM_EXPECT(!rec[other].freed && check_inners(false) && prog_lookup(o, k), "after delete");
	grace_period();
	KSIM_EXPECT(rec[other].freed && check_inners(true), "deleted inner after the GP");

	/* a sleepable program's outer map defers by RCU tasks trace (6.12+; 6.1: always) */
	other = good_inner(IMAX, &err);
	fd = rec[other].fd;
	KSIM_EXPECT(!ksim_bpf_map_update(o, &k, KS, &fd, BPF_ANY), "insert");
	atomic64_set(&o->sleepable_refcnt, 1);
	KSIM_EXPECT(!ksim_bpf_map_delete(o, &k, KS), "delete");
	atomic64_set(&o->sleepable_refcnt, 0);
	KSIM_EXPECT(rec[other].m->free_after_mult_rcu_gp &&
		    (!KSIM_HAVE_BPF_FD_PUT_SLEEPABLE || !rec[other].m->free_after_rcu_gp),
		    "sleepable: mult %d rcu %d", rec[other].m->free_after_mult_rcu_gp,
		    rec[other].m->free_after_rcu_gp);
	rec[other].defer = true;
	KSIM_EXPECT(!ksim_bpf_map_update(o, &k, KS, &fd, BPF_ANY), "insert");
	KSIM_EXPECT(!rec[other].m->free_after_rcu_gp || !KSIM_HAVE_BPF_FD_PUT_SLEEPABLE, "flags kept");
	rec[other].outer_refs++;
	outer_slot[k] = other;

	/*
	 * The outer map's free puts its inner maps without deferring
	 * (need_defer false); 6.1.y's array defers them (its clear is the
	 * delete path).
	 */
	big = good_inner(IMAX, &err);
	fd = rec[big].fd;
	k = 2;
	KSIM_EXPECT(!ksim_bpf_map_update(o, &k, KS, &fd, BPF_ANY), "insert");
	rec[big].outer_refs++;
	outer_slot[k] = big;
	close_inner(big);
	close_inner(other);
	KSIM_EXPECT(check_inners(false), "before the outer map's free");
	free_outer(o);
	KSIM_EXPECT(rec[big].freed != outer_free_defers(), "inner freed with the outer map: %d, deferral "
		    "expected: %d", rec[big].freed, outer_free_defers());
	KSIM_EXPECT(!rec[other].freed, "an inner map once put with need_defer still waits");
	KSIM_EXPECT(check_inners(false), "after the outer map's free");
	grace_period();
	KSIM_EXPECT(rec[big].freed && rec[other].freed && check_inners(true), "after the outer map's free + GP");

	inner_arrays();
	for (int i = 0; i < nrec; i++)
		if (rec[i].open)
			close_inner(i);
	grace_period();
	KSIM_EXPECT(check_inners(true), "the end");
	teardown();
}

KSIM_TEST(mim_basics) { basics(&outer_hash_v); }
KSIM_TEST(mim_basics_array) { basics(&outer_array_v); }

/* The hash alternates prealloc and BPF_F_NO_PREALLOC outer maps; the array has no such flag. */
static void random_runs(const struct ksim_bpf_variant *ov, const char *name)
{
	struct ksim_slab_stats before, after;
	u64 seed = ksim_rng_next(ksim_test_rng());

	outer_v = ov;
	rcu_barrier();
	ksim_slab_totals(&before);
	for (int r = 0; r < 100; r++, seed++)
		if (!run(seed, 300, r & 1 && !outer_array() ? BPF_F_NO_PREALLOC : 0, 0, name))
			break;
	rcu_barrier();
	ksim_slab_totals(&after);
	KSIM_EXPECT(after.live == before.live, "%ld objects leaked", (long)(after.live - before.live));
}

KSIM_TEST(mim_random) { random_runs(&outer_hash_v, "random"); }
KSIM_TEST(mim_random_array) { random_runs(&outer_array_v, "random_array"); }

/*
 * Programs on other CPUs using inner maps while the outer map's entries are
 * replaced and deleted, each inner map's only reference being the outer
 * entry (its fd closed at once): the grace period (RCU's worker here, not
 * inline) must keep every inner map a reader found alive until its read
 * section ends.  A free without it shows as a use after free (ASan) or a
 * wrong value.
 */
#define RD_KEYS		4
#define RD_MAGIC	0x6d696d00ULL
static struct bpf_map *rd_outer;
static int rd_stop;
static unsigned long rd_found, rd_bad;

static void *reader(void *arg)
{
	struct ksim_rng rng;
	unsigned long found = 0, bad = 0;
	u32 key0 = 0;

	rcu_register_thread();
	ksim_set_cpu((int)(long)arg);
	ksim_rng_seed(&rng, ksim_test_seed() + (long)arg);
	while (!READ_ONCE(rd_stop)) {
		u32 k = ksim_rng_below(&rng, RD_KEYS);
		struct bpf_map *in;
		u64 *v;

		rcu_read_lock();
		in = ksim_bpf_map_lookup_ptr(rd_outer, &k, KS);
		if (in) {
			found++;
			v = ksim_bpf_map_lookup_ptr(in, &key0, KS);
			if (!v || (READ_ONCE(*v) >> 32) != RD_MAGIC >> 8 || READ_ONCE(in->key_size) != KS)
				bad++;
		}
		rcu_read_unlock();
	}
	__atomic_add_fetch(&rd_found, found, __ATOMIC_RELAXED);
	__atomic_add_fetch(&rd_bad, bad, __ATOMIC_RELAXED);
	rcu_unregister_thread();
	return NULL;
}

static void readers(const struct ksim_bpf_variant *ov)
{
	const struct ksim_bpf_variant *hash = ksim_bpf_variant_find("hash");
	struct ksim_bpf_map_attr a = { .key_size = KS, .value_size = IVS, .max_entries = IMAX };
	struct ksim_rng *rng = ksim_test_rng();
	struct bpf_map *tmpl, *in;
	pthread_t th[2];
	u32 key0 = 0;
	int err, fd;

	outer_v = ov;
	tmpl = ksim_bpf_map_create(hash, &a, &err);
	KSIM_ASSERT(tmpl, "template: %d", err);
	{
		struct ksim_bpf_map_attr oa = { .key_size = KS, .value_size = sizeof(u32),
						.max_entries = OMAX, .inner_map_fd = ksim_bpf_map_fd(tmpl) };

		rd_outer = ksim_bpf_map_create(outer_v, &oa, &err);
	}
	KSIM_ASSERT(rd_outer, "outer: %d", err);
	ksim_bpf_map_free(tmpl);
	rd_stop = 0;
	rd_found = rd_bad = 0;
	for (long i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, reader, (void *)(i + 1));
	ksim_set_cpu(0);
	for (u64 i = 0; i < 10000; i++) {
		u32 k = ksim_rng_below(rng, RD_KEYS);
		u64 v = (RD_MAGIC >> 8) << 32 | i;

		if (ksim_rng_below(rng, 4) == 0) {
			ksim_bpf_map_delete(rd_outer, &k, KS);
			continue;
		}
		in = ksim_bpf_map_create(hash, &a, &err);
		KSIM_ASSERT(in, "inner: %d", err);
		KSIM_ASSERT(!ksim_bpf_map_update(in, &key0, KS, &v, BPF_ANY));
		fd = ksim_bpf_map_fd(in);
		err = ksim_bpf_map_update(rd_outer, &k, KS, &fd, BPF_ANY);
		KSIM_EXPECT(!err, "update: %d", err);
		ksim_bpf_map_free(in);	/* the outer entry holds the only reference now */
	}
	WRITE_ONCE(rd_stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	ksim_set_cpu(-1);
	if (ksim_verbose > 1)
		printf("# readers found %lu inner maps, %lu wrong\n", rd_found, rd_bad);
	KSIM_EXPECT(rd_bad == 0, "%lu of %lu reads wrong", rd_bad, rd_found);
	ksim_bpf_map_free(rd_outer);
	rcu_barrier();
	ksim_run_pending_work();	/* the deferred frees */
}

KSIM_TEST(mim_readers) { readers(&outer_hash_v); }
KSIM_TEST(mim_readers_array) { readers(&outer_array_v); }

struct sweep_arg {
	const struct ksim_bpf_variant *ov;
	u32 oflags;
	const char *name;
};

static bool sweep_run(void *arg, unsigned long nth)
{
	const struct sweep_arg *a = arg;

	/* a fixed seed: the sweep is exhaustive and replays identically */
	outer_v = a->ov;
	return run(0x6d696d, 120, a->oflags, nth, a->name);
}

static void sweep(const struct ksim_bpf_variant *ov, u32 oflags, const char *name)
{
	struct sweep_arg a = { ov, oflags, name };
	unsigned long total, injected;

	ksim_set_cpu(0);
	total = ksim_test_fault_sweep(name, KSIM_FAULT_ALLOC, sweep_run, &a, &injected);
	ksim_set_cpu(-1);
	KSIM_ASSERT(total > 0, "%s: no allocation seen", name);
	if (ksim_verbose > 1)
		printf("# %s: %lu allocations swept\n", name, total);
	KSIM_EXPECT(injected == total, "%s: %lu of %lu runs had their failure injected", name, injected, total);
}

KSIM_TEST(mim_sweep) { sweep(&outer_hash_v, 0, "sweep"); }
/* hash only: array_map_alloc_check() refuses BPF_F_NO_PREALLOC (mim_basics_array checks it) */
KSIM_TEST(mim_sweep_noprealloc) { sweep(&outer_hash_v, BPF_F_NO_PREALLOC, "sweep_noprealloc"); }
KSIM_TEST(mim_sweep_array) { sweep(&outer_array_v, 0, "sweep_array"); }
#endif
