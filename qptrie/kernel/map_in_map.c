// SPDX-License-Identifier: GPL-2.0
/* kernel/bpf/map_in_map.c from KSRC, unmodified. */
#include <kernel/bpf/map_in_map.c>
