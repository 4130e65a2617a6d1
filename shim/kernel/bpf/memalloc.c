// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_mem_alloc emulation, after kernel/bpf/memalloc.c (6.1 .. 6.12):
 *
 * - per-CPU caches: one unit size (bpf_mem_alloc_init(ma, size != 0)) or 11
 *   size classes 16 .. 4096 (size == 0, bpf_mem_alloc(ma, size)); every
 *   unit carries an 8-byte header in front of the returned pointer (the
 *   kernel's llist_node, which holds the owning cache while allocated);
 *   units come from kmalloc, so the shim's slab accounting shows the memory
 *   as the kernel's allocator would round it;
 * - prefill of 4 units (1 above 256 bytes or per-CPU), low/high watermarks
 *   and batch as the kernel computes them; the refill the kernel does from
 *   irq_work runs here synchronously right after the allocation that went
 *   below the low watermark (the kernel's self-IPI fires as soon as irqs
 *   are enabled again), with GFP_NOWAIT | __GFP_NOWARN so fault injection
 *   can make it fail; an allocation from an empty free list returns NULL, as
 *   in the kernel;
 * - frees go to the *freeing* CPU's list (LIFO) and are reused at once;
 *   above the high watermark the surplus returns to kmalloc after an RCU
 *   grace period; *_free_rcu() objects become reusable after a grace period.
 *
 * Mode KSIM_BPF_MEM_CHECKING (ksim/bpf_mem.h) poisons and quarantines
 * freed objects instead.  Deliberate differences: no objcg/memcg charging;
 * grace periods are the shim's normal RCU (the kernel also waits for RCU
 * tasks trace for sleepable programs, which the shim maps onto normal RCU).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/bpf_mem_alloc.h>
#include <ksim/bpf_mem.h>

#include <ksim/asan.h>

#define LLIST_NODE_SZ		sizeof(void *)
#define NUM_CACHES		11
#define BPF_MEM_ALLOC_SIZE_MAX	4096
#define KSIM_POISON_FREE	0x6b

static const u16 sizes[NUM_CACHES] = {16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096};

struct bpf_mem_cache {
	pthread_mutex_t lock;
	void *free_list;		/* unit bases, linked through the header */
	int free_cnt;
	int unit_size;			/* bytes per unit incl. the header */
	int percpu_size;		/* per-CPU area per unit, 0 if not per-CPU */
	int low_watermark, high_watermark, batch;
	struct ksim_bpf_ma *ma;
};

struct bpf_mem_caches {
	struct bpf_mem_cache cache[NUM_CACHES];
};

struct ksim_bpf_ma {
	struct bpf_mem_alloc *owner;
	enum ksim_bpf_mem_mode mode;
	pthread_mutex_t qlock;
	void **quarantine;		/* ring of unit bases */
	unsigned int qhead, qcount;
	struct ksim_bpf_mem_stats st;	/* updated with __atomic */
};

static enum ksim_bpf_mem_mode ksim_default_mode = -1;

void ksim_bpf_mem_set_mode(enum ksim_bpf_mem_mode mode)
{
	ksim_default_mode = mode;
}

enum ksim_bpf_mem_mode ksim_bpf_mem_get_mode(void)
{
	if ((int)ksim_default_mode < 0) {
		const char *e = getenv("KSIM_BPF_MEM");

		ksim_default_mode = e && !strcmp(e, "checking") ?
			KSIM_BPF_MEM_CHECKING : KSIM_BPF_MEM_FAITHFUL;
	}
	return ksim_default_mode;
}

#define STAT_ADD(ma, field, v)	__atomic_add_fetch(&(ma)->st.field, (v), __ATOMIC_RELAXED)
#define STAT_SUB(ma, field, v)	__atomic_sub_fetch(&(ma)->st.field, (v), __ATOMIC_RELAXED)

/*
 * Totals over every allocator, for memory benchmarks (ksim_bpf_mem_totals):
 * bytes of units held from kmalloc, and bytes the callers asked for (8-byte
 * header included) in live objects.  bpf_mem_alloc() keeps the requested
 * size in the top 16 bits of the header word (the owner pointer uses 48).
 */
static unsigned long ksim_bpf_units_kmalloced, ksim_bpf_req_live;
#define HDR_SIZE_SHIFT	48
#define HDR_PTR_MASK	((1UL << HDR_SIZE_SHIFT) - 1)

static inline struct bpf_mem_cache *hdr_owner(const void *base)
{
	return (struct bpf_mem_cache *)(*(const unsigned long *)base & HDR_PTR_MASK);
}

static inline unsigned long hdr_req(const void *base, const struct bpf_mem_cache *c)
{
	unsigned long req = *(const unsigned long *)base >> HDR_SIZE_SHIFT;

	return req ? req : c->unit_size;
}

void ksim_bpf_mem_totals(unsigned long *units_kmalloced, unsigned long *requested_live)
{
	*units_kmalloced = __atomic_load_n(&ksim_bpf_units_kmalloced, __ATOMIC_RELAXED);
	*requested_live = __atomic_load_n(&ksim_bpf_req_live, __ATOMIC_RELAXED);
}

/* The header links free units; bit 0 marks a unit that came back by a free. */
static inline void *unit_next(void *base) { return (void *)(*(unsigned long *)base & ~1UL); }

/* A unit from kmalloc (and its per-CPU area): the kernel's __alloc(). */
static void *unit_kmalloc(struct bpf_mem_cache *c, gfp_t gfp)
{
	/* zeroed, as the kernel's: a new element's special fields start out empty */
	void *base = kmalloc(c->unit_size, gfp | __GFP_ZERO);

	if (!base)
		return NULL;
	if (c->percpu_size) {
		void *pptr = __alloc_percpu_gfp(c->percpu_size, 8, gfp);

		if (!pptr) {
			kfree(base);
			return NULL;
		}
		((void **)base)[1] = pptr;
	}
	STAT_ADD(c->ma, kmalloced, 1);
	__atomic_add_fetch(&ksim_bpf_units_kmalloced, c->unit_size, __ATOMIC_RELAXED);
	return base;
}

static void unit_kfree(struct ksim_bpf_ma *k, void *base, bool percpu, int unit_size)
{
	struct bpf_mem_alloc *ma = k->owner;

	if (ma->dtor)
		ma->dtor((char *)base + LLIST_NODE_SZ, ma->dtor_ctx);
	if (percpu)
		free_percpu(((void **)base)[1]);
	kfree(base);
	STAT_ADD(k, kfreed, 1);
	__atomic_sub_fetch(&ksim_bpf_units_kmalloced, unit_size, __ATOMIC_RELAXED);
}

static void push_free(struct bpf_mem_cache *c, void *base, bool recycled)
{
	*(unsigned long *)base = (unsigned long)c->free_list | recycled;
	c->free_list = base;
	c->free_cnt++;
}

/* The kernel's alloc_bulk() from irq_work: top the list up by one batch. */
static void refill(struct bpf_mem_cache *c, int cnt)
{
	for (int i = 0; i < cnt; i++) {
		void *base = unit_kmalloc(c, GFP_NOWAIT | __GFP_NOWARN);

		if (!base)
			break;
		pthread_mutex_lock(&c->lock);
		push_free(c, base, false);
		pthread_mutex_unlock(&c->lock);
	}
}

struct ksim_deferred {
	struct rcu_head rcu;
	struct bpf_mem_cache *c;
	void *base;
	int op;		/* 0: kfree (surplus), 1: reuse (free_rcu) */
};

static void quarantine_put(struct bpf_mem_cache *c, void *base);

static void deferred_cb(struct rcu_head *head)
{
	struct ksim_deferred *d = container_of(head, struct ksim_deferred, rcu);
	struct bpf_mem_cache *c = d->c;

	if (d->op == 0) {
		unit_kfree(c->ma, d->base, c->percpu_size, c->unit_size);
	} else if (c->ma->mode == KSIM_BPF_MEM_CHECKING) {
		quarantine_put(c, d->base);
	} else {
		pthread_mutex_lock(&c->lock);
		push_free(c, d->base, true);
		pthread_mutex_unlock(&c->lock);
	}
	free(d);
}

/* Bookkeeping memory of the emulation itself: libc, not kmalloc, so fault
 * injection and leak checks see only what the kernel would allocate. */
static void defer(struct bpf_mem_cache *c, void *base, int op)
{
	struct ksim_deferred *d = malloc(sizeof(*d));

	if (!d)
		abort();
	d->c = c;
	d->base = base;
	d->op = op;
	call_rcu(&d->rcu, deferred_cb);
}

static void poison_unit(struct bpf_mem_cache *c, void *base)
{
	char *p = (char *)base + LLIST_NODE_SZ;
	void *pptr = c->percpu_size ? ((void **)base)[1] : NULL;

	memset(p, KSIM_POISON_FREE, c->unit_size - LLIST_NODE_SZ);
	if (pptr)	/* per-CPU units keep their area's pointer */
		((void **)base)[1] = pptr;
	ASAN_POISON_MEMORY_REGION(p, c->unit_size - LLIST_NODE_SZ);
	if (pptr)
		for (int cpu = 0; cpu < (int)nr_cpu_ids; cpu++)
			ASAN_POISON_MEMORY_REGION(per_cpu_ptr(pptr, cpu), c->percpu_size);
}

static void unpoison_check_unit(struct bpf_mem_cache *c, void *base)
{
	unsigned char *p = (unsigned char *)base + LLIST_NODE_SZ;
	size_t n = c->unit_size - LLIST_NODE_SZ;

	ASAN_UNPOISON_MEMORY_REGION(p, n);
	if (c->percpu_size) {
		void *pptr = ((void **)base)[1];

		for (int cpu = 0; cpu < (int)nr_cpu_ids; cpu++)
			ASAN_UNPOISON_MEMORY_REGION(per_cpu_ptr(pptr, cpu), c->percpu_size);
	}
	/* per-CPU units: the first payload word is the per-CPU pointer */
	for (size_t i = c->percpu_size ? sizeof(void *) : 0; i < n; i++) {
		if (p[i] != KSIM_POISON_FREE) {
			STAT_ADD(c->ma, poison_bad, 1);
			ksim_problem(KSIM_P_WARN, __FILE__, __LINE__,
				     "bpf_mem_alloc: write after free: unit %p (size %d) byte %zu is 0x%02x, not 0x%02x",
				     p, c->unit_size, i, p[i], KSIM_POISON_FREE);
			break;
		}
	}
}

/*
 * Checking mode: the object stays poisoned in a FIFO; the oldest leaves it
 * (poison verified) and goes back to kmalloc, never to the free list.
 */
static void quarantine_put(struct bpf_mem_cache *c, void *base)
{
	struct ksim_bpf_ma *k = c->ma;
	void *old = NULL;
	poison_unit(c, base);
	pthread_mutex_lock(&k->qlock);
	if (k->qcount == KSIM_BPF_MEM_QUARANTINE) {
		old = k->quarantine[k->qhead];
		k->qhead = (k->qhead + 1) % KSIM_BPF_MEM_QUARANTINE;
		k->qcount--;
	}
	k->quarantine[(k->qhead + k->qcount) % KSIM_BPF_MEM_QUARANTINE] = base;
	k->qcount++;
	pthread_mutex_unlock(&k->qlock);
	STAT_ADD(k, quarantined, 1);
	if (old) {
		struct bpf_mem_cache *oc = hdr_owner(old);

		STAT_SUB(k, quarantined, 1);
		unpoison_check_unit(oc, old);
		unit_kfree(k, old, oc->percpu_size, oc->unit_size);
	}
}

static void init_refill_work(struct bpf_mem_cache *c)
{
	if (c->percpu_size) {
		c->low_watermark = 1;
		c->high_watermark = 3;
	} else if (c->unit_size <= 256) {
		c->low_watermark = 32;
		c->high_watermark = 96;
	} else {
		c->low_watermark = max(32 * 256 / c->unit_size, 1);
		c->high_watermark = max(96 * 256 / c->unit_size, 3);
	}
	c->batch = max((c->high_watermark - c->low_watermark) / 4 * 3, 1);
}

static void cache_init(struct ksim_bpf_ma *k, struct bpf_mem_cache *c,
		       int unit_size, int percpu_size)
{
	pthread_mutex_init(&c->lock, NULL);
	c->free_list = NULL;
	c->free_cnt = 0;
	c->unit_size = unit_size;
	c->percpu_size = percpu_size;
	c->ma = k;
	init_refill_work(c);
	/* prefill_mem_cache() */
	refill(c, !percpu_size && unit_size <= 256 ? 4 : 1);
}

static struct ksim_bpf_ma *ma_new(struct bpf_mem_alloc *ma)
{
	struct ksim_bpf_ma *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->owner = ma;
	k->mode = ksim_bpf_mem_get_mode();
	pthread_mutex_init(&k->qlock, NULL);
	if (k->mode == KSIM_BPF_MEM_CHECKING) {
		k->quarantine = calloc(KSIM_BPF_MEM_QUARANTINE, sizeof(void *));
		if (!k->quarantine) {
			free(k);
			return NULL;
		}
	}
	return k;
}

static int bpf_mem_cache_idx(size_t size)
{
	if (!size || size > BPF_MEM_ALLOC_SIZE_MAX)
		return -1;
	for (int i = 0; i < NUM_CACHES; i++)
		if (size <= sizes[i])
			return i;
	return -1;
}

int bpf_mem_alloc_init(struct bpf_mem_alloc *ma, int size, bool percpu)
{
	int cpu;

	memset(ma, 0, sizeof(*ma));
	ma->ksim = ma_new(ma);
	if (!ma->ksim)
		return -ENOMEM;
	ma->percpu = percpu;
	if (size) {
		int unit_size, percpu_size = 0;
		struct bpf_mem_cache __percpu *pc;

		if (percpu) {
			/* room for llist_node and per-cpu pointer */
			percpu_size = size;
			unit_size = LLIST_NODE_SZ + sizeof(void *);
		} else {
			unit_size = size + LLIST_NODE_SZ;
		}
		pc = __alloc_percpu_gfp(sizeof(*pc), 8, GFP_KERNEL);
		if (!pc)
			goto nomem;
		ma->cache = pc;
		for_each_possible_cpu(cpu)
			cache_init(ma->ksim, per_cpu_ptr(pc, cpu), unit_size, percpu_size);
		return 0;
	}
	if (percpu)		/* as the kernel: use bpf_mem_alloc_percpu_init() */
		goto inval;
	ma->caches = __alloc_percpu_gfp(sizeof(struct bpf_mem_caches), 8, GFP_KERNEL);
	if (!ma->caches)
		goto nomem;
	for_each_possible_cpu(cpu)
		for (int i = 0; i < NUM_CACHES; i++)
			cache_init(ma->ksim, &per_cpu_ptr(ma->caches, cpu)->cache[i], sizes[i], 0);
	return 0;
inval:
	free(ma->ksim);
	ma->ksim = NULL;
	return -EINVAL;
nomem:
	free(ma->ksim->quarantine);
	free(ma->ksim);
	ma->ksim = NULL;
	return -ENOMEM;
}

int bpf_mem_alloc_percpu_init(struct bpf_mem_alloc *ma, struct obj_cgroup *objcg)
{
	memset(ma, 0, sizeof(*ma));
	ma->ksim = ma_new(ma);
	if (!ma->ksim)
		return -ENOMEM;
	ma->percpu = true;
	ma->objcg = objcg;
	ma->caches = __alloc_percpu_gfp(sizeof(struct bpf_mem_caches), 8, GFP_KERNEL);
	if (!ma->caches) {
		free(ma->ksim->quarantine);
		free(ma->ksim);
		ma->ksim = NULL;
		return -ENOMEM;
	}
	return 0;
}

int bpf_mem_alloc_percpu_unit_init(struct bpf_mem_alloc *ma, int size)
{
	int i = bpf_mem_cache_idx(size), cpu;

	if (i < 0)
		return -EINVAL;
	for_each_possible_cpu(cpu) {
		struct bpf_mem_cache *c = &per_cpu_ptr(ma->caches, cpu)->cache[i];

		if (c->unit_size)
			return 0;
		cache_init(ma->ksim, c, LLIST_NODE_SZ + sizeof(void *), sizes[i]);
	}
	return 0;
}

int bpf_mem_alloc_check_size(bool percpu, size_t size)
{
	if ((percpu && size > BPF_MEM_ALLOC_SIZE_MAX) ||
	    (!percpu && size > BPF_MEM_ALLOC_SIZE_MAX - LLIST_NODE_SZ))
		return -E2BIG;
	return 0;
}

void bpf_mem_alloc_set_dtor(struct bpf_mem_alloc *ma,
			    void (*dtor)(void *obj, void *ctx),
			    void (*dtor_ctx_free)(void *ctx),
			    void *ctx)
{
	ma->dtor = dtor;
	ma->dtor_ctx_free = dtor_ctx_free;
	ma->dtor_ctx = ctx;
}

static void drain_cache(struct bpf_mem_cache *c)
{
	void *base = c->free_list;

	while (base) {
		void *next = unit_next(base);

		unit_kfree(c->ma, base, c->percpu_size, c->unit_size);
		base = next;
	}
	c->free_list = NULL;
	c->free_cnt = 0;
	pthread_mutex_destroy(&c->lock);
}

/* Field by field: RCU callbacks (deferred_cb()) update them meanwhile. */
static void stats_copy(struct ksim_bpf_ma *k, struct ksim_bpf_mem_stats *st)
{
	for (size_t i = 0; i < sizeof(*st) / sizeof(unsigned long); i++)
		((unsigned long *)st)[i] = __atomic_load_n((unsigned long *)&k->st + i, __ATOMIC_RELAXED);
}

void bpf_mem_alloc_destroy(struct bpf_mem_alloc *ma)
{
	struct ksim_bpf_ma *k = ma->ksim;
	struct ksim_bpf_mem_stats st;
	int cpu;

	if (!k)
		return;
	/* as free_mem_alloc(): wait for objects still on their way back */
	rcu_barrier();
	while (k->qcount) {
		void *old = k->quarantine[k->qhead];
		struct bpf_mem_cache *oc = hdr_owner(old);

		k->qhead = (k->qhead + 1) % KSIM_BPF_MEM_QUARANTINE;
		k->qcount--;
		unpoison_check_unit(oc, old);
		unit_kfree(k, old, oc->percpu_size, oc->unit_size);
	}
	if (ma->cache) {
		for_each_possible_cpu(cpu)
			drain_cache(per_cpu_ptr(ma->cache, cpu));
		free_percpu(ma->cache);
	}
	if (ma->caches) {
		for_each_possible_cpu(cpu)
			for (int i = 0; i < NUM_CACHES; i++)
				if (per_cpu_ptr(ma->caches, cpu)->cache[i].unit_size)
					drain_cache(&per_cpu_ptr(ma->caches, cpu)->cache[i]);
		free_percpu(ma->caches);
	}
	/*
	 * Every user frees its objects before it destroys the allocator
	 * (htab_map_free(), trie_free(), ...): one still allocated here is
	 * lost to its user.  (The kernel's check_leaked_objs() looks only at
	 * the allocator's own lists; the object stays as leaked slab memory.)
	 */
	stats_copy(k, &st);
	if (st.live)
		ksim_problem(KSIM_P_LEAK, __FILE__, __LINE__,
			     "bpf_mem_alloc_destroy(): %lu objects of this allocator were never freed by its user",
			     st.live);
	/*
	 * Our own books: every unit taken from kmalloc is now either handed
	 * out (live) or back in kmalloc (the lists and the quarantine are
	 * drained, the grace periods over).
	 */
	if (st.kmalloced - st.kfreed != st.live)
		ksim_problem(KSIM_P_TEST, __FILE__, __LINE__,
			     "bpf_mem_alloc emulation: %lu units from kmalloc, %lu returned, %lu live: %ld unaccounted",
			     st.kmalloced, st.kfreed, st.live, (long)(st.kmalloced - st.kfreed - st.live));
	if (ma->dtor_ctx_free)
		ma->dtor_ctx_free(ma->dtor_ctx);
	free(k->quarantine);
	free(k);
	ma->ksim = NULL;
	ma->cache = NULL;
	ma->caches = NULL;
}

/* The kernel's unit_alloc(): from this CPU's list, refill below the mark. */
static void *unit_alloc(struct bpf_mem_cache *c)
{
	struct ksim_bpf_ma *k = c->ma;
	void *base;
	int cnt;
	bool recycled = false;

	pthread_mutex_lock(&c->lock);
	base = c->free_list;
	if (base) {
		recycled = *(unsigned long *)base & 1;
		c->free_list = unit_next(base);
		c->free_cnt--;
	}
	cnt = c->free_cnt;
	pthread_mutex_unlock(&c->lock);
	if (cnt < c->low_watermark)
		refill(c, c->batch);
	if (!base) {
		STAT_ADD(k, failed, 1);
		return NULL;
	}
	*(struct bpf_mem_cache **)base = c;
	if (recycled)
		STAT_ADD(k, reused, 1);
	STAT_ADD(k, allocs, 1);
	STAT_ADD(k, live, 1);
	STAT_ADD(k, bytes_unit, c->unit_size);
	__atomic_add_fetch(&ksim_bpf_req_live, c->unit_size, __ATOMIC_RELAXED);
	return base;
}

/* The kernel's unit_free(): onto this CPU's list, surplus back after a GP. */
static void unit_free(struct bpf_mem_cache *c, void *base)
{
	struct ksim_bpf_ma *k = c->ma;
	void *surplus = NULL;

	STAT_ADD(k, frees, 1);
	STAT_SUB(k, live, 1);
	STAT_SUB(k, bytes_unit, c->unit_size);
	__atomic_sub_fetch(&ksim_bpf_req_live, hdr_req(base, c), __ATOMIC_RELAXED);
	if (k->mode == KSIM_BPF_MEM_CHECKING) {
		quarantine_put(c, base);
		return;
	}
	pthread_mutex_lock(&c->lock);
	push_free(c, base, true);
	if (c->free_cnt > c->high_watermark) {
		/* free_bulk(): down to the middle of the marks */
		while (c->free_cnt > (c->high_watermark + c->low_watermark) / 2) {
			void *b = c->free_list;

			c->free_list = unit_next(b);
			c->free_cnt--;
			*(void **)b = surplus;
			surplus = b;
		}
	}
	pthread_mutex_unlock(&c->lock);
	while (surplus) {
		void *next = unit_next(surplus);

		defer(c, surplus, 0);
		surplus = next;
	}
}

static void unit_free_rcu(struct bpf_mem_cache *c, void *base)
{
	struct ksim_bpf_ma *k = c->ma;

	STAT_ADD(k, frees, 1);
	STAT_SUB(k, live, 1);
	STAT_SUB(k, bytes_unit, c->unit_size);
	__atomic_sub_fetch(&ksim_bpf_req_live, hdr_req(base, c), __ATOMIC_RELAXED);
	defer(c, base, 1);
}

static struct bpf_mem_cache *this_cache(struct bpf_mem_alloc *ma, void *ptr)
{
	struct bpf_mem_cache *owner = hdr_owner((char *)ptr - LLIST_NODE_SZ);
	int idx;

	if (ma->cache)
		return this_cpu_ptr(ma->cache);
	/* size == 0: the class of the owning cache, on this CPU */
	idx = bpf_mem_cache_idx(owner->percpu_size ? owner->percpu_size : owner->unit_size);
	if (WARN_ON_ONCE(idx < 0))
		return NULL;
	return &this_cpu_ptr(ma->caches)->cache[idx];
}

void *bpf_mem_alloc(struct bpf_mem_alloc *ma, size_t size)
{
	int idx;
	void *ret;

	if (!size)
		return NULL;
	if (!ma->percpu)
		size += LLIST_NODE_SZ;
	idx = bpf_mem_cache_idx(size);
	if (idx < 0)
		return NULL;
	if (!this_cpu_ptr(ma->caches)->cache[idx].unit_size)
		return NULL;	/* per-CPU class not initialised */
	ret = unit_alloc(&this_cpu_ptr(ma->caches)->cache[idx]);
	if (!ret)
		return NULL;
	/* what the caller asked for, not the size class (see hdr_req()) */
	if (!ma->percpu) {
		*(unsigned long *)ret |= (unsigned long)size << HDR_SIZE_SHIFT;
		__atomic_sub_fetch(&ksim_bpf_req_live,
				   this_cpu_ptr(ma->caches)->cache[idx].unit_size - size, __ATOMIC_RELAXED);
	}
	return (char *)ret + LLIST_NODE_SZ;
}

void bpf_mem_free(struct bpf_mem_alloc *ma, void *ptr)
{
	struct bpf_mem_cache *c;

	if (!ptr)
		return;
	c = this_cache(ma, ptr);
	if (c)
		unit_free(c, (char *)ptr - LLIST_NODE_SZ);
}

void bpf_mem_free_rcu(struct bpf_mem_alloc *ma, void *ptr)
{
	struct bpf_mem_cache *c;

	if (!ptr)
		return;
	c = this_cache(ma, ptr);
	if (c)
		unit_free_rcu(c, (char *)ptr - LLIST_NODE_SZ);
}

void *bpf_mem_cache_alloc(struct bpf_mem_alloc *ma)
{
	void *ret = unit_alloc(this_cpu_ptr(ma->cache));

	return !ret ? NULL : (char *)ret + LLIST_NODE_SZ;
}

void bpf_mem_cache_free(struct bpf_mem_alloc *ma, void *ptr)
{
	if (!ptr)
		return;
	unit_free(this_cpu_ptr(ma->cache), (char *)ptr - LLIST_NODE_SZ);
}

void bpf_mem_cache_free_rcu(struct bpf_mem_alloc *ma, void *ptr)
{
	if (!ptr)
		return;
	unit_free_rcu(this_cpu_ptr(ma->cache), (char *)ptr - LLIST_NODE_SZ);
}

/* Straight back to kmalloc (the kernel's for objects from the slab). */
void bpf_mem_cache_raw_free(void *ptr)
{
	struct bpf_mem_cache *c;

	if (!ptr)
		return;
	c = hdr_owner((char *)ptr - LLIST_NODE_SZ);
	__atomic_sub_fetch(&ksim_bpf_req_live, hdr_req((char *)ptr - LLIST_NODE_SZ, c), __ATOMIC_RELAXED);
	STAT_ADD(c->ma, frees, 1);
	STAT_SUB(c->ma, live, 1);
	STAT_SUB(c->ma, bytes_unit, c->unit_size);
	unit_kfree(c->ma, (char *)ptr - LLIST_NODE_SZ, c->percpu_size, c->unit_size);
}

/* Sleepable callers (GFP_KERNEL) may go to kmalloc when the list is empty. */
void *bpf_mem_cache_alloc_flags(struct bpf_mem_alloc *ma, gfp_t flags)
{
	struct bpf_mem_cache *c = this_cpu_ptr(ma->cache);
	void *ret = unit_alloc(c);

	if (!ret && (flags & __GFP_DIRECT_RECLAIM)) {
		ret = unit_kmalloc(c, flags);
		if (ret) {
			STAT_SUB(c->ma, failed, 1);
			*(struct bpf_mem_cache **)ret = c;
			STAT_ADD(c->ma, allocs, 1);
			STAT_ADD(c->ma, live, 1);
			STAT_ADD(c->ma, bytes_unit, c->unit_size);
			__atomic_add_fetch(&ksim_bpf_req_live, c->unit_size, __ATOMIC_RELAXED);
		}
	}
	return !ret ? NULL : (char *)ret + LLIST_NODE_SZ;
}

static unsigned long cache_bytes(struct bpf_mem_cache *c)
{
	unsigned long n;

	pthread_mutex_lock(&c->lock);
	n = (unsigned long)c->free_cnt * c->unit_size;
	pthread_mutex_unlock(&c->lock);
	return n;
}

void ksim_bpf_mem_stats(struct bpf_mem_alloc *ma, struct ksim_bpf_mem_stats *st)
{
	struct ksim_bpf_ma *k = ma->ksim;
	int cpu;

	memset(st, 0, sizeof(*st));
	if (!k)
		return;
	stats_copy(k, st);
	for_each_possible_cpu(cpu) {
		if (ma->cache)
			st->bytes_cached += cache_bytes(per_cpu_ptr(ma->cache, cpu));
		if (ma->caches)
			for (int i = 0; i < NUM_CACHES; i++)
				if (per_cpu_ptr(ma->caches, cpu)->cache[i].unit_size)
					st->bytes_cached += cache_bytes(&per_cpu_ptr(ma->caches, cpu)->cache[i]);
	}
}

static bool list_has(struct bpf_mem_cache *c, const void *base)
{
	bool found = false;

	pthread_mutex_lock(&c->lock);
	for (void *b = c->free_list; b && !found; b = unit_next(b))
		found = b == base;
	pthread_mutex_unlock(&c->lock);
	return found;
}

bool ksim_bpf_mem_is_free(struct bpf_mem_alloc *ma, const void *ptr)
{
	struct ksim_bpf_ma *k = ma->ksim;
	const void *base = (const char *)ptr - LLIST_NODE_SZ;
	bool found = false;
	int cpu;

	pthread_mutex_lock(&k->qlock);
	for (unsigned int i = 0; i < k->qcount && !found; i++)
		found = k->quarantine[(k->qhead + i) % KSIM_BPF_MEM_QUARANTINE] == base;
	pthread_mutex_unlock(&k->qlock);
	for_each_possible_cpu(cpu) {
		if (found)
			break;
		if (ma->cache)
			found = list_has(per_cpu_ptr(ma->cache, cpu), base);
		if (ma->caches)
			for (int i = 0; i < NUM_CACHES && !found; i++)
				if (per_cpu_ptr(ma->caches, cpu)->cache[i].unit_size)
					found = list_has(&per_cpu_ptr(ma->caches, cpu)->cache[i], base);
	}
	return found;
}
