/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel tree's own lock-less lists (hashtab.c sizes its elements with
 * them; 7.x bpf_lru_list.c uses them).  Its out-of-line functions
 * (llist_add_batch, llist_del_first, ...) are lib/llist.c, compiled
 * unmodified into ksim_bpfmaps (qptrie/kernel/llist.c).
 */
#include <include/linux/llist.h>
