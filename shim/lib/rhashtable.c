// SPDX-License-Identifier: GPL-2.0
/*
 * lib/rhashtable.c is not in the shim yet: 7.x hashtab.c's BPF_MAP_TYPE_RHASH
 * map (rhtab_map_ops) links against these, and no ksim variant creates that
 * map.  Compiling lib/rhashtable.c unmodified needs the *_noprof allocators
 * (linux/slab.h) and an asynchronous worker for its deferred resize; until
 * then each entry point stops the run naming itself instead of running.
 */
/* In hashtab.c's include context. */
#include <linux/bpf.h>
#include <linux/rhashtable.h>
#include <ksim/ksim.h>

#define KSIM_RHT_MISSING(fn)	ksim_bug(__FILE__, __LINE__, "%s: lib/rhashtable.c is not in the shim", fn)

int lockdep_rht_mutex_is_held(struct rhashtable *ht) { KSIM_RHT_MISSING(__func__); }
int lockdep_rht_bucket_is_held(const struct bucket_table *tbl, u32 hash) { KSIM_RHT_MISSING(__func__); }
void *rhashtable_insert_slow(struct rhashtable *ht, const void *key, struct rhash_head *obj)
{ KSIM_RHT_MISSING(__func__); }
struct rhash_lock_head __rcu **rht_bucket_nested(const struct bucket_table *tbl, unsigned int hash)
{ KSIM_RHT_MISSING(__func__); }
struct rhash_lock_head __rcu **__rht_bucket_nested(const struct bucket_table *tbl, unsigned int hash)
{ KSIM_RHT_MISSING(__func__); }
struct rhash_lock_head __rcu **rht_bucket_nested_insert(struct rhashtable *ht, struct bucket_table *tbl,
							 unsigned int hash)
{ KSIM_RHT_MISSING(__func__); }
void rhashtable_walk_enter(struct rhashtable *ht, struct rhashtable_iter *iter) { KSIM_RHT_MISSING(__func__); }
void rhashtable_walk_exit(struct rhashtable_iter *iter) { KSIM_RHT_MISSING(__func__); }
int rhashtable_walk_start_check(struct rhashtable_iter *iter) { KSIM_RHT_MISSING(__func__); }
void *rhashtable_walk_next(struct rhashtable_iter *iter) { KSIM_RHT_MISSING(__func__); }
void rhashtable_walk_stop(struct rhashtable_iter *iter) { KSIM_RHT_MISSING(__func__); }
void rhashtable_destroy(struct rhashtable *ht) { KSIM_RHT_MISSING(__func__); }
void rhashtable_free_and_destroy(struct rhashtable *ht, void (*free_fn)(void *ptr, void *arg), void *arg)
{ KSIM_RHT_MISSING(__func__); }
void *rhashtable_next_key(struct rhashtable *ht, const void *prev_key) { KSIM_RHT_MISSING(__func__); }
int __rhashtable_init_noprof(struct rhashtable *ht, const struct rhashtable_params *params,
			     struct lock_class_key *key)
{ KSIM_RHT_MISSING(__func__); }
void *rhashtable_walk_peek(struct rhashtable_iter *iter) { KSIM_RHT_MISSING(__func__); }
