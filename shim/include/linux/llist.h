/* SPDX-License-Identifier: GPL-2.0 */
/* Lock-less list types (hashtab.c sizes its elements with them). */
#ifndef LLIST_H
#define LLIST_H
#include <linux/types.h>
struct llist_head {
	struct llist_node *first;
};
struct llist_node {
	struct llist_node *next;
};
static inline void init_llist_head(struct llist_head *list) { list->first = NULL; }
#endif
