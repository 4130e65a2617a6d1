// SPDX-License-Identifier: GPL-2.0
/* kernel/bpf/queue_stack_maps.c from KSRC, unmodified. */
#include <kernel/bpf/queue_stack_maps.c>
