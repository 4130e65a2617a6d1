// SPDX-License-Identifier: GPL-2.0
/* kernel/bpf/arraymap.c from KSRC, unmodified. */
#include <kernel/bpf/arraymap.c>
