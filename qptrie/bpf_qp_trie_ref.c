// SPDX-License-Identifier: GPL-2.0
/*
 * A reference qp-trie BPF map, written for ksim as it would sit in
 * kernel/bpf/ (kernel APIs only), with the semantics of the posted series
 * ("bpf: Add support for qp-trie map with dynptr key", v2):
 *
 * - keys are struct bpf_dynptr_kern, 1..map_extra bytes, BPF_F_DYNPTR_KEY
 *   and BPF_F_NO_PREALLOC mandatory, key_size == sizeof(struct bpf_dynptr);
 * - get_next_key walks keys in lexicographic byte order (a key sorts
 *   before its extensions): NULL gives the smallest key, otherwise the
 *   smallest key greater than the given one, present or not; -ENOENT at
 *   the end.  ksim_qp_trie_ref_restart_map_ops has the posted series'
 *   shape instead: an absent key restarts at the smallest key (as hashtab
 *   and the LPM trie do), and the key is a dynptr by its BTF type (the
 *   series' v2; here the driver's KSIM_BPF_BTF_ID_DYNPTR), not by
 *   BPF_F_DYNPTR_KEY;
 * - update flags BPF_ANY/BPF_NOEXIST/BPF_EXIST, -ENOSPC when max_entries
 *   elements exist (replacing an existing key is allowed when full).
 *
 * Structure: a qp-trie over 4-bit nibbles.  A branch tests nibble @index
 * of the key; bit 0 of its bitmap stands for "the key ends before this
 * nibble", bits 1..16 for nibble values 0..15; it holds one twig per set
 * bit, in order.  Leaves (tagged pointers, bit 0 set) hold the key and the
 * value.  Readers walk without locks under RCU; writers hold one spinlock
 * (the series spreads writers over 256 subtree locks; one lock is a
 * deliberate simplification) and never modify a published node: they build
 * a new branch or leaf and publish it with rcu_assign_pointer().
 *
 * Memory comes from bpf_mem_alloc (size classes).  Because bpf_mem_free()
 * makes an object reusable at once (a reader still inside it would see
 * another key's data), replaced nodes are handed to call_rcu() and only
 * given back with bpf_mem_free() after a grace period.  ksim's checking
 * mode (ksim/bpf_mem.h) and qptrie/tests/test_reuse.c verify exactly this.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/bpf_mem_alloc.h>
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include <linux/bitops.h>
#include <ksim/bpf.h>
#include <qptrie/qp_trie_ref.h>

#define QP_TRIE_MAX_KEY_SIZE	1024
#define QP_TRIE_MAX_VALUE_SIZE	1024
#define QP_TRIE_NR_BITS		17
#define QP_TRIE_CREATE_FLAG_MASK (BPF_F_NO_PREALLOC | BPF_F_DYNPTR_KEY | \
				  BPF_F_NUMA_NODE | BPF_F_ACCESS_MASK)

struct qp_trie_leaf {
	struct rcu_head rcu;
	struct qp_trie *trie;
	u32 key_len;
	u8 data[] __aligned(8);	/* key, then the value at round_up(key_len, 8) */
};

struct qp_trie_branch {
	struct rcu_head rcu;
	struct qp_trie *trie;
	u32 index;		/* nibble tested */
	u32 bitmap;
	void __rcu *twigs[];
};

struct qp_trie {
	struct bpf_map map;
	void __rcu *root;
	spinlock_t lock;
	atomic_t entries;
	struct bpf_mem_alloc ma;
};

/* Test-only mutants (qptrie/qp_trie_ref.h). */
bool ksim_qp_trie_ref_mutant_no_rcu;
bool ksim_qp_trie_ref_mutant_next_skip;
bool ksim_qp_trie_ref_mutant_next_repeat;

static inline bool is_leaf(const void *p)
{
	return (unsigned long)p & 1;
}

static inline struct qp_trie_leaf *to_leaf(void *p)
{
	return (struct qp_trie_leaf *)((unsigned long)p & ~1UL);
}

static inline void *leaf_ptr(struct qp_trie_leaf *l)
{
	return (void *)((unsigned long)l | 1);
}

static inline void *leaf_value(struct qp_trie_leaf *l)
{
	return l->data + round_up(l->key_len, 8);
}

/* 0: the key ends before nibble @index; 1 + nibble value otherwise. */
static inline unsigned int nibble(const u8 *key, u32 len, u32 index)
{
	u32 byte = index / 2;

	if (byte >= len)
		return 0;
	return 1 + ((index & 1) ? key[byte] & 0xf : key[byte] >> 4);
}

static inline unsigned int twig_pos(u32 bitmap, unsigned int bit)
{
	return hweight32(bitmap & ((1U << bit) - 1));
}

static inline unsigned int nr_twigs(const struct qp_trie_branch *b)
{
	return hweight32(b->bitmap);
}

static void *qp_deref(struct qp_trie *trie, void __rcu *const *slot)
{
	return rcu_dereference_check(*(void __rcu **)slot,
				     rcu_read_lock_bh_held() || lockdep_is_held(&trie->lock));
}

static int __qp_trie_alloc_check(union bpf_attr *attr, bool btf_key)
{
	if (!bpf_capable())
		return -EPERM;
	/* the key is a dynptr: by flag, or (series v2) by the key's BTF type */
	if (btf_key ? attr->btf_key_type_id != KSIM_BPF_BTF_ID_DYNPTR ||
		      (attr->map_flags & BPF_F_DYNPTR_KEY) :
		      (attr->map_flags & BPF_F_DYNPTR_KEY) != BPF_F_DYNPTR_KEY)
		return -EINVAL;
	if ((attr->map_flags & BPF_F_NO_PREALLOC) != BPF_F_NO_PREALLOC ||
	    attr->map_flags & ~QP_TRIE_CREATE_FLAG_MASK ||
	    !bpf_map_flags_access_ok(attr->map_flags))
		return -EINVAL;
	if (!attr->max_entries || attr->key_size != sizeof(struct bpf_dynptr) ||
	    !attr->value_size || attr->value_size > QP_TRIE_MAX_VALUE_SIZE)
		return -EINVAL;
	if (!attr->map_extra || attr->map_extra > QP_TRIE_MAX_KEY_SIZE)
		return -E2BIG;
	return 0;
}

static int qp_trie_alloc_check(union bpf_attr *attr)
{
	return __qp_trie_alloc_check(attr, false);
}

static int qp_trie_restart_alloc_check(union bpf_attr *attr)
{
	return __qp_trie_alloc_check(attr, true);
}

static struct bpf_map *qp_trie_alloc(union bpf_attr *attr)
{
	struct qp_trie *trie;
	int err;

	trie = bpf_map_area_alloc(sizeof(*trie), bpf_map_attr_numa_node(attr));
	if (!trie)
		return ERR_PTR(-ENOMEM);
	bpf_map_init_from_attr(&trie->map, attr);
	spin_lock_init(&trie->lock);
	atomic_set(&trie->entries, 0);
	RCU_INIT_POINTER(trie->root, NULL);
	err = bpf_mem_alloc_init(&trie->ma, 0, false);
	if (err) {
		bpf_map_area_free(trie);
		return ERR_PTR(err);
	}
	return &trie->map;
}

static void qp_trie_free_subtree(struct qp_trie *trie, void *node)
{
	if (!node)
		return;
	if (is_leaf(node)) {
		bpf_mem_free(&trie->ma, to_leaf(node));
		return;
	}
	for (unsigned int i = 0; i < nr_twigs(node); i++)
		qp_trie_free_subtree(trie, rcu_dereference_raw(((struct qp_trie_branch *)node)->twigs[i]));
	bpf_mem_free(&trie->ma, node);
}

static void qp_trie_free(struct bpf_map *map)
{
	struct qp_trie *trie = container_of(map, struct qp_trie, map);

	/* nodes still waiting for a grace period go back to trie->ma first */
	rcu_barrier();
	qp_trie_free_subtree(trie, rcu_dereference_raw(trie->root));
	bpf_mem_alloc_destroy(&trie->ma);
	bpf_map_area_free(trie);
}

static void qp_trie_leaf_free_rcu(struct rcu_head *rcu)
{
	struct qp_trie_leaf *l = container_of(rcu, struct qp_trie_leaf, rcu);

	bpf_mem_free(&l->trie->ma, l);
}

static void qp_trie_branch_free_rcu(struct rcu_head *rcu)
{
	struct qp_trie_branch *b = container_of(rcu, struct qp_trie_branch, rcu);

	bpf_mem_free(&b->trie->ma, b);
}

/* Readers may still be inside: give the memory back after a grace period. */
static void qp_trie_retire_leaf(struct qp_trie *trie, struct qp_trie_leaf *l)
{
	if (ksim_qp_trie_ref_mutant_no_rcu) {
		bpf_mem_free(&trie->ma, l);
		return;
	}
	l->trie = trie;
	call_rcu(&l->rcu, qp_trie_leaf_free_rcu);
}

static void qp_trie_retire_branch(struct qp_trie *trie, struct qp_trie_branch *b)
{
	if (ksim_qp_trie_ref_mutant_no_rcu) {
		bpf_mem_free(&trie->ma, b);
		return;
	}
	b->trie = trie;
	call_rcu(&b->rcu, qp_trie_branch_free_rcu);
}

static struct qp_trie_leaf *qp_trie_new_leaf(struct qp_trie *trie, const u8 *key,
					     u32 len, const void *value)
{
	struct qp_trie_leaf *l;

	l = bpf_mem_alloc(&trie->ma, sizeof(*l) + round_up(len, 8) + trie->map.value_size);
	if (!l)
		return NULL;
	l->trie = trie;
	l->key_len = len;
	memcpy(l->data, key, len);
	memcpy(leaf_value(l), value, trie->map.value_size);
	return l;
}

static struct qp_trie_branch *qp_trie_new_branch(struct qp_trie *trie, unsigned int n)
{
	struct qp_trie_branch *b;

	b = bpf_mem_alloc(&trie->ma, sizeof(*b) + n * sizeof(void *));
	if (b)
		b->trie = trie;
	return b;
}

static bool qp_key_ok(struct qp_trie *trie, const struct bpf_dynptr_kern *key)
{
	u32 len = bpf_dynptr_get_size(key);

	return len && len <= trie->map.map_extra;
}

static struct qp_trie_leaf *qp_trie_find(struct qp_trie *trie, const u8 *key, u32 len)
{
	void *node = qp_deref(trie, &trie->root);
	struct qp_trie_leaf *l;

	while (node && !is_leaf(node)) {
		struct qp_trie_branch *b = node;
		u32 bitmap = READ_ONCE(b->bitmap);
		unsigned int bit = nibble(key, len, READ_ONCE(b->index));

		if (!(bitmap & (1U << bit)))
			return NULL;
		node = qp_deref(trie, &b->twigs[twig_pos(bitmap, bit)]);
	}
	if (!node)
		return NULL;
	l = to_leaf(node);
	if (l->key_len != len || memcmp(l->data, key, len))
		return NULL;
	return l;
}

static void *qp_trie_lookup_elem(struct bpf_map *map, void *key)
{
	struct qp_trie *trie = container_of(map, struct qp_trie, map);
	struct bpf_dynptr_kern *dkey = key;
	struct qp_trie_leaf *l;

	if (!qp_key_ok(trie, dkey))
		return NULL;
	l = qp_trie_find(trie, bpf_dynptr_kern_data(dkey), bpf_dynptr_get_size(dkey));
	return l ? leaf_value(l) : NULL;
}

/* Any leaf below @node (the first). */
static struct qp_trie_leaf *qp_first_leaf(struct qp_trie *trie, void *node)
{
	while (!is_leaf(node))
		node = qp_deref(trie, &((struct qp_trie_branch *)node)->twigs[0]);
	return to_leaf(node);
}

/* First nibble index at which the keys differ; U32_MAX if equal. */
static u32 qp_diff_index(const u8 *a, u32 alen, const u8 *b, u32 blen)
{
	u32 n = min(alen, blen), i;

	for (i = 0; i < n; i++) {
		if (a[i] != b[i])
			return i * 2 + ((a[i] ^ b[i]) & 0xf0 ? 0 : 1);
	}
	if (alen == blen)
		return U32_MAX;
	return n * 2;
}

static ksim_bpf_ret_t qp_trie_update_elem(struct bpf_map *map, void *key, void *value,
					  u64 flags)
{
	struct qp_trie *trie = container_of(map, struct qp_trie, map);
	struct bpf_dynptr_kern *dkey = key;
	struct qp_trie_leaf *new_leaf, *near;
	struct qp_trie_branch *b, *nb;
	void __rcu **slot;
	void *node;
	unsigned long irq_flags;
	const u8 *k;
	u32 len, d;
	unsigned int bit, pos, n;
	int ret = 0;

	if (unlikely(flags > BPF_EXIST))
		return -EINVAL;
	if (!qp_key_ok(trie, dkey))
		return -EINVAL;
	k = bpf_dynptr_kern_data(dkey);
	len = bpf_dynptr_get_size(dkey);

	new_leaf = qp_trie_new_leaf(trie, k, len, value);
	if (!new_leaf)
		return -ENOMEM;

	spin_lock_irqsave(&trie->lock, irq_flags);
	node = qp_deref(trie, &trie->root);
	if (!node) {
		if (flags == BPF_EXIST) {
			ret = -ENOENT;
			goto fail;
		}
		atomic_inc(&trie->entries);
		rcu_assign_pointer(trie->root, leaf_ptr(new_leaf));
		goto out;
	}

	/* The leaf closest to the key decides where it differs from the trie. */
	while (!is_leaf(node)) {
		b = node;
		bit = nibble(k, len, b->index);
		node = qp_deref(trie, &b->twigs[(b->bitmap & (1U << bit)) ?
						 twig_pos(b->bitmap, bit) : 0]);
	}
	near = to_leaf(node);
	d = qp_diff_index(k, len, near->data, near->key_len);

	/* Walk down to the first node testing a nibble at or after d. */
	slot = &trie->root;
	node = qp_deref(trie, slot);
	while (!is_leaf(node) && ((struct qp_trie_branch *)node)->index < d) {
		b = node;
		bit = nibble(k, len, b->index);
		slot = &b->twigs[twig_pos(b->bitmap, bit)];
		node = qp_deref(trie, slot);
	}

	if (d == U32_MAX) {
		/* the key exists: replace its leaf */
		if (flags == BPF_NOEXIST) {
			ret = -EEXIST;
			goto fail;
		}
		rcu_assign_pointer(*slot, leaf_ptr(new_leaf));
		qp_trie_retire_leaf(trie, to_leaf(node));
		goto out;
	}
	if (flags == BPF_EXIST) {
		ret = -ENOENT;
		goto fail;
	}
	if (atomic_read(&trie->entries) >= trie->map.max_entries) {
		ret = -ENOSPC;
		goto fail;
	}

	bit = nibble(k, len, d);
	if (!is_leaf(node) && ((struct qp_trie_branch *)node)->index == d) {
		/* a branch on nibble d exists: copy it with one more twig */
		b = node;
		n = nr_twigs(b);
		nb = qp_trie_new_branch(trie, n + 1);
		if (!nb) {
			ret = -ENOMEM;
			goto fail;
		}
		nb->index = d;
		nb->bitmap = b->bitmap | (1U << bit);
		pos = twig_pos(nb->bitmap, bit);
		for (unsigned int i = 0, j = 0; i < n + 1; i++) {
			if (i == pos)
				RCU_INIT_POINTER(nb->twigs[i], leaf_ptr(new_leaf));
			else
				RCU_INIT_POINTER(nb->twigs[i], rcu_dereference_protected(b->twigs[j++], 1));
		}
		atomic_inc(&trie->entries);
		rcu_assign_pointer(*slot, nb);
		qp_trie_retire_branch(trie, b);
		goto out;
	}

	/* a new branch on nibble d above @node */
	nb = qp_trie_new_branch(trie, 2);
	if (!nb) {
		ret = -ENOMEM;
		goto fail;
	}
	{
		unsigned int obit = nibble(near->data, near->key_len, d);

		nb->index = d;
		nb->bitmap = (1U << bit) | (1U << obit);
		RCU_INIT_POINTER(nb->twigs[bit < obit ? 0 : 1], leaf_ptr(new_leaf));
		RCU_INIT_POINTER(nb->twigs[bit < obit ? 1 : 0], node);
	}
	atomic_inc(&trie->entries);
	rcu_assign_pointer(*slot, nb);
out:
	spin_unlock_irqrestore(&trie->lock, irq_flags);
	return 0;
fail:
	spin_unlock_irqrestore(&trie->lock, irq_flags);
	bpf_mem_free(&trie->ma, new_leaf);
	return ret;
}

static ksim_bpf_ret_t qp_trie_delete_elem(struct bpf_map *map, void *key)
{
	struct qp_trie *trie = container_of(map, struct qp_trie, map);
	struct bpf_dynptr_kern *dkey = key;
	void __rcu **slot, **pslot = NULL;
	struct qp_trie_branch *parent = NULL, *nb;
	struct qp_trie_leaf *l;
	unsigned long irq_flags;
	unsigned int bit = 0, n;
	void *node;
	const u8 *k;
	u32 len;
	int ret = 0;

	if (!qp_key_ok(trie, dkey))
		return -EINVAL;
	k = bpf_dynptr_kern_data(dkey);
	len = bpf_dynptr_get_size(dkey);

	spin_lock_irqsave(&trie->lock, irq_flags);
	slot = &trie->root;
	node = qp_deref(trie, slot);
	while (node && !is_leaf(node)) {
		struct qp_trie_branch *b = node;

		bit = nibble(k, len, b->index);
		if (!(b->bitmap & (1U << bit))) {
			node = NULL;
			break;
		}
		pslot = slot;
		parent = b;
		slot = &b->twigs[twig_pos(b->bitmap, bit)];
		node = qp_deref(trie, slot);
	}
	if (!node) {
		ret = -ENOENT;
		goto out;
	}
	l = to_leaf(node);
	if (l->key_len != len || memcmp(l->data, k, len)) {
		ret = -ENOENT;
		goto out;
	}

	if (!parent) {
		rcu_assign_pointer(trie->root, NULL);
	} else if ((n = nr_twigs(parent)) == 2) {
		/* the sibling takes the parent's place */
		void *sib = rcu_dereference_protected(parent->twigs[twig_pos(parent->bitmap, bit) ^ 1], 1);

		rcu_assign_pointer(*pslot, sib);
		qp_trie_retire_branch(trie, parent);
	} else {
		unsigned int pos = twig_pos(parent->bitmap, bit);

		nb = qp_trie_new_branch(trie, n - 1);
		if (!nb) {
			ret = -ENOMEM;
			goto out;
		}
		nb->index = parent->index;
		nb->bitmap = parent->bitmap & ~(1U << bit);
		for (unsigned int i = 0, j = 0; i < n; i++)
			if (i != pos)
				RCU_INIT_POINTER(nb->twigs[j++], rcu_dereference_protected(parent->twigs[i], 1));
		rcu_assign_pointer(*pslot, nb);
		qp_trie_retire_branch(trie, parent);
	}
	atomic_dec(&trie->entries);
	qp_trie_retire_leaf(trie, l);
out:
	spin_unlock_irqrestore(&trie->lock, irq_flags);
	return ret;
}

static int qp_trie_copy_key(struct qp_trie_leaf *l, struct bpf_dynptr_kern *next)
{
	memcpy(bpf_dynptr_kern_data(next), l->data, l->key_len);
	bpf_dynptr_set_size(next, l->key_len);
	return 0;
}

/* The leaf with the smallest key greater than @k, or NULL. */
static struct qp_trie_leaf *qp_trie_succ(struct qp_trie *trie, const u8 *k, u32 len)
{
	void *node, *cand = NULL, *stop;
	struct qp_trie_leaf *near;
	u32 d;
	unsigned int bit;

	node = qp_deref(trie, &trie->root);
	if (!node)
		return NULL;

	/* where does the key leave the trie? */
	stop = node;
	while (!is_leaf(stop)) {
		struct qp_trie_branch *b = stop;
		u32 bitmap = READ_ONCE(b->bitmap);

		bit = nibble(k, len, READ_ONCE(b->index));
		stop = qp_deref(trie, &b->twigs[(bitmap & (1U << bit)) ? twig_pos(bitmap, bit) : 0]);
	}
	near = to_leaf(stop);
	d = qp_diff_index(k, len, near->data, near->key_len);

	/* descend along the key while the branches test nibbles before d,
	 * remembering the deepest twig to the right of the path */
	while (!is_leaf(node)) {
		struct qp_trie_branch *b = node;
		u32 bitmap = READ_ONCE(b->bitmap), index = READ_ONCE(b->index);
		u32 right;

		if (index > d)
			break;
		bit = nibble(k, len, index);
		right = bitmap & ~((2U << bit) - 1);
		/*
		 * index == d: the key would be a new twig here.  The bit can
		 * also be missing with index < d when a writer changed the
		 * trie since the walk that found @near (found by
		 * stress/bpf_stress.c: twig_pos() of a missing bit then points
		 * past the last twig); the key leaves the trie here just the
		 * same.
		 */
		if (index == d || !(bitmap & (1U << bit))) {
			/* next is to the right of where the key would be */
			if (right)
				return qp_first_leaf(trie,
					qp_deref(trie, &b->twigs[twig_pos(bitmap, __ffs(right))]));
			goto up;
		}
		if (right)
			cand = qp_deref(trie, &b->twigs[twig_pos(bitmap, __ffs(right))]);
		node = qp_deref(trie, &b->twigs[twig_pos(bitmap, bit)]);
	}
	if (d != U32_MAX && nibble(near->data, near->key_len, d) > nibble(k, len, d))
		return qp_first_leaf(trie, node);
up:
	if (!cand)
		return NULL;
	return qp_first_leaf(trie, cand);
}

static int qp_key_cmp(const u8 *a, u32 alen, const u8 *b, u32 blen)
{
	int c = memcmp(a, b, min(alen, blen));

	return c ? c : (alen > blen) - (alen < blen);
}

static int __qp_trie_get_next_key(struct bpf_map *map, void *key, void *next_key, bool restart)
{
	struct qp_trie *trie = container_of(map, struct qp_trie, map);
	struct bpf_dynptr_kern *dkey = key, *next = next_key;
	struct qp_trie_leaf *l;
	unsigned long irq_flags;
	void *node;
	const u8 *k;
	u32 len;

	if (bpf_dynptr_get_size(next) < trie->map.map_extra)
		return -EINVAL;
	if (!dkey) {
		node = qp_deref(trie, &trie->root);
		if (!node)
			return -ENOENT;
		return qp_trie_copy_key(qp_first_leaf(trie, node), next);
	}
	if (!qp_key_ok(trie, dkey))
		return -EINVAL;
	k = bpf_dynptr_kern_data(dkey);
	len = bpf_dynptr_get_size(dkey);
	if (restart || ksim_qp_trie_ref_mutant_next_repeat) {
		bool present = qp_trie_find(trie, k, len);

		/* the series: an absent key starts the walk again */
		if (restart && !present)
			return __qp_trie_get_next_key(map, NULL, next_key, restart);
		/* mutant: a present key taken for an absent one */
		if (present && ksim_qp_trie_ref_mutant_next_repeat)
			return __qp_trie_get_next_key(map, NULL, next_key, restart);
	}
	/*
	 * Lockless, the two walks of qp_trie_succ() can see different
	 * versions of the trie and land on a smaller key (a walk would go
	 * backwards: found by stress/bpf_stress.c).  Retry a few times, then
	 * walk under the writers' lock.
	 */
	for (int tries = 0; tries < 4; tries++) {
		l = qp_trie_succ(trie, k, len);
		if (!l)
			return -ENOENT;
		if (qp_key_cmp(l->data, l->key_len, k, len) > 0) {
			if (ksim_qp_trie_ref_mutant_next_skip) {
				struct qp_trie_leaf *s = qp_trie_succ(trie, l->data, l->key_len);

				l = s ?: l;
			}
			return qp_trie_copy_key(l, next);
		}
	}
	spin_lock_irqsave(&trie->lock, irq_flags);
	l = qp_trie_succ(trie, k, len);
	if (l)
		qp_trie_copy_key(l, next);
	spin_unlock_irqrestore(&trie->lock, irq_flags);
	return l ? 0 : -ENOENT;
}

static int qp_trie_get_next_key(struct bpf_map *map, void *key, void *next_key)
{
	return __qp_trie_get_next_key(map, key, next_key, false);
}

static int qp_trie_restart_get_next_key(struct bpf_map *map, void *key, void *next_key)
{
	return __qp_trie_get_next_key(map, key, next_key, true);
}

static int qp_trie_check_btf(__ksim_check_btf_const struct bpf_map *map, const struct btf *btf,
			     const struct btf_type *key_type,
			     const struct btf_type *value_type)
{
	return 0;	/* as the series: any key/value BTF (the key is a dynptr) */
}

static u64 qp_trie_mem_usage(const struct bpf_map *map)
{
	struct qp_trie *trie = container_of(map, struct qp_trie, map);

	return sizeof(*trie) + (u64)atomic_read(&trie->entries) *
		(sizeof(struct qp_trie_leaf) + map->map_extra + map->value_size +
		 sizeof(struct qp_trie_branch) + 2 * sizeof(void *));
}

BTF_ID_LIST_SINGLE(qp_trie_map_btf_ids, struct, qp_trie)
#define QP_TRIE_OPS(alloc_check, get_next_key) {			\
	.map_meta_equal = bpf_map_meta_equal,				\
	.map_alloc_check = alloc_check,					\
	.map_alloc = qp_trie_alloc,					\
	.map_free = qp_trie_free,					\
	.map_get_next_key = get_next_key,				\
	.map_lookup_elem = qp_trie_lookup_elem,				\
	.map_update_elem = qp_trie_update_elem,				\
	.map_delete_elem = qp_trie_delete_elem,				\
	.map_check_btf = qp_trie_check_btf,				\
	.map_mem_usage = qp_trie_mem_usage,				\
	.map_btf_id = &qp_trie_map_btf_ids[0],				\
}
const struct bpf_map_ops ksim_qp_trie_ref_map_ops =
	QP_TRIE_OPS(qp_trie_alloc_check, qp_trie_get_next_key);
/* The posted series' shape: restart from an absent key, BTF-typed dynptr key. */
const struct bpf_map_ops ksim_qp_trie_ref_restart_map_ops =
	QP_TRIE_OPS(qp_trie_restart_alloc_check, qp_trie_restart_get_next_key);
