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
 * For dynptr-key maps (qp-tries: BPF_F_DYNPTR_KEY, or the key BTF type
 * KSIM_BPF_BTF_ID_DYNPTR) the driver wraps the bytes in a
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
#define KSIM_BPF_KIND_DYNPTR	0x10	/* variable-length dynptr keys */
#define KSIM_BPF_KIND_KERNEL	0x20	/* code from the kernel tree (vs ours) */
/* The map finds its dynptr keys from the key's BTF type (the series' v2),
 * not from BPF_F_DYNPTR_KEY: the driver gives it that key type. */
#define KSIM_BPF_KIND_DYNPTR_BTF 0x40
/* A stand-in for a map the tree may lack (our qp-trie with the series'
 * get_next_key): tests and stress only, not indexed by fuzz inputs. */
#define KSIM_BPF_KIND_STAND_IN	0x80
/* get_next_key contract (qptrie/include/qptrie/model.h judges it): from a
 * present key, the next in the map's documented order (LPM: postorder;
 * qp-tries: bytes).  Without it: no order. */
#define KSIM_BPF_KIND_ORDERED	0x100
/* ... and from an absent key too, the next key after it in that order.
 * Without it an absent key restarts the walk at the first key. */
#define KSIM_BPF_KIND_SUCC_ANY	0x200
/*
 * 7.x's BPF_MAP_TYPE_RHASH (hashtab.c's rhtab_*, on lib/rhashtable.c): a
 * hash map whose batch cursor is the next key to return (key_size bytes,
 * not a bucket number), and whose bpf_for_each_map_elem() walk ends after a
 * callback deleted the element it was given (rhashtable_next_key() of a
 * deleted key: -ENOENT, which bpf_each_rhash_elem() takes for the end).
 */
#define KSIM_BPF_KIND_RHASH	0x400
/*
 * arraymap.c's arrays: u32 index keys, every index below max_entries
 * present from creation (zeroed values), none deleted (-EINVAL); an
 * update past the end -E2BIG, BPF_NOEXIST -EEXIST; get_next_key in index
 * order, an absent key restarting at index 0 (with KSIM_BPF_KIND_ORDERED).
 */
#define KSIM_BPF_KIND_ARRAY	0x800
/*
 * queue_stack_maps.c: no keys (key_size 0).  An update pushes (BPF_ANY, or
 * BPF_EXIST: a full map drops its oldest element instead of -E2BIG), a
 * lookup peeks, lookup_and_delete pops (-ENOENT when empty): the oldest
 * element (QUEUE) or the newest (STACK).  Delete and get_next_key -EINVAL.
 */
#define KSIM_BPF_KIND_QUEUE	0x1000
#define KSIM_BPF_KIND_STACK	0x2000
/*
 * bloom_filter.c: no keys; an update (BPF_ANY only) adds its value, a
 * lookup of a value finds every value added (no false negatives) and may
 * find others (false positives).  No delete, pop or get_next_key.
 */
#define KSIM_BPF_KIND_BLOOM	0x4000
#define KSIM_BPF_KIND_KEYLESS	(KSIM_BPF_KIND_QUEUE | KSIM_BPF_KIND_STACK | KSIM_BPF_KIND_BLOOM)

/*
 * The key type id the driver gives a KSIM_BPF_KIND_DYNPTR_BTF map (no BTF
 * here: the id stands for "struct bpf_dynptr").
 */
#define KSIM_BPF_BTF_ID_DYNPTR	0x6b73696d

/*
 * Lock failures (fault engine class lock, ksim/fault.h) in the calling
 * thread's last map command (lookup, update, delete, lookup_and_delete):
 *   - trees with rqspinlock: res_spin_lock() failures injected into it (the
 *     command may then fail: ksim_bpf_lock_error_ok(), qptrie/model.h);
 *   - trees without (6.1, 6.12): nested programs run.  When the engine fails
 *     the site htab_lock_bucket (the raw_spin_lock of the command's own
 *     bucket), the driver runs, with the bucket lock held, what a tracing
 *     program re-entering the map on this CPU would: a delete of the same
 *     key.  The kernel's per-CPU map_locked check must refuse it with -EBUSY
 *     and change nothing; the command itself goes on.
 */
struct ksim_bpf_lockfail {
	unsigned long injected;		/* res_spin_lock failures injected */
	unsigned long nested;		/* nested programs run */
	unsigned long nested_not_busy;	/* ... that did not return -EBUSY */
	int nested_err;			/* the last nested program's return */
};
void ksim_bpf_last_lockfail(struct ksim_bpf_lockfail *out);
/*
 * Deferred work items that ran at the end of this thread's last map
 * command (an RHASH resize reorders the table after the command's result
 * was taken; counted process-wide, so exact only with one thread).
 */
unsigned long ksim_bpf_cmd_work_runs(void);

/*
 * Map variants register themselves: the code that builds a map (its
 * component: qptrie/variants.c) hands over a table whose last entry has no
 * name, from an initcall.  Variants are numbered in registration order.
 */
void ksim_bpf_register_variants(const struct ksim_bpf_variant *table);
const struct ksim_bpf_variant *ksim_bpf_variant(unsigned int i);	/* NULL past the last */
const struct ksim_bpf_variant *ksim_bpf_variant_find(const char *name);
/*
 * The first variant whose ops @has() is not what the list @names says (a
 * test of one op lists the variants it covers: a tree giving another map
 * that op fails it until it is covered); NULL when they agree.
 */
const struct ksim_bpf_variant *ksim_bpf_variants_differ(bool (*has)(const struct bpf_map_ops *ops),
							 const char *const *names, size_t n);

/*
 * bpf(2)'s map types (the kernel's bpf_map_types[], from bpf_types.h): the
 * code that builds a map type registers its ops for BPF_MAP_CREATE, from an
 * initcall (qptrie/variants.c), a table ending with NULL ops.  A type
 * nobody registered is -EINVAL, as one the kernel was built without.
 */
struct ksim_bpf_map_type {
	enum bpf_map_type type;
	const struct bpf_map_ops *ops;
};
void ksim_bpf_register_map_types(const struct ksim_bpf_map_type *table);
const struct bpf_map_ops *ksim_bpf_map_type_ops(u32 type);

/*
 * A special field of the map value, as BTF would describe it: a
 * BPF_SPIN_LOCK (struct bpf_spin_lock), BPF_TIMER (struct bpf_timer) or
 * BPF_KPTR_REF (a referenced kptr: 8 bytes; @dtor releases the object, as
 * the kernel type's registered destructor kfunc).  Fields must not overlap.
 */
struct ksim_bpf_field {
	enum btf_field_type type;
	u32 offset;
	btf_dtor_kfunc_t dtor;
};
#define KSIM_BPF_MAX_FIELDS	11	/* BTF_FIELDS_MAX */

struct ksim_bpf_map_attr {
	u32 key_size;		/* dynptr maps: 0 (key size is map_extra) */
	u32 value_size;
	u32 max_entries;
	u32 map_flags;
	u64 map_extra;
	int numa_node;
	int inner_map_fd;	/* map-in-map: ksim_bpf_map_fd() of the inner map template */
	/*
	 * Special fields of the value (none: nr_fields 0).  The driver builds
	 * map->record as btf_parse_fields() would and runs what the syscall's
	 * map_check_btf() does (which map types take which fields, then
	 * ops->map_check_btf()); the map is freed again on error.
	 */
	const struct ksim_bpf_field *fields;
	u32 nr_fields;
};

/* The key shape: @key_size bytes, or for dynptr maps 1..@maxlen bytes (map_extra). */
static inline void ksim_bpf_attr_set_key(struct ksim_bpf_map_attr *a, const struct ksim_bpf_variant *v,
					 u32 key_size, u32 maxlen)
{
	if (v->kind & KSIM_BPF_KIND_DYNPTR) {
		a->key_size = sizeof(struct bpf_dynptr);
		a->map_extra = maxlen;
	} else {
		a->key_size = key_size;
	}
}

/* map_create(): alloc_check, alloc, then the syscall's initialisation. */
struct bpf_map *ksim_bpf_map_create(const struct ksim_bpf_variant *v,
				    const struct ksim_bpf_map_attr *a, int *err);
/* The same from a bpf(2) attr (@a: special fields, NULL for none). */
struct bpf_map *ksim_bpf_map_create_attr(const struct bpf_map_ops *ops, union bpf_attr *attr,
					 const struct ksim_bpf_map_attr *a, int *err);
/* Closing the map's fd: the user's reference (the last bpf_map_put(): ops->map_free()). */
void ksim_bpf_map_free(struct bpf_map *map);
/*
 * Map fds (shim/kernel/bpf/map_fd.c): the fd of @map, open until
 * ksim_bpf_map_free() closes it (then a bad fd), or -EMFILE.  Map-in-map:
 * an inner map's fd is the value given to ksim_bpf_map_update() of a
 * BPF_MAP_TYPE_HASH_OF_MAPS map, whose ksim_bpf_map_lookup() returns the
 * inner map's id (u32, map->id: from 1, 0 once the map's last reference is
 * gone) and whose ksim_bpf_map_lookup_ptr() the inner map itself.
 */
int ksim_bpf_map_fd(struct bpf_map *map);
/* The driver's: an id at creation, the fd closed at ksim_bpf_map_free(). */
void ksim_bpf_map_new_id(struct bpf_map *map);
void ksim_bpf_map_free_id(struct bpf_map *map);
void ksim_bpf_map_close_fd(struct bpf_map *map);
/*
 * bpf(2)'s fds (map_fd.c): ksim_bpf_map_new_fd() gives the caller's user
 * reference of @map to a new fd opened with @flags (O_RDONLY, O_WRONLY,
 * O_RDWR: the mode map_get_sys_perms() reads); ksim_bpf_close() closes a
 * map fd (-EBADF: not one), the map's reference going with the file's last
 * user (fdget()/fdput()).  ksim_bpf_map_get_by_id(): a user reference of
 * the map with that id, or -ENOENT; ksim_bpf_map_next_id(): the next id
 * above @start.
 */
int ksim_bpf_map_new_fd(struct bpf_map *map, int flags);
int ksim_bpf_close(int fd);
struct bpf_map *ksim_bpf_map_get_by_id(u32 id);
int ksim_bpf_map_next_id(u32 start, u32 *next);

u32 ksim_bpf_value_size(const struct bpf_map *map);
/* kernel/bpf/syscall.c's bpf_map_value_size(): 7.x's BPF_F_CPU/BPF_F_ALL_CPUS take one value */
u32 ksim_bpf_value_size_flags(const struct bpf_map *map, u64 flags);
/* The flag checks a lookup (@update false) or update command makes before the key: 0 or -EINVAL, -ERANGE */
int ksim_bpf_map_check_flags(struct bpf_map *map, u64 flags, bool update);
/* The end of a map command: the work its map deferred runs now (returns @err). */
int ksim_bpf_cmd_done(int err);
/* syscall.c's maybe_wait_bpf_programs(): a grace period after an outer map's change */
void ksim_bpf_maybe_wait_programs(struct bpf_map *map);
int ksim_bpf_map_lookup(struct bpf_map *map, const void *key, u32 key_len,
			void *value, u64 flags);
int ksim_bpf_map_update(struct bpf_map *map, const void *key, u32 key_len,
			const void *value, u64 flags);
/* The same through the map's file (bpf(2): prog arrays read it; NULL: none) */
int ksim_bpf_map_update_file(struct bpf_map *map, struct file *file, const void *key, u32 key_len,
			     const void *value, u64 flags);
int ksim_bpf_map_delete(struct bpf_map *map, const void *key, u32 key_len);
int ksim_bpf_map_lookup_and_delete(struct bpf_map *map, const void *key, u32 key_len,
				   void *value, u64 flags);
/* key == NULL: the first key.  *next_len: in: buffer size, out: key size. */
int ksim_bpf_map_get_next_key(struct bpf_map *map, const void *key, u32 key_len,
			      void *next_key, u32 *next_len);
/*
 * BPF_MAP_LOOKUP_BATCH / BPF_MAP_LOOKUP_AND_DELETE_BATCH (@del): from the
 * position *@in_batch (NULL: the start), at most *@count entries into
 * @keys/@values (per-CPU values whole); *@count gets the number returned,
 * *@out_batch where the next call starts (a u32 bucket number; RHASH maps:
 * the next key to return, key_size bytes, written only when one is left).  -ENOENT: the walk is over (the
 * entries returned are still valid); -ENOSPC: the next bucket alone holds
 * more than *@count (none returned).  -ENOTSUPP for maps without the op
 * (the shim's generic_map_lookup_batch() is a stub).
 */
int ksim_bpf_map_lookup_batch(struct bpf_map *map, bool del, const void *in_batch, void *out_batch,
			      void *keys, void *values, u32 *count, u64 elem_flags);
/* What a BPF program's bpf_map_lookup_elem() returns (pointer into the
 * map, valid under rcu_read_lock only); caller holds rcu_read_lock(). */
void *ksim_bpf_map_lookup_ptr(struct bpf_map *map, const void *key, u32 key_len);
/* bpf_map_lookup_percpu_elem(): @cpu's value (NULL: absent, not per-CPU, cpu >= nr_cpu_ids) */
void *ksim_bpf_prog_lookup_percpu(struct bpf_map *map, const void *key, u32 key_len, u32 cpu);
/* bpf_for_each_map_elem(): the number of elements visited, -EINVAL, -ENOTSUPP (no such op) */
long ksim_bpf_prog_for_each(struct bpf_map *map, bpf_callback_t fn, void *ctx, u64 flags);
/*
 * Reading a map element iterator (a bpf_iter link on @map, read through its
 * fd; shim/kernel/bpf/bpf_iter.c): @fn runs as the attached program for
 * each element (ctx->key, ctx->value: per-CPU maps every CPU's value) and
 * once more with both NULL at the end; @chunk objects per read(), each
 * read resuming where the last stopped; @fn returning 1 asks for the
 * object again (a read failing with -EAGAIN is read again).  0 at the end,
 * -ENOTSUPP for a map without an iterator, -ELOOP for one that goes on past
 * four times the map's capacity, else the error.
 */
int ksim_bpf_map_iter(struct bpf_map *map, int (*fn)(struct bpf_iter__bpf_map_elem *ctx, void *arg),
		      void *arg, u32 chunk);
/* bpf_map_memory_usage() (the fdinfo "memlock"): the map's own estimate, 0 without the op */
u64 ksim_bpf_map_mem_usage(const struct bpf_map *map);
/* The program helpers bpf_map_update_elem()/bpf_map_delete_elem(): straight
 * to the ops, no value copy; caller holds rcu_read_lock(). */
int ksim_bpf_prog_update(struct bpf_map *map, const void *key, u32 key_len,
			 void *value, u64 flags);
int ksim_bpf_prog_delete(struct bpf_map *map, const void *key, u32 key_len);

/*
 * A program's bpf_map_lookup_elem() as the verifier inlines it: the
 * instructions ops->map_gen_lookup() writes, run by the shim's interpreter
 * (shim/kernel/bpf/gen_lookup.c) with r1 = @map, r2 = @key; *@ret gets r0.
 * 0, or -ENOTSUPP (no map_gen_lookup), -EOPNOTSUPP (the generator declined:
 * the verifier keeps the helper call), -EFAULT (a count the verifier
 * refuses), -EINVAL (an instruction the interpreter does not know or may
 * not run); then ksim_bpf_interp_error() says which.  Caller holds
 * rcu_read_lock(), as a program does, and is on the CPU it wants.
 */
int ksim_bpf_prog_gen_lookup(struct bpf_map *map, void *key, void **ret);
const char *ksim_bpf_interp_error(void);
/* The interpreter itself: @cnt instructions on @regs (r0..r10). */
int ksim_bpf_interp(const struct bpf_insn *insn, int cnt, u64 regs[MAX_BPF_REG]);
/*
 * The map's bpffs file on @key (ops->map_seq_show_elem(); seq_show.c says
 * how keys and values print without BTF): a malloc'd string (free()),
 * empty when the key is absent; NULL without the op or on a wrong key length.
 */
char *ksim_bpf_map_seq_show_elem(struct bpf_map *map, const void *key, u32 key_len);

/*
 * Programs' use of special fields (shim/kernel/bpf/btf_record.c):
 * bpf_timer_init() on the timer field of @value (a pointer into @map's
 * element, under rcu_read_lock): 0, -EPERM once the map has no user
 * references, -EBUSY when already initialised.  The timer is an object the
 * shim allocates; ksim_bpf_timers_live() counts those not yet freed by
 * bpf_timer_cancel_and_free().  ksim_bpf_spin_lock_last(): the lock the
 * calling thread last took with the bpf_spin_lock emulation, and how many
 * it took in all.
 */
int ksim_bpf_prog_timer_init(struct bpf_map *map, void *value);
long ksim_bpf_timers_live(void);
void *ksim_bpf_spin_lock_last(unsigned long *count);

#endif
