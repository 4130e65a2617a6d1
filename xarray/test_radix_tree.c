// SPDX-License-Identifier: GPL-2.0
/*
 * lib/radix-tree.c's own API, which the kernel's tests and our xarray model
 * leave to the IDR: seeded random operations on a radix tree against a
 * plain array, checked after every one.
 *
 *   radix_tree_api   insert after radix_tree_preload() or
 *                    radix_tree_maybe_preload() (GFP_KERNEL), under the
 *                    tree's lock, with the tree's own GFP_ATOMIC mask, as
 *                    kernel callers do; delete; lookup; lookup_slot() then
 *                    replace_slot(); tag set, clear and get (tags belong to
 *                    a present item and go with it); gang lookups; and
 *                    radix_tree_for_each_slot() deleting with
 *                    radix_tree_iter_delete() as it goes.  Every 256 ops
 *                    and at the end: every index of the array looked up.
 *
 * With --fault SPEC the engine fails allocations: a preload may return
 * -ENOMEM (nothing inserted), an insert after a successful preload may not.
 */
#include <linux/radix-tree.h>
#include <linux/spinlock.h>
#include <ksim/fault.h>
#include <ksim/test.h>

#define NIDX	512		/* indices 0..NIDX-1, and as many far ones */
#define NOPS	20000

static u64 items[2 * NIDX];	/* the stored pointers: &items[k] (aligned, not internal) */
static void *model[2 * NIDX];
static unsigned int tags[2 * NIDX];

/*
 * Index k of the model: the low ones dense, the others spread up to the
 * chunk below the last one: deleting in the chunk that ends at ULONG_MAX
 * while walking restarts the walk at 0 (finding
 * radix-tree-iter-delete-wrap, regression/radix_tree_iter_delete_wrap.c).
 */
static unsigned long index_of(unsigned int k)
{
	return k < NIDX ? k : ULONG_MAX - 64 - (unsigned long)(k - NIDX) * 0x10001UL;
}

/* xarray/radix_tree.c: this thread's preloaded nodes back to the slab */
int radix_tree_cpu_dead(unsigned int cpu);

static void check_all(struct radix_tree_root *root, const char *when)
{
	for (unsigned int k = 0; k < 2 * NIDX; k++) {
		void *got = radix_tree_lookup(root, index_of(k));

		KSIM_EXPECT(got == model[k], "%s: lookup(%#lx) = %p, model %p", when, index_of(k),
			    got, model[k]);
		for (unsigned int t = 0; got && t < RADIX_TREE_MAX_TAGS; t++)
			KSIM_EXPECT(radix_tree_tag_get(root, index_of(k), t) == !!(tags[k] & (1u << t)),
				    "%s: tag %u of %#lx", when, t, index_of(k));
	}
}

KSIM_TEST(radix_tree_api)
{
	struct ksim_rng *rng = ksim_test_rng();
	DEFINE_SPINLOCK(lock);
	RADIX_TREE(root, GFP_ATOMIC);
	unsigned long faults0 = ksim_fault_failures();

	memset(model, 0, sizeof(model));
	memset(tags, 0, sizeof(tags));
	for (unsigned int n = 0; n < NOPS && ksim_problem_count(KSIM_P_TEST) < 10; n++) {
		unsigned int k = ksim_rng_below(rng, 2 * NIDX), op = ksim_rng_below(rng, 100);
		unsigned int t = ksim_rng_below(rng, RADIX_TREE_MAX_TAGS);
		unsigned long index = index_of(k);
		void *item = &items[k], *got;
		int err;

		if (op < 30) {
			/* 0: this CPU holds enough nodes for one insert, with preemption off */
			err = op & 1 ? radix_tree_maybe_preload(GFP_KERNEL) : radix_tree_preload(GFP_KERNEL);
			if (err) {
				KSIM_EXPECT(err == -ENOMEM && ksim_fault_failures() > faults0,
					    "preload: %d", err);
				continue;
			}
			spin_lock(&lock);
			err = radix_tree_insert(&root, index, item);
			spin_unlock(&lock);
			radix_tree_preload_end();
			KSIM_EXPECT(err == (model[k] ? -EEXIST : 0), "insert(%#lx) after a preload: %d, model %s",
				    index, err, model[k] ? "present" : "absent");
			if (!err) {
				model[k] = item;
				tags[k] = 0;
			}
		} else if (op < 45) {
			spin_lock(&lock);
			got = radix_tree_delete(&root, index);
			spin_unlock(&lock);
			KSIM_EXPECT(got == model[k], "delete(%#lx) = %p, model %p", index, got, model[k]);
			model[k] = NULL;
		} else if (op < 55) {
			void __rcu **slot;

			spin_lock(&lock);
			slot = radix_tree_lookup_slot(&root, index);
			KSIM_EXPECT(!slot == !model[k], "lookup_slot(%#lx) = %p, model %p", index, slot,
				    model[k]);
			if (slot && model[k]) {
				/* the same item again or the one of its neighbour index: both ours */
				void *other = &items[(k + 1) % (2 * NIDX)];

				KSIM_EXPECT(radix_tree_deref_slot_protected(slot, &lock) == model[k],
					    "slot of %#lx holds another item", index);
				radix_tree_replace_slot(&root, slot, other);
				model[k] = other;
			}
			spin_unlock(&lock);
		} else if (op < 70) {
			spin_lock(&lock);
			if (op < 62) {
				got = model[k] ? radix_tree_tag_set(&root, index, t) : NULL;
				if (model[k])
					tags[k] |= 1u << t;
			} else {
				got = radix_tree_tag_clear(&root, index, t);
				tags[k] &= ~(1u << t);
			}
			spin_unlock(&lock);
			KSIM_EXPECT(got == model[k], "tag %s(%#lx, %u) = %p, model %p",
				    op < 62 ? "set" : "clear", index, t, got, model[k]);
		} else if (op < 85) {
			/* the first present items from a start, plain or tagged */
			void *res[8];
			unsigned int want = 0, nr, max = 1 + ksim_rng_below(rng, 8);
			bool tagged = op & 1;

			rcu_read_lock();
			nr = tagged ? radix_tree_gang_lookup_tag(&root, res, index, max, t) :
				      radix_tree_gang_lookup(&root, res, index, max);
			rcu_read_unlock();
			/* the model in index order: the dense part, then the far part upwards */
			for (unsigned int j = 0; j < 2 * NIDX && want < max; j++) {
				unsigned int kk = j < NIDX ? j : 2 * NIDX - 1 - (j - NIDX);

				if (index_of(kk) < index || !model[kk] ||
				    (tagged && !(tags[kk] & (1u << t))))
					continue;
				KSIM_EXPECT(want < nr && res[want] == model[kk],
					    "gang lookup%s from %#lx: result %u is %p, model %p at %#lx",
					    tagged ? " (tag)" : "", index, want,
					    want < nr ? res[want] : NULL, model[kk], index_of(kk));
				want++;
			}
			KSIM_EXPECT(nr == want, "gang lookup%s from %#lx (max %u): %u results, model %u",
				    tagged ? " (tag)" : "", index, max, nr, want);
		} else if (op < 88) {
			/* delete while iterating: every item whose index has bit 0 as @t's */
			struct radix_tree_iter iter;
			void __rcu **slot;

			spin_lock(&lock);
			radix_tree_for_each_slot(slot, &root, &iter, index) {
				if ((iter.index & 1) == (t & 1))
					radix_tree_iter_delete(&root, &iter, slot);
			}
			spin_unlock(&lock);
			for (unsigned int kk = 0; kk < 2 * NIDX; kk++)
				if (index_of(kk) >= index && (index_of(kk) & 1) == (t & 1))
					model[kk] = NULL;
		} else {
			got = radix_tree_lookup(&root, index);
			KSIM_EXPECT(got == model[k], "lookup(%#lx) = %p, model %p", index, got, model[k]);
		}
		if (n % 256 == 0)
			check_all(&root, "every 256 ops");
	}
	check_all(&root, "at the end");
	/* empty it as callers do: delete every item */
	spin_lock(&lock);
	for (unsigned int k = 0; k < 2 * NIDX; k++)
		if (model[k])
			radix_tree_delete(&root, index_of(k));
	spin_unlock(&lock);
	KSIM_EXPECT(radix_tree_empty(&root), "tree not empty after deleting every item");
	radix_tree_cpu_dead(0);
}
