// SPDX-License-Identifier: GPL-2.0
/* kernel/bpf/hashtab.c from KSRC, unmodified. */
#include <kernel/bpf/hashtab.c>
