// SPDX-License-Identifier: GPL-2.0
/* kernel/bpf/bpf_lru_list.c from KSRC, unmodified. */
#include <kernel/bpf/bpf_lru_list.c>
