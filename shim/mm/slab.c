// SPDX-License-Identifier: GPL-2.0
/*
 * Slab, kmalloc and vmalloc for the shim (contract in linux/slab.h).
 *
 * Objects are separate malloc()/posix_memalign() blocks of exactly the
 * requested size, so AddressSanitizer's redzones sit right at the object's
 * ends.  What the shim knows about each live object (cache, size, call
 * site, generation) lives in a side table sharded by page, never in
 * memory next to the object.
 *
 * Recycling (builds without ASan, TSan or MSan only: release, afl): a freed
 * kmem_cache object, or a kmalloc object up to KMALLOC_MAX_CACHE_SIZE, goes
 * to a free list of its cache (kmalloc: of its size class) and the next
 * allocation there takes it back, instead of free() + posix_memalign(),
 * which cost ~15% of a maple fuzz run (a 256-aligned block per node).  The
 * object leaves the side table when freed and re-enters it when reused, so
 * accounting, the leak report, double-free/invalid-free detection and fault
 * injection are exactly as without recycling.  What differs: a recycled
 * object holds its previous contents, and a use after free reads stale data
 * instead of crashing; under TSan every free is a real free(), so TSan sees
 * the reuse, and ASan builds have the pool below instead.
 *
 * The pool (ASan builds): a freed kmem_cache object does not go back to
 * ASan's allocator; poisoned, it joins a FIFO ring of its cache, and the
 * cache's allocations take the oldest pooled object once
 * KSIM_SLAB_POOL_DELAY (4096) later frees of the cache stand behind it, so
 * its reuse waits for at least that many frees, usually for the whole pool
 * (the cache's peak of freed objects; it is not shrunk).  Why: ASan's
 * quarantine (256 MB shared by every free) made each allocation cold memory
 * plus ASan's allocator and stack collection, most of the maple suite's
 * time; with the pool the 6.12 suite's `seed` part runs in 15.5 s instead
 * of 23 s and 67 MB instead of 767 MB (docs/measurements/maple.md).  A use of
 * a pooled object is still an ASan report, "use-after-poison"; ASan's
 * error hook (__asan_on_error) then prints what the shim knows: the cache,
 * the object's last allocation site and the stack that freed it (a
 * frame-pointer walk at each free), since ASan's own "allocated by" stack
 * is the memory's first allocation and it has no "freed by".  A double
 * free of a pooled object gets the same description.  kmalloc objects keep
 * ASan's quarantine and stacks; KSIM_SLAB_POOL=off in the environment puts
 * cache objects back on it too (ASan's own report for a use after free).
 *
 * Single-threaded mode (ksim_slab_set_single_threaded(), the fuzz targets:
 * one thread, RCU callbacks inline): the allocator's mutexes are skipped,
 * ~4% of a maple fuzz run (four lock/unlock pairs per alloc + free).  An
 * allocation or free from any thread but the one that turned the mode on
 * is a BUG, so a thread that appears later cannot race unnoticed.
 *
 * Sheaves (mm/slub.c, 7.x): a prefilled sheaf is an array of objects
 * allocated from the cache (each a live object in the side table, counted
 * in live and in sheaved, marked as held by its sheaf) that the owner takes
 * one by one with kmem_cache_alloc_from_sheaf(), which never fails while
 * objects are left.  Live sheaves are on their cache's list with the site
 * that prefilled them, for the leak report.  Deliberate differences:
 *  - By default a sheaf holds exactly the objects asked for (the kernel's
 *    contract is "at least"; mm/slub.c tops a sheaf up to the cache's
 *    capacity) and a returned sheaf is emptied and freed (mm/slub.c keeps it
 *    as the CPU's spare, or in the node's barn).  The kernel's own harness
 *    (tools/testing/shared/linux.c) does the same, and the kernel's maple
 *    suite counts sheaf objects exactly (check_prealloc()).
 *    ksim_slab_set_sheaf_fill_capacity(true) gives mm/slub.c's filling and
 *    one spare sheaf per shim CPU (ksim_cpu(), linux/smp.h); there is no
 *    barn, a returned sheaf that does not become a spare is freed.
 *  - kmem_cache_alloc()/free() on a cache with sheaves go to the slab
 *    directly: the per-CPU main sheaves only change which free object comes
 *    back next, and exact-size blocks keep ASan's redzones at their ends.
 *  - Misuse the kernel does not check is reported: allocating from an
 *    empty sheaf (a WARN problem at the caller; NULL, as in the kernel),
 *    a sheaf used with another cache or returned twice, and freeing an
 *    object still held in a sheaf (BUGs), a sheaf never returned (leak).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>
#include <ksim/asan.h>
#include <ksim/fault.h>
#include <ksim/rcu.h>
#include <ksim/ksim.h>
#include <ksim/slab.h>
#include <ksim/task.h>
#include <ksim/yield.h>

#define PAGE_SIZE_KSIM	4096UL

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KSIM_SLAB_RECYCLE	0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
	__has_feature(memory_sanitizer)
#define KSIM_SLAB_RECYCLE	0
#endif
#endif
#ifndef KSIM_SLAB_RECYCLE
#define KSIM_SLAB_RECYCLE	1
#endif
/* Objects kept per free list; beyond that, freed for real. */
#define RECYCLE_MAX	4096

/* The pool of freed cache objects: ASan builds (see the top). */
#define KSIM_SLAB_POOL	KSIM_ASAN
#if KSIM_SLAB_POOL
#include <sanitizer/common_interface_defs.h>
#endif
/* Later frees of its cache a pooled object waits for before its reuse. */
#define POOL_DELAY	KSIM_SLAB_POOL_DELAY
#define POOL_FRAMES	12

/* A freed kmem_cache object in its cache's pool (ASan builds, see above). */
struct pool_ent {
	void *p;
	const char *func;		/* where it was last allocated */
	const char *file;
	int line;
	int tid;			/* the ksim task that freed it */
	void *pcs[POOL_FRAMES];		/* and the stack that freed it */
};

/* FIFO ring, under the cache's lock. */
struct slab_pool {
	struct pool_ent *ents;
	unsigned int head, nr, cap;
};

/* Freed objects of one cache or kmalloc size class, for reuse (see above). */
struct recycle_list {
	void **objs;
	unsigned int nr, cap;
};

struct kmem_cache {
	char *name;
	unsigned int size;
	unsigned int align;
	unsigned int rounded;		/* object size as the kernel's slab lays it out */
	slab_flags_t flags;
	void (*ctor)(void *);
	pthread_mutex_t lock;
	struct ksim_slab_stats st;
	unsigned long nr_tallocated;
	/* kernel-harness knobs (see ksim/slab.h) */
	unsigned int non_kernel;
	void (*callback)(void *);
	void *private;
	bool exec_callback;
	/* sheaves (under ->lock): those handed out, and one spare per CPU */
	unsigned int sheaf_capacity;
	struct slab_sheaf *sheaves;
	unsigned long nr_sheaves;
	struct slab_sheaf *spare[KSIM_NR_CPUS];
	/* SLAB_TYPESAFE_BY_RCU: freed objects kept for reuse */
	void **free_objs;
	unsigned long nr_free, free_cap;
	struct recycle_list recycle;	/* non-sanitizer builds; under ->lock */
	struct slab_pool pool;		/* ASan builds; under ->lock */
	struct kmem_cache *next;
};

static struct kmem_cache kmalloc_cache = {
	.name = "kmalloc", .lock = PTHREAD_MUTEX_INITIALIZER,
	.st = { .name = "kmalloc" },
};
static struct kmem_cache vmalloc_cache = {
	.name = "vmalloc", .lock = PTHREAD_MUTEX_INITIALIZER,
	.st = { .name = "vmalloc" },
};
static pthread_mutex_t caches_lock = PTHREAD_MUTEX_INITIALIZER;
static bool single_threaded;
static int single_thread_id;

static void single_thread_violation(void)
{
	ksim_bug(__FILE__, __LINE__,
		 "slab used by thread %d in single-threaded mode (owner: thread %d)",
		 ksim_task()->id, single_thread_id);
}

static inline void slab_lock(pthread_mutex_t *m)
{
	if (single_threaded) {
		if (__builtin_expect(ksim_task()->id != single_thread_id, 0))
			single_thread_violation();
		return;
	}
	pthread_mutex_lock(m);
}

static inline void slab_unlock(pthread_mutex_t *m)
{
	if (!single_threaded)
		pthread_mutex_unlock(m);
}
static struct kmem_cache *caches;
static bool strict_nowait;
/*
 * Leak checks count objects allocated since the last ksim_slab_mark(): each
 * object records the epoch it was born in (a plain load, no shared RMW on
 * the allocation path).
 */
static unsigned long slab_epoch = 1;

static struct kmem_cache *real_cache(struct kmem_cache *s)
{
	if (s == KSIM_CACHE_KMALLOC)
		return &kmalloc_cache;
	if (s == KSIM_CACHE_VMALLOC)
		return &vmalloc_cache;
	return s;
}

/*
 * ---- the object table ----
 *
 * The table is the shim's own memory, never the kernel code's: its
 * functions skip ASan's checks (__no_sanitize_address), whose shadow loads
 * were a second cache miss at every lookup of a cold record.
 */

struct objrec {
	void *ptr;
	struct kmem_cache *cache;
	const char *func;
	const char *file;
	int line;
	bool free;			/* parked in a TYPESAFE_BY_RCU cache */
	struct slab_sheaf *sheaf;	/* held by this sheaf, not handed out */
	size_t size;
	unsigned long gen;
};

#define NR_SHARDS	64

struct shard {
	pthread_mutex_t lock;
	struct objrec *slots;
	size_t cap, used;
} __attribute__((aligned(64)));

static struct shard shards[NR_SHARDS] = {
	[0 ... NR_SHARDS - 1] = { .lock = PTHREAD_MUTEX_INITIALIZER },
};

/*
 * Where an object's record lives.  The shard and a run of 64 slots come
 * from a hash of the object's 4 KiB page; its slot in the run from its
 * offset in the page, in 64-byte granules (one record per cache line of
 * heap; 16- and 128-byte granules were slower).  Objects allocated one
 * after the other (a fork's VMAs, a tree's nodes) sit next to each other
 * in memory, so their records do too, and a fork or an exit walks the
 * table instead of missing the cache at every allocation and free: a fully
 * hashed slot cost ~60% of mm_sim_bench's fork and exit at 200k live VMAs.
 * Hashing the page keeps heaps that alias (per-thread arenas are 64 MiB
 * aligned) from landing on the same runs.
 */
static inline size_t page_hash(const void *p)
{
	uint64_t x = (uintptr_t)p >> 12;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static struct shard *shard_of(const void *p)
{
	return &shards[page_hash(p) % NR_SHARDS];
}

static inline size_t slot_home(const void *p, size_t mask)
{
	size_t run = page_hash(p) / NR_SHARDS;

	return ((run << 6) | (((uintptr_t)p >> 6) & 0x3f)) & mask;
}

/*
 * Fetches the slot where p's record goes or is, without the shard's lock:
 * a prefetch of a stale address is harmless, and the racy reads of the
 * shard's array are relaxed atomics.
 */
static inline void table_prefetch(const void *p)
{
	struct shard *sh = shard_of(p);
	uintptr_t slots = (uintptr_t)__atomic_load_n(&sh->slots, __ATOMIC_RELAXED);
	size_t cap = __atomic_load_n(&sh->cap, __ATOMIC_RELAXED);

	if (cap)
		__builtin_prefetch((const void *)(slots + slot_home(p, cap - 1) *
						  sizeof(struct objrec)), 1);
}

static __no_sanitize_address struct objrec *slot_find(struct shard *sh, const void *p)
{
	size_t mask = sh->cap - 1, i;

	if (!sh->cap)
		return NULL;
	for (i = slot_home(p, mask); sh->slots[i].ptr; i = (i + 1) & mask)
		if (sh->slots[i].ptr == p)
			return &sh->slots[i];
	return NULL;
}

static __no_sanitize_address void slot_insert_nogrow(struct shard *sh, const struct objrec *r)
{
	size_t mask = sh->cap - 1, i = slot_home(r->ptr, mask);

	while (sh->slots[i].ptr)
		i = (i + 1) & mask;
	sh->slots[i] = *r;
	sh->used++;
}

static __no_sanitize_address void shard_grow(struct shard *sh)
{
	struct objrec *old = sh->slots;
	size_t oldcap = sh->cap;

	/* Small to start: 64 shards of 256 slots took 900 KB before the first object. */
	sh->cap = oldcap ? oldcap * 2 : 16;
	sh->slots = calloc(sh->cap, sizeof(*sh->slots));
	if (!sh->slots) {
		perror("ksim: slab table");
		abort();
	}
	sh->used = 0;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].ptr)
			slot_insert_nogrow(sh, &old[i]);
	free(old);
}

static __no_sanitize_address void table_insert(const struct objrec *r)
{
	struct shard *sh = shard_of(r->ptr);

	slab_lock(&sh->lock);
	if ((sh->used + 1) * 2 > sh->cap)
		shard_grow(sh);
	slot_insert_nogrow(sh, r);
	slab_unlock(&sh->lock);
}

/* Linear-probing delete with backward shift; returns false if absent. */
static __no_sanitize_address bool table_remove(const void *p, struct objrec *out)
{
	struct shard *sh = shard_of(p);
	struct objrec *r;
	size_t mask, i, j;

	slab_lock(&sh->lock);
	r = slot_find(sh, p);
	if (!r) {
		slab_unlock(&sh->lock);
		return false;
	}
	*out = *r;
	mask = sh->cap - 1;
	i = r - sh->slots;
	sh->slots[i].ptr = NULL;
	for (j = (i + 1) & mask; sh->slots[j].ptr; j = (j + 1) & mask) {
		size_t home = slot_home(sh->slots[j].ptr, mask);

		/* move j back to i if its home is not in (i, j] */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			sh->slots[i] = sh->slots[j];
			sh->slots[j].ptr = NULL;
			i = j;
		}
	}
	sh->used--;
	slab_unlock(&sh->lock);
	return true;
}

static __no_sanitize_address bool table_lookup(const void *p, struct objrec *out)
{
	struct shard *sh = shard_of(p);
	struct objrec *r;

	slab_lock(&sh->lock);
	r = slot_find(sh, p);
	if (r)
		*out = *r;
	slab_unlock(&sh->lock);
	return r != NULL;
}

/* Where (and in which leak-report generation) an object was handed out. */
static void objrec_set_site(struct objrec *r, const char *func, const char *file, int line)
{
	r->func = func;
	r->file = file;
	r->line = line;
	r->gen = __atomic_load_n(&slab_epoch, __ATOMIC_RELAXED);
}

static __no_sanitize_address void table_set_free(const void *p, bool free_state,
						  const char *func, const char *file, int line,
						  size_t size)
{
	struct shard *sh = shard_of(p);
	struct objrec *r;

	slab_lock(&sh->lock);
	r = slot_find(sh, p);
	if (r) {
		r->free = free_state;
		if (!free_state) {
			objrec_set_site(r, func, file, line);
			r->size = size;
		}
	}
	slab_unlock(&sh->lock);
}

/* Sets or clears the sheaf holding p; with @func, records the hand-out site. */
static __no_sanitize_address void table_set_sheaf(const void *p, struct slab_sheaf *sheaf,
						   KSIM_SITE_ARGS)
{
	struct shard *sh = shard_of(p);
	struct objrec *r;

	slab_lock(&sh->lock);
	r = slot_find(sh, p);
	if (r) {
		r->sheaf = sheaf;
		if (func)
			objrec_set_site(r, func, file, line);
	}
	slab_unlock(&sh->lock);
}

/* ---- sizes ---- */

size_t ksim_kmalloc_rounded(size_t size)
{
	if (size <= 8)
		return 8;
	if (size <= 96 && size > 64)
		return 96;
	if (size <= 192 && size > 128)
		return 192;
	if (size <= KMALLOC_MAX_CACHE_SIZE) {
		size_t c = 16;

		while (c < size)
			c <<= 1;
		return c;
	}
	/* large kmalloc: whole pages from the page allocator, power-of-two order */
	{
		size_t pages = PAGE_SIZE_KSIM;

		while (pages < size)
			pages <<= 1;
		return pages;
	}
}

size_t kmalloc_size_roundup(size_t size)
{
	return size ? ksim_kmalloc_rounded(size) : 0;
}

/* kmalloc size classes up to KMALLOC_MAX_CACHE_SIZE (8 .. 8192 bytes). */
#define NR_KMALLOC_CLASSES	14
static struct recycle_list kmalloc_recycle[NR_KMALLOC_CLASSES];	/* under kmalloc_cache.lock */

static int kmalloc_class(size_t rounded)
{
	switch (rounded) {
	case 96:
		return 12;
	case 192:
		return 13;
	default:
		return __builtin_ctzl(rounded) - 3;	/* 8 -> 0 ... 8192 -> 10 */
	}
}

/* The list a freed object of cache c and requested size goes to, if any. */
static struct recycle_list *recycle_list_of(struct kmem_cache *c, size_t size)
{
	if (!KSIM_SLAB_RECYCLE || c == &vmalloc_cache)
		return NULL;
	if (c == &kmalloc_cache) {
		if (size > KMALLOC_MAX_CACHE_SIZE)
			return NULL;
		return &kmalloc_recycle[kmalloc_class(ksim_kmalloc_rounded(size))];
	}
	return &c->recycle;
}

static void recycle_list_free(struct recycle_list *l)
{
	for (unsigned int i = 0; i < l->nr; i++)
		free(l->objs[i]);
	free(l->objs);
	*l = (struct recycle_list){ 0 };
}

static size_t rounded_for(struct kmem_cache *c, size_t size)
{
	if (c == &kmalloc_cache)
		return ksim_kmalloc_rounded(size);
	if (c == &vmalloc_cache)
		return ALIGN(size, PAGE_SIZE_KSIM);
	return c->rounded;
}

/* ---- accounting ---- */

static void account_alloc_locked(struct kmem_cache *c, size_t size)
{
	c->st.live++;
	c->st.total++;
	c->nr_tallocated++;
	c->st.bytes_requested += size;
	c->st.bytes_rounded += rounded_for(c, size);
}

static void account_alloc(struct kmem_cache *c, size_t size)
{
	slab_lock(&c->lock);
	account_alloc_locked(c, size);
	slab_unlock(&c->lock);
}

/* ---- the pool of freed cache objects (ASan builds, see the top) ---- */

static int pool_mode = -1;	/* KSIM_SLAB_POOL=off: every free is ASan's */
#if KSIM_SLAB_POOL
static size_t shadow_scale, shadow_offset;	/* ASan's, set with pool_mode */
#endif

static bool pool_on(struct kmem_cache *c)
{
	if (!KSIM_SLAB_POOL || c == &kmalloc_cache || c == &vmalloc_cache)
		return false;
	if (__builtin_expect(pool_mode < 0, 0)) {
		const char *e = getenv("KSIM_SLAB_POOL");

#if KSIM_SLAB_POOL
		__asan_get_shadow_mapping(&shadow_scale, &shadow_offset);
#endif
		__atomic_store_n(&pool_mode, !(e && !strcmp(e, "off")), __ATOMIC_RELAXED);
	}
	return __atomic_load_n(&pool_mode, __ATOMIC_RELAXED);
}

static __thread uintptr_t stack_lo, stack_hi;

/*
 * The caller's stack by its frame pointers (the tree builds with
 * -fno-omit-frame-pointer), as ASan's fast unwinder does: two loads a
 * frame, where backtrace() parses unwind tables at every free.  Bounded by this
 * thread's stack, so a frame without a frame pointer (libc's) only ends
 * the walk early.
 */
static noinline __no_sanitize_address void pool_save_stack(void **pcs)
{
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
	int n = 0;

	if (!stack_hi) {
		pthread_attr_t a;
		void *addr;
		size_t size;

		stack_hi = 1;	/* unknown: the walk stops at once */
		if (!pthread_getattr_np(pthread_self(), &a)) {
			if (!pthread_attr_getstack(&a, &addr, &size)) {
				stack_lo = (uintptr_t)addr;
				stack_hi = stack_lo + size;
			}
			pthread_attr_destroy(&a);
		}
	}
	while (n < POOL_FRAMES && fp >= stack_lo && fp + 2 * sizeof(void *) <= stack_hi &&
	       !(fp & (sizeof(void *) - 1))) {
		uintptr_t next = ((uintptr_t *)fp)[0];
		void *ret = ((void **)fp)[1];

		if (!ret)
			break;
		pcs[n++] = ret;
		if (next <= fp)
			break;
		fp = next;
	}
	if (!n)
		pcs[n++] = __builtin_return_address(0);
	while (n < POOL_FRAMES)
		pcs[n++] = NULL;
}

/* Under c->lock; false if the ring cannot grow (the caller frees p). */
static bool pool_push_locked(struct kmem_cache *c, const struct pool_ent *e)
{
	struct slab_pool *pl = &c->pool;

	if (pl->nr == pl->cap) {
		unsigned int cap = pl->cap ? pl->cap * 2 : 1024;
		struct pool_ent *n = malloc(cap * sizeof(*n));

		if (!n)
			return false;
		for (unsigned int i = 0; i < pl->nr; i++)
			n[i] = pl->ents[(pl->head + i) & (pl->cap - 1)];
		free(pl->ents);
		pl->ents = n;
		pl->cap = cap;
		pl->head = 0;
	}
	pl->ents[(pl->head + pl->nr++) & (pl->cap - 1)] = *e;
	return true;
}

/*
 * A pooled object comes back after thousands of frees: its memory and its
 * ASan shadow are cold, and the first touch of the shadow (unpoisoning)
 * was 14% of the maple suite's seed part.  Fetch the one POOL_PREFETCH
 * places behind the head ahead of time, and its record's slot in the table.
 */
#define POOL_PREFETCH	4
static void pool_prefetch(struct kmem_cache *c, const void *p)
{
#if KSIM_SLAB_POOL
	__builtin_prefetch((const void *)(((uintptr_t)p >> shadow_scale) + shadow_offset), 1);
	for (unsigned int off = 0; off < c->size && off < 256; off += 64)
		__builtin_prefetch((const char *)p + off, 1);
	table_prefetch(p);
#endif
}

/* Under c->lock: the oldest pooled object once POOL_DELAY frees stand behind it. */
static void *pool_pop_locked(struct kmem_cache *c)
{
	struct slab_pool *pl = &c->pool;
	void *p;

	if (pl->nr <= POOL_DELAY)
		return NULL;
	p = pl->ents[pl->head].p;
	pl->head = (pl->head + 1) & (pl->cap - 1);
	pl->nr--;
	pool_prefetch(c, pl->ents[(pl->head + POOL_PREFETCH) & (pl->cap - 1)].p);
	return p;
}

static void pool_free(struct kmem_cache *c)
{
	struct slab_pool *pl = &c->pool;

	for (unsigned int i = 0; i < pl->nr; i++) {
		void *p = pl->ents[(pl->head + i) & (pl->cap - 1)].p;

		ASAN_UNPOISON_MEMORY_REGION(p, c->size);
		free(p);
	}
	free(pl->ents);
	*pl = (struct slab_pool){ 0 };
}

/*
 * What the shim knows of a pooled object that addr points into: its
 * cache, last allocation site and the stack that freed it.  Called from
 * ASan's error hook and for double frees; takes no lock (the process is
 * about to die, and the faulting thread may hold one).
 */
static bool pool_describe(const void *addr, const char *what)
{
	if (!KSIM_SLAB_POOL)
		return false;
	for (struct kmem_cache *c = caches; c; c = c->next) {
		struct slab_pool *pl = &c->pool;

		for (unsigned int i = 0; i < pl->nr; i++) {
			const struct pool_ent *e = &pl->ents[(pl->head + i) & (pl->cap - 1)];
			char buf[512];

			if ((const char *)addr < (const char *)e->p ||
			    (const char *)addr >= (const char *)e->p + c->size)
				continue;
			fprintf(stderr,
				"ksim: %s: %p is %zu bytes inside a freed object of cache %s "
				"(%u bytes), poisoned in the shim's pool (ASan reports a use of it as "
				"use-after-poison, with this memory's first allocation as \"allocated "
				"by\"; KSIM_SLAB_POOL=off gives ASan's own report)\n"
				"ksim: last allocated at %s (%s:%d), freed by task %d at:\n",
				what, addr, (size_t)((const char *)addr - (const char *)e->p), c->name,
				c->size, e->func ? e->func : "?", e->file ? e->file : "?", e->line,
				e->tid);
			for (int f = 0, shown = 0; f < POOL_FRAMES && e->pcs[f]; f++) {
#if KSIM_SLAB_POOL
				__sanitizer_symbolize_pc((char *)e->pcs[f] - 1, "%p in %f %s:%l",
							 buf, sizeof(buf));
				/*
				 * Without symbols (ASAN_OPTIONS=symbolize=0, as
				 * ksim fuzz's triage first replays every crash):
				 * module+offset, as ASan's own frames then read.
				 */
				if (strstr(buf, " in <null> "))
					__sanitizer_symbolize_pc((char *)e->pcs[f] - 1, "%p %M",
								 buf, sizeof(buf));
#else
				snprintf(buf, sizeof(buf), "%p", e->pcs[f]);
#endif
				/* the shim's own frames (obj_free, kmem_cache_free) */
				if (!shown && strstr(buf, __FILE__ ":"))
					continue;
				fprintf(stderr, "    #%d %s\n", shown++, buf);
			}
			return true;
		}
	}
	return false;
}

#if KSIM_SLAB_POOL
/* ASan's hook, called before it prints a report. */
void __asan_on_error(void)
{
	void *addr = __asan_get_report_address();

	if (addr)
		pool_describe(addr, "use-after-free");
}
#endif

/* Accounts the free; keeps p for reuse if it can (else the caller frees it). */
static bool account_free(struct kmem_cache *c, size_t size, void *p,
			 const struct pool_ent *pe)
{
	struct recycle_list *l = p && !pe ? recycle_list_of(c, size) : NULL;
	bool kept = false;

	slab_lock(&c->lock);
	c->st.live--;
	c->st.bytes_requested -= size;
	c->st.bytes_rounded -= rounded_for(c, size);
	if (pe) {
		kept = pool_push_locked(c, pe);
	} else if (l && l->nr < RECYCLE_MAX) {
		if (l->nr == l->cap) {
			void **n = realloc(l->objs, (l->cap ? l->cap * 2 : 64) * sizeof(void *));

			if (n) {
				l->objs = n;
				l->cap = l->cap ? l->cap * 2 : 64;
			}
		}
		if (l->nr < l->cap) {
			l->objs[l->nr++] = p;
			kept = true;
		}
	}
	slab_unlock(&c->lock);
	return kept;
}

/* A freed object of the right cache/size class, accounted as allocated; or NULL. */
static void *recycle_pop(struct kmem_cache *c, size_t size)
{
	struct recycle_list *l = recycle_list_of(c, size);
	void *p = NULL;

	if (pool_on(c)) {
		slab_lock(&c->lock);
		p = pool_pop_locked(c);
		if (p)
			account_alloc_locked(c, size);
		slab_unlock(&c->lock);
		if (p)
			ASAN_UNPOISON_MEMORY_REGION(p, size);
		return p;
	}
	if (!l)
		return NULL;
	slab_lock(&c->lock);
	if (l->nr) {
		p = l->objs[--l->nr];
		account_alloc_locked(c, size);
	}
	slab_unlock(&c->lock);
	return p;
}

static void account_failed(struct kmem_cache *c)
{
	slab_lock(&c->lock);
	c->st.failed++;
	slab_unlock(&c->lock);
}

/* ---- core allocation ---- */

static void *raw_alloc(size_t size, size_t align)
{
	void *p = NULL;

	if (align > 16) {
		if (posix_memalign(&p, align, size ? size : 1))
			return NULL;
		return p;
	}
	return malloc(size ? size : 1);
}

static void *obj_alloc(struct kmem_cache *c, size_t size, size_t align, gfp_t gfp,
		       KSIM_SITE_ARGS)
{
	struct objrec r;
	void *p;

	might_alloc(gfp);
	ksim_yield_point();
	if (ksim_should_fail(func, file, line, gfp)) {
		account_failed(c);
		return NULL;
	}
	p = recycle_pop(c, size);
	if (!p) {
		/* A recyclable kmalloc object gets its whole size class. */
		p = raw_alloc(recycle_list_of(c, size) && c == &kmalloc_cache ?
			      ksim_kmalloc_rounded(size) : size, align);
		if (!p) {
			account_failed(c);
			return NULL;
		}
		account_alloc(c, size);
	}
	if (gfp & __GFP_ZERO)
		memset(p, 0, size);
	r = (struct objrec){
		.ptr = p, .cache = c, .func = func, .file = file, .line = line,
		.size = size, .gen = __atomic_load_n(&slab_epoch, __ATOMIC_RELAXED),
	};
	table_insert(&r);
	return p;
}

static void sheaf_held_bug(const char *what, const void *p, const struct objrec *r);

static void obj_free(const void *p, struct kmem_cache *expect, const char *what)
{
	struct objrec r;

	if (!table_remove(p, &r)) {
		pool_describe(p, "double free");
		ksim_bug(__FILE__, __LINE__,
			 "%s(%p): not an allocated object (double free or invalid pointer)",
			 what, p);
	}
	if (r.sheaf)
		sheaf_held_bug(what, p, &r);
	if (r.free)
		ksim_bug(__FILE__, __LINE__, "%s(%p): object already freed to cache %s",
			 what, p, r.cache->name);
	if (expect && r.cache != expect)
		ksim_bug(__FILE__, __LINE__,
			 "%s(%p): object belongs to cache %s, freed to %s",
			 what, p, r.cache->name, expect->name);
	if (pool_on(r.cache)) {
		struct pool_ent e = {
			.p = (void *)p, .func = r.func, .file = r.file, .line = r.line,
			.tid = ksim_task()->id,
		};

		pool_save_stack(e.pcs);
		ASAN_POISON_MEMORY_REGION(p, r.size);
		if (account_free(r.cache, r.size, (void *)p, &e))
			return;
		ASAN_UNPOISON_MEMORY_REGION(p, r.size);
		free((void *)p);
		return;
	}
	if (!account_free(r.cache, r.size, (void *)p, NULL))
		free((void *)p);
}

/* ---- kmalloc family ---- */

void *ksim_kmalloc(size_t size, gfp_t gfp, KSIM_SITE_ARGS)
{
	if (!size)
		return ZERO_SIZE_PTR;
	if (size > KMALLOC_MAX_SIZE) {
		if (!(gfp & __GFP_NOWARN))
			WARN(1, "kmalloc(%zu) from %s exceeds KMALLOC_MAX_SIZE", size, func);
		return NULL;
	}
	/* Strict mode: the kernel harness's kmalloc() fails every
	 * non-blocking call (tools/lib/slab.c); it has no budget for it. */
	if (strict_nowait && !(gfp & __GFP_DIRECT_RECLAIM)) {
		account_failed(&kmalloc_cache);
		return NULL;
	}
	return obj_alloc(&kmalloc_cache, size, 8, gfp, func, file, line);
}

void kfree(const void *p)
{
	struct objrec r;

	if (ZERO_OR_NULL_PTR(p))
		return;
	ksim_yield_point();
	/* kfree() of a kmem_cache object is valid since the kernel's SLUB rework. */
	if (table_lookup(p, &r) && r.cache != &kmalloc_cache && r.cache != &vmalloc_cache &&
	    !r.free) {
		kmem_cache_free(r.cache, (void *)p);
		return;
	}
	obj_free(p, NULL, "kfree");
}

void kfree_sensitive(const void *p)
{
	struct objrec r;

	if (!ZERO_OR_NULL_PTR(p) && table_lookup(p, &r))
		memset((void *)p, 0, r.size);
	kfree(p);
}

size_t ksize(const void *p)
{
	struct objrec r;

	if (ZERO_OR_NULL_PTR(p))
		return 0;
	if (!table_lookup(p, &r))
		ksim_bug(__FILE__, __LINE__, "ksize(%p): not an allocated object", p);
	return r.size;
}

void *ksim_krealloc(const void *p, size_t new_size, gfp_t gfp, KSIM_SITE_ARGS)
{
	struct objrec r = { 0 };
	void *n;

	if (!new_size) {
		kfree(p);
		return ZERO_SIZE_PTR;
	}
	if (!ZERO_OR_NULL_PTR(p) && !table_lookup(p, &r))
		ksim_bug(__FILE__, __LINE__, "krealloc(%p): not an allocated object", p);
	n = ksim_kmalloc(new_size, gfp & ~__GFP_ZERO, func, file, line);
	if (!n)
		return NULL;
	if (r.ptr)
		memcpy(n, p, min(r.size, new_size));
	if ((gfp & __GFP_ZERO) && new_size > r.size)
		memset((char *)n + r.size, 0, new_size - r.size);
	if (r.ptr)
		kfree(p);
	return n;
}

void *ksim_vmalloc(size_t size, gfp_t gfp, KSIM_SITE_ARGS)
{
	if (!size)
		return NULL;
	return obj_alloc(&vmalloc_cache, size, 16, gfp, func, file, line);
}

void vfree(const void *p)
{
	if (!p)
		return;
	obj_free(p, &vmalloc_cache, "vfree");
}

bool is_vmalloc_addr(const void *p)
{
	struct objrec r;

	return p && table_lookup(p, &r) && r.cache == &vmalloc_cache;
}

void *ksim_kvmalloc_align(size_t size, size_t align, gfp_t gfp, KSIM_SITE_ARGS)
{
	if (size > KMALLOC_MAX_CACHE_SIZE || align <= 8)
		return ksim_kvmalloc(size, gfp, func, file, line);
	if (!size)
		return ZERO_SIZE_PTR;
	if (strict_nowait && !(gfp & __GFP_DIRECT_RECLAIM)) {
		account_failed(&kmalloc_cache);
		return NULL;
	}
	return obj_alloc(&kmalloc_cache, size, align, gfp, func, file, line);
}

void *ksim_kvmalloc(size_t size, gfp_t gfp, KSIM_SITE_ARGS)
{
	if (size <= KMALLOC_MAX_CACHE_SIZE)
		return ksim_kmalloc(size, gfp, func, file, line);
	return ksim_vmalloc(size, gfp, func, file, line);
}

void *ksim_kvrealloc(const void *p, size_t new_size, gfp_t gfp, KSIM_SITE_ARGS)
{
	struct objrec r = { 0 };
	void *n;

	if (p && !table_lookup(p, &r))
		ksim_bug(__FILE__, __LINE__, "kvrealloc(%p): not an allocated object", p);
	n = ksim_kvmalloc(new_size, gfp, func, file, line);
	if (!n)
		return NULL;
	if (p) {
		memcpy(n, p, min(r.size, new_size));
		kvfree(p);
	}
	return n;
}

void kvfree(const void *p)
{
	if (is_vmalloc_addr(p))
		vfree(p);
	else
		kfree(p);
}

/* kvfree_rcu() objects come back here after their grace period (rcu/tree.c). */
static void slab_init(void)
{
	ksim_rcu_set_kvfree(kvfree);
}
ksim_initcall(slab_init, KSIM_INIT_MM);

/* ---- kmem_cache ---- */

struct kmem_cache *ksim_kmem_cache_create_args(const char *name, unsigned int size,
		const struct kmem_cache_args *args, slab_flags_t flags)
{
	struct kmem_cache *s;

	if (!args)
		return ksim_kmem_cache_create(name, size, 0, flags, NULL);
	s = ksim_kmem_cache_create(name, size, args->align, flags, args->ctor);
	if (s)
		s->sheaf_capacity = args->sheaf_capacity;
	return s;
}

struct kmem_cache *ksim_kmem_cache_create(const char *name, unsigned int size,
		unsigned int align, slab_flags_t flags, void (*ctor)(void *))
{
	struct kmem_cache *s = calloc(1, sizeof(*s));
	unsigned int a = align < ARCH_SLAB_MINALIGN ? ARCH_SLAB_MINALIGN : align;

	if (!s) {
		if (flags & SLAB_PANIC)
			ksim_bug(__FILE__, __LINE__, "kmem_cache_create(%s) failed", name);
		return NULL;
	}
	/* mm/slab_common.c calculate_alignment(): small objects share lines. */
	if (flags & SLAB_HWCACHE_ALIGN) {
		unsigned int ralign = 64;

		while (size <= ralign / 2)
			ralign /= 2;
		if (a < ralign)
			a = ralign;
	}
	s->name = strdup(name);
	s->size = size;
	s->align = a;
	s->rounded = ALIGN(size, a);
	s->flags = flags;
	s->ctor = ctor;
	s->st.name = s->name;
	pthread_mutex_init(&s->lock, NULL);
	slab_lock(&caches_lock);
	s->next = caches;
	caches = s;
	slab_unlock(&caches_lock);
	return s;
}

const char *kmem_cache_name(struct kmem_cache *s)
{
	return s->name;
}

unsigned int kmem_cache_size(struct kmem_cache *s)
{
	return s->size;
}

/* The kernel harness's semantics for non-blocking allocations (strict mode). */
static bool nowait_denied(struct kmem_cache *s, gfp_t gfp, unsigned int count)
{
	void (*cb)(void *) = NULL;
	void *priv = NULL;
	bool denied = false;

	/* Nothing to do outside strict mode unless a callback is pending. */
	if (!strict_nowait && !__atomic_load_n(&s->exec_callback, __ATOMIC_RELAXED))
		return false;
	slab_lock(&s->lock);
	if (s->exec_callback) {
		cb = s->callback;
		priv = s->private;
		__atomic_store_n(&s->exec_callback, false, __ATOMIC_RELAXED);
	}
	if (strict_nowait && !(gfp & __GFP_DIRECT_RECLAIM)) {
		if (s->non_kernel < count) {
			__atomic_store_n(&s->exec_callback, true, __ATOMIC_RELAXED);
			denied = true;
		} else {
			s->non_kernel -= count;
		}
	}
	slab_unlock(&s->lock);
	if (cb)
		cb(priv);
	return denied;
}

static void *cache_alloc_one(struct kmem_cache *s, gfp_t gfp, KSIM_SITE_ARGS)
{
	void *p = NULL;

	if (s->flags & SLAB_TYPESAFE_BY_RCU) {
		slab_lock(&s->lock);
		if (s->nr_free)
			p = s->free_objs[--s->nr_free];
		slab_unlock(&s->lock);
		if (p) {
			might_alloc(gfp);
			if (ksim_should_fail(func, file, line, gfp)) {
				slab_lock(&s->lock);
				s->free_objs[s->nr_free++] = p;
				s->st.failed++;
				slab_unlock(&s->lock);
				return NULL;
			}
			table_set_free(p, false, func, file, line, s->size);
			account_alloc(s, s->size);
			if (gfp & __GFP_ZERO)
				memset(p, 0, s->size);
			return p;
		}
	}
	p = obj_alloc(s, s->size, s->align, gfp & ~__GFP_ZERO, func, file, line);
	if (!p)
		return NULL;
	if (s->ctor) {
		WARN_ON_ONCE(gfp & __GFP_ZERO);
		s->ctor(p);
	} else if (gfp & __GFP_ZERO) {
		memset(p, 0, s->size);
	}
	return p;
}

void *ksim_kmem_cache_alloc(struct kmem_cache *s, gfp_t gfp, KSIM_SITE_ARGS)
{
	if (nowait_denied(s, gfp, 1)) {
		account_failed(s);
		return NULL;
	}
	return cache_alloc_one(s, gfp, func, file, line);
}

void kmem_cache_free(struct kmem_cache *s, void *p)
{
	struct objrec r;

	if (!p)
		return;
	ksim_yield_point();
	if (s->flags & SLAB_TYPESAFE_BY_RCU) {
		if (!table_lookup(p, &r) || r.free)
			ksim_bug(__FILE__, __LINE__,
				 "kmem_cache_free(%s, %p): not a live object (double free?)",
				 s->name, p);
		if (r.cache != s)
			ksim_bug(__FILE__, __LINE__,
				 "kmem_cache_free(%s, %p): object belongs to cache %s",
				 s->name, p, r.cache->name);
		if (r.sheaf)
			sheaf_held_bug("kmem_cache_free", p, &r);
		table_set_free(p, true, NULL, NULL, 0, 0);
		account_free(s, r.size, NULL, NULL);
		slab_lock(&s->lock);
		if (s->nr_free == s->free_cap) {
			s->free_cap = s->free_cap ? s->free_cap * 2 : 64;
			s->free_objs = realloc(s->free_objs, s->free_cap * sizeof(void *));
			if (!s->free_objs)
				abort();
		}
		s->free_objs[s->nr_free++] = p;
		slab_unlock(&s->lock);
		return;
	}
	obj_free(p, s, "kmem_cache_free");
}

int ksim_kmem_cache_alloc_bulk(struct kmem_cache *s, gfp_t gfp, size_t size,
			       void **p, KSIM_SITE_ARGS)
{
	size_t i;

	if (nowait_denied(s, gfp, size)) {
		account_failed(s);
		return 0;
	}
	for (i = 0; i < size; i++) {
		p[i] = cache_alloc_one(s, gfp, func, file, line);
		if (!p[i]) {
			kmem_cache_free_bulk(s, i, p);
			return 0;
		}
	}
	return size;
}

void kmem_cache_free_bulk(struct kmem_cache *s, size_t size, void **p)
{
	/* The objects' records are likely cold (the maple tree frees unused
	 * preallocations this way): fetch them all first. */
	for (size_t i = 0; i < size; i++)
		table_prefetch(p[i]);
	for (size_t i = 0; i < size; i++)
		kmem_cache_free(s, p[i]);
}

int kmem_cache_shrink(struct kmem_cache *s)
{
	(void)s;
	return 0;
}

static void print_objects(FILE *out, struct kmem_cache *only, unsigned long min_gen,
			  unsigned long max_print)
{
	unsigned long printed = 0;

	for (int i = 0; i < NR_SHARDS; i++) {
		struct shard *sh = &shards[i];

		slab_lock(&sh->lock);
		for (size_t j = 0; j < sh->cap; j++) {
			struct objrec *r = &sh->slots[j];

			if (!r->ptr || r->free || r->gen < min_gen)
				continue;
			if (only && r->cache != only)
				continue;
			if (printed++ < max_print)
				fprintf(out, "  leaked %s object %p, %zu bytes, allocated by %s() at %s:%d%s\n",
					r->cache->name, r->ptr, r->size, r->func, r->file, r->line,
					r->sheaf ? " (held in a sheaf)" : "");
		}
		slab_unlock(&sh->lock);
	}
	if (printed > max_print)
		fprintf(out, "  ... and %lu more\n", printed - max_print);
}

static void sheaf_flush_free(struct kmem_cache *s, struct slab_sheaf *sheaf);

void kmem_cache_destroy(struct kmem_cache *s)
{
	struct kmem_cache **pp;

	if (!s)
		return;
	/* Objects freed under RCU may still be in flight: as in the kernel. */
	rcu_barrier();
	/* Spare sheaves are the cache's own (__kmem_cache_shutdown flushes them). */
	for (int cpu = 0; cpu < KSIM_NR_CPUS; cpu++) {
		struct slab_sheaf *spare = s->spare[cpu];

		s->spare[cpu] = NULL;
		if (spare)
			sheaf_flush_free(s, spare);
	}
	if (s->st.live) {
		/* As the kernel does: complain and keep the cache alive. */
		ksim_problem(KSIM_P_LEAK, __FILE__, __LINE__,
			     "kmem_cache_destroy %s: slab still has %lu objects",
			     s->name, s->st.live);
		print_objects(stderr, s, 0, 20);
		return;
	}
	for (unsigned long i = 0; i < s->nr_free; i++) {
		struct objrec r;

		table_remove(s->free_objs[i], &r);
		free(s->free_objs[i]);
	}
	slab_lock(&caches_lock);
	for (pp = &caches; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	slab_unlock(&caches_lock);
	free(s->free_objs);
	recycle_list_free(&s->recycle);
	pool_free(s);
	free(s->name);
	free(s);
}

/* ---- sheaves (see the top of this file) ---- */

#define SHEAF_MAGIC	0x5eaf5eaf5eaf5eafUL

struct slab_sheaf {
	unsigned long magic;		/* SHEAF_MAGIC while handed out or spare */
	struct kmem_cache *cache;
	unsigned int capacity;
	unsigned int size;
	bool spare;			/* a CPU's spare, owned by the cache */
	/* the site that prefilled it, and its leak-check epoch */
	const char *func;
	const char *file;
	int line;
	unsigned long gen;
	struct slab_sheaf *next, **pprev;	/* cache->sheaves, under cache->lock */
	void *objects[];
};

static bool sheaf_fill_capacity;

void ksim_slab_set_sheaf_fill_capacity(bool on)
{
	sheaf_fill_capacity = on;
}

static void sheaf_held_bug(const char *what, const void *p, const struct objrec *r)
{
	ksim_bug(__FILE__, __LINE__,
		 "%s(%p): object of cache %s is still held in sheaf %p (never handed out by kmem_cache_alloc_from_sheaf)",
		 what, p, r->cache->name, r->sheaf);
}

/* Handed-out sheaves are listed for the leak report; spares are not. */
static void sheaf_link_locked(struct kmem_cache *s, struct slab_sheaf *sheaf)
{
	sheaf->next = s->sheaves;
	if (s->sheaves)
		s->sheaves->pprev = &sheaf->next;
	s->sheaves = sheaf;
	sheaf->pprev = &s->sheaves;
	s->nr_sheaves++;
}

static void sheaf_unlink_locked(struct kmem_cache *s, struct slab_sheaf *sheaf)
{
	*sheaf->pprev = sheaf->next;
	if (sheaf->next)
		sheaf->next->pprev = sheaf->pprev;
	sheaf->next = NULL;
	sheaf->pprev = NULL;
	s->nr_sheaves--;
}

static void sheaf_set_site(struct slab_sheaf *sheaf, KSIM_SITE_ARGS)
{
	sheaf->func = func;
	sheaf->file = file;
	sheaf->line = line;
	sheaf->gen = __atomic_load_n(&slab_epoch, __ATOMIC_RELAXED);
}

/*
 * A sheaf handed to the caller of @what must be live and of cache @s: the
 * kernel does not check, and a sheaf returned to another cache would flush
 * its objects into the wrong slab.  Under ASan a sheaf used after its
 * return is a heap-use-after-free already; without, the magic catches it.
 */
static void sheaf_check(struct kmem_cache *s, struct slab_sheaf *sheaf,
			const char *what, KSIM_SITE_ARGS)
{
	if (sheaf->magic != SHEAF_MAGIC || sheaf->spare)
		ksim_bug(file, line, "%s(%s, %p) from %s(): not a live sheaf (returned already?)",
			 what, s->name, sheaf, func);
	if (sheaf->cache != s)
		ksim_bug(file, line,
			 "%s(%s, %p) from %s(): the sheaf belongs to cache %s (prefilled by %s() at %s:%d)",
			 what, s->name, sheaf, func, sheaf->cache->name, sheaf->func,
			 sheaf->file, sheaf->line);
}

static struct slab_sheaf *sheaf_new(struct kmem_cache *s, unsigned int capacity,
				    KSIM_SITE_ARGS)
{
	struct slab_sheaf *sheaf = calloc(1, sizeof(*sheaf) + capacity * sizeof(void *));

	if (!sheaf) {
		account_failed(s);
		return NULL;
	}
	sheaf->magic = SHEAF_MAGIC;
	sheaf->cache = s;
	sheaf->capacity = capacity;
	sheaf_set_site(sheaf, func, file, line);
	slab_lock(&s->lock);
	sheaf_link_locked(s, sheaf);
	slab_unlock(&s->lock);
	return sheaf;
}

/*
 * Adds @n objects, each an allocation of @s consulting fault injection at
 * the caller's site (as kmem_cache_alloc_bulk()); on failure the objects
 * added so far stay (mm/slub.c refill_sheaf() keeps them too).
 */
static bool sheaf_fill(struct kmem_cache *s, struct slab_sheaf *sheaf, gfp_t gfp,
		       unsigned int n, KSIM_SITE_ARGS)
{
	if (nowait_denied(s, gfp, n)) {
		account_failed(s);
		return false;
	}
	while (n--) {
		void *p = cache_alloc_one(s, gfp & ~__GFP_ZERO, func, file, line);

		if (!p)
			return false;
		table_set_sheaf(p, sheaf, NULL, NULL, 0);
		sheaf->objects[sheaf->size++] = p;
		slab_lock(&s->lock);
		s->st.sheaved++;
		slab_unlock(&s->lock);
	}
	return true;
}

/* Frees the objects left in @sheaf to the slab, then the sheaf. */
static void sheaf_flush_free(struct kmem_cache *s, struct slab_sheaf *sheaf)
{
	while (sheaf->size) {
		void *p = sheaf->objects[--sheaf->size];

		table_set_sheaf(p, NULL, NULL, NULL, 0);
		slab_lock(&s->lock);
		s->st.sheaved--;
		slab_unlock(&s->lock);
		kmem_cache_free(s, p);
	}
	slab_lock(&s->lock);
	if (sheaf->pprev)
		sheaf_unlink_locked(s, sheaf);
	slab_unlock(&s->lock);
	/* volatile: a plain store right before free() is a dead store to clang */
	WRITE_ONCE(sheaf->magic, 0);
	free(sheaf);
}

struct slab_sheaf *ksim_kmem_cache_prefill_sheaf(struct kmem_cache *s, gfp_t gfp,
		unsigned int size, KSIM_SITE_ARGS)
{
	struct slab_sheaf *sheaf = NULL;
	unsigned int fill;

	if (unlikely(!size))
		return NULL;
	might_alloc(gfp);
	if (size > s->sheaf_capacity) {
		/* Oversize: exactly @size, always freed when returned. */
		sheaf = sheaf_new(s, size, func, file, line);
	} else {
		if (sheaf_fill_capacity) {
			slab_lock(&s->lock);
			sheaf = s->spare[ksim_cpu()];
			s->spare[ksim_cpu()] = NULL;
			if (sheaf) {
				sheaf->spare = false;
				sheaf_set_site(sheaf, func, file, line);
				sheaf_link_locked(s, sheaf);
			}
			slab_unlock(&s->lock);
		}
		if (!sheaf)
			sheaf = sheaf_new(s, s->sheaf_capacity, func, file, line);
	}
	if (!sheaf)
		return NULL;
	fill = sheaf_fill_capacity ? sheaf->capacity : size;
	if (sheaf->size < size &&
	    !sheaf_fill(s, sheaf, gfp, fill - sheaf->size, func, file, line)) {
		sheaf_flush_free(s, sheaf);
		return NULL;
	}
	return sheaf;
}

void ksim_kmem_cache_return_sheaf(struct kmem_cache *s, gfp_t gfp,
		struct slab_sheaf *sheaf, KSIM_SITE_ARGS)
{
	sheaf_check(s, sheaf, "kmem_cache_return_sheaf", func, file, line);
	ksim_yield_point();
	if (sheaf_fill_capacity && sheaf->capacity == s->sheaf_capacity) {
		bool kept = false;

		slab_lock(&s->lock);
		if (!s->spare[ksim_cpu()]) {
			sheaf_unlink_locked(s, sheaf);
			sheaf->spare = true;
			s->spare[ksim_cpu()] = sheaf;
			kept = true;
		}
		slab_unlock(&s->lock);
		if (kept)
			return;
	}
	sheaf_flush_free(s, sheaf);
}

int ksim_kmem_cache_refill_sheaf(struct kmem_cache *s, gfp_t gfp,
		struct slab_sheaf **sheafp, unsigned int size, KSIM_SITE_ARGS)
{
	struct slab_sheaf *sheaf;

	if (!sheafp || !*sheafp)
		return -EINVAL;
	sheaf = *sheafp;
	sheaf_check(s, sheaf, "kmem_cache_refill_sheaf", func, file, line);
	if (sheaf->size >= size)
		return 0;
	might_alloc(gfp);
	if (sheaf->capacity >= size) {
		unsigned int fill = sheaf_fill_capacity ? sheaf->capacity : size;

		return sheaf_fill(s, sheaf, gfp, fill - sheaf->size, func, file, line) ?
			0 : -ENOMEM;
	}
	/* Bigger than its capacity: a new (oversize) sheaf replaces it. */
	sheaf = ksim_kmem_cache_prefill_sheaf(s, gfp, size, func, file, line);
	if (!sheaf)
		return -ENOMEM;
	ksim_kmem_cache_return_sheaf(s, gfp, *sheafp, func, file, line);
	*sheafp = sheaf;
	return 0;
}

void *ksim_kmem_cache_alloc_from_sheaf(struct kmem_cache *s, gfp_t gfp,
		struct slab_sheaf *sheaf, KSIM_SITE_ARGS)
{
	void *p;

	sheaf_check(s, sheaf, "kmem_cache_alloc_from_sheaf", func, file, line);
	ksim_yield_point();
	if (unlikely(!sheaf->size)) {
		/* mm/slub.c returns NULL silently: no fallback to the slab. */
		ksim_problem(KSIM_P_WARN, file, line,
			     "%s(): kmem_cache_alloc_from_sheaf(%s) from empty sheaf %p (prefilled by %s() at %s:%d): more objects taken than prefilled",
			     func, s->name, sheaf, sheaf->func, sheaf->file, sheaf->line);
		return NULL;
	}
	p = sheaf->objects[--sheaf->size];
	table_set_sheaf(p, NULL, func, file, line);
	slab_lock(&s->lock);
	s->st.sheaved--;
	slab_unlock(&s->lock);
	if (gfp & __GFP_ZERO)
		memset(p, 0, s->size);
	return p;
}

unsigned int kmem_cache_sheaf_size(struct slab_sheaf *sheaf)
{
	return sheaf->size;
}

unsigned long ksim_kmem_cache_nr_sheaves(struct kmem_cache *s)
{
	return s->nr_sheaves;
}

/* ---- harness knobs and accounting queries ---- */

void ksim_slab_set_strict_nowait(bool on)
{
	strict_nowait = on;
}

void ksim_slab_set_single_threaded(bool on)
{
	/* The caller is the only thread using the slab while it switches. */
	single_thread_id = ksim_task()->id;
	single_threaded = on;
}

void kmem_cache_set_non_kernel(struct kmem_cache *s, unsigned int val)
{
	slab_lock(&s->lock);
	s->non_kernel = val;
	slab_unlock(&s->lock);
}

void kmem_cache_set_callback(struct kmem_cache *s, void (*callback)(void *))
{
	s->callback = callback;
}

void kmem_cache_set_private(struct kmem_cache *s, void *private)
{
	s->private = private;
}

unsigned long kmem_cache_get_alloc(struct kmem_cache *s)
{
	return (unsigned long)s->size * s->st.live;
}

unsigned long kmem_cache_nr_allocated(struct kmem_cache *s)
{
	return s->st.live;
}

unsigned long kmem_cache_nr_tallocated(struct kmem_cache *s)
{
	return s->nr_tallocated;
}

void kmem_cache_zero_nr_tallocated(struct kmem_cache *s)
{
	s->nr_tallocated = 0;
}

unsigned long ksim_kmem_cache_nr_free(struct kmem_cache *s)
{
	return s->nr_free;
}

void ksim_slab_stats(struct kmem_cache *s, struct ksim_slab_stats *out)
{
	struct kmem_cache *c = real_cache(s);

	slab_lock(&c->lock);
	*out = c->st;
	slab_unlock(&c->lock);
}

static void add_stats(struct ksim_slab_stats *sum, const struct ksim_slab_stats *st)
{
	sum->live += st->live;
	sum->total += st->total;
	sum->bytes_requested += st->bytes_requested;
	sum->bytes_rounded += st->bytes_rounded;
	sum->failed += st->failed;
	sum->sheaved += st->sheaved;
}

void ksim_slab_totals(struct ksim_slab_stats *out)
{
	struct ksim_slab_stats st;

	memset(out, 0, sizeof(*out));
	out->name = "total";
	ksim_slab_stats(KSIM_CACHE_KMALLOC, &st);
	add_stats(out, &st);
	ksim_slab_stats(KSIM_CACHE_VMALLOC, &st);
	add_stats(out, &st);
	slab_lock(&caches_lock);
	for (struct kmem_cache *c = caches; c; c = c->next) {
		ksim_slab_stats(c, &st);
		add_stats(out, &st);
	}
	slab_unlock(&caches_lock);
}

void ksim_slab_report(FILE *out)
{
	struct ksim_slab_stats st;

	fprintf(out, "  %-24s %10s %12s %14s %14s %8s\n", "cache", "live", "allocs",
		"bytes_req", "bytes_rounded", "failed");
	for (int k = 0; k < 2; k++) {
		ksim_slab_stats(k ? KSIM_CACHE_VMALLOC : KSIM_CACHE_KMALLOC, &st);
		fprintf(out, "  %-24s %10lu %12lu %14lu %14lu %8lu\n", st.name, st.live,
			st.total, st.bytes_requested, st.bytes_rounded, st.failed);
	}
	slab_lock(&caches_lock);
	for (struct kmem_cache *c = caches; c; c = c->next) {
		ksim_slab_stats(c, &st);
		fprintf(out, "  %-24s %10lu %12lu %14lu %14lu %8lu\n", st.name, st.live,
			st.total, st.bytes_requested, st.bytes_rounded, st.failed);
	}
	slab_unlock(&caches_lock);
}

void ksim_slab_mark(void)
{
	__atomic_add_fetch(&slab_epoch, 1, __ATOMIC_RELAXED);
}

unsigned long ksim_slab_leak_check(FILE *out)
{
	unsigned long leaked = 0;
	struct kmem_cache *seen[256];
	unsigned long per[256];
	int nseen = 0;
	struct slab_sheaf sheaves[64];	/* copies: the flexible array is not read */
	int nsheaves = 0;

	for (int i = 0; i < NR_SHARDS; i++) {
		struct shard *sh = &shards[i];

		slab_lock(&sh->lock);
		for (size_t j = 0; j < sh->cap; j++) {
			struct objrec *r = &sh->slots[j];
			int k;

			/* Objects in sheaves: reported per sheaf below. */
			if (!r->ptr || r->free || r->sheaf || r->gen < slab_epoch)
				continue;
			leaked++;
			for (k = 0; k < nseen && seen[k] != r->cache; k++)
				;
			if (k == nseen && nseen < 256) {
				seen[nseen] = r->cache;
				per[nseen++] = 0;
			}
			if (k < 256)
				per[k]++;
		}
		slab_unlock(&sh->lock);
	}
	for (int k = 0; k < nseen; k++) {
		ksim_problem(KSIM_P_LEAK, __FILE__, __LINE__, "%lu %s object%s not freed",
			     per[k], seen[k]->name, per[k] > 1 ? "s" : "");
		print_objects(out, seen[k], slab_epoch, 10);
	}
	/* A sheaf never returned: its objects with it, at the prefill site. */
	slab_lock(&caches_lock);
	for (struct kmem_cache *c = caches; c; c = c->next) {
		slab_lock(&c->lock);
		for (struct slab_sheaf *sh = c->sheaves; sh; sh = sh->next) {
			if (sh->gen < slab_epoch)
				continue;
			leaked += sh->size;
			if (nsheaves < 64)
				sheaves[nsheaves++] = *sh;
		}
		slab_unlock(&c->lock);
	}
	slab_unlock(&caches_lock);
	/* Reported unlocked: a problem report may run test hooks. */
	for (int k = 0; k < nsheaves; k++)
		ksim_problem(KSIM_P_LEAK, sheaves[k].file, sheaves[k].line,
			     "sheaf of cache %s holding %u object%s not returned, prefilled by %s() at %s:%d",
			     sheaves[k].cache->name, sheaves[k].size,
			     sheaves[k].size == 1 ? "" : "s", sheaves[k].func,
			     sheaves[k].file, sheaves[k].line);
	return leaked;
}
