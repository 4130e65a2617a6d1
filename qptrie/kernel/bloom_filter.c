// SPDX-License-Identifier: GPL-2.0
/* kernel/bpf/bloom_filter.c from KSRC, unmodified. */
#include <kernel/bpf/bloom_filter.c>
