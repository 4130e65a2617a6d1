/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF map side of the kernel's linux/bpf.h: struct bpf_map, struct
 * bpf_map_ops (member list and signatures of the tree's era, selected by
 * ksim/features.h), the map helpers of kernel/bpf/syscall.c
 * (shim/kernel/bpf/syscall.c) and the dynptr key.  The uapi (union
 * bpf_attr, map types, flags, struct bpf_insn) is the tree's own.
 *
 * Stubbed honestly: maps here never have BTF (map->btf == NULL); a map's
 * value may still have special fields (map->record, spin lock/timer/kptrs,
 * built by the driver from ksim_bpf_map_attr.fields; 6.1's spin_lock_off/
 * kptr_off_tab scheme is not emulated); programs are C callbacks of the
 * driver (ksim/bpf.h), and the instructions ops->map_gen_lookup() writes
 * run on the shim's interpreter (shim/kernel/bpf/gen_lookup.c); the other
 * verifier hooks exist so the ops tables compile, and are never called;
 * bpf_capable() is true (root); no memcg charging.
 */
#ifndef _LINUX_BPF_H
#define _LINUX_BPF_H 1

#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include <linux/percpu.h>
#include <linux/workqueue.h>
#include <linux/seq_file.h>
#include <linux/bpf_mem_alloc.h>
#include <linux/llist.h>
#include <linux/percpu_counter.h>
#include <linux/list_nulls.h>
#include <linux/file.h>
#include <uapi/linux/bpf.h>
#include <asm/byteorder.h>

/*
 * The posted qp-trie series (v1) adds these to the uapi; a tree without
 * them gets values of ours (BPF_F_DYNPTR_KEY outside the mainline flag
 * range, BPF_MAP_TYPE_QP_TRIE a number no mainline type uses).  Probed,
 * not #ifndef: the uapi's flags are enum constants, not macros.
 */
#if !KSIM_HAVE_BPF_F_DYNPTR_KEY
#define BPF_F_DYNPTR_KEY	(1U << 30)
#endif
#define KSIM_BPF_MAP_TYPE_QP_TRIE	((enum bpf_map_type)1000)	/* beyond any mainline type */

#if KSIM_HAVE_BPF_OPS_LONG
typedef long ksim_bpf_ret_t;
#else
typedef int ksim_bpf_ret_t;
#endif

struct bpf_map;
struct bpf_prog;
struct bpf_prog_aux;
struct btf;
struct btf_type;
struct btf_record;
struct bpf_verifier_env;
struct bpf_func_state;
struct bpf_local_storage_map;
struct bpf_local_storage;
struct vm_area_struct;
struct vm_fault;
struct poll_table_struct;
struct file;
struct bpf_map_owner;
struct bpf_iter_aux_info;
struct bpf_link;

#define __user
#ifndef ENOTSUPP
#define ENOTSUPP	524	/* kernel-internal errno */
#endif
#define PCPU_MIN_UNIT_SIZE	(32 << 10)
#define BPF_OBJ_NAME_LEN_KSIM	16U

typedef u64 (*bpf_callback_t)(u64, u64, u64, u64, u64);

/* map_check_btf() takes the map const until 7.2; the tree decides */
#if KSIM_HAVE_BPF_CHECK_BTF_CONST_MAP
#define __ksim_check_btf_const const
#else
#define __ksim_check_btf_const
#endif

struct bpf_map_ops {
	int (*map_alloc_check)(union bpf_attr *attr);
	struct bpf_map *(*map_alloc)(union bpf_attr *attr);
	void (*map_release)(struct bpf_map *map, struct file *map_file);
	void (*map_free)(struct bpf_map *map);
	int (*map_get_next_key)(struct bpf_map *map, void *key, void *next_key);
	void (*map_release_uref)(struct bpf_map *map);
	void *(*map_lookup_elem_sys_only)(struct bpf_map *map, void *key);
	int (*map_lookup_batch)(struct bpf_map *map, const union bpf_attr *attr,
				union bpf_attr __user *uattr);
	int (*map_lookup_and_delete_elem)(struct bpf_map *map, void *key,
					  void *value, u64 flags);
	int (*map_lookup_and_delete_batch)(struct bpf_map *map,
					   const union bpf_attr *attr,
					   union bpf_attr __user *uattr);
#if KSIM_HAVE_BPF_OPS_LONG
	int (*map_update_batch)(struct bpf_map *map, struct file *map_file,
				const union bpf_attr *attr,
				union bpf_attr __user *uattr);
#else
	int (*map_update_batch)(struct bpf_map *map, const union bpf_attr *attr,
				union bpf_attr __user *uattr);
#endif
	int (*map_delete_batch)(struct bpf_map *map, const union bpf_attr *attr,
				union bpf_attr __user *uattr);

	void *(*map_lookup_elem)(struct bpf_map *map, void *key);
	ksim_bpf_ret_t (*map_update_elem)(struct bpf_map *map, void *key, void *value, u64 flags);
	ksim_bpf_ret_t (*map_delete_elem)(struct bpf_map *map, void *key);
	ksim_bpf_ret_t (*map_push_elem)(struct bpf_map *map, void *value, u64 flags);
	ksim_bpf_ret_t (*map_pop_elem)(struct bpf_map *map, void *value);
	ksim_bpf_ret_t (*map_peek_elem)(struct bpf_map *map, void *value);
	void *(*map_lookup_percpu_elem)(struct bpf_map *map, void *key, u32 cpu);
	int (*map_get_hash)(struct bpf_map *map);	/* 7.2+ */

	void *(*map_fd_get_ptr)(struct bpf_map *map, struct file *map_file, int fd);
#if KSIM_HAVE_BPF_FD_PUT_NEED_DEFER
	void (*map_fd_put_ptr)(struct bpf_map *map, void *ptr, bool need_defer);
#else
	void (*map_fd_put_ptr)(void *ptr);
#endif
	int (*map_gen_lookup)(struct bpf_map *map, struct bpf_insn *insn_buf);
	u32 (*map_fd_sys_lookup_elem)(void *ptr);
	void (*map_seq_show_elem)(struct bpf_map *map, void *key, struct seq_file *m);
	int (*map_check_btf)(__ksim_check_btf_const struct bpf_map *map, const struct btf *btf,
			     const struct btf_type *key_type,
			     const struct btf_type *value_type);
	int (*map_poke_track)(struct bpf_map *map, struct bpf_prog_aux *aux);
	void (*map_poke_untrack)(struct bpf_map *map, struct bpf_prog_aux *aux);
	void (*map_poke_run)(struct bpf_map *map, u32 key, struct bpf_prog *old,
			     struct bpf_prog *new);
	int (*map_direct_value_addr)(const struct bpf_map *map, u64 *imm, u32 off);
	int (*map_direct_value_meta)(const struct bpf_map *map, u64 imm, u32 *off);
	int (*map_mmap)(struct bpf_map *map, struct vm_area_struct *vma);
	vm_fault_t (*map_mmap_fault)(struct bpf_map *map, struct vm_fault *vmf);	/* 7.2+ */
	__poll_t (*map_poll)(struct bpf_map *map, struct file *filp,
			     struct poll_table_struct *pts);
	int (*map_local_storage_charge)(struct bpf_local_storage_map *smap,
					void *owner, u32 size);
	void (*map_local_storage_uncharge)(struct bpf_local_storage_map *smap,
					   void *owner, u32 size);
	struct bpf_local_storage __rcu ** (*map_owner_storage_ptr)(void *owner);
	ksim_bpf_ret_t (*map_redirect)(struct bpf_map *map, u64 key, u64 flags);
	bool (*map_meta_equal)(const struct bpf_map *meta0, const struct bpf_map *meta1);
	int (*map_set_for_each_callback_args)(struct bpf_verifier_env *env,
					      struct bpf_func_state *caller,
					      struct bpf_func_state *callee);
	ksim_bpf_ret_t (*map_for_each_callback)(struct bpf_map *map,
						bpf_callback_t callback_fn,
						void *callback_ctx, u64 flags);
	u64 (*map_mem_usage)(const struct bpf_map *map);
	int *map_btf_id;
	const struct bpf_iter_seq_info *iter_seq_info;
};

struct bpf_map {
	const struct bpf_map_ops *ops;
	struct bpf_map *inner_map_meta;
	enum bpf_map_type map_type;
	u32 key_size;
	u32 value_size;
	u32 max_entries;
	u64 map_extra;
	u32 map_flags;
	u32 id;
	struct btf_record *record;		/* 6.2+: NULL (no BTF) */
	int spin_lock_off;			/* 6.1: -EINVAL (none) */
	int timer_off;				/* 6.1: -EINVAL (none) */
	void *kptr_off_tab;			/* 6.1: NULL */
	void *off_arr;				/* 6.1: NULL */
	int numa_node;
	u32 btf_key_type_id;
	u32 btf_value_type_id;
	u32 btf_vmlinux_value_type_id;
	struct btf *btf;
	char name[BPF_OBJ_NAME_LEN_KSIM];
	struct mutex freeze_mutex;
	atomic64_t refcnt;
	atomic64_t usercnt;
	union {
		struct work_struct work;
		struct rcu_head rcu;
	};
	atomic64_t writecnt;
	bool bypass_spec_v1;
	bool frozen;
	bool free_after_mult_rcu_gp;
	bool free_after_rcu_gp;
	s64 __percpu *elem_count;
	u64 cookie;
	atomic64_t sleepable_refcnt;		/* no sleepable programs: 0 */
	char *excl_prog_sha;			/* 7.2+: NULL (no exclusive programs) */
	u8 sha[32];				/* 7.2+: SHA256_DIGEST_SIZE, never computed */
	struct list_head ksim_id_node;		/* the id table (shim/kernel/bpf/map_fd.c) */
};

/*
 * Programs, as far as kernel/bpf/arraymap.c's fd arrays name them: the
 * program array (tail calls: the JIT's poke descriptors), the perf event
 * and cgroup arrays.  ksim registers none of those map types for bpf(2)
 * (qptrie/variants.c), so these types compile and their functions
 * (syscall.c: bpf_prog_get(), perf_event_get(), ...) are never reached:
 * they fail loudly if they are.  Fields are the kernel's names, the ones
 * arraymap.c reads.
 */
struct bpf_prog_aux {
	u32 id;
	struct mutex ext_mutex;
	bool is_extended;
	u64 prog_array_member_cnt;
	struct bpf_jit_poke_descriptor *poke_tab;
	u32 size_poke_tab;
	struct bpf_prog *prog;
};
struct bpf_prog {
	enum bpf_prog_type type;
	struct bpf_prog_aux *aux;
};
enum bpf_jit_poke_reason {
	BPF_POKE_REASON_TAIL_CALL,
};
struct bpf_jit_poke_descriptor {
	void *tailcall_target;
	void *tailcall_bypass;
	void *bypass_addr;
	void *aux;
	union {
		struct {
			struct bpf_map *map;
			u32 key;
		} tail_call;
	};
	bool tailcall_target_stable;
	u8 adj_off;
	u16 reason;
	u32 insn_idx;
};
struct perf_event;
struct bpf_event_entry {
	struct perf_event *event;
	struct file *perf_file;
	struct file *map_file;
	struct rcu_head rcu;
};
struct bpf_prog *bpf_prog_get(u32 ufd);
void bpf_prog_put(struct bpf_prog *prog);
bool bpf_prog_map_compatible(struct bpf_map *map, const struct bpf_prog *fp);
struct file *perf_event_get(unsigned int fd);
int perf_event_read_local(struct perf_event *event, u64 *value, u64 *enabled, u64 *running);
/* root: Spectre v1 hardening off (every tree's signature) */
#define bpf_bypass_spec_v1(...)	true

/* The array maps' (kernel/bpf/arraymap.c), as include/linux/bpf.h has them on every tree. */
struct bpf_array_aux {
	/* Programs with direct jumps into programs part of this array. */
	struct list_head poke_progs;
	struct bpf_map *map;
	struct mutex poke_mutex;
	struct work_struct work;
};

struct bpf_array {
	struct bpf_map map;
	u32 elem_size;
	u32 index_mask;
	struct bpf_array_aux *aux;
	union {
		DECLARE_FLEX_ARRAY(char, value) __aligned(8);
		DECLARE_FLEX_ARRAY(void *, ptrs) __aligned(8);
		DECLARE_FLEX_ARRAY(void __percpu *, pptrs) __aligned(8);
	};
};

/*
 * Map value special fields (struct btf_record): the driver builds one from
 * ksim_bpf_map_attr.fields as btf_parse_fields() would from BTF
 * (shim/kernel/bpf/btf_record.c).  The structs and inlines follow 7.3's
 * include/linux/bpf.h; fields the shim never builds (graph roots/nodes,
 * refcount, uptr, task_work) are declared for the switches only.
 */
enum btf_field_type {
	BPF_SPIN_LOCK	= (1 << 0),
	BPF_TIMER	= (1 << 1),
	BPF_KPTR_UNREF	= (1 << 2),
	BPF_KPTR_REF	= (1 << 3),
	BPF_KPTR_PERCPU	= (1 << 4),
	BPF_KPTR		= BPF_KPTR_UNREF | BPF_KPTR_REF | BPF_KPTR_PERCPU,
	BPF_LIST_HEAD	= (1 << 5),
	BPF_LIST_NODE	= (1 << 6),
	BPF_RB_ROOT	= (1 << 7),
	BPF_RB_NODE	= (1 << 8),
	BPF_GRAPH_NODE	= BPF_RB_NODE | BPF_LIST_NODE,
	BPF_GRAPH_ROOT	= BPF_RB_ROOT | BPF_LIST_HEAD,
	BPF_REFCOUNT	= (1 << 9),
	BPF_WORKQUEUE	= (1 << 10),
	BPF_UPTR	= (1 << 11),
	BPF_RES_SPIN_LOCK = (1 << 12),
	BPF_TASK_WORK	= (1 << 13),
};

typedef void (*btf_dtor_kfunc_t)(void *);

struct btf_field_kptr {
	struct btf *btf;	/* always "kernel" BTF here: the dtor is used */
	struct module *module;
	btf_dtor_kfunc_t dtor;
	u32 btf_id;
};

struct btf_field {
	u32 offset;
	u32 size;
	enum btf_field_type type;
	union {
		struct btf_field_kptr kptr;
	};
};

struct btf_record {
	u32 cnt;
	u32 field_mask;
	int spin_lock_off;
	int res_spin_lock_off;
	int timer_off;
	int wq_off;
	int refcount_off;
	int task_work_off;
	struct btf_field fields[];
};

static inline bool btf_record_has_field(const struct btf_record *rec, enum btf_field_type type)
{
	if (IS_ERR_OR_NULL(rec))
		return false;
	return rec->field_mask & type;
}

/* shim/kernel/bpf/btf_record.c: kernel/bpf/syscall.c's and helpers.c's */
struct btf_record *btf_record_dup(const struct btf_record *rec);
void btf_record_free(struct btf_record *rec);
void bpf_obj_free_fields(const struct btf_record *rec, void *obj);
void bpf_obj_free_timer(const struct btf_record *rec, void *obj);
void bpf_obj_free_workqueue(const struct btf_record *rec, void *obj);
void bpf_obj_cancel_fields(struct bpf_map *map, void *obj);
void bpf_map_free_internal_structs(struct bpf_map *map, void *obj);
void bpf_timer_cancel_and_free(void *timer);
void copy_map_value_locked(struct bpf_map *map, void *dst, void *src, bool lock_src);

static inline bool bpf_map_has_internal_structs(struct bpf_map *map)
{
	return btf_record_has_field(map->record, BPF_TIMER | BPF_WORKQUEUE | BPF_TASK_WORK);
}

static inline void bpf_obj_init_field(const struct btf_field *field, void *addr)
{
	/* the graph and refcount fields' own initialisation: never built here */
	WARN_ON_ONCE(field->type & (BPF_GRAPH_ROOT | BPF_GRAPH_NODE | BPF_REFCOUNT));
	memset(addr, 0, field->size);
}

static inline void bpf_obj_init(const struct btf_record *rec, void *obj)
{
	int i;

	if (IS_ERR_OR_NULL(rec))
		return;
	for (i = 0; i < rec->cnt; i++)
		bpf_obj_init_field(&rec->fields[i], obj + rec->fields[i].offset);
}
bool btf_record_equal(const struct btf_record *rec_a, const struct btf_record *rec_b);
static inline void bpf_map_free_record(struct bpf_map *map)
{
	btf_record_free(map->record);
	map->record = NULL;
}
static inline void btf_put(struct btf *btf) { (void)btf; }
static inline void btf_get(struct btf *btf) { (void)btf; }

#if KSIM_HAVE_BPF_F_CPU
/*
 * The flag checks of 7.x map ops (include/linux/bpf.h): unknown bits,
 * BPF_F_LOCK without a spin lock field, a CPU number without
 * BPF_F_CPU, BPF_F_CPU/BPF_F_ALL_CPUS on a map that is not per-CPU or both
 * at once (-EINVAL), a CPU that does not exist (-ERANGE).
 */
static inline int bpf_map_check_op_flags(struct bpf_map *map, u64 flags, u64 allowed)
{
	bool percpu = map->map_type == BPF_MAP_TYPE_PERCPU_ARRAY ||
		      map->map_type == BPF_MAP_TYPE_PERCPU_HASH ||
		      map->map_type == BPF_MAP_TYPE_LRU_PERCPU_HASH ||
		      map->map_type == BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE;

	if ((u32)flags & ~allowed)
		return -EINVAL;
	if ((flags & BPF_F_LOCK) && !btf_record_has_field(map->record, BPF_SPIN_LOCK))
		return -EINVAL;
	if (!(flags & BPF_F_CPU) && flags >> 32)
		return -EINVAL;
	if (flags & (BPF_F_CPU | BPF_F_ALL_CPUS)) {
		if (!percpu || ((flags & BPF_F_CPU) && (flags & BPF_F_ALL_CPUS)))
			return -EINVAL;
		if ((flags & BPF_F_CPU) && (flags >> 32) >= nr_cpu_ids)
			return -ERANGE;
	}
	return 0;
}
#endif
/* 6.1 names of the same (no spin lock, timer or kptr without BTF). */
static inline bool map_value_has_spin_lock(const struct bpf_map *map) { (void)map; return false; }
static inline bool map_value_has_timer(const struct bpf_map *map) { (void)map; return false; }
static inline bool map_value_has_kptrs(const struct bpf_map *map) { (void)map; return false; }
static inline void bpf_map_free_kptrs(struct bpf_map *map, void *map_value) { (void)map; (void)map_value; }
static inline void bpf_map_free_kptr_off_tab(struct bpf_map *map) { (void)map; }
static inline void *bpf_map_copy_kptr_off_tab(const struct bpf_map *map) { (void)map; return NULL; }
static inline bool bpf_map_equal_kptr_off_tab(const struct bpf_map *a, const struct bpf_map *b)
{
	return !a->kptr_off_tab && !b->kptr_off_tab;
}

static inline void check_and_init_map_value(struct bpf_map *map, void *dst)
{
	bpf_obj_init(map->record, dst);
}

/* copy everything but the special fields (7.3's bpf_obj_memcpy(); fields sorted by offset) */
static inline void bpf_obj_memcpy(struct btf_record *rec, void *dst, void *src, u32 size,
				  bool long_memcpy)
{
	u32 curr_off = 0;
	int i;

	if (IS_ERR_OR_NULL(rec)) {
		memcpy(dst, src, size);	/* the kernel's bpf_long_memcpy() is best-effort atomicity */
		return;
	}
	for (i = 0; i < rec->cnt; i++) {
		u32 next_off = rec->fields[i].offset;
		u32 sz = next_off - curr_off;

		memcpy(dst + curr_off, src + curr_off, sz);
		curr_off += rec->fields[i].size + sz;
	}
	memcpy(dst + curr_off, src + curr_off, size - curr_off);
}
static inline void copy_map_value(struct bpf_map *map, void *dst, void *src)
{
	bpf_obj_memcpy(map->record, dst, src, map->value_size, false);
}
static inline void copy_map_value_long(struct bpf_map *map, void *dst, void *src)
{
	bpf_obj_memcpy(map->record, dst, src, round_up(map->value_size, 8), true);
}
static inline void bpf_obj_memzero(struct btf_record *rec, void *dst, u32 size)
{
	u32 curr_off = 0;
	int i;

	if (IS_ERR_OR_NULL(rec)) {
		memset(dst, 0, size);
		return;
	}
	for (i = 0; i < rec->cnt; i++) {
		u32 next_off = rec->fields[i].offset;
		u32 sz = next_off - curr_off;

		memset(dst + curr_off, 0, sz);
		curr_off += rec->fields[i].size + sz;
	}
	memset(dst + curr_off, 0, size - curr_off);
}
static inline void zero_map_value(struct bpf_map *map, void *dst)
{
	bpf_obj_memzero(map->record, dst, map->value_size);
}
static inline void bpf_long_memcpy(void *dst, const void *src, u32 size)
{
	const long *lsrc = src;
	long *ldst = dst;

	size /= sizeof(long);
	while (size--)
		*ldst++ = *lsrc++;
}

/* kernel/bpf/syscall.c helpers (shim/kernel/bpf/syscall.c) */
void *bpf_map_area_alloc(u64 size, int numa_node);
void *bpf_map_area_mmapable_alloc(u64 size, int numa_node);
void bpf_map_area_free(void *base);
void bpf_map_init_from_attr(struct bpf_map *map, union bpf_attr *attr);
bool bpf_map_meta_equal(const struct bpf_map *meta0, const struct bpf_map *meta1);
void bpf_map_inc(struct bpf_map *map);
void bpf_map_inc_with_uref(struct bpf_map *map);
void bpf_map_put(struct bpf_map *map);
void bpf_map_put_with_uref(struct bpf_map *map);
void *ksim_bpf_map_kmalloc_node(const struct bpf_map *map, size_t size, gfp_t flags,
				int node, KSIM_SITE_ARGS);
void *ksim_bpf_map_kzalloc(const struct bpf_map *map, size_t size, gfp_t flags, KSIM_SITE_ARGS);
void *ksim_bpf_map_kvcalloc(struct bpf_map *map, size_t n, size_t size, gfp_t flags, KSIM_SITE_ARGS);
void __percpu *ksim_bpf_map_alloc_percpu(const struct bpf_map *map, size_t size,
					 size_t align, gfp_t flags, KSIM_SITE_ARGS);
#define bpf_map_kmalloc_node(map, size, flags, node) \
	ksim_bpf_map_kmalloc_node((map), (size), (flags), (node), KSIM_SITE)
#define bpf_map_kzalloc(map, size, flags) ksim_bpf_map_kzalloc((map), (size), (flags), KSIM_SITE)
#define bpf_map_kvcalloc(map, n, size, flags) ksim_bpf_map_kvcalloc((map), (n), (size), (flags), KSIM_SITE)
#define bpf_map_alloc_percpu(map, size, align, flags) \
	ksim_bpf_map_alloc_percpu((map), (size), (align), (flags), KSIM_SITE)

static inline int bpf_map_attr_numa_node(const union bpf_attr *attr)
{
	return (attr->map_flags & BPF_F_NUMA_NODE) ? attr->numa_node : NUMA_NO_NODE;
}

#define BPF_F_ACCESS_MASK	(BPF_F_RDONLY | BPF_F_RDONLY_PROG | BPF_F_WRONLY | BPF_F_WRONLY_PROG)
static inline bool bpf_map_flags_access_ok(u32 access_flags)
{
	access_flags &= BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG;
	return access_flags != (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG);
}

/* Root: every capability (the syscall layer's unprivileged paths are not emulated). */
static inline bool bpf_capable(void) { return true; }
static inline bool capable(int cap) { (void)cap; return true; }
#define CAP_SYS_ADMIN	21
#define CAP_BPF		39

/* Elem counts (6.4+): per-CPU s64 summed by bpf_map_sum_elem_count(). */
static inline int bpf_map_init_elem_count(struct bpf_map *map)
{
	map->elem_count = alloc_percpu_gfp(s64, GFP_KERNEL | __GFP_NOWARN);
	return map->elem_count ? 0 : -ENOMEM;
}
static inline void bpf_map_free_elem_count(struct bpf_map *map)
{
	free_percpu(map->elem_count);
}
static inline void bpf_map_inc_elem_count(struct bpf_map *map)
{
	this_cpu_inc(*map->elem_count);
}
static inline void bpf_map_dec_elem_count(struct bpf_map *map)
{
	this_cpu_dec(*map->elem_count);
}
s64 bpf_map_sum_elem_count(const struct bpf_map *map);

/* Batch ops' quiescent state for RCU tasks (mapped onto normal RCU). */
#define cond_resched_tasks_rcu_qs()	cond_resched()

/* No programs run: instrumentation and "bpf_prog_active" are bookkeeping. */
DECLARE_PER_CPU(int, bpf_prog_active);
static inline void bpf_disable_instrumentation(void) { migrate_disable(); }
static inline void bpf_enable_instrumentation(void) { migrate_enable(); }
/* x86-64's JIT (bpf_jit_comp.c) does BPF_MOV64_PERCPU_REG; so does ours (gen_lookup.c). */
static inline bool bpf_jit_supports_percpu_insn(void) { return true; }

#define bpf_rcu_lock_held()	(rcu_read_lock_held() || rcu_read_lock_trace_held() || \
				 rcu_read_lock_bh_held())

/* Generic parts of kernel/bpf/syscall.c and verifier.c referenced by ops tables. */
int generic_map_lookup_batch(struct bpf_map *map, const union bpf_attr *attr,
			     union bpf_attr __user *uattr);
#if KSIM_HAVE_BPF_OPS_LONG
int generic_map_update_batch(struct bpf_map *map, struct file *map_file,
			     const union bpf_attr *attr, union bpf_attr __user *uattr);
#else
int generic_map_update_batch(struct bpf_map *map, const union bpf_attr *attr,
			     union bpf_attr __user *uattr);
#endif
int generic_map_delete_batch(struct bpf_map *map, const union bpf_attr *attr,
			     union bpf_attr __user *uattr);
int map_check_no_btf(__ksim_check_btf_const struct bpf_map *map, const struct btf *btf,
		     const struct btf_type *key_type, const struct btf_type *value_type);
int map_set_for_each_callback_args(struct bpf_verifier_env *env,
				   struct bpf_func_state *caller,
				   struct bpf_func_state *callee);

/* map_in_map / prog fd stubs, reached only by fd maps (not offered). */
void bpf_free_used_maps(void *aux);

/* Map fds (kernel/bpf/map_fd.c): the map behind @f, -EBADF (not open), -EINVAL (not a map). */
struct bpf_map *__bpf_map_get(struct fd f);
extern const struct bpf_map_ops array_map_ops, percpu_array_map_ops;
int bpf_fd_htab_map_update_elem(struct bpf_map *map, struct file *map_file,
				void *key, void *value, u64 map_flags);
int bpf_fd_htab_map_lookup_elem(struct bpf_map *map, void *key, u32 *value);

/* copy_{to,from}_user: batch ops read "user" memory, which is ours (linux/uaccess.h). */
#include <linux/uaccess.h>

/* bpf_iter (map element iterators over seq_file): declared so the tables compile. */
struct bpf_iter_meta {
	struct seq_file *seq;
	u64 session_id;
	u64 seq_num;
};
struct bpf_iter__bpf_map_elem {
	struct bpf_iter_meta *meta;
	struct bpf_map *map;
	void *key;
	void *value;
};
typedef int (*bpf_iter_init_seq_priv_t)(void *private_data, struct bpf_iter_aux_info *aux);
typedef void (*bpf_iter_fini_seq_priv_t)(void *private_data);
struct bpf_iter_seq_info {
	const struct seq_operations *seq_ops;
	bpf_iter_init_seq_priv_t init_seq_private;
	bpf_iter_fini_seq_priv_t fini_seq_private;
	u32 seq_priv_size;
};
struct bpf_iter_aux_info {
	struct bpf_map *map;
};
struct bpf_prog *bpf_iter_get_info(struct bpf_iter_meta *meta, bool in_stop);
int bpf_iter_run_prog(struct bpf_prog *prog, void *ctx);

/* The dynptr (kernel/bpf/helpers.c), as qp-trie keys use it. */
enum bpf_dynptr_type {
	BPF_DYNPTR_TYPE_INVALID,
	BPF_DYNPTR_TYPE_LOCAL,
	BPF_DYNPTR_TYPE_RINGBUF,
	BPF_DYNPTR_TYPE_SKB,
	BPF_DYNPTR_TYPE_XDP,
};
struct bpf_dynptr_kern {
	void *data;
	u32 size;	/* low 24 bits: size; bit 31 rdonly, bits 28-30 type */
	u32 offset;
} __aligned(8);
#define DYNPTR_MAX_SIZE		((1UL << 24) - 1)
#define DYNPTR_TYPE_SHIFT	28
#define DYNPTR_SIZE_MASK	0xFFFFFF
#define DYNPTR_RDONLY_BIT	BIT(31)
static inline u32 bpf_dynptr_get_size(const struct bpf_dynptr_kern *ptr)
{
	return ptr->size & DYNPTR_SIZE_MASK;
}
static inline void bpf_dynptr_set_size(struct bpf_dynptr_kern *ptr, u32 new_size)
{
	u32 metadata = ptr->size & ~DYNPTR_SIZE_MASK;

	ptr->size = new_size | metadata;
}
static inline void bpf_dynptr_init(struct bpf_dynptr_kern *ptr, void *data,
				   enum bpf_dynptr_type type, u32 offset, u32 size)
{
	ptr->data = data;
	ptr->offset = offset;
	ptr->size = size | ((u32)type << DYNPTR_TYPE_SHIFT);
}
static inline void bpf_dynptr_set_null(struct bpf_dynptr_kern *ptr)
{
	memset(ptr, 0, sizeof(*ptr));
}
static inline u32 __bpf_dynptr_size(const struct bpf_dynptr_kern *ptr)
{
	return bpf_dynptr_get_size(ptr);
}
static inline void *bpf_dynptr_kern_data(const struct bpf_dynptr_kern *ptr)
{
	return (char *)ptr->data + ptr->offset;
}

#define BPF_MAP_TYPE(_id, _ops) extern const struct bpf_map_ops _ops;

#endif /* _LINUX_BPF_H */
