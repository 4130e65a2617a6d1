// SPDX-License-Identifier: GPL-2.0
/* The map variants this build offers (ksim/bpf.h), driven only through ops. */
#include <ksim/bpf.h>

extern const struct bpf_map_ops htab_map_ops, htab_lru_map_ops,
	htab_percpu_map_ops, htab_lru_percpu_map_ops, trie_map_ops,
	ksim_qp_trie_ref_map_ops;
#if KSIM_HAVE_QP_TRIE_SERIES
extern const struct bpf_map_ops qp_trie_map_ops;
#endif

#define K KSIM_BPF_KIND_KERNEL
static const struct ksim_bpf_variant v_hash = {
	"hash", &htab_map_ops, BPF_MAP_TYPE_HASH, 0, KSIM_BPF_KIND_HASH | K };
static const struct ksim_bpf_variant v_hash_np = {
	"hash_noprealloc", &htab_map_ops, BPF_MAP_TYPE_HASH, BPF_F_NO_PREALLOC, KSIM_BPF_KIND_HASH | K };
static const struct ksim_bpf_variant v_lru = {
	"lru_hash", &htab_lru_map_ops, BPF_MAP_TYPE_LRU_HASH, 0,
	KSIM_BPF_KIND_HASH | KSIM_BPF_KIND_LRU | K };
static const struct ksim_bpf_variant v_lru_nc = {
	"lru_hash_nocommon", &htab_lru_map_ops, BPF_MAP_TYPE_LRU_HASH, BPF_F_NO_COMMON_LRU,
	KSIM_BPF_KIND_HASH | KSIM_BPF_KIND_LRU | K };
static const struct ksim_bpf_variant v_pcpu = {
	"percpu_hash", &htab_percpu_map_ops, BPF_MAP_TYPE_PERCPU_HASH, 0,
	KSIM_BPF_KIND_HASH | KSIM_BPF_KIND_PERCPU | K };
static const struct ksim_bpf_variant v_pcpu_np = {
	"percpu_hash_noprealloc", &htab_percpu_map_ops, BPF_MAP_TYPE_PERCPU_HASH, BPF_F_NO_PREALLOC,
	KSIM_BPF_KIND_HASH | KSIM_BPF_KIND_PERCPU | K };
static const struct ksim_bpf_variant v_lpm = {
	"lpm_trie", &trie_map_ops, BPF_MAP_TYPE_LPM_TRIE, BPF_F_NO_PREALLOC, KSIM_BPF_KIND_LPM | K };
static const struct ksim_bpf_variant v_qp_ref = {
	"qp_trie_ref", &ksim_qp_trie_ref_map_ops, KSIM_BPF_MAP_TYPE_QP_TRIE,
	BPF_F_NO_PREALLOC | BPF_F_DYNPTR_KEY, KSIM_BPF_KIND_DYNPTR };
#if KSIM_HAVE_QP_TRIE_SERIES
static const struct ksim_bpf_variant v_qp = {
	"qp_trie", &qp_trie_map_ops, BPF_MAP_TYPE_QP_TRIE,
	BPF_F_NO_PREALLOC | BPF_F_DYNPTR_KEY, KSIM_BPF_KIND_DYNPTR | K };
#endif

const struct ksim_bpf_variant *const ksim_bpf_variants[] = {
	&v_hash, &v_hash_np, &v_lru, &v_lru_nc, &v_pcpu, &v_pcpu_np, &v_lpm, &v_qp_ref,
#if KSIM_HAVE_QP_TRIE_SERIES
	&v_qp,
#endif
	NULL,
};
