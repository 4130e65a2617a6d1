/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Our reference qp-trie (qptrie/bpf_qp_trie_ref.c): its ops and its
 * test-only mutants, each of which must be caught.
 */
#ifndef _QPTRIE_QP_TRIE_REF_H
#define _QPTRIE_QP_TRIE_REF_H

#include <linux/bpf.h>

/* Byte-ordered get_next_key from any key; BPF_F_DYNPTR_KEY. */
extern const struct bpf_map_ops ksim_qp_trie_ref_map_ops;
/* The posted series' shape: absent key restarts; key BTF type KSIM_BPF_BTF_ID_DYNPTR. */
extern const struct bpf_map_ops ksim_qp_trie_ref_restart_map_ops;

extern bool ksim_qp_trie_ref_mutant_no_rcu;	/* replaced nodes freed without RCU */
extern bool ksim_qp_trie_ref_mutant_next_skip;	/* get_next_key returns the key after the next */
extern bool ksim_qp_trie_ref_mutant_next_repeat; /* get_next_key(present key) restarts */
/*
 * Set the mutant KSIM_QP_TRIE_REF_MUTANT names (no-rcu, next-skip,
 * next-repeat; unset: none), saying so on stderr.  False, with one line,
 * for an unknown name.
 */
bool ksim_qp_trie_ref_mutant_env(void);

#endif
