/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF map driver: what the bpf(2) syscall's map commands do in
 * kernel/bpf/syscall.c (map_create, map_lookup_elem, map_update_elem,
 * map_delete_elem, map_get_next_key, map_lookup_and_delete_elem, the final
 * map put), driving any map only through its struct bpf_map_ops.
 * Implementation: shim/kernel/bpf/syscall.c.  Used by qptrie/ tests and
 * benchmarks, and meant for stress/ and fuzz/.
 *
 * Keys are byte strings.  For fixed-key maps key_len must equal key_size.
 * For BPF_F_DYNPTR_KEY maps (qp-trie) the driver wraps the bytes in a
 * struct bpf_dynptr_kern as the series' syscall layer does; get_next_key
 * hands the map a dynptr of map_extra bytes and returns the size the map
 * set.  Values are value_size bytes, or round_up(value_size, 8) * nr_cpus
 * for per-CPU maps (ksim_bpf_value_size()).
 *
 * Every call returns 0 or a negative errno, as the syscall would.
 */
#ifndef _KSIM_BPF_H
#define _KSIM_BPF_H

#include <linux/bpf.h>

struct ksim_bpf_variant {
	const char *name;		/* "hash", "lru_hash", "lpm_trie", "qp_trie_ref", ... */
	const struct bpf_map_ops *ops;
	enum bpf_map_type map_type;
	u32 map_flags;			/* added to the caller's */
	unsigned int kind;		/* KSIM_BPF_KIND_* */
};
#define KSIM_BPF_KIND_HASH	0x1	/* exact-match, unordered get_next_key */
#define KSIM_BPF_KIND_LRU	0x2	/* evicts instead of -E2BIG when full */
#define KSIM_BPF_KIND_PERCPU	0x4	/* per-CPU values */
#define KSIM_BPF_KIND_LPM	0x8	/* longest-prefix match, bpf_lpm_trie_key_u8 keys */
#define KSIM_BPF_KIND_DYNPTR	0x10	/* variable-length dynptr keys, ordered walk */
#define KSIM_BPF_KIND_KERNEL	0x20	/* code from the kernel tree (vs ours) */

/*
 * The update semantics every reference model shares (conformance tests, fuzz,
 * stress, fault sweeps), as kernel/bpf/syscall.c and the maps define them.
 * ksim_bpf_update_expect(): what an update must return for a valid key the
 * model holds (@present) or not, with @n of @max entries in use.
 */
static inline int ksim_bpf_full_error(unsigned int kind)
{
	return kind & KSIM_BPF_KIND_HASH ? -E2BIG : -ENOSPC;
}

static inline int ksim_bpf_update_expect(unsigned int kind, bool present, u64 flags,
					 unsigned int n, unsigned int max)
{
	if (flags > BPF_EXIST)
		return -EINVAL;
	if (present)
		return flags == BPF_NOEXIST ? -EEXIST : 0;
	if (flags == BPF_EXIST)
		return -ENOENT;
	if (n >= max && !(kind & KSIM_BPF_KIND_LRU))
		return ksim_bpf_full_error(kind);
	return 0;
}

/*
 * Kernel LRU maps pop a free node before they look the key up, and that may
 * evict the very key being updated: the update then returns what it would
 * for an absent key.  True when @err is that case.
 */
static inline bool ksim_bpf_update_lru_self_evicted(unsigned int kind, bool present, u64 flags,
						    int err)
{
	return present && (kind & KSIM_BPF_KIND_LRU) && flags <= BPF_EXIST &&
	       err == (flags == BPF_EXIST ? -ENOENT : 0);
}

/*
 * Lock failures (fault engine class lock, ksim/fault.h) in the calling
 * thread's last map command (lookup, update, delete, lookup_and_delete):
 *   - trees with rqspinlock: res_spin_lock() failures injected into it (the
 *     command may then fail, see ksim_bpf_lock_error_ok());
 *   - trees without (6.1, 6.12): nested programs run.  When the engine fails
 *     the site htab_lock_bucket (the raw_spin_lock of the command's own
 *     bucket), the driver runs, with the bucket lock held, what a tracing
 *     program re-entering the map on this CPU would: a delete of the same
 *     key.  The kernel's per-CPU map_locked check must refuse it with -EBUSY
 *     and change nothing; the command itself goes on.
 */
/*
 * Values read back equal values written, on the bytes that are the value:
 * per-CPU maps lay out round_up(value_size, 8) bytes per CPU, and the
 * padding after value_size is not part of it (6.x updates copy it, 7.x do
 * not and read it back as the zeroes the area started with).
 */
static inline bool ksim_bpf_value_eq(const struct bpf_map *map, const void *a, const void *b)
{
	u32 vs = map->value_size, stride = round_up(vs, 8);

	if (map->map_type != BPF_MAP_TYPE_PERCPU_HASH &&
	    map->map_type != BPF_MAP_TYPE_LRU_PERCPU_HASH)
		return !memcmp(a, b, vs);
	for (u32 cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (memcmp((const u8 *)a + cpu * stride, (const u8 *)b + cpu * stride, vs))
			return false;
	return true;
}

/*
 * Restart the maps' get_random_*() (hash seeds) from @seed: runs that must
 * repeat exactly (fault sweeps) get the same bucket layout each time.
 */
void ksim_bpf_random_reseed(u64 seed);

struct ksim_bpf_lockfail {
	unsigned long injected;		/* res_spin_lock failures injected */
	unsigned long nested;		/* nested programs run */
	unsigned long nested_not_busy;	/* ... that did not return -EBUSY */
	int nested_err;			/* the last nested program's return */
};
void ksim_bpf_last_lockfail(struct ksim_bpf_lockfail *out);

/*
 * What a command may return when a lock failed in it, besides its normal
 * result, always with no change to the map's keys (LRU maps: except
 * evictions, which any update may do): the lock's -EDEADLK/-ETIMEDOUT;
 * preallocated hash updates -E2BIG (pcpu_freelist_pop() skips a list whose
 * lock fails and may find none); LRU updates -ENOMEM (bpf_lru_pop_free()
 * gives up when a list lock fails).
 */
static inline bool ksim_bpf_lock_error_ok(const struct bpf_map *map, unsigned int kind,
					  bool update, int err)
{
	if (err == -EDEADLK || err == -ETIMEDOUT)
		return true;
	if (!update || !(kind & KSIM_BPF_KIND_HASH))
		return false;
	if (kind & KSIM_BPF_KIND_LRU)
		return err == -ENOMEM;
	return err == -E2BIG && !(map->map_flags & BPF_F_NO_PREALLOC);
}

/* The variants built into this binary (qptrie/variants.c), NULL-terminated. */
extern const struct ksim_bpf_variant *const ksim_bpf_variants[];
const struct ksim_bpf_variant *ksim_bpf_variant_find(const char *name);

struct ksim_bpf_map_attr {
	u32 key_size;		/* dynptr maps: 0 (key size is map_extra) */
	u32 value_size;
	u32 max_entries;
	u32 map_flags;
	u64 map_extra;
	int numa_node;
};

/* map_create(): alloc_check, alloc, then the syscall's initialisation. */
struct bpf_map *ksim_bpf_map_create(const struct ksim_bpf_variant *v,
				    const struct ksim_bpf_map_attr *a, int *err);
/* The last bpf_map_put(): ops->map_free(). */
void ksim_bpf_map_free(struct bpf_map *map);

u32 ksim_bpf_value_size(const struct bpf_map *map);
int ksim_bpf_map_lookup(struct bpf_map *map, const void *key, u32 key_len,
			void *value, u64 flags);
int ksim_bpf_map_update(struct bpf_map *map, const void *key, u32 key_len,
			const void *value, u64 flags);
int ksim_bpf_map_delete(struct bpf_map *map, const void *key, u32 key_len);
int ksim_bpf_map_lookup_and_delete(struct bpf_map *map, const void *key, u32 key_len,
				   void *value, u64 flags);
/* key == NULL: the first key.  *next_len: in: buffer size, out: key size. */
int ksim_bpf_map_get_next_key(struct bpf_map *map, const void *key, u32 key_len,
			      void *next_key, u32 *next_len);
/* What a BPF program's bpf_map_lookup_elem() returns (pointer into the
 * map, valid under rcu_read_lock only); caller holds rcu_read_lock(). */
void *ksim_bpf_map_lookup_ptr(struct bpf_map *map, const void *key, u32 key_len);
/* The program helpers bpf_map_update_elem()/bpf_map_delete_elem(): straight
 * to the ops, no value copy; caller holds rcu_read_lock(). */
int ksim_bpf_prog_update(struct bpf_map *map, const void *key, u32 key_len,
			 void *value, u64 flags);
int ksim_bpf_prog_delete(struct bpf_map *map, const void *key, u32 key_len);

#endif
