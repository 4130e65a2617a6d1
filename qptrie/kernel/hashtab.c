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
