// SPDX-License-Identifier: GPL-2.0
/* kernel/bpf/hashtab.c from KSRC, unmodified. */
#include <kernel/bpf/hashtab.c>

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
