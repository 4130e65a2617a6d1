// SPDX-License-Identifier: GPL-2.0
/* kernel/bpf/bpf_qp_trie.c (the posted qp-trie series) from KSRC, unmodified. */
#include <kernel/bpf/bpf_qp_trie.c>
