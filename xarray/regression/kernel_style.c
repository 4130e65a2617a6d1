// SPDX-License-Identifier: GPL-2.0
/*
 * The xarray and IDA findings of docs/findings.toml written as kernel test
 * code: each check below is in the style of the kernel file that would take
 * it, so a maintainer can paste it there and call it from that file's entry
 * point (`scripts/ksim report ID --patch DIR` does both):
 *
 *	check_*(struct xarray *)	lib/test_xarray.c, XA_BUG_ON(), called
 *					from xarray_checks() as check_*(&array)
 *	ida_check_*(struct ida *)	lib/test_ida.c, IDA_BUG_ON(), called from
 *					ida_checks() as ida_check_*(&ida)
 *	iter_*_check(void)		tools/testing/radix-tree/main.c (the
 *					radix-tree API's own tests), assert() and
 *					test.c's item helpers, called from main()
 *
 * Here each runs as a ksim test against the tree's lib/xarray.c,
 * lib/radix-tree.c and lib/idr.c.  XA_BUG_ON() and IDA_BUG_ON() count and
 * report as the kernel files' own do (those call dump_stack(), which the
 * kernel's userspace harness turns into an abort); the wrapper fails the
 * test when one fired.  An assert() aborts, as in the harness.
 * Where a finding is present, the test is listed in docs/findings.toml and
 * XFAILs with "BUG at check_...".
 *
 * Test code is ours; the tree is lib/xarray.c and lib/idr.c from KSRC
 * (ksim_xarray).
 */
#include <linux/idr.h>
#include <linux/radix-tree.h>
#include <linux/xarray.h>
#include <ksim/test.h>
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>

static unsigned int tests_run;
static unsigned int tests_passed;

#undef XA_BUG_ON
#define XA_BUG_ON(xa, x) do {						\
	tests_run++;							\
	if (x)								\
		printf("BUG at %s:%d\n", __func__, __LINE__);		\
	else								\
		tests_passed++;						\
} while (0)
#define IDA_BUG_ON(ida, x)	XA_BUG_ON(&(ida)->xa, x)

#if KSIM_HAVE_XAS_TRY_SPLIT
/* lib/test_xarray.c's helper of the same name (the checks call it). */
static void *xa_store_order(struct xarray *xa, unsigned long index, unsigned int order,
			    void *entry, gfp_t gfp)
{
	XA_STATE_ORDER(xas, xa, index, order);
	void *curr;

	do {
		xas_lock(&xas);
		curr = xas_store(&xas, entry);
		xas_unlock(&xas);
	} while (xas_nomem(&xas, gfp));
	return curr;
}
#endif

/*
 * xarray-store-range-ulong-max: xa_store_range() up to ULONG_MAX returns
 * and stores nothing below @first.  (Without the fix it does not return:
 * its loop wraps to index 0 and goes round for ever with xa_lock held.)
 */
static noinline void check_store_range_ulong_max(struct xarray *xa)
{
	if (!IS_ENABLED(CONFIG_XARRAY_MULTI))
		return;

	XA_BUG_ON(xa, xa_store(xa, 0, xa_mk_value(0), GFP_KERNEL) != NULL);
	XA_BUG_ON(xa, xa_store_range(xa, ULONG_MAX - 3, ULONG_MAX,
				     xa_mk_value(1), GFP_KERNEL) != NULL);
	XA_BUG_ON(xa, xa_load(xa, 0) != xa_mk_value(0));
	XA_BUG_ON(xa, xa_load(xa, ULONG_MAX - 4));
	XA_BUG_ON(xa, xa_load(xa, ULONG_MAX - 3) != xa_mk_value(1));
	XA_BUG_ON(xa, xa_load(xa, ULONG_MAX) != xa_mk_value(1));
	xa_destroy(xa);
}

#if KSIM_HAVE_XAS_TRY_SPLIT
/*
 * xarray-try-split-below-min: a split that needs more than one new node
 * (two levels down) fails with -EINVAL and leaves the entry alone.
 */
static noinline void check_try_split_below_min(struct xarray *xa)
{
	unsigned int order = 2 * XA_CHUNK_SHIFT;
	unsigned int new_order = XA_CHUNK_SHIFT - 1;
	XA_STATE_ORDER(xas, xa, 0, new_order);

	if (!IS_ENABLED(CONFIG_XARRAY_MULTI))
		return;

	xa_store_order(xa, 0, order, xa, GFP_KERNEL);
	XA_BUG_ON(xa, xa_get_order(xa, 0) != order);
	XA_BUG_ON(xa, xas_try_split_min_order(order) <= new_order);

	/* allocate a node for xas_try_split() */
	xas_set_err(&xas, -ENOMEM);
	XA_BUG_ON(xa, !xas_nomem(&xas, GFP_KERNEL));

	xas_lock(&xas);
	xas_try_split(&xas, xa, order);
	XA_BUG_ON(xa, xas_error(&xas) != -EINVAL);
	xas_unlock(&xas);
	XA_BUG_ON(xa, xa_get_order(xa, 0) != order);
	XA_BUG_ON(xa, xa_load(xa, (1UL << order) - 1) != xa);

	xas_destroy(&xas);
	xa_destroy(xa);
}
#endif

#if KSIM_HAVE_IDA_EXISTS
/*
 * ida-find-first-range-stops-at-chunk: the first ID at or above @min is
 * found also when it is in a later bitmap than the first one present.
 */
static void ida_check_find_first_range(struct ida *ida)
{
	IDA_BUG_ON(ida, ida_alloc_min(ida, 5, GFP_KERNEL) != 5);
	IDA_BUG_ON(ida, ida_alloc_min(ida, 1030, GFP_KERNEL) != 1030);
	IDA_BUG_ON(ida, ida_find_first_range(ida, 100, 2000) != 1030);
	IDA_BUG_ON(ida, ida_find_first_range(ida, 6, 1029) != -ENOENT);

	ida_destroy(ida);
	IDA_BUG_ON(ida, !ida_is_empty(ida));
}
#endif

/*
 * tools/testing/radix-tree/test.c's item helpers, as the check uses them
 * (ours: an item is its index; the walk under the lock, which the
 * harness's single-threaded copy does without).
 */
struct item {
	unsigned long index;
};

static int item_insert(struct radix_tree_root *root, unsigned long index)
{
	struct item *item = malloc(sizeof(*item));
	int err;

	item->index = index;
	err = radix_tree_insert(root, index, item);
	if (err)
		free(item);
	return err;
}

static void item_free(struct item *item, unsigned long index)
{
	assert(item->index == index);
	free(item);
}

static void item_kill_tree(struct radix_tree_root *root)
{
	XA_STATE(xas, root, 0);
	void *entry;

	xas_lock(&xas);
	xas_for_each(&xas, entry, ULONG_MAX) {
		item_free(entry, xas.xa_index);
		xas_store(&xas, NULL);
	}
	xas_unlock(&xas);
	assert(xa_empty(root));
}

/*
 * A radix_tree_for_each_slot() walk from 10 that deletes the entry at
 * ULONG_MAX ends there: it does not start again at index 0, below its start.
 */
static void iter_delete_wrap_check(void)
{
	RADIX_TREE(tree, GFP_KERNEL);
	struct radix_tree_iter iter;
	void __rcu **slot;
	int n = 0;

	assert(item_insert(&tree, 5) == 0);
	assert(item_insert(&tree, ULONG_MAX) == 0);
	xa_lock(&tree);
	radix_tree_for_each_slot(slot, &tree, &iter, 10) {
		assert(iter.index == ULONG_MAX);
		item_free(radix_tree_deref_slot_protected(slot, &tree.xa_lock),
			  iter.index);
		radix_tree_iter_delete(&tree, &iter, slot);
		n++;
	}
	xa_unlock(&tree);
	assert(n == 1);
	item_kill_tree(&tree);
}

static DEFINE_XARRAY(array);
#if KSIM_HAVE_IDA_EXISTS
static DEFINE_IDA(ida);
#endif

struct check_run {
	void (*check)(struct xarray *xa);
	int done;
};

static void *check_thread(void *arg)
{
	struct check_run *run = arg;

	run->check(&array);
	__atomic_store_n(&run->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void report(const char *name, unsigned int run, unsigned int passed)
{
	run = tests_run - run;
	passed = tests_passed - passed;
	KSIM_EXPECT(passed == run, "%s: %u of %u checks failed", name, run - passed, run);
}

/*
 * One ksim test per check: fail when a check fired.  An xarray check runs
 * in a thread so that one which does not return (an endless loop under
 * xa_lock) is reported by name after 5 s instead of at the CTest timeout;
 * the checks take microseconds.
 */
static void run_xa_check(void (*check)(struct xarray *), const char *name)
{
	struct check_run run = { .check = check };
	unsigned int r = tests_run, p = tests_passed;
	pthread_t th;

	KSIM_ASSERT(!pthread_create(&th, NULL, check_thread, &run));
	for (int i = 0; i < 500 && !__atomic_load_n(&run.done, __ATOMIC_ACQUIRE); i++)
		usleep(10000);
	if (!__atomic_load_n(&run.done, __ATOMIC_ACQUIRE)) {
		printf("BUG at %s: it has not returned after 5 s\n", name);
		KSIM_EXPECT(0, "%s() does not return", name);
		/* it spins with xa_lock held: nothing more can run */
		fflush(stdout);
		fflush(stderr);
		_exit(1);
	}
	pthread_join(th, NULL);
	report(name, r, p);
}

KSIM_TEST(kernel_style_store_range_ulong_max)
{
	run_xa_check(check_store_range_ulong_max, "check_store_range_ulong_max");
}

KSIM_TEST(kernel_style_try_split_below_min)
{
#if KSIM_HAVE_XAS_TRY_SPLIT
	run_xa_check(check_try_split_below_min, "check_try_split_below_min");
#else
	printf("# this tree has no xas_try_split()\n");
#endif
}

KSIM_TEST(kernel_style_find_first_range)
{
#if KSIM_HAVE_IDA_EXISTS
	unsigned int r = tests_run, p = tests_passed;

	ida_check_find_first_range(&ida);
	report("ida_check_find_first_range", r, p);
#else
	printf("# this tree has no ida_find_first_range()\n");
#endif
}

KSIM_TEST(kernel_style_iter_delete_wrap)
{
	iter_delete_wrap_check();
}
