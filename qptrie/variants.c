// SPDX-License-Identifier: GPL-2.0
/*
 * The map variants this build offers (ksim/bpf.h), driven only through ops,
 * and the get_next_key contract each documents (KSIM_BPF_KIND_ORDERED,
 * KSIM_BPF_KIND_SUCC_ANY: qptrie/include/qptrie/model.h judges by them).
 */
#include <stdio.h>
#include <stdlib.h>

#include <ksim/bpf.h>
#include <qptrie/qp_trie_ref.h>

extern const struct bpf_map_ops htab_map_ops, htab_lru_map_ops,
	htab_percpu_map_ops, htab_lru_percpu_map_ops, trie_map_ops;
#if KSIM_HAVE_QP_TRIE_SERIES
extern const struct bpf_map_ops qp_trie_map_ops;
#endif
#if KSIM_HAVE_BPF_RHASH
extern const struct bpf_map_ops rhtab_map_ops;
#endif
extern const struct bpf_map_ops array_map_ops, percpu_array_map_ops, queue_map_ops,
	stack_map_ops, bloom_filter_map_ops;

#define K KSIM_BPF_KIND_KERNEL
#define HASH(name, ops, type, flags, kind) \
	{ name, &ops, type, flags, KSIM_BPF_KIND_HASH | (kind) | K }
static const struct ksim_bpf_variant variants[] = {
	/* hashtab.c: no order; an absent key restarts the walk */
	HASH("hash", htab_map_ops, BPF_MAP_TYPE_HASH, 0, 0),
	HASH("hash_noprealloc", htab_map_ops, BPF_MAP_TYPE_HASH, BPF_F_NO_PREALLOC, 0),
	HASH("lru_hash", htab_lru_map_ops, BPF_MAP_TYPE_LRU_HASH, 0, KSIM_BPF_KIND_LRU),
	HASH("lru_hash_nocommon", htab_lru_map_ops, BPF_MAP_TYPE_LRU_HASH, BPF_F_NO_COMMON_LRU,
	     KSIM_BPF_KIND_LRU),
	HASH("percpu_hash", htab_percpu_map_ops, BPF_MAP_TYPE_PERCPU_HASH, 0, KSIM_BPF_KIND_PERCPU),
	HASH("percpu_hash_noprealloc", htab_percpu_map_ops, BPF_MAP_TYPE_PERCPU_HASH,
	     BPF_F_NO_PREALLOC, KSIM_BPF_KIND_PERCPU),
	/* lpm_trie.c: "get_next_key follows postorder"; an absent key restarts */
	{ "lpm_trie", &trie_map_ops, BPF_MAP_TYPE_LPM_TRIE, BPF_F_NO_PREALLOC,
	  KSIM_BPF_KIND_LPM | KSIM_BPF_KIND_ORDERED | K },
	/* ours: byte order, the successor of any key */
	{ "qp_trie_ref", &ksim_qp_trie_ref_map_ops, KSIM_BPF_MAP_TYPE_QP_TRIE,
	  BPF_F_NO_PREALLOC | BPF_F_DYNPTR_KEY,
	  KSIM_BPF_KIND_DYNPTR | KSIM_BPF_KIND_ORDERED | KSIM_BPF_KIND_SUCC_ANY },
	/*
	 * hashtab.c's fifth map type, LRU and per-CPU at once.  Listed after
	 * the others so that fuzz inputs, which index this table, keep the
	 * variant they were made for.
	 */
	HASH("lru_percpu_hash", htab_lru_percpu_map_ops, BPF_MAP_TYPE_LRU_PERCPU_HASH, 0,
	     KSIM_BPF_KIND_LRU | KSIM_BPF_KIND_PERCPU),
	HASH("lru_percpu_hash_nocommon", htab_lru_percpu_map_ops, BPF_MAP_TYPE_LRU_PERCPU_HASH,
	     BPF_F_NO_COMMON_LRU, KSIM_BPF_KIND_LRU | KSIM_BPF_KIND_PERCPU),
#if KSIM_HAVE_QP_TRIE_SERIES
	/*
	 * The posted series: an absent key restarts the walk.  Byte order is
	 * not claimed: it could not be checked against the series here
	 * (qptrie/README.md), so only what every walk must do is judged.
	 * v1 marks dynptr keys with BPF_F_DYNPTR_KEY, v2 by the key's BTF type.
	 */
# if KSIM_HAVE_QP_TRIE_DYNPTR_FLAG
	{ "qp_trie", &qp_trie_map_ops, BPF_MAP_TYPE_QP_TRIE, BPF_F_NO_PREALLOC | BPF_F_DYNPTR_KEY,
	  KSIM_BPF_KIND_DYNPTR | K },
# else
	{ "qp_trie", &qp_trie_map_ops, BPF_MAP_TYPE_QP_TRIE, BPF_F_NO_PREALLOC,
	  KSIM_BPF_KIND_DYNPTR | KSIM_BPF_KIND_DYNPTR_BTF | K },
# endif
#endif
	/* ours in the series' shape (restart, BTF-typed key), ordered */
	{ "qp_trie_ref_restart", &ksim_qp_trie_ref_restart_map_ops, KSIM_BPF_MAP_TYPE_QP_TRIE,
	  BPF_F_NO_PREALLOC, KSIM_BPF_KIND_DYNPTR | KSIM_BPF_KIND_DYNPTR_BTF |
	  KSIM_BPF_KIND_ORDERED | KSIM_BPF_KIND_STAND_IN },
#if KSIM_HAVE_BPF_RHASH
	/*
	 * 7.x hashtab.c's rhashtable map: BPF_F_NO_PREALLOC required
	 * (rhtab_map_alloc_check()); update flags and -E2BIG at max_entries
	 * as the hash maps (rhtab_map_update_elem()); get_next_key in no
	 * order, an absent key restarting at the first (rhtab_map_get_next_key():
	 * "if not found, return the first key"); the batch cursor and
	 * for_each's end after a delete are its own (KSIM_BPF_KIND_RHASH).
	 */
	HASH("rhash", rhtab_map_ops, BPF_MAP_TYPE_RHASH, BPF_F_NO_PREALLOC, KSIM_BPF_KIND_RHASH),
#endif
	/*
	 * arraymap.c: u32 index keys, all present from creation; get_next_key
	 * in index order, an index past the end restarting at 0
	 * (array_map_get_next_key(), 7.x bpf_array_get_next_key()).  These
	 * five come after every other variant: fuzz inputs index the table
	 * (fuzz/bpfmap.c).
	 */
	{ "array", &array_map_ops, BPF_MAP_TYPE_ARRAY, 0,
	  KSIM_BPF_KIND_ARRAY | KSIM_BPF_KIND_ORDERED | K },
	{ "percpu_array", &percpu_array_map_ops, BPF_MAP_TYPE_PERCPU_ARRAY, 0,
	  KSIM_BPF_KIND_ARRAY | KSIM_BPF_KIND_PERCPU | KSIM_BPF_KIND_ORDERED | K },
	/* queue_stack_maps.c: no keys; pop from the oldest (queue) or the newest (stack) end */
	{ "queue", &queue_map_ops, BPF_MAP_TYPE_QUEUE, 0, KSIM_BPF_KIND_QUEUE | K },
	{ "stack", &stack_map_ops, BPF_MAP_TYPE_STACK, 0, KSIM_BPF_KIND_STACK | K },
	/* bloom_filter.c: no keys; values added are found, others may be */
	{ "bloom", &bloom_filter_map_ops, BPF_MAP_TYPE_BLOOM_FILTER, 0, KSIM_BPF_KIND_BLOOM | K },
	{ NULL },
};

/* bpf(2)'s map types (the kernel's bpf_types.h, for what this component builds) */
#if KSIM_HAVE_BPF_HTAB_OF_MAPS
extern const struct bpf_map_ops htab_of_maps_map_ops, array_of_maps_map_ops;
#endif
/*
 * arraymap.c's program, perf event and cgroup arrays are compiled but not
 * offered: their values are fds of programs, perf events and cgroups,
 * which ksim does not have.
 */
static const struct ksim_bpf_map_type map_types[] = {
	{ BPF_MAP_TYPE_HASH, &htab_map_ops },
	{ BPF_MAP_TYPE_PERCPU_HASH, &htab_percpu_map_ops },
	{ BPF_MAP_TYPE_LRU_HASH, &htab_lru_map_ops },
	{ BPF_MAP_TYPE_LRU_PERCPU_HASH, &htab_lru_percpu_map_ops },
	{ BPF_MAP_TYPE_LPM_TRIE, &trie_map_ops },
	{ BPF_MAP_TYPE_ARRAY, &array_map_ops },
	{ BPF_MAP_TYPE_PERCPU_ARRAY, &percpu_array_map_ops },
	{ BPF_MAP_TYPE_QUEUE, &queue_map_ops },
	{ BPF_MAP_TYPE_STACK, &stack_map_ops },
	{ BPF_MAP_TYPE_BLOOM_FILTER, &bloom_filter_map_ops },
#if KSIM_HAVE_BPF_HTAB_OF_MAPS
	{ BPF_MAP_TYPE_HASH_OF_MAPS, &htab_of_maps_map_ops },
	{ BPF_MAP_TYPE_ARRAY_OF_MAPS, &array_of_maps_map_ops },
#endif
#if KSIM_HAVE_BPF_RHASH
	{ BPF_MAP_TYPE_RHASH, &rhtab_map_ops },
#endif
	{ 0, NULL },
};

static void variants_init(void)
{
	ksim_bpf_register_variants(variants);
	ksim_bpf_register_map_types(map_types);
}
ksim_initcall(variants_init, KSIM_INIT_SUBSYS);

bool ksim_qp_trie_ref_mutant_env(void)
{
	static const struct {
		const char *name, *what;
		bool *on;
	} mutants[] = {
		{ "no-rcu", "frees without RCU", &ksim_qp_trie_ref_mutant_no_rcu },
		{ "next-skip", "get_next_key skips a key", &ksim_qp_trie_ref_mutant_next_skip },
		{ "next-repeat", "get_next_key restarts from a present key",
		  &ksim_qp_trie_ref_mutant_next_repeat },
	};
	const char *name = getenv("KSIM_QP_TRIE_REF_MUTANT");

	if (!name || !*name)
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(mutants); i++) {
		if (strcmp(name, mutants[i].name))
			continue;
		*mutants[i].on = true;
		fprintf(stderr, "# TEST-ONLY MUTANT: qp_trie_ref %s\n", mutants[i].what);
		return true;
	}
	fprintf(stderr, "KSIM_QP_TRIE_REF_MUTANT=%s: no such mutant (no-rcu, next-skip, next-repeat)\n",
		name);
	return false;
}
