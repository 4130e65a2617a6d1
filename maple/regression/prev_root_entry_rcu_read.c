// SPDX-License-Identifier: GPL-2.0
/*
 * Regression: mt_prev() on a tree whose only entry is the root pointer at
 * index 0 reads the root as an RCU reader.
 *
 * Guards: mas_prev()'s root-pointer case (lib/maple_tree.c).  6.1.192 returns
 * mas_root_locked() there, i.e. rcu_dereference_protected(ma_root,
 * mt_locked(mt)), while mt_prev() holds only rcu_read_lock(): with
 * CONFIG_PROVE_RCU the kernel reports "suspicious rcu_dereference_protected()
 * usage", and the load is a plain one where rcu_dereference() is needed.
 * 6.12's mas_prev_setup() uses mas_root() (rcu_dereference_check()).
 * Reach in 6.1: mt_prev() has no in-tree caller (whole linux-source-6.1
 * tarball); the mas_prev() callers in mm/ hold the mmap lock, the VMA tree's
 * external lock, where mas_root_locked() is right.  An API corner.
 *
 * The shim reports the unprotected rcu_dereference_protected() as a problem
 * ("suspicious RCU usage", shim/rcu/tree.c), which fails the test.
 *
 * Test code is ours; the tree is lib/maple_tree.c from KSRC (ksim_maple).
 */
#include <linux/maple_tree.h>
#include <linux/xarray.h>
#include <ksim/test.h>

KSIM_TEST(prev_root_entry_rcu_read)
{
	DEFINE_MTREE(mt);
	void *e;

	KSIM_ASSERT(!mtree_store(&mt, 0, xa_mk_value(1), GFP_KERNEL), "store at 0");
	e = mt_prev(&mt, 10, 0);
	KSIM_EXPECT(e == xa_mk_value(1), "mt_prev(10, min 0) = %p, want the entry at 0", e);
	mtree_destroy(&mt);
}
