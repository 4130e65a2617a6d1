// SPDX-License-Identifier: GPL-2.0
/* kernel/bpf/hashtab.c from KSRC, unmodified. */
#include <kernel/bpf/hashtab.c>
#include <qptrie/model.h>	/* struct ksim_htab_pool */
#include <ksim/bpf_mem.h>

#if !KSIM_HAVE_RQSPINLOCK
/*
 * Ours, not the kernel's: the bucket lock @key's operations take, so the
 * driver's nested program (shim/kernel/bpf/syscall.c) re-enters only while
 * this CPU holds that bucket's map_locked slot.  NULL for maps that are not
 * hash maps.
 */
void *ksim_htab_bucket_lock(struct bpf_map *map, const void *key)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);

	if (map->ops != &htab_map_ops && map->ops != &htab_lru_map_ops &&
	    map->ops != &htab_percpu_map_ops && map->ops != &htab_lru_percpu_map_ops)
		return NULL;
	return &__select_bucket(htab, htab_map_hash(key, map->key_size, htab->hashrnd))->raw_lock;
}
#endif

#if KSIM_HAVE_BPF_RHASH
/*
 * Ours, not the kernel's: the RHASH map's bucket table as it is now, for
 * the tests that make it grow and shrink (qptrie/tests/test_rhash.c): its
 * number of buckets, whether it or a future table it is being rehashed
 * into is a nested table (the GFP_ATOMIC fallback of bucket_table_alloc())
 * and whether such a rehash is under way.
 */
unsigned int ksim_rhtab_table(struct bpf_map *map, bool *nested, bool *rehashing)
{
	struct bpf_rhtab *rhtab = container_of(map, struct bpf_rhtab, map);
	struct bucket_table *tbl;
	unsigned int size;

	rcu_read_lock();
	tbl = rht_dereference_rcu(rhtab->ht.tbl, &rhtab->ht);
	size = tbl->size;
	*rehashing = rcu_access_pointer(tbl->future_tbl);
	for (*nested = false; tbl; tbl = rht_dereference_rcu(tbl->future_tbl, &rhtab->ht))
		*nested |= tbl->nest != 0;
	rcu_read_unlock();
	return size;
}
#endif

/*
 * Ours, not the kernel's: the LRU ref bit of @key's element on an LRU hash
 * map (-1: absent, or not an LRU map), cleared after reading when @clear,
 * for qptrie/tests/test_gen_lookup.c (the inlined lookup must set it as
 * htab_lru_map_lookup_elem() does).
 */
int ksim_htab_lru_ref(struct bpf_map *map, const void *key, bool clear)
{
	struct htab_elem *l;
	int ref = -1;

	if (map->ops != &htab_lru_map_ops && map->ops != &htab_lru_percpu_map_ops)
		return -1;
	rcu_read_lock();
	l = __htab_map_lookup_elem(map, (void *)key);
	if (l) {
		ref = READ_ONCE(l->lru_node.ref);
		if (clear)
			WRITE_ONCE(l->lru_node.ref, 0);
	}
	rcu_read_unlock();
	return ref;
}

/* A node marked pending_free is on its list but out of the map (7.2+). */
static void count_lru_node(struct ksim_htab_pool *p, struct bpf_lru_node *node, bool free)
{
	p->on_lists++;
	if (free)
		p->free++;
#if KSIM_HAVE_BPF_LRU_PENDING_FREE
	else if (READ_ONCE(node->pending_free))
		p->pending_free++;
#endif
}

static void count_lru_list(struct ksim_htab_pool *p, struct bpf_lru_list *l)
{
	struct bpf_lru_node *node;

	for (int t = 0; t < NR_BPF_LRU_LIST_T; t++)
		list_for_each_entry(node, &l->lists[t], list)
			count_lru_node(p, node, t == BPF_LRU_LIST_T_FREE);
}

static void count_lru_locallist(struct ksim_htab_pool *p, struct bpf_lru_locallist *loc_l)
{
	struct bpf_lru_node *node;
#if KSIM_HAVE_BPF_LRU_FREE_LLIST
	struct llist_node *ln;

	list_for_each_entry(node, &loc_l->pending_list, list)
		count_lru_node(p, node, false);
	for (ln = READ_ONCE(loc_l->free_llist.first); ln; ln = READ_ONCE(ln->next))
		count_lru_node(p, container_of(ln, struct bpf_lru_node, llist), true);
#else
	for (int t = 0; t < NR_BPF_LRU_LOCAL_LIST_T; t++)
		list_for_each_entry(node, &loc_l->lists[t], list)
			count_lru_node(p, node,
				       t + BPF_LOCAL_LIST_T_OFFSET == BPF_LRU_LOCAL_LIST_T_FREE);
#endif
}

/*
 * Ours, not the kernel's: where a preallocated hash map's elements are,
 * counted through the kernel's own structures (qptrie/model.c judges it,
 * ksim_bpf_model_pool()).  An element taken from its pool for an update
 * that is then refused must go back: a lost one is no leak (the pool is one
 * allocation) and no wrong answer at once, the map only holds fewer
 * elements from then on.  Maps that do not preallocate: the elements in
 * the buckets and the objects their bpf_mem_alloc caches have out.  Call it
 * at a quiescent point (no operation in flight).  Returns false for other
 * maps.
 */
bool ksim_htab_pool(struct bpf_map *map, struct ksim_htab_pool *p)
{
	struct bpf_htab *htab = container_of(map, struct bpf_htab, map);
	struct hlist_nulls_node *n;
	struct htab_elem *l;
	int cpu;

#if KSIM_HAVE_BPF_RHASH
	/* RHASH: the elements in the table (and a table it is being rehashed into) against rhtab->ma. */
	if (map->ops == &rhtab_map_ops) {
		struct bpf_rhtab *rhtab = container_of(map, struct bpf_rhtab, map);
		struct ksim_bpf_mem_stats st;
		struct bucket_table *tbl;
		struct rhash_head *pos;

		memset(p, 0, sizeof(*p));
		rcu_read_lock();
		for (tbl = rht_dereference_rcu(rhtab->ht.tbl, &rhtab->ht); tbl;
		     tbl = rht_dereference_rcu(tbl->future_tbl, &rhtab->ht))
			for (u32 i = 0; i < tbl->size; i++)
				rht_for_each_rcu(pos, tbl, i)
					p->in_map++;
		rcu_read_unlock();
		p->rhash = true;
		p->nelems = atomic_read(&rhtab->ht.nelems);
		p->mem_alloc = true;
		ksim_bpf_mem_stats(&rhtab->ma, &st);
		p->ma_live = st.live;
		return true;
	}
#endif
	if (map->ops != &htab_map_ops && map->ops != &htab_lru_map_ops &&
	    map->ops != &htab_percpu_map_ops && map->ops != &htab_lru_percpu_map_ops)
		return false;
	memset(p, 0, sizeof(*p));
	for (u32 i = 0; i < htab->n_buckets; i++)
		hlist_nulls_for_each_entry(l, n, &htab->buckets[i].head, hash_node)
			p->in_map++;
	if (!htab_is_prealloc(htab)) {
		struct ksim_bpf_mem_stats st;

		p->mem_alloc = true;
		ksim_bpf_mem_stats(&htab->ma, &st);
		p->ma_live = st.live;
		p->percpu = htab_is_percpu(htab);
		if (p->percpu) {
			ksim_bpf_mem_stats(&htab->pcpu_ma, &st);
			p->pcpu_ma_live = st.live;
		}
		return true;
	}
	p->total = map->max_entries;
	if (htab_has_extra_elems(htab))
		p->total += num_possible_cpus();
	if (!htab_is_lru(htab)) {
		struct pcpu_freelist_node *f;

		for_each_possible_cpu(cpu) {
			for (f = per_cpu_ptr(htab->freelist.freelist, cpu)->first; f; f = f->next)
				p->free++;
			if (htab->extra_elems && *per_cpu_ptr(htab->extra_elems, cpu))
				p->extra++;
		}
		for (f = htab->freelist.extralist.first; f; f = f->next)
			p->free++;
		p->on_lists = p->free;
		return true;
	}
	/* LRU: every node is on one list; the free ones are not in the map. */
	p->lru = true;
	if (htab->lru.percpu)
		for_each_possible_cpu(cpu)
			count_lru_list(p, per_cpu_ptr(htab->lru.percpu_lru, cpu));
	else
		count_lru_list(p, &htab->lru.common_lru.lru_list);
	if (!htab->lru.percpu)
		for_each_possible_cpu(cpu)
			count_lru_locallist(p, per_cpu_ptr(htab->lru.common_lru.local_list, cpu));
	return true;
}
