/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one reference model of the BPF maps (qptrie/model.c), shared by the
 * conformance suite, the fault sweep, the fuzz target (fuzz/bpfmap.c) and
 * the stress program (stress/bpf_stress.c), as mm-sim's ksim_mm_check() is
 * for the VMA code.  It says what each map documents and nothing more:
 *
 * - hash maps (kernel/bpf/hashtab.c): exact match; update flags BPF_ANY,
 *   BPF_NOEXIST, BPF_EXIST (anything else -EINVAL); -E2BIG for a new key in
 *   a full map (preallocated or not; a lock failure may also give -E2BIG
 *   on a preallocated map, see ksim_bpf_lock_error_ok()); per-CPU maps hold
 *   one value per CPU; get_next_key in no particular order, an absent key
 *   restarts at the first key;
 * - LRU hash maps: a full map evicts instead of failing; an update may
 *   evict any key, even the one being updated (the kernel pops a free node
 *   before it looks the key up), so keys may vanish on updates only;
 * - LPM trie (kernel/bpf/lpm_trie.c): keys are struct bpf_lpm_trie_key_u8;
 *   two keys are the same element when prefixlen and the first prefixlen
 *   bits are equal (bits past the prefix are kept, as the last update wrote
 *   them, but do not matter); lookup returns the longest stored prefix of
 *   the key (prefixlen > max_prefixlen: none); update and delete refuse
 *   prefixlen > max_prefixlen with -EINVAL; -ENOSPC when full;
 *   get_next_key walks in postorder, more specific prefixes before the
 *   less specific ones that contain them (ksim_bpf_key_cmp()), and an
 *   absent or invalid key restarts at the first key;
 * - qp-tries (dynptr keys of 1..map_extra bytes): -ENOSPC when full; the
 *   get_next_key contract is the variant's (KSIM_BPF_KIND_ORDERED: byte
 *   order from a present key; KSIM_BPF_KIND_SUCC_ANY: the successor of any
 *   key, present or not; otherwise an absent key restarts at the first);
 * - arrays (kernel/bpf/arraymap.c, KSIM_BPF_KIND_ARRAY): u32 index keys,
 *   the model holds every index below max_entries from its creation, with
 *   a zeroed value; update flags as hash maps, but an index past the end
 *   is -E2BIG (before BPF_NOEXIST's -EEXIST); delete is -EINVAL; per-CPU
 *   arrays hold one value per CPU; get_next_key in index order, an absent
 *   (past the end) key restarts at index 0, the last index ends the walk;
 * - queues and stacks (kernel/bpf/queue_stack_maps.c, KSIM_BPF_KIND_QUEUE,
 *   _STACK): no keys; the model holds the values in push order; update
 *   pushes (BPF_ANY; BPF_EXIST drops the oldest when full; BPF_NOEXIST or
 *   other flags -EINVAL; full without BPF_EXIST -E2BIG); lookup peeks and
 *   lookup_and_delete pops the oldest (queue) or the newest (stack),
 *   -ENOENT when empty; delete and get_next_key -EINVAL;
 * - bloom filters (kernel/bpf/bloom_filter.c, KSIM_BPF_KIND_BLOOM): no
 *   keys; the model is the set of values added; update adds (BPF_ANY only,
 *   else -EINVAL; never full); a lookup is asked for a value (the lookup
 *   buffer holds it) and must find every value added, and may find
 *   others; delete and get_next_key -EOPNOTSUPP, no pop.
 *
 * Judging functions return NULL when the map did what it may do, else one
 * line saying what went wrong (a per-thread buffer, valid until the next
 * call); the caller reports it through its own sink.
 */
#ifndef _QPTRIE_MODEL_H
#define _QPTRIE_MODEL_H

#include <ksim/bpf.h>

#define KSIM_BPF_MODEL_KMAX	68			/* LPM: 4 + 64 data bytes */
#define KSIM_BPF_MODEL_VMAX	(64 * KSIM_NR_CPUS)	/* per-CPU: every CPU's copy (bpf_stress: 64 bytes) */

/* ---- keys and the maps' documented semantics ---- */

u32 ksim_bpf_lpm_plen(const u8 *key);
/* LPM: does @prefix (stored key) cover @key (its prefixlen <= @key's, same bits)? */
bool ksim_bpf_lpm_covers(const u8 *prefix, const u8 *key);
/* Same element of a map of this kind (LPM: prefixlen and prefix bits). */
bool ksim_bpf_key_eq(unsigned int kind, const u8 *a, u32 alen, const u8 *b, u32 blen);
/* The map's walk order (LPM: postorder; others: bytes, a key before its extensions). */
int ksim_bpf_key_cmp(unsigned int kind, const u8 *a, u32 alen, const u8 *b, u32 blen);
/* A key for messages (LPM: /plen:data); rotating per-thread buffers. */
const char *ksim_bpf_keystr(unsigned int kind, const u8 *key, u32 klen);

int ksim_bpf_full_error(unsigned int kind);
/* What an update must return for a valid key the model holds (@present) or not. */
int ksim_bpf_update_expect(unsigned int kind, bool present, u64 flags, unsigned int n,
			   unsigned int max);
/* LRU: an update of a present key that returned what an absent key gets (self-eviction). */
bool ksim_bpf_update_lru_self_evicted(unsigned int kind, bool present, u64 flags, int err);
/*
 * What a command may return when a lock failed in it, besides its normal
 * result, always with no change to the map's keys (LRU maps: except
 * evictions, which any update may do): the lock's -EDEADLK/-ETIMEDOUT;
 * preallocated hash updates -E2BIG (pcpu_freelist_pop() skips a list whose
 * lock fails and may find none); LRU updates -ENOMEM (bpf_lru_pop_free()
 * gives up when a list lock fails); queues and stacks -EBUSY (7.x).
 */
bool ksim_bpf_lock_error_ok(const struct bpf_map *map, unsigned int kind, bool update, int err);
/*
 * Values read back equal values written, on the bytes that are the value:
 * per-CPU maps lay out round_up(value_size, 8) bytes per CPU, and the
 * padding after value_size is not part of it (6.x updates copy it, 7.x do
 * not and read it back as the zeroes the area started with).
 */
bool ksim_bpf_value_eq(const struct bpf_map *map, const void *a, const void *b);

/* ---- the model of one map's contents ---- */

struct ksim_bpf_ment {
	u32 klen;
	/* as last written (LPM: bits past the prefix too); aligned as a program's stack key */
	u8 key[KSIM_BPF_MODEL_KMAX] __aligned(8);
	u8 val[KSIM_BPF_MODEL_VMAX];
};

struct ksim_bpf_model {
	const struct ksim_bpf_variant *v;
	struct bpf_map *map;
	unsigned int kind;
	u32 max;		/* max_entries */
	u32 vsize;		/* bytes a lookup copies (per-CPU: all CPUs) */
	u32 n, cap;
	struct ksim_bpf_ment *e;
	/* map_mem_usage() as last judged: at @mu_n keys, @mu; per key (0: not known yet) */
	u32 mu_n;
	u64 mu, mu_per_key;
};

/*
 * An empty model of @map, room for @cap keys.  @m starts zeroed; a model
 * initialised again keeps its memory (fuzz iterations: no allocation).
 */
void ksim_bpf_model_init(struct ksim_bpf_model *m, const struct ksim_bpf_variant *v,
			 struct bpf_map *map, u32 cap);
void ksim_bpf_model_fini(struct ksim_bpf_model *m);

/*
 * The errno the driver or the map gives for a malformed key, else 0:
 * dynptr keys of 0 or more than map_extra bytes (-EINVAL, every command);
 * LPM prefixlen > max_prefixlen (-EINVAL for update/delete, @write; a
 * lookup finds nothing and get_next_key restarts).
 */
int ksim_bpf_model_key_error(const struct ksim_bpf_model *m, const u8 *key, u32 klen, bool write);
/* The element @key names, or -1. */
int ksim_bpf_model_find(const struct ksim_bpf_model *m, const u8 *key, u32 klen);
/* What a lookup of @key finds (LPM: the longest covering prefix), or -1. */
int ksim_bpf_model_lookup(const struct ksim_bpf_model *m, const u8 *key, u32 klen);
/* What an update of @key with @flags must return (before LRU self-eviction). */
int ksim_bpf_model_update_expect(const struct ksim_bpf_model *m, const u8 *key, u32 klen,
				 u64 flags);
/*
 * 7.x's per-CPU flags of a syscall update (@update) or lookup: BPF_F_CPU
 * (one CPU's value, the CPU number in the upper 32 bits) and
 * BPF_F_ALL_CPUS (update only: one value for every CPU), as uapi bpf.h
 * documents them.  Neither set: 1, the flags are judged as before.  Else the
 * error the command must return before the key is looked at (-EINVAL: not a
 * per-CPU map, both flags, ALL_CPUS on a lookup or with NOEXIST/EXIST, which
 * the kernel refuses whole; -ERANGE: no such CPU), or 0 with *@rest the
 * update's BPF_ANY/NOEXIST/EXIST, which apply as without the flag.
 */
int ksim_bpf_model_cpu_flags(const struct ksim_bpf_model *m, u64 flags, bool update, u64 *rest);
/* What a delete of @key must return (arrays: -EINVAL, nothing deleted). */
int ksim_bpf_model_delete_expect(const struct ksim_bpf_model *m, const u8 *key, u32 klen);
/* After a successful update: the element (new or replaced) with @val; its index. */
int ksim_bpf_model_put(struct ksim_bpf_model *m, const u8 *key, u32 klen, const void *val);
/*
 * After a successful update of one CPU's value of a per-CPU map (a
 * program's update on @cpu; 7.x's BPF_F_CPU from user space): @got is the
 * whole value the map returns now.  That CPU's is @val; the others keep
 * theirs, or read zero for a new element, or, on an LRU map, when the
 * update evicted the very element it was updating and made it anew (the
 * LRU pops a free node before it looks the key up).  Stores what the map
 * holds; returns a verdict, or NULL.
 */
const char *ksim_bpf_model_put_one_cpu(struct ksim_bpf_model *m, const u8 *key, u32 klen,
				       u32 cpu, const void *val, const void *got);
/* After a successful BPF_F_ALL_CPUS update (7.x): @val, one value, on every CPU. */
void ksim_bpf_model_put_all_cpus(struct ksim_bpf_model *m, const u8 *key, u32 klen, const void *val);
void ksim_bpf_model_del(struct ksim_bpf_model *m, int i);
/* Bloom filters: the value added equal to @val, or -1. */
int ksim_bpf_model_find_value(const struct ksim_bpf_model *m, const void *val);
/* Queues and stacks: a pop (lookup_and_delete) that returned @err and @got; the model pops too. */
const char *ksim_bpf_model_check_pop(struct ksim_bpf_model *m, int err, const void *got);

/* LRU maps: drop the keys the map evicted; @must (if set) may not be one of them. */
const char *ksim_bpf_model_lru_reconcile(struct ksim_bpf_model *m, const u8 *must, u32 must_len);
/* A lookup of @key that returned @err and the value @got. */
const char *ksim_bpf_model_check_lookup(const struct ksim_bpf_model *m, const u8 *key, u32 klen,
					int err, const void *got);
/* The same for a syscall lookup with @flags (7.x: BPF_F_CPU returns that CPU's value). */
const char *ksim_bpf_model_check_lookup_flags(const struct ksim_bpf_model *m, const u8 *key,
					      u32 klen, u64 flags, int err, const void *got);
/*
 * get_next_key(@key) (NULL: the first key) that returned @err and
 * @next/@nlen, against the variant's contract.  An unordered map restarting
 * from an absent key must give what get_next_key(NULL) gives now (asked).
 */
const char *ksim_bpf_model_check_next(const struct ksim_bpf_model *m, const u8 *key, u32 klen,
				      int err, const u8 *next, u32 nlen);
/* The same two asked of the model's map now: lookup(@key), get_next_key(@key). */
const char *ksim_bpf_model_lookup_on_map(const struct ksim_bpf_model *m, const u8 *key, u32 klen);
const char *ksim_bpf_model_next_on_map(const struct ksim_bpf_model *m, const u8 *key, u32 klen);
/*
 * A full get_next_key walk from the start: every step as
 * ksim_bpf_model_check_next() says, every model key exactly once, nothing
 * else.  *@errp: what ended it (-ENOENT; -ENOMEM, from LPM's walk stack,
 * is left to the caller to judge and ends the walk without a verdict).
 */
const char *ksim_bpf_model_walk(const struct ksim_bpf_model *m, int *errp);
/*
 * A full batch walk (ksim_bpf_map_lookup_batch(), @del: and delete) in
 * calls of @chunk entries (doubled after an -ENOSPC, as user space must):
 * every model key exactly once, with the model's value, nothing else, the
 * last call -ENOENT; with @del the keys leave the model and the map is
 * empty after.  A call refused by a failed bucket lock (or an injected
 * allocation failure) returns what it copied before and where it stopped,
 * and the walk goes on from there.  *@errp: -ENOTSUPP for a map without
 * batch ops (no verdict).
 */
const char *ksim_bpf_model_batch_walk(struct ksim_bpf_model *m, bool del, u32 chunk, int *errp);

/*
 * The map's memory usage (map_mem_usage(), bpf_map_show_fdinfo()'s
 * "memlock"), hash maps: a preallocated map's never changes; an
 * allocating map's is affine in the number of keys (hashtab.c counts its
 * elements: a count drifting from the model shows here, before the map
 * looks full too early).  No verdict where the tree has no such op.
 */
const char *ksim_bpf_model_mem_usage(struct ksim_bpf_model *m);

/*
 * Where a preallocated hash map's elements are (ksim_htab_pool(), counted
 * through hashtab.c's own structures at a quiescent point): @total
 * preallocated (max_entries, plus one extra element per CPU where the map
 * keeps them), @in_map in the buckets, @free on free lists (the per-CPU
 * freelist, or the LRU's free and local free lists), @extra held as a
 * CPU's extra element; LRU maps (@lru): @on_lists on any LRU list,
 * @pending_free of them out of the map, waiting to be reclaimed (7.2+).
 */
struct ksim_htab_pool {
	u32 total, in_map, free, extra, on_lists, pending_free;
	bool lru;
	/* maps without preallocation: objects of htab->ma (and pcpu_ma) allocated now */
	bool mem_alloc, percpu;
	unsigned long ma_live, pcpu_ma_live;
	u32 nodes;	/* LPM trie: every node, intermediate ones too (in_map: the keys) */
	u32 nelems;	/* RHASH: the rhashtable's own count (ht->nelems) */
	bool rhash;
};
bool ksim_htab_pool(struct bpf_map *map, struct ksim_htab_pool *p);
bool ksim_lpm_pool(struct bpf_map *map, struct ksim_htab_pool *p);	/* kernel/lpm_trie.c */
/*
 * A preallocated hash map's pool is conserved: every element in the map, on
 * exactly one free list or a CPU's extra element; on an LRU map every node
 * on one list.  An update refused after it took an element (a failed bucket
 * lock, an injected failure) must give it back.  A hash map without
 * preallocation holds exactly the objects its bpf_mem_alloc caches have
 * handed out and not taken back (elements; per-CPU values); so do an RHASH
 * map (the elements in its tables, which its ht->nelems counts too) and an
 * LPM trie whose nodes come from one (every node reachable from the root).
 * No verdict for other maps.
 */
const char *ksim_bpf_model_pool(const struct ksim_bpf_model *m);

/* ---- what a BPF program sees (its helpers, under RCU, on one CPU) ---- */

/*
 * bpf_map_lookup_elem() (@which < 0) or bpf_map_lookup_percpu_elem(@which)
 * by a program on CPU @on_cpu: a pointer to the model's value (per-CPU
 * maps: that CPU's), NULL when the model has none (and for another CPU on
 * a map that is not per-CPU, or a CPU past nr_cpu_ids).
 */
const char *ksim_bpf_model_prog_lookup(const struct ksim_bpf_model *m, const u8 *key, u32 klen,
				       u32 on_cpu, int which);
/*
 * bpf_for_each_map_elem() by a program on CPU @cpu: every model key exactly
 * once with its value (per-CPU maps: that CPU's), the callback stopping the
 * walk after @stop elements (0: never), writing a new value into the k-th
 * visited element when bit k % 8 of @write_mask is set, deleting it when bit
 * k % 8 of @del_mask is (a delete refused by a failed lock keeps it); the
 * return is the number visited; flags other than 0: -EINVAL, no callback.
 * The model follows the writes and deletes.  *@retp: what the op returned
 * (-ENOTSUPP for a map without it: no verdict).
 */
const char *ksim_bpf_model_for_each(struct ksim_bpf_model *m, u32 cpu, u32 stop, u8 del_mask,
				    u8 write_mask, u64 flags, long *retp);
/*
 * A map element iterator read to the end (ksim_bpf_map_iter(), @chunk
 * objects per read()): every model key exactly once with the model's value
 * (per-CPU: every CPU's), seq_num counting the objects shown, one session,
 * then exactly one final call without an object; the program asks for the
 * k-th visited element again when bit k % 8 of @retry_mask is set.  *@errp:
 * what the read returned (-ENOTSUPP for a map without an iterator: no
 * verdict; -ENOMEM is accepted only with fault injection armed).
 */
const char *ksim_bpf_model_iter(struct ksim_bpf_model *m, u32 chunk, u8 retry_mask, int *errp);

#endif
