// SPDX-License-Identifier: GPL-2.0
/* kernel/bpf/lpm_trie.c from KSRC, unmodified. */
#include <kernel/bpf/lpm_trie.c>
