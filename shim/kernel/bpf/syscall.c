// SPDX-License-Identifier: GPL-2.0
/*
 * The map half of kernel/bpf/syscall.c, rewritten for ksim: the helpers map
 * implementations call (bpf_map_area_alloc, bpf_map_init_from_attr,
 * bpf_map_kmalloc_node, ...) and a driver (ksim/bpf.h) doing what the
 * bpf(2) map commands do: flag checks, rcu_read_lock and instrumentation
 * around the ops, value copies through a buffer, -ENOENT for a missing
 * element.  Differences: file descriptors only for map-in-map (map_fd.c:
 * a map's fd is a handle for inner_map_fd and fd values), no BTF (special
 * fields of the value come from ksim_bpf_map_attr.fields: btf_record.c),
 * no generic batch commands
 * (generic_map_*_batch return -ENOTSUPP), programs only as C callbacks (the
 * verifier hooks return -ENOTSUPP; map iterators: bpf_iter.c), map_free
 * runs synchronously at the final put unless an outer map asked for a
 * grace period first (bpf_map_put()).
 */
#include <pthread.h>
#include <stdlib.h>

#include <linux/kernel.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/random.h>
#include <ksim/bpf.h>
#include <ksim/ksim.h>
#include <ksim/fault.h>
#include <ksim/asan.h>
#if KSIM_HAVE_RQSPINLOCK
#include <asm/rqspinlock.h>
#endif

DEFINE_PER_CPU(int, bpf_prog_active);

int ksim_bpf_map_check_btf(struct bpf_map *map, const struct ksim_bpf_map_attr *a);	/* btf_record.c */

/* ---- helpers kernel map code calls ---- */

void *bpf_map_area_alloc(u64 size, int numa_node)
{
	(void)numa_node;
	if (size >= SIZE_MAX)
		return NULL;
	/* kmalloc up to PAGE_SIZE << PAGE_ALLOC_COSTLY_ORDER, else vmalloc */
	if (size <= (4096 << 3)) {
		void *p = kmalloc(size, __GFP_NOWARN | __GFP_ZERO | GFP_USER | __GFP_NORETRY);

		if (p)
			return p;
	}
	return __vmalloc(size, __GFP_NOWARN | __GFP_ZERO | GFP_KERNEL | __GFP_RETRY_MAYFAIL);
}

void *bpf_map_area_mmapable_alloc(u64 size, int numa_node)
{
	return bpf_map_area_alloc(size, numa_node);
}

void bpf_map_area_free(void *area)
{
	kvfree(area);
}

void bpf_map_init_from_attr(struct bpf_map *map, union bpf_attr *attr)
{
	map->map_type = attr->map_type;
	map->key_size = attr->key_size;
	map->value_size = attr->value_size;
	map->max_entries = attr->max_entries;
	map->map_flags = attr->map_flags & ~(BPF_F_RDONLY | BPF_F_WRONLY);
	map->numa_node = bpf_map_attr_numa_node(attr);
	map->map_extra = attr->map_extra;
}

#if !KSIM_HAVE_BPF_HTAB_OF_MAPS	/* else the tree's map_in_map.c */
bool bpf_map_meta_equal(const struct bpf_map *meta0, const struct bpf_map *meta1)
{
	return meta0->map_type == meta1->map_type &&
		meta0->key_size == meta1->key_size &&
		meta0->value_size == meta1->value_size &&
		meta0->map_flags == meta1->map_flags &&
		meta0->max_entries == meta1->max_entries;
}
#endif

void *ksim_bpf_map_kmalloc_node(const struct bpf_map *map, size_t size, gfp_t flags,
				int node, KSIM_SITE_ARGS)
{
	(void)map; (void)node;
	return ksim_kmalloc(size, flags | __GFP_ACCOUNT, func, file, line);
}

void *ksim_bpf_map_kzalloc(const struct bpf_map *map, size_t size, gfp_t flags, KSIM_SITE_ARGS)
{
	(void)map;
	return ksim_kmalloc(size, flags | __GFP_ZERO | __GFP_ACCOUNT, func, file, line);
}

void *ksim_bpf_map_kvcalloc(struct bpf_map *map, size_t n, size_t size, gfp_t flags, KSIM_SITE_ARGS)
{
	(void)map;
	return ksim_kvmalloc_array(n, size, flags | __GFP_ZERO | __GFP_ACCOUNT, func, file, line);
}

void __percpu *ksim_bpf_map_alloc_percpu(const struct bpf_map *map, size_t size,
					 size_t align, gfp_t flags, KSIM_SITE_ARGS)
{
	(void)map;
	return ksim_alloc_percpu(size, align, flags | __GFP_ACCOUNT, func, file, line);
}

s64 bpf_map_sum_elem_count(const struct bpf_map *map)
{
	s64 sum = 0;
	int cpu;

	if (!map->elem_count)
		return 0;
	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(map->elem_count, cpu));
	return sum;
}

void bpf_map_inc(struct bpf_map *map)
{
	atomic64_inc(&map->refcnt);
}

void bpf_map_inc_with_uref(struct bpf_map *map)
{
	atomic64_inc(&map->refcnt);
	atomic64_inc(&map->usercnt);
}

/* bpf_map_free(): the record outlives map_free, which uses it */
static void bpf_map_free(struct bpf_map *map)
{
	struct btf_record *rec = map->record;

	map->ops->map_free(map);
	btf_record_free(rec);
}

static void map_free_deferred(struct work_struct *work)
{
	struct bpf_map *map = container_of(work, struct bpf_map, work);

	bpf_map_free(map);
}

/* bpf_map_free_rcu_gp(): map_free may sleep, so not in the RCU callback but in a work item */
static void map_free_rcu_gp(struct rcu_head *rcu)
{
	struct bpf_map *map = container_of(rcu, struct bpf_map, rcu);

	INIT_WORK(&map->work, map_free_deferred);
	schedule_work(&map->work);
}

/*
 * The kernel's bpf_map_put(): the id goes at once; the map is freed after a
 * grace period when map_fd_put_ptr() asked for one (an inner map a program
 * may still be using: RCU, or RCU tasks trace, which the shim maps onto
 * RCU), by a work item (ksim_run_pending_work(): the end of the next map
 * command); else now (the kernel's work item, run synchronously here).
 */
void bpf_map_put(struct bpf_map *map)
{
	if (atomic64_dec_and_test(&map->refcnt)) {
		ksim_bpf_map_free_id(map);
		WARN_ON_ONCE(atomic64_read(&map->sleepable_refcnt));
		if (READ_ONCE(map->free_after_mult_rcu_gp) || READ_ONCE(map->free_after_rcu_gp))
			call_rcu(&map->rcu, map_free_rcu_gp);
		else
			bpf_map_free(map);
	}
}

void bpf_map_put_with_uref(struct bpf_map *map)
{
	if (atomic64_dec_and_test(&map->usercnt) && map->ops->map_release_uref)
		map->ops->map_release_uref(map);
	bpf_map_put(map);
}

/*
 * ---- the tree's own: kernel/bpf/syscall.c's value paths and generic batches ----
 *
 * bpf_map_value_size(), maybe_wait_bpf_programs(), bpf_map_update_value(),
 * bpf_map_copy_value() and generic_map_{lookup,update,delete}_batch(),
 * extracted verbatim (shim/extract/bpf_syscall.txt): the driver below and
 * the bpf(2) layer (sys_bpf.c) hand keys and values to the maps through
 * them.  They name the functions of every map type the kernel has; the
 * types this build has no code for (offload, sockmap, struct_ops, cgroup
 * storage, stack trace, reuseport, prog and perf event arrays) are declared
 * here without prototypes (their signatures differ between trees) and weak:
 * nothing can create such a map (no ops), so the calls are never reached.
 * The ones a linked map file defines (arraymap.c's per-CPU and fd arrays)
 * resolve to it.
 */
#pragma weak bpf_map_offload_update_elem
#pragma weak bpf_map_offload_lookup_elem
#pragma weak bpf_map_offload_delete_elem
#pragma weak sock_map_update_elem_sys
#pragma weak bpf_fd_array_map_update_elem
#pragma weak bpf_fd_array_map_lookup_elem
#pragma weak bpf_percpu_array_update
#pragma weak bpf_percpu_array_copy
#pragma weak bpf_percpu_cgroup_storage_update
#pragma weak bpf_percpu_cgroup_storage_copy
#pragma weak bpf_fd_reuseport_array_update_elem
#pragma weak bpf_fd_reuseport_array_lookup_elem
#pragma weak bpf_stackmap_copy
#pragma weak bpf_stackmap_extract
#pragma weak bpf_struct_ops_map_sys_lookup_elem
int bpf_map_offload_update_elem();
int bpf_map_offload_lookup_elem();
int bpf_map_offload_delete_elem();
int sock_map_update_elem_sys();
int bpf_fd_array_map_update_elem();
int bpf_fd_array_map_lookup_elem();
int bpf_percpu_array_update();
int bpf_percpu_array_copy();
int bpf_percpu_cgroup_storage_update();
int bpf_percpu_cgroup_storage_copy();
int bpf_fd_reuseport_array_update_elem();
int bpf_fd_reuseport_array_lookup_elem();
int bpf_stackmap_copy();
int bpf_stackmap_extract();
int bpf_struct_ops_map_sys_lookup_elem();
/* no offloaded maps (no map_ifindex), on every tree's name for it */
static inline bool bpf_map_is_offloaded(struct bpf_map *map) { return false; }
static inline bool bpf_map_is_dev_bound(struct bpf_map *map) { return false; }
/* 7.x: values with BPF_UPTR fields pin user pages; btf_record.c builds none */
static int bpf_obj_pin_uptrs(struct btf_record *rec, void *obj)
{
	WARN_ON_ONCE(btf_record_has_field(rec, BPF_UPTR));
	return 0;
}
static void bpf_obj_unpin_uptrs(struct btf_record *rec, void *obj) { }
/* Weak: the per-CPU hash helpers come with hashtab.c when it is linked. */
#if KSIM_HAVE_BPF_F_CPU
/* 7.x: per-CPU copies take the op's flags (BPF_F_CPU: one CPU's value). */
int bpf_percpu_hash_copy(struct bpf_map *map, void *key, void *value, u64 map_flags) __attribute__((weak));
#else
int bpf_percpu_hash_copy(struct bpf_map *map, void *key, void *value) __attribute__((weak));
#endif
int bpf_percpu_hash_update(struct bpf_map *map, void *key, void *value, u64 map_flags)
	__attribute__((weak));
int bpf_fd_htab_map_update_elem(struct bpf_map *map, struct file *map_file,
				void *key, void *value, u64 map_flags) __attribute__((weak));
int bpf_fd_htab_map_lookup_elem(struct bpf_map *map, void *key, u32 *value) __attribute__((weak));

#include "bpf_syscall_gen.c"

int map_check_no_btf(__ksim_check_btf_const struct bpf_map *map, const struct btf *btf,
		     const struct btf_type *key_type, const struct btf_type *value_type)
{
	return -ENOTSUPP;
}

int map_set_for_each_callback_args(struct bpf_verifier_env *env,
				   struct bpf_func_state *caller,
				   struct bpf_func_state *callee)
{
	return -ENOTSUPP;
}

void bpf_free_used_maps(void *aux) { }

/*
 * Programs and perf events, which kernel/bpf/arraymap.c's fd arrays take
 * by fd (prog, perf event arrays): no such map type is offered to bpf(2)
 * or registered as a variant, so nothing reaches these.
 */
struct bpf_prog *bpf_prog_get(u32 ufd) { BUG(); }
void bpf_prog_put(struct bpf_prog *prog) { BUG(); }
bool bpf_prog_map_compatible(struct bpf_map *map, const struct bpf_prog *fp) { BUG(); }
struct file *perf_event_get(unsigned int fd) { BUG(); }
int perf_event_read_local(struct perf_event *event, u64 *value, u64 *enabled, u64 *running)
{
	BUG();
}

#if !KSIM_HAVE_BPF_HTAB_OF_MAPS	/* else the tree's map_in_map.c and map_fd.c */
struct bpf_map *bpf_map_meta_alloc(int inner_map_ufd)
{
	return ERR_PTR(-ENOTSUPP);
}

void bpf_map_meta_free(struct bpf_map *map_meta) { }

void *bpf_map_fd_get_ptr(struct bpf_map *map, struct file *map_file, int ufd)
{
	return ERR_PTR(-ENOTSUPP);
}

#if KSIM_HAVE_BPF_FD_PUT_NEED_DEFER
void bpf_map_fd_put_ptr(struct bpf_map *map, void *ptr, bool need_defer) { }
#else
void bpf_map_fd_put_ptr(void *ptr) { }
#endif

u32 bpf_map_fd_sys_lookup_elem(void *ptr)
{
	return 0;
}
#endif

/* ---- the driver ---- */

/*
 * Lock failures in this thread's command (ksim_bpf_last_lockfail()).  The
 * command in progress is what the nested program re-enters.
 */
static __thread struct ksim_bpf_lockfail lockfail;
static __thread unsigned long lockfail_injected0;
static __thread struct bpf_map *op_map;
static __thread const void *op_key;

static void op_begin(struct bpf_map *map, const void *key)
{
	memset(&lockfail, 0, sizeof(lockfail));
#if KSIM_HAVE_RQSPINLOCK
	lockfail_injected0 = ksim_rqspinlock_injected_here();
#endif
	op_map = map;
	op_key = key;
}

static void op_end(void)
{
#if KSIM_HAVE_RQSPINLOCK
	lockfail.injected = ksim_rqspinlock_injected_here() - lockfail_injected0;
#endif
	op_map = NULL;
}

/*
 * The end of a map command (bpf(2) returning to user space): the work its
 * map deferred runs now, outside the command's locks and RCU section
 * (linux/workqueue.h; only the RHASH map's lib/rhashtable.c queues any).
 * Not after a program's helper calls (ksim_bpf_prog_*()): a program's
 * caller may still be in its own RCU section.
 */
static __thread unsigned long cmd_work_runs;

int ksim_bpf_cmd_done(int err)
{
	unsigned long runs = ksim_work_runs();

	ksim_run_pending_work();
	cmd_work_runs = ksim_work_runs() - runs;
	return err;
}

unsigned long ksim_bpf_cmd_work_runs(void)
{
	return cmd_work_runs;
}

void ksim_bpf_last_lockfail(struct ksim_bpf_lockfail *out)
{
	*out = lockfail;
}

#if !KSIM_HAVE_RQSPINLOCK
static __thread bool in_nested;	/* the nested program runs now */

/* The hash map's glue (qptrie/kernel/hashtab.c), where a program links it. */
void *ksim_htab_bucket_lock(struct bpf_map *map, const void *key) __attribute__((weak));

/*
 * 6.1/6.12 hashtab.c refuses a program that re-enters a map on a CPU that
 * holds one of its bucket locks: htab_lock_bucket()'s per-CPU map_locked
 * counter is already 1, so it returns -EBUSY.  This hook (raw_spin_lock's,
 * linux/spinlock.h) runs that program for real when the fault engine fails
 * the lock-class site of the command's own bucket lock: a delete of the same
 * key, through the map's ops, inside the bucket's critical section.
 */
static void nested_prog(raw_spinlock_t *lock, const char *func, const char *file, int line)
{
	struct bpf_map *map = op_map;
	int err;

	if (!map || in_nested || !ksim_fault_lock_armed())
		return;
	if (!ksim_htab_bucket_lock || ksim_htab_bucket_lock(map, op_key) != lock)
		return;
	if (!ksim_should_fail_lock(func, file, line))
		return;
	in_nested = true;
	rcu_read_lock();
	err = map->ops->map_delete_elem(map, (void *)op_key);
	rcu_read_unlock();
	in_nested = false;
	lockfail.nested++;
	lockfail.nested_err = err;
	if (err != -EBUSY)
		lockfail.nested_not_busy++;
}

__attribute__((constructor))
static void nested_prog_init(void)
{
	ksim_raw_spin_lock_hook = nested_prog;
}
#endif

/*
 * Dynptr keys: marked by BPF_F_DYNPTR_KEY (our qp-trie, the series' v1), or
 * by the key's BTF type (the series' v2: ksim_bpf_map_create() gives such a
 * map the key type KSIM_BPF_BTF_ID_DYNPTR).
 */
static bool is_dynptr(const struct bpf_map *map)
{
	return (map->map_flags & BPF_F_DYNPTR_KEY) || map->btf_key_type_id == KSIM_BPF_BTF_ID_DYNPTR;
}

/* syscall.c's bpf_map_value_size() (extracted), on every tree's signature */
u32 ksim_bpf_value_size_flags(const struct bpf_map *map, u64 flags)
{
#if KSIM_HAVE_BPF_VALUE_SIZE_FLAGS
	return bpf_map_value_size(map, flags);
#else
	return bpf_map_value_size(map);
#endif
}

u32 ksim_bpf_value_size(const struct bpf_map *map)
{
	return ksim_bpf_value_size_flags(map, 0);
}

void ksim_bpf_maybe_wait_programs(struct bpf_map *map)
{
	maybe_wait_bpf_programs(map);
}

/* syscall.c's bpf_map_update_value() (extracted): the map's file is only read for prog arrays */
static int update_value(struct bpf_map *map, struct file *file, void *key, void *value, u64 flags)
{
#if KSIM_HAVE_BPF_UPDATE_VALUE_FD
	return bpf_map_update_value(map, (struct fd){ file }, key, value, flags);
#else
	return bpf_map_update_value(map, file, key, value, flags);
#endif
}

/*
 * map_create() once the attr is known: the checks every map type gets,
 * alloc_check, alloc, the syscall's initialisation, special fields (@a:
 * NULL or none for bpf(2), which has no BTF), an id.
 */
struct bpf_map *ksim_bpf_map_create_attr(const struct bpf_map_ops *ops, union bpf_attr *attr,
					 const struct ksim_bpf_map_attr *a, int *errp)
{
	static const struct ksim_bpf_map_attr no_fields;
	bool dynptr = (attr->map_flags & BPF_F_DYNPTR_KEY) ||
		      attr->btf_key_type_id == KSIM_BPF_BTF_ID_DYNPTR;
	struct bpf_map *map;
	int err;

	err = -EINVAL;
	if (attr->map_type != BPF_MAP_TYPE_BLOOM_FILTER &&
#if KSIM_HAVE_BPF_RHASH
	    attr->map_type != BPF_MAP_TYPE_RHASH &&	/* initial table size hint */
#endif
	    !dynptr && attr->map_extra != 0)
		goto fail;
	if ((attr->map_flags & BPF_F_RDONLY) && (attr->map_flags & BPF_F_WRONLY))
		goto fail;
	if ((attr->map_flags & BPF_F_NUMA_NODE) &&
	    (attr->numa_node >= 1 || attr->numa_node < 0))
		goto fail;	/* one node: 0 */
	/* find_and_alloc_map() */
	if (ops->map_alloc_check) {
		err = ops->map_alloc_check(attr);
		if (err)
			goto fail;
	}
	map = ops->map_alloc(attr);
	if (IS_ERR(map)) {
		err = PTR_ERR(map);
		goto fail;
	}
	map->ops = ops;
	map->map_type = attr->map_type;
	map->btf_key_type_id = attr->btf_key_type_id;
	atomic64_set(&map->refcnt, 1);
	atomic64_set(&map->usercnt, 1);
	mutex_init(&map->freeze_mutex);
	/* map_check_btf(): special fields of the value (btf_record.c; it frees the record on error) */
	err = ksim_bpf_map_check_btf(map, a ?: &no_fields);
	if (err) {
		map->ops->map_free(map);
		goto fail;
	}
	ksim_bpf_map_new_id(map);
	*errp = 0;
	return map;
fail:
	*errp = err;
	return NULL;
}

struct bpf_map *ksim_bpf_map_create(const struct ksim_bpf_variant *v,
				    const struct ksim_bpf_map_attr *a, int *errp)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = v->map_type;
	attr.key_size = a->key_size;
	attr.value_size = a->value_size;
	attr.max_entries = a->max_entries;
	attr.map_flags = a->map_flags | v->map_flags;
	attr.map_extra = a->map_extra;
	attr.numa_node = a->numa_node;
	attr.inner_map_fd = a->inner_map_fd;
	if (v->kind & KSIM_BPF_KIND_DYNPTR_BTF)
		attr.btf_key_type_id = KSIM_BPF_BTF_ID_DYNPTR;
	return ksim_bpf_map_create_attr(v->ops, &attr, a, errp);
}

void ksim_bpf_map_free(struct bpf_map *map)
{
	if (!map)
		return;
	ksim_bpf_map_close_fd(map);
	bpf_map_put_with_uref(map);
}

/* The key the ops see: the bytes, or a dynptr to them. */
struct ksim_key {
	struct bpf_dynptr_kern dynptr;
	void *ptr;
	bool copied;
	u64 copy[64];	/* a syscall's copy of the key (sys_key()) */
};

static void sys_key_release(struct ksim_key *k)
{
	if (k->copied)
		ASAN_UNPOISON_MEMORY_REGION(k->copy, sizeof(k->copy));
}
/* A syscall command's key: its copy's poison (if any) lifted when the command returns. */
#define SYS_KEY(k)	struct ksim_key k __attribute__((cleanup(sys_key_release))) = { .ptr = NULL }

static int make_key(struct bpf_map *map, const void *key, u32 key_len, struct ksim_key *k)
{
	if (is_dynptr(map)) {
		if (!key_len || key_len > map->map_extra)
			return -EINVAL;
		bpf_dynptr_init(&k->dynptr, (void *)key, BPF_DYNPTR_TYPE_LOCAL, 0, key_len);
		k->ptr = &k->dynptr;
		return 0;
	}
	if (key_len != map->key_size)
		return -EINVAL;
	/* __bpf_copy_key(): a map without keys (queue, stack, bloom filter) takes none */
	if (!map->key_size && key)
		return -EINVAL;
	k->ptr = (void *)key;
	return 0;
}

/*
 * The syscall commands copy the user's key into kernel memory
 * (__bpf_copy_key(): kvmemdup, 8-byte aligned).  Ours does so for RHASH
 * maps only, whose code relies on the alignment (7.x's
 * rhtab_hashfn_long() loads an 8-byte key as an unsigned long), into an
 * aligned buffer on the stack whose bytes past the key are poisoned for
 * ASan (an over-read of the key is caught as in a kmalloc'd copy).  No
 * allocation, unlike the kernel's (which may fail with -ENOMEM): lookups
 * and walks allocate nothing, as the fault sweep's checks expect of every
 * map.  Keys over 512 bytes, and the other maps, see the caller's buffer.
 */
static int sys_key(struct bpf_map *map, struct ksim_key *k)
{
#if KSIM_HAVE_BPF_RHASH
	if (map->map_type != BPF_MAP_TYPE_RHASH || !k->ptr || map->key_size > sizeof(k->copy))
		return 0;
	memcpy(k->copy, k->ptr, map->key_size);
	ASAN_POISON_MEMORY_REGION((u8 *)k->copy + map->key_size, sizeof(k->copy) - map->key_size);
	k->copied = true;
	k->ptr = k->copy;
#endif
	return 0;
}

/*
 * map_lookup_elem()/map_update_elem(): the flag checks, then the key.  7.x:
 * bpf_map_check_op_flags() (lookups take BPF_F_LOCK and BPF_F_CPU, updates
 * leave the rest to the map); 6.x: BPF_F_LOCK needs a spin lock in the
 * value, and a lookup takes no other flag.
 */
int ksim_bpf_map_check_flags(struct bpf_map *map, u64 flags, bool update)
{
#if KSIM_HAVE_BPF_F_CPU
	return bpf_map_check_op_flags(map, flags, update ? ~0ULL : BPF_F_LOCK | BPF_F_CPU);
#else
	if (!update && (flags & ~BPF_F_LOCK))
		return -EINVAL;
	if ((flags & BPF_F_LOCK) && !btf_record_has_field(map->record, BPF_SPIN_LOCK))
		return -EINVAL;
	return 0;
#endif
}

static int op_flags_key(struct bpf_map *map, u64 flags, bool update, const void *key,
			u32 key_len, struct ksim_key *k)
{
	int err;

	err = ksim_bpf_map_check_flags(map, flags, update);
	if (err)
		return err;
	err = make_key(map, key, key_len, k);
	return err ?: sys_key(map, k);
}

int ksim_bpf_map_lookup(struct bpf_map *map, const void *key, u32 key_len,
			void *value, u64 flags)
{
	SYS_KEY(k);
	int err;

	err = op_flags_key(map, flags, false, key, key_len, &k);
	if (err)
		return err;
	/* the kernel copies into a buffer of its own; ours is the caller's (no allocation) */
	op_begin(map, k.ptr);
	err = bpf_map_copy_value(map, k.ptr, value, flags);
	op_end();
	return ksim_bpf_cmd_done(err);
}

void *ksim_bpf_map_lookup_ptr(struct bpf_map *map, const void *key, u32 key_len)
{
	struct ksim_key k;

	if (make_key(map, key, key_len, &k))
		return NULL;
	return map->ops->map_lookup_elem(map, k.ptr);
}

u64 ksim_bpf_map_mem_usage(const struct bpf_map *map)
{
	return map->ops->map_mem_usage ? map->ops->map_mem_usage(map) : 0;
}

/* bpf_map_lookup_percpu_elem() from a program: @cpu's value of a per-CPU map */
void *ksim_bpf_prog_lookup_percpu(struct bpf_map *map, const void *key, u32 key_len, u32 cpu)
{
	struct ksim_key k;

	if (!map->ops->map_lookup_percpu_elem || make_key(map, key, key_len, &k))
		return NULL;
	return map->ops->map_lookup_percpu_elem(map, k.ptr, cpu);
}

/*
 * bpf_for_each_map_elem() from a program: the program runs under RCU with
 * migration disabled (7.x's bpf_for_each_hash_elem() asserts cant_migrate());
 * @fn is what the verifier would have called, with the kernel's five u64
 * arguments (map, key, value, ctx, 0) and its return (0: go on, 1: stop).
 */
long ksim_bpf_prog_for_each(struct bpf_map *map, bpf_callback_t fn, void *ctx, u64 flags)
{
	long ret;

	if (!map->ops->map_for_each_callback)
		return -ENOTSUPP;
	migrate_disable();
	rcu_read_lock();
	ret = map->ops->map_for_each_callback(map, fn, ctx, flags);
	rcu_read_unlock();
	migrate_enable();
	return ret;
}

int ksim_bpf_prog_update(struct bpf_map *map, const void *key, u32 key_len,
			 void *value, u64 flags)
{
	struct ksim_key k;

	int err;

	if (make_key(map, key, key_len, &k))
		return -EINVAL;
	op_begin(map, k.ptr);
	err = map->ops->map_update_elem(map, k.ptr, value, flags);
	op_end();
	return err;
}

int ksim_bpf_prog_delete(struct bpf_map *map, const void *key, u32 key_len)
{
	struct ksim_key k;

	int err;

	if (make_key(map, key, key_len, &k))
		return -EINVAL;
	op_begin(map, k.ptr);
	err = map->ops->map_delete_elem(map, k.ptr);
	op_end();
	return err;
}

/*
 * kernel/bpf/syscall.c's bpf_map_do_batch() for the two lookup commands:
 * the ops get the attr and, as the user copy they write the count into, a
 * second one (the kernel reads max_count from attr before it zeroes
 * uattr's).  The maps' own batch ops only: the tree's generic ones (a
 * get_next_key walk whose cursor is the last key, which the LPM trie and
 * the arrays take) are run by bpf(2) (sys_bpf.c: the selftests) and judged
 * there; the model's batch walk (qptrie/model.h) knows the hash maps'
 * cursors, so this reports -ENOTSUPP for them.
 */
int ksim_bpf_map_lookup_batch(struct bpf_map *map, bool del, const void *in_batch, void *out_batch,
			      void *keys, void *values, u32 *count, u64 elem_flags)
{
	int (*fn)(struct bpf_map *, const union bpf_attr *, union bpf_attr __user *) =
		del ? map->ops->map_lookup_and_delete_batch : map->ops->map_lookup_batch;
	union bpf_attr attr, uattr;
	int err;

	if (!fn || fn == generic_map_lookup_batch)
		return -ENOTSUPP;
	memset(&attr, 0, sizeof(attr));
	attr.batch.in_batch = (u64)(uintptr_t)in_batch;
	attr.batch.out_batch = (u64)(uintptr_t)out_batch;
	attr.batch.keys = (u64)(uintptr_t)keys;
	attr.batch.values = (u64)(uintptr_t)values;
	attr.batch.count = *count;
	attr.batch.elem_flags = elem_flags;
	uattr = attr;
	err = fn(map, &attr, &uattr);
	*count = uattr.batch.count;
	return ksim_bpf_cmd_done(err);
}

int ksim_bpf_map_update(struct bpf_map *map, const void *key, u32 key_len,
			const void *value, u64 flags)
{
	return ksim_bpf_map_update_file(map, NULL, key, key_len, value, flags);
}

int ksim_bpf_map_update_file(struct bpf_map *map, struct file *file, const void *key, u32 key_len,
			     const void *value, u64 flags)
{
	SYS_KEY(k);
	u32 size;
	void *vbuf;
	int err;

	err = op_flags_key(map, flags, true, key, key_len, &k);
	if (err)
		return err;
	/* the syscall copies the value into a kernel buffer first */
	size = ksim_bpf_value_size_flags(map, flags);
	vbuf = kvmalloc(size, GFP_USER);
	if (!vbuf)
		return -ENOMEM;
	memcpy(vbuf, value, size);
	op_begin(map, k.ptr);
	err = update_value(map, file, k.ptr, vbuf, flags);
	op_end();
	kvfree(vbuf);
	return ksim_bpf_cmd_done(err);
}

int ksim_bpf_map_delete(struct bpf_map *map, const void *key, u32 key_len)
{
	SYS_KEY(k);
	int err;

	err = make_key(map, key, key_len, &k);
	if (err)
		return err;
	err = sys_key(map, &k);
	if (err)
		return err;
	bpf_disable_instrumentation();
	rcu_read_lock();
	op_begin(map, k.ptr);
	err = map->ops->map_delete_elem(map, k.ptr);
	op_end();
	rcu_read_unlock();
	bpf_enable_instrumentation();
	return ksim_bpf_cmd_done(err);
}

/*
 * map_lookup_and_delete_elem(): queues and stacks pop (no flags), the hash
 * maps look up and delete, every other map is -ENOTSUPP; the kernel decides
 * by map type, we by the op (the same for the kernel's maps; our qp-trie
 * has none).
 */
int ksim_bpf_map_lookup_and_delete(struct bpf_map *map, const void *key, u32 key_len,
				   void *value, u64 flags)
{
	bool pop = map->map_type == BPF_MAP_TYPE_QUEUE || map->map_type == BPF_MAP_TYPE_STACK;
	SYS_KEY(k);
	int err;

	if (flags & ~BPF_F_LOCK)
		return -EINVAL;
	if (flags && pop)
		return -EINVAL;
	if ((flags & BPF_F_LOCK) && !btf_record_has_field(map->record, BPF_SPIN_LOCK))
		return -EINVAL;
	err = make_key(map, key, key_len, &k);
	if (err)
		return err;
	err = sys_key(map, &k);
	if (err)
		return err;
	if (!pop && !map->ops->map_lookup_and_delete_elem)
		return -ENOTSUPP;
	bpf_disable_instrumentation();
	rcu_read_lock();
	op_begin(map, k.ptr);
	if (pop)
		err = map->ops->map_pop_elem(map, value);
	else
		err = map->ops->map_lookup_and_delete_elem(map, k.ptr, value, flags);
	op_end();
	rcu_read_unlock();
	bpf_enable_instrumentation();
	return ksim_bpf_cmd_done(err);
}

int ksim_bpf_map_get_next_key(struct bpf_map *map, const void *key, u32 key_len,
			      void *next_key, u32 *next_len)
{
	SYS_KEY(k);
	struct bpf_dynptr_kern next;
	void *nk = next_key;
	int err;

	if (key) {
		err = make_key(map, key, key_len, &k);
		if (err)
			return err;
		err = sys_key(map, &k);
		if (err)
			return err;
	}
	if (is_dynptr(map)) {
		if (*next_len < map->map_extra)
			return -EINVAL;
		bpf_dynptr_init(&next, next_key, BPF_DYNPTR_TYPE_LOCAL, 0, map->map_extra);
		nk = &next;
	} else if (*next_len < map->key_size) {
		return -EINVAL;
	}
	rcu_read_lock();
	err = map->ops->map_get_next_key(map, k.ptr, nk);
	rcu_read_unlock();
	if (!err)
		*next_len = is_dynptr(map) ? bpf_dynptr_get_size(&next) : map->key_size;
	return ksim_bpf_cmd_done(err);
}

#define KSIM_BPF_MAX_VARIANTS	64
static const struct ksim_bpf_variant *variants[KSIM_BPF_MAX_VARIANTS];
static unsigned int nr_variants;

void ksim_bpf_register_variants(const struct ksim_bpf_variant *table)
{
	for (const struct ksim_bpf_variant *v = table; v->name; v++) {
		BUG_ON(nr_variants == KSIM_BPF_MAX_VARIANTS);
		variants[nr_variants++] = v;
	}
}

/* bpf_map_types[]: bpf(2)'s map types, registered by the code that builds them */
#define KSIM_BPF_MAX_MAP_TYPES	32
static const struct ksim_bpf_map_type *map_types[KSIM_BPF_MAX_MAP_TYPES];
static unsigned int nr_map_types;

void ksim_bpf_register_map_types(const struct ksim_bpf_map_type *table)
{
	for (const struct ksim_bpf_map_type *t = table; t->ops; t++) {
		BUG_ON(nr_map_types == KSIM_BPF_MAX_MAP_TYPES);
		map_types[nr_map_types++] = t;
	}
}

const struct bpf_map_ops *ksim_bpf_map_type_ops(u32 type)
{
	for (unsigned int i = 0; i < nr_map_types; i++)
		if (map_types[i]->type == type)
			return map_types[i]->ops;
	return NULL;
}

const struct ksim_bpf_variant *ksim_bpf_variant(unsigned int i)
{
	return i < nr_variants ? variants[i] : NULL;
}

const struct ksim_bpf_variant *ksim_bpf_variant_find(const char *name)
{
	for (unsigned int i = 0; i < nr_variants; i++)
		if (!strcmp(variants[i]->name, name))
			return variants[i];
	return NULL;
}

const struct ksim_bpf_variant *ksim_bpf_variants_differ(bool (*has)(const struct bpf_map_ops *ops),
							 const char *const *names, size_t n)
{
	for (unsigned int i = 0; i < nr_variants; i++) {
		bool named = false;

		for (size_t k = 0; k < n; k++)
			named |= !strcmp(variants[i]->name, names[k]);
		if (has(variants[i]->ops) != named)
			return variants[i];
	}
	return NULL;
}
