// SPDX-License-Identifier: GPL-2.0
/*
 * Map value special fields (struct btf_record) for ksim maps, which have no
 * BTF.  Emulated after 7.3 (the kernel functions live in files ksim does not
 * compile):
 *
 * - ksim_bpf_map_check_btf(): what kernel/bpf/btf.c's btf_parse_fields()
 *   makes of a value type with these fields (a kzalloc'd record, fields
 *   sorted by offset, *_off -EINVAL when absent, one spin lock and one timer
 *   at most, natural alignment) and what kernel/bpf/syscall.c's
 *   map_check_btf() then does (which map types take which field, then
 *   ops->map_check_btf()).  A referenced kptr is always of a "kernel" type
 *   with a destructor (no program-allocated local kptrs, no module refs);
 * - kernel/bpf/syscall.c: btf_record_dup(), btf_record_free(),
 *   bpf_obj_free_fields(), bpf_obj_free_timer/workqueue(),
 *   bpf_obj_cancel_fields() (6.x trees have no such function; the same
 *   code serves them: their hashtab.c calls bpf_obj_free_fields() instead);
 * - kernel/bpf/helpers.c: bpf_map_free_internal_structs(),
 *   copy_map_value_locked() and the bpf_spin_lock (its !SMP form: an
 *   atomic xchg loop on the lock word); bpf_timer_cancel_and_free() and
 *   bpf_timer_init() reduced to what a map sees: the timer field's first
 *   word points to an object the shim allocates, freed (cancelled) by
 *   bpf_timer_cancel_and_free() after taking it out of the field; nothing
 *   ever fires.
 */
#include <stdlib.h>

#include <linux/kernel.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/slab.h>
#include <ksim/bpf.h>

int ksim_bpf_map_check_btf(struct bpf_map *map, const struct ksim_bpf_map_attr *a);

/* The one "kernel BTF" every kptr's type lives in (btf_is_kernel(): true). */
static struct { int dummy; } ksim_vmlinux_btf;
#define KSIM_VMLINUX_BTF	((struct btf *)&ksim_vmlinux_btf)

static bool btf_is_kernel(const struct btf *btf)
{
	return btf == KSIM_VMLINUX_BTF;
}

/* ---- kernel/bpf/syscall.c ---- */

void btf_record_free(struct btf_record *rec)
{
	int i;

	if (IS_ERR_OR_NULL(rec))
		return;
	for (i = 0; i < rec->cnt; i++) {
		switch (rec->fields[i].type) {
		case BPF_KPTR_UNREF:
		case BPF_KPTR_REF:
		case BPF_KPTR_PERCPU:
			/* no modules; kernel BTF is never put */
			break;
		case BPF_SPIN_LOCK:
		case BPF_TIMER:
		case BPF_WORKQUEUE:
			/* Nothing to release */
			break;
		default:
			WARN_ON_ONCE(1);
			continue;
		}
	}
	kfree(rec);
}

struct btf_record *btf_record_dup(const struct btf_record *rec)
{
	struct btf_record *new_rec;
	int size;

	if (IS_ERR_OR_NULL(rec))
		return NULL;
	size = struct_size(rec, fields, rec->cnt);
	new_rec = kmemdup(rec, size, GFP_KERNEL | __GFP_NOWARN);
	if (!new_rec)
		return ERR_PTR(-ENOMEM);
	/* the kernel's deep copy takes BTF and module references: none here */
	return new_rec;
}

/* map_in_map.c's meta check: the same fields at the same offsets (records are kzalloc'd, so memcmp) */
bool btf_record_equal(const struct btf_record *rec_a, const struct btf_record *rec_b)
{
	bool a_has = !IS_ERR_OR_NULL(rec_a), b_has = !IS_ERR_OR_NULL(rec_b);

	if (!a_has || !b_has)
		return a_has == b_has;
	if (rec_a->cnt != rec_b->cnt)
		return false;
	return !memcmp(rec_a, rec_b, struct_size(rec_a, fields, rec_a->cnt));
}

void bpf_obj_free_timer(const struct btf_record *rec, void *obj)
{
	if (WARN_ON_ONCE(!btf_record_has_field(rec, BPF_TIMER)))
		return;
	bpf_timer_cancel_and_free(obj + rec->timer_off);
}

/* Never built here (no workqueue fields). */
void bpf_obj_free_workqueue(const struct btf_record *rec, void *obj)
{
	WARN_ON_ONCE(1);
}

void bpf_obj_cancel_fields(struct bpf_map *map, void *obj)
{
	bpf_map_free_internal_structs(map, obj);
}

void bpf_obj_free_fields(const struct btf_record *rec, void *obj)
{
	const struct btf_field *fields;
	int i;

	if (IS_ERR_OR_NULL(rec))
		return;
	fields = rec->fields;
	for (i = 0; i < rec->cnt; i++) {
		const struct btf_field *field = &fields[i];
		void *field_ptr = obj + field->offset;
		void *xchgd_field;

		switch (fields[i].type) {
		case BPF_SPIN_LOCK:
			break;
		case BPF_TIMER:
			bpf_timer_cancel_and_free(field_ptr);
			break;
		case BPF_KPTR_UNREF:
			WRITE_ONCE(*(u64 *)field_ptr, 0);
			break;
		case BPF_KPTR_REF:
		case BPF_KPTR_PERCPU:
			xchgd_field = (void *)xchg((unsigned long *)field_ptr, 0);
			if (!xchgd_field)
				break;
			/* local (program-allocated) kptrs do not exist here */
			if (WARN_ON_ONCE(!btf_is_kernel(field->kptr.btf)))
				break;
			field->kptr.dtor(xchgd_field);
			break;
		default:
			WARN_ON_ONCE(1);
			continue;
		}
	}
}

/* ---- kernel/bpf/helpers.c ---- */

void bpf_map_free_internal_structs(struct bpf_map *map, void *val)
{
	if (btf_record_has_field(map->record, BPF_TIMER))
		bpf_obj_free_timer(map->record, val);
	if (btf_record_has_field(map->record, BPF_WORKQUEUE))
		bpf_obj_free_workqueue(map->record, val);
}

static __thread void *spin_last;
static __thread unsigned long spin_count;

static void __bpf_spin_lock_irqsave(struct bpf_spin_lock *lock)
{
	atomic_t *l = (void *)lock;

	local_irq_disable();
	while (atomic_xchg(l, 1))
		cpu_relax();
	spin_last = lock;
	spin_count++;
}

static void __bpf_spin_unlock_irqrestore(struct bpf_spin_lock *lock)
{
	atomic_t *l = (void *)lock;

	__atomic_store_n(&l->counter, 0, __ATOMIC_RELEASE);
	local_irq_enable();
}

void *ksim_bpf_spin_lock_last(unsigned long *count)
{
	*count = spin_count;
	return spin_last;
}

void copy_map_value_locked(struct bpf_map *map, void *dst, void *src, bool lock_src)
{
	struct bpf_spin_lock *lock;

	if (lock_src)
		lock = src + map->record->spin_lock_off;
	else
		lock = dst + map->record->spin_lock_off;
	preempt_disable();
	__bpf_spin_lock_irqsave(lock);
	copy_map_value(map, dst, src);
	__bpf_spin_unlock_irqrestore(lock);
	preempt_enable();
}

struct ksim_bpf_timer {
	struct bpf_map *map;
	u64 magic;
};
#define KSIM_BPF_TIMER_MAGIC	0x74696d65726b736dULL
static long timers_live;

long ksim_bpf_timers_live(void)
{
	return __atomic_load_n(&timers_live, __ATOMIC_RELAXED);
}

/* bpf_timer_init(): the kernel's refusals, then the field's object. */
int ksim_bpf_prog_timer_init(struct bpf_map *map, void *value)
{
	struct ksim_bpf_timer *t;
	void **field;

	if (!btf_record_has_field(map->record, BPF_TIMER))
		return -EINVAL;
	field = value + map->record->timer_off;
	if (READ_ONCE(*field))
		return -EBUSY;
	t = kzalloc(sizeof(*t), GFP_ATOMIC);
	if (!t)
		return -ENOMEM;
	t->map = map;
	t->magic = KSIM_BPF_TIMER_MAGIC;
	/* the kernel re-checks usercnt after publishing, against uref release */
	if (cmpxchg(field, NULL, t)) {
		kfree(t);
		return -EBUSY;
	}
	__atomic_add_fetch(&timers_live, 1, __ATOMIC_RELAXED);
	smp_mb();
	if (!atomic64_read(&map->usercnt)) {
		bpf_timer_cancel_and_free(field);
		return -EPERM;
	}
	return 0;
}

void bpf_timer_cancel_and_free(void *val)
{
	struct ksim_bpf_timer *t = xchg((struct ksim_bpf_timer **)val, NULL);

	if (!t)
		return;
	BUG_ON(t->magic != KSIM_BPF_TIMER_MAGIC);
	t->magic = 0;
	__atomic_sub_fetch(&timers_live, 1, __ATOMIC_RELAXED);
	kfree(t);
}

/* ---- btf_parse_fields() + syscall.c's map_check_btf() ---- */

static int btf_field_cmp(const void *a, const void *b)
{
	const struct btf_field *f1 = a, *f2 = b;

	if (f1->offset < f2->offset)
		return -1;
	else if (f1->offset > f2->offset)
		return 1;
	return 0;
}

static bool type_in(enum bpf_map_type t, const enum bpf_map_type *ok, int n)
{
	for (int i = 0; i < n; i++)
		if (ok[i] == t)
			return true;
	return false;
}

int ksim_bpf_map_check_btf(struct bpf_map *map, const struct ksim_bpf_map_attr *a)
{
	/* map types of the kernel's lists that ksim builds */
	static const enum bpf_map_type lock_ok[] = {
		BPF_MAP_TYPE_HASH, BPF_MAP_TYPE_ARRAY,
#if KSIM_HAVE_BPF_RHASH
		BPF_MAP_TYPE_RHASH,
#endif
	};
	static const enum bpf_map_type timer_ok[] = {
		BPF_MAP_TYPE_HASH, BPF_MAP_TYPE_LRU_HASH, BPF_MAP_TYPE_ARRAY,
#if KSIM_HAVE_BPF_RHASH
		BPF_MAP_TYPE_RHASH,
#endif
	};
	static const enum bpf_map_type kptr_ok[] = {
		BPF_MAP_TYPE_HASH, BPF_MAP_TYPE_PERCPU_HASH, BPF_MAP_TYPE_LRU_HASH,
		BPF_MAP_TYPE_LRU_PERCPU_HASH, BPF_MAP_TYPE_ARRAY, BPF_MAP_TYPE_PERCPU_ARRAY,
#if KSIM_HAVE_BPF_RHASH
		BPF_MAP_TYPE_RHASH,
#endif
	};
	struct btf_type key_type = { .info = BTF_KIND_INT << 24, .size = map->key_size };
	struct btf_type value_type = { .info = BTF_KIND_STRUCT << 24,
				       .size = map->value_size };
	struct btf_record *rec;
	int i, ret;

	if (!a->nr_fields)
		return 0;
	if (a->nr_fields > KSIM_BPF_MAX_FIELDS)
		return -E2BIG;
	/* btf_parse_fields() */
	rec = kzalloc(struct_size(rec, fields, a->nr_fields), GFP_KERNEL | __GFP_NOWARN);
	if (!rec)
		return -ENOMEM;
	rec->spin_lock_off = -EINVAL;
	rec->res_spin_lock_off = -EINVAL;
	rec->timer_off = -EINVAL;
	rec->wq_off = -EINVAL;
	rec->refcount_off = -EINVAL;
	rec->task_work_off = -EINVAL;
	ret = -EINVAL;
	for (i = 0; i < a->nr_fields; i++) {
		const struct ksim_bpf_field *f = &a->fields[i];
		struct btf_field *field = &rec->fields[i];
		u32 size, align;

		switch (f->type) {
		case BPF_SPIN_LOCK:
			size = align = sizeof(struct bpf_spin_lock);
			if (rec->field_mask & BPF_SPIN_LOCK) {
				ret = -E2BIG;	/* one of each */
				goto free;
			}
			rec->spin_lock_off = f->offset;
			break;
		case BPF_TIMER:
			size = sizeof(struct bpf_timer);
			align = __alignof__(struct bpf_timer);
			if (rec->field_mask & BPF_TIMER) {
				ret = -E2BIG;
				goto free;
			}
			rec->timer_off = f->offset;
			break;
		case BPF_KPTR_REF:
			size = align = sizeof(u64);
			if (!f->dtor)
				goto free;	/* a referenced kptr's type needs a dtor kfunc */
			field->kptr.btf = KSIM_VMLINUX_BTF;
			field->kptr.dtor = f->dtor;
			field->kptr.btf_id = i + 1;
			break;
		default:
			goto free;
		}
		if (f->offset % align || f->offset + size > map->value_size)
			goto free;
		field->offset = f->offset;
		field->size = size;
		field->type = f->type;
		rec->field_mask |= f->type;
		rec->cnt++;
	}
	qsort(rec->fields, rec->cnt, sizeof(rec->fields[0]), btf_field_cmp);	/* sort() */
	for (i = 1; i < rec->cnt; i++)
		if (rec->fields[i - 1].offset + rec->fields[i - 1].size > rec->fields[i].offset)
			goto free;	/* overlapping members: no such C struct */
	map->record = rec;

	/* map_check_btf() */
	ret = -EACCES;
	if (map->map_flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG))
		goto free_map_tab;
	ret = -EOPNOTSUPP;
	if ((rec->field_mask & BPF_SPIN_LOCK) && !type_in(map->map_type, lock_ok, ARRAY_SIZE(lock_ok)))
		goto free_map_tab;
	if ((rec->field_mask & BPF_TIMER) && !type_in(map->map_type, timer_ok, ARRAY_SIZE(timer_ok)))
		goto free_map_tab;
	if ((rec->field_mask & BPF_KPTR) && !type_in(map->map_type, kptr_ok, ARRAY_SIZE(kptr_ok)))
		goto free_map_tab;
	ret = 0;
	if (map->ops->map_check_btf) {
		ret = map->ops->map_check_btf(map, NULL, &key_type, &value_type);
		if (ret < 0)
			goto free_map_tab;
	}
	return ret;
free_map_tab:
	btf_record_free(map->record);
	map->record = NULL;
	return ret;
free:
	btf_record_free(rec);
	return ret;
}
