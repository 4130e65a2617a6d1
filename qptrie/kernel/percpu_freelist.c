// SPDX-License-Identifier: GPL-2.0
/* kernel/bpf/percpu_freelist.c from KSRC, unmodified. */
#include <kernel/bpf/percpu_freelist.c>
