// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer: a store retried after mas_nomem() counts its nodes with the
 * heights of the walk before the retry, so when another writer changed the
 * tree while mas_nomem() had the tree lock dropped, the retry preallocates
 * too few nodes and mas_pop_node() runs out in the middle of the write:
 * WARN_ON_ONCE(!mas->sheaf) and a NULL node (node_copy()).
 *
 * Found by stress/maple_stress (`maple_stress -d 4 -s 2 --fault
 * p=0.01,seed=1 --yield 0.01` on 7.3.4; 3 of fault seeds 1-20: "kmem_cache_
 * alloc_from_sheaf(maple_node) from empty sheaf ... more objects taken than
 * prefilled" in mas_pop_node() from mas_wr_split()), then reduced by reading
 * to the single-threaded sequence below.
 *
 * Mechanism (lib/maple_tree.c, 7.2.13 and 7.3.4): mas_wr_walk() sets
 * wr_mas->vacant_height and ->sufficient_height only when it passes a node
 * that qualifies and never clears them; MA_WR_STATE() zeroes them once.
 * mas_store_gfp() (and the other `goto retry` loops around mas_nomem())
 * reuse the same wr_mas, and mas_nomem() drops the tree lock for a blocking
 * allocation.  When the tree changed in between so that the new walk passes
 * no vacant node, the old vacant_height stays, and mas_prealloc_calc()'s
 * `delta = height - wr_mas->vacant_height` is too small.  Here: the first
 * walk (three levels) finds the leaf's parent vacant (vacant_height 2) and
 * asks for one node (a node store in an RCU tree) from mt_alloc_one(
 * GFP_NOWAIT), which fails; mas_nomem() unlocks and allocates that node with
 * GFP_KERNEL; meanwhile another writer leaves two levels with a full root;
 * the retry's store is a split (height 2 - 2 = 0: one node) that needs five.
 * mas_alloc_nodes() keeps the single node in mas->alloc, and the split's
 * second mas_pop_node() finds no sheaf.  Through a sheaf the count can run
 * short too: kmem_cache_prefill_sheaf() (mm/slub.c) hands out the per-CPU
 * spare sheaf when it holds at least the request, and
 * kmem_cache_alloc_from_sheaf() on an empty sheaf returns NULL (the stress
 * run's symptom; the shim fills a sheaf to exactly the request by default).
 * This test sets the shim to the kernel's filling
 * (ksim_slab_set_sheaf_fill_capacity()).
 *
 * The other writer runs from the first yield point at which the storing
 * thread has dropped the tree lock after the failed GFP_NOWAIT allocation
 * (inside mas_nomem()'s GFP_KERNEL allocation), where a concurrent writer
 * waiting for the tree lock would get it.
 *
 * Expected: the store succeeds and the tree is valid.  6.1.192 and 6.12.117
 * count nodes from the height alone and pass; 7.2.13 and 7.3.4 fail.  With
 * `wr_mas->vacant_height = 0; wr_mas->sufficient_height = 0;` at the top of
 * mas_wr_walk() (a scratch 7.3.4 tree) both tests pass, and maple_stress
 * with fault seeds 1-20 shows the symptom 0 times (3 on the pristine tree).
 *
 * Finding maple-nomem-retry-stale-height in docs/findings.toml.
 * Test code is ours; the tree is lib/maple_tree.c from KSRC (ksim_maple).
 */
#include <linux/maple_tree.h>
#include <linux/xarray.h>
#include <ksim/fault.h>
#include <ksim/slab.h>
#include <ksim/test.h>

/* Walks every range (NULL ones too): the number of leaves, the ranges in @index's leaf. */
static void shape(struct maple_tree *mt, unsigned long index, unsigned int *leaves,
		  unsigned int *slots)
{
	MA_STATE(mas, mt, 0, 0);
	void *leaf = NULL, *target = NULL;
	unsigned long i = 0;

	*leaves = 0;
	rcu_read_lock();
	do {
		mas_set(&mas, i);
		mas_walk(&mas);
		if (mas.node != leaf) {
			leaf = mas.node;
			(*leaves)++;
		}
		if (mas.index <= index && index <= mas.last)
			target = leaf;
		i = mas.last + 1;
	} while (mas.last != ULONG_MAX);
	*slots = 0;
	i = 0;
	do {
		mas_set(&mas, i);
		mas_walk(&mas);
		if (mas.node == target)
			(*slots)++;
		i = mas.last + 1;
	} while (mas.last != ULONG_MAX);
	rcu_read_unlock();
}

/* [i * 10, i * 10 + 5] = i for i < n. */
static void fill(struct maple_tree *mt, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		KSIM_ASSERT(!mtree_store_range(mt, i * 10, i * 10 + 5, xa_mk_value(i), GFP_KERNEL),
			    "store %lu", i);
}

/*
 * The other writer: runs once, at the first yield point where the storing
 * thread has dropped the tree lock after its GFP_NOWAIT allocation failed,
 * i.e. inside mas_nomem()'s GFP_KERNEL allocation.
 */
static struct maple_tree *hook_mt;
static bool hook_ran, hook_busy;

static void other_writer(void)
{
	unsigned int leaves, slots;

	if (hook_ran || hook_busy || !ksim_fault_failures() || spin_is_locked(&hook_mt->ma_lock))
		return;
	hook_busy = true;
	/* Erase everything, then two levels: a full root over 16 leaves. */
	KSIM_ASSERT(!mtree_store_range(hook_mt, 0, ULONG_MAX, NULL, GFP_KERNEL), "erase all");
	fill(hook_mt, 127);
	shape(hook_mt, 1991, &leaves, &slots);
	KSIM_ASSERT(mt_height(hook_mt) == 2 && leaves == 16 && slots >= 15,
		    "the other writer's tree: height %u, %u leaves, %u ranges in the last (want 2, 16, >= 15)",
		    mt_height(hook_mt), leaves, slots);
	hook_busy = false;
	hook_ran = true;
}

static void store_after_nomem(bool concurrent)
{
	struct ksim_fault_config cfg = { .nth = 1, .nowait_only = true, .nr_sites = 1,
					 .sites = { "mt_alloc_one" } };
	struct maple_tree mt;
	unsigned int leaves, slots;

	ksim_slab_set_sheaf_fill_capacity(true);	/* the kernel's sheaves */
	mt_init_flags(&mt, MT_FLAGS_USE_RCU);
	fill(&mt, 200);
	shape(&mt, 1991, &leaves, &slots);
	KSIM_ASSERT(mt_height(&mt) == 3 && slots <= 13,
		    "the first tree: height %u, %u ranges in the last leaf (want 3, <= 13)",
		    mt_height(&mt), slots);

	hook_mt = &mt;
	hook_ran = hook_busy = false;
	ksim_fault_set(&cfg);
	if (concurrent)
		ksim_set_yield_hook(other_writer);
	/* A node store in an RCU tree: one node, from mt_alloc_one(GFP_NOWAIT), which fails. */
	KSIM_EXPECT(!mtree_store_range(&mt, 1991, 1992, xa_mk_value(1000), GFP_KERNEL),
		    "store [1991, 1992]");
	ksim_set_yield_hook(NULL);
	KSIM_EXPECT(ksim_fault_failures() == 1, "the GFP_NOWAIT allocation failed (%lu failures)",
		    ksim_fault_failures());
	ksim_fault_reset();
	KSIM_EXPECT(hook_ran == concurrent, "the other writer ran in the unlocked window");
	KSIM_EXPECT(mtree_load(&mt, 1991) == xa_mk_value(1000), "1991 holds the stored value");
	mtree_lock(&mt);
	mt_validate(&mt);
	mtree_unlock(&mt);
	mtree_destroy(&mt);
	rcu_barrier();
	ksim_slab_set_sheaf_fill_capacity(false);
}

/* The tree changes while mas_nomem() has the lock dropped. */
KSIM_TEST(store_retry_after_concurrent_shrink)
{
	store_after_nomem(true);
}

/* Control: the same failed allocation and retry, nobody else writes. */
KSIM_TEST(store_retry_after_nomem)
{
	store_after_nomem(false);
}
