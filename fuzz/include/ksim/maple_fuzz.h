/* SPDX-License-Identifier: GPL-2.0 */
/* The maple fuzz target's whole-tree walk (fuzz/maple_tree_fuzz.c). */
#ifndef _KSIM_MAPLE_FUZZ_H
#define _KSIM_MAPLE_FUZZ_H

struct maple_tree;

typedef void (*ksim_mt_range_fn)(void *arg, unsigned long first, unsigned long last,
				 void *entry);

/*
 * Every non-NULL entry of @mt with its range, in index order, read from the
 * nodes directly.  The caller holds the tree's lock; mt_validate() should
 * have passed (a malformed node is walked as it is).
 */
void ksim_mt_for_each_range(struct maple_tree *mt, ksim_mt_range_fn fn, void *arg);

#endif
