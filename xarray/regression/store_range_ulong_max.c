// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer: xa_store_range() with last == ULONG_MAX never returns, and
 * stores its entry over indices below @first.
 *
 * lib/xarray.c, xa_store_range(), every supported tree (6.1 to 7.3.4):
 *
 *	do {
 *		xas_set_range(&xas, first, last);
 *		xas_store(&xas, entry);
 *		...
 *		first += xas_size(&xas);
 *	} while (first <= last);
 *
 * After the chunk that ends at ULONG_MAX, `first` wraps to 0, and 0 <=
 * ULONG_MAX: the loop starts again at index 0, storing the entry over
 * [0, ...), and goes round for ever with xa_lock held.  The function
 * handles last == ULONG_MAX for the order (`if (last + 1)`), not for the
 * loop.  Reach: the one in-tree caller, mm/memremap.c, passes PHYS_PFN()s of
 * a physical range, never ULONG_MAX; an API corner (xa_store_range() is
 * exported, its kernel-doc allows any last >= first).
 *
 * Expected: the call returns, indices 0 and 100 keep their entries, and
 * [ULONG_MAX - 3, ULONG_MAX] holds the new one.  The storing thread is
 * given 2 s; a correct store of four indices takes microseconds.
 *
 * Finding xarray-store-range-ulong-max in docs/findings.toml.
 * Test code is ours; the tree is lib/xarray.c from KSRC (ksim_xarray).
 */
#include <linux/xarray.h>
#include <ksim/test.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static DEFINE_XARRAY(store_range_xa);
static int store_range_done;

static void *store_range_thread(void *arg)
{
	(void)arg;
	xa_store_range(&store_range_xa, ULONG_MAX - 3, ULONG_MAX, xa_mk_value(1), GFP_KERNEL);
	__atomic_store_n(&store_range_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

KSIM_TEST(store_range_to_ulong_max)
{
	struct xarray *xa = &store_range_xa;
	void *e0, *e100;
	pthread_t th;

	KSIM_ASSERT(!xa_err(xa_store(xa, 0, xa_mk_value(7), GFP_KERNEL)));
	KSIM_ASSERT(!xa_err(xa_store(xa, 100, xa_mk_value(8), GFP_KERNEL)));
	KSIM_ASSERT(!pthread_create(&th, NULL, store_range_thread, NULL));
	for (int i = 0; i < 200 && !__atomic_load_n(&store_range_done, __ATOMIC_ACQUIRE); i++)
		usleep(10000);
	rcu_read_lock();
	e0 = xa_load(xa, 0);
	e100 = xa_load(xa, 100);
	rcu_read_unlock();
	KSIM_EXPECT(e0 == xa_mk_value(7) && e100 == xa_mk_value(8),
		    "entries outside [ULONG_MAX - 3, ULONG_MAX] overwritten: index 0 = %p (was %p), 100 = %p (was %p)",
		    e0, xa_mk_value(7), e100, xa_mk_value(8));
	if (!__atomic_load_n(&store_range_done, __ATOMIC_ACQUIRE)) {
		KSIM_EXPECT(0, "xa_store_range(ULONG_MAX - 3, ULONG_MAX) has not returned after 2 s");
		/* the thread spins with xa_lock held: nothing more can run */
		fflush(stdout);
		fflush(stderr);
		_exit(1);
	}
	pthread_join(th, NULL);
	KSIM_EXPECT(xa_load(xa, ULONG_MAX) == xa_mk_value(1));
	KSIM_EXPECT(xa_load(xa, ULONG_MAX - 3) == xa_mk_value(1));
	KSIM_EXPECT(xa_load(xa, ULONG_MAX - 4) == NULL);
	xa_destroy(xa);
}
