// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the emulated resilient spinlocks (asm/rqspinlock.h,
 * shim/locking/rqspinlock.c) and the fault engine's lock class: the lock
 * and its wrappers' preempt/irq bookkeeping, AA (-EDEADLK at once, holding
 * nothing new), ABBA between two threads (one of them gets -EDEADLK, the
 * other then gets its lock), a timeout (-ETIMEDOUT after the bounded wait of
 * a holder that runs, not before), none while the holder is off the CPU (the
 * OS preempted it, which a kernel holder cannot be), injection by site name (class=lock: only lock sites, per-site
 * table, alloc sites untouched, and class=alloc leaving locks alone), and
 * the parser's class= key.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/lockdep.h>
#include <asm/rqspinlock.h>
#include <ksim/fault.h>
#include <ksim/test.h>

KSIM_TEST(lock_unlock_bookkeeping)
{
	rqspinlock_t a;
	unsigned long flags;

	raw_res_spin_lock_init(&a);
	KSIM_EXPECT_EQ(raw_res_spin_lock(&a), 0);
	KSIM_EXPECT(lockdep_is_held(&a));
	KSIM_EXPECT_EQ(preempt_count(), 1);
	raw_res_spin_unlock(&a);
	KSIM_EXPECT(!lockdep_is_held(&a));
	KSIM_EXPECT_EQ(preempt_count(), 0);

	KSIM_EXPECT_EQ(raw_res_spin_lock_irqsave(&a, flags), 0);
	KSIM_EXPECT(irqs_disabled());
	raw_res_spin_unlock_irqrestore(&a, flags);
	KSIM_EXPECT(!irqs_disabled());
	KSIM_EXPECT_EQ(preempt_count(), 0);
}

KSIM_TEST(aa_deadlock)
{
	struct ksim_rqspinlock_stats st;
	rqspinlock_t a, b;
	unsigned long flags;

	raw_res_spin_lock_init(&a);
	raw_res_spin_lock_init(&b);
	ksim_rqspinlock_stats_reset();
	KSIM_ASSERT(raw_res_spin_lock(&a) == 0);
	KSIM_ASSERT(raw_res_spin_lock(&b) == 0);
	/* Re-taking either (as a program re-entering on this CPU would) fails at once. */
	KSIM_EXPECT_EQ(raw_res_spin_lock_irqsave(&a, flags), -EDEADLK);
	KSIM_EXPECT_EQ(raw_res_spin_lock(&b), -EDEADLK);
	/* The failures undid their preempt/irq disabling and took nothing. */
	KSIM_EXPECT_EQ(preempt_count(), 2);
	KSIM_EXPECT(!irqs_disabled());
	KSIM_EXPECT_EQ(ksim_held_lock_count(), 2);
	raw_res_spin_unlock(&b);
	raw_res_spin_unlock(&a);
	ksim_rqspinlock_stats(&st);
	KSIM_EXPECT_EQ(st.aa, 2);
	KSIM_EXPECT_EQ(st.abba + st.timeout + st.injected, 0);
}

struct abba {
	rqspinlock_t *first, *second;
	int *have_first, *other_has_first;
	int ret;
};

static void *abba_thread(void *arg)
{
	struct abba *x = arg;

	if (raw_res_spin_lock(x->first))
		return NULL;
	__atomic_store_n(x->have_first, 1, __ATOMIC_RELEASE);
	ksim_test_wait_flag(x->other_has_first);
	x->ret = raw_res_spin_lock(x->second);
	if (!x->ret)
		raw_res_spin_unlock(x->second);
	raw_res_spin_unlock(x->first);
	return NULL;
}

KSIM_TEST(abba_deadlock)
{
	struct ksim_rqspinlock_stats st;
	rqspinlock_t a, b;
	int ha = 0, hb = 0;
	struct abba x = { &a, &b, &ha, &hb, 1 }, y = { &b, &a, &hb, &ha, 1 };
	pthread_t t1, t2;

	raw_res_spin_lock_init(&a);
	raw_res_spin_lock_init(&b);
	ksim_rqspinlock_stats_reset();
	/* Long enough that only the ABBA check can end the wait. */
	ksim_rqspinlock_timeout_ns = 60ULL * 1000000000ULL;
	pthread_create(&t1, NULL, abba_thread, &x);
	pthread_create(&t2, NULL, abba_thread, &y);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	ksim_rqspinlock_timeout_ns = RES_DEF_TIMEOUT;
	/* One side detects the cycle and backs off; the other then gets its lock. */
	KSIM_EXPECT((x.ret == -EDEADLK && y.ret == 0) || (x.ret == 0 && y.ret == -EDEADLK) ||
		    (x.ret == -EDEADLK && y.ret == -EDEADLK), "x %d y %d", x.ret, y.ret);
	ksim_rqspinlock_stats(&st);
	KSIM_EXPECT(st.abba >= 1 && st.abba <= 2);
	KSIM_EXPECT_EQ(st.aa + st.timeout, 0);
}

struct holder {
	rqspinlock_t *lock;
	int held, release;
	long sleep_ns;	/* off the CPU this long while holding (preempted), or spin */
};

static void *hold_thread(void *arg)
{
	struct holder *h = arg;

	if (raw_res_spin_lock(h->lock))
		return NULL;
	__atomic_store_n(&h->held, 1, __ATOMIC_RELEASE);
	if (h->sleep_ns) {
		struct timespec d = { 0, h->sleep_ns };

		nanosleep(&d, NULL);
	} else
		while (!__atomic_load_n(&h->release, __ATOMIC_ACQUIRE))
			;
	raw_res_spin_unlock(h->lock);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

KSIM_TEST(timeout)
{
	struct ksim_rqspinlock_stats st;
	rqspinlock_t a;
	struct holder h = { &a };
	pthread_t t;
	double t0, dt;
	int ret;

	raw_res_spin_lock_init(&a);
	ksim_rqspinlock_stats_reset();
	ksim_rqspinlock_timeout_ns = 50 * 1000000ULL;
	pthread_create(&t, NULL, hold_thread, &h);
	KSIM_ASSERT(ksim_test_wait_flag(&h.held));
	t0 = now_s();
	ret = raw_res_spin_lock(&a);
	dt = now_s() - t0;
	KSIM_EXPECT_EQ(ret, -ETIMEDOUT);
	KSIM_EXPECT(dt >= 0.05, "gave up after %.3f s", dt);
	KSIM_EXPECT_EQ(preempt_count(), 0);
	/* Once the holder lets go, the lock is free again. */
	__atomic_store_n(&h.release, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	ksim_rqspinlock_timeout_ns = RES_DEF_TIMEOUT;
	KSIM_EXPECT_EQ(raw_res_spin_lock(&a), 0);
	raw_res_spin_unlock(&a);
	ksim_rqspinlock_stats(&st);
	KSIM_EXPECT_EQ(st.timeout, 1);
	KSIM_EXPECT_EQ(st.aa + st.abba, 0);
}

/*
 * A holder the OS has taken off the CPU is not a kernel holder that keeps
 * the lock for the timeout (that one cannot be preempted): the waiter keeps
 * waiting and gets the lock once the holder runs again.
 */
KSIM_TEST(no_timeout_while_holder_preempted)
{
	struct ksim_rqspinlock_stats st;
	rqspinlock_t a;
	struct holder h = { &a, .sleep_ns = 200 * 1000000L };
	pthread_t t;
	double t0, dt;
	int ret;

	raw_res_spin_lock_init(&a);
	ksim_rqspinlock_stats_reset();
	ksim_rqspinlock_timeout_ns = 20 * 1000000ULL;
	pthread_create(&t, NULL, hold_thread, &h);
	KSIM_ASSERT(ksim_test_wait_flag(&h.held));
	/* The holder sleeps for ten timeouts, then lets go. */
	t0 = now_s();
	ret = raw_res_spin_lock(&a);
	dt = now_s() - t0;
	KSIM_EXPECT_EQ(ret, 0);
	KSIM_EXPECT(dt >= 0.1, "got the lock after %.3f s", dt);
	if (!ret)
		raw_res_spin_unlock(&a);
	pthread_join(t, NULL);
	ksim_rqspinlock_timeout_ns = RES_DEF_TIMEOUT;
	ksim_rqspinlock_stats(&st);
	KSIM_EXPECT_EQ(st.timeout + st.aa + st.abba, 0);
}

/* Two lock sites and one allocation site, by function name. */
static noinline int site_one(rqspinlock_t *l)
{
	int ret = raw_res_spin_lock(l);

	if (!ret)
		raw_res_spin_unlock(l);
	return ret;
}

static noinline int site_two(rqspinlock_t *l)
{
	int ret = raw_res_spin_lock(l);

	if (!ret)
		raw_res_spin_unlock(l);
	return ret;
}

static noinline bool site_alloc(void)
{
	void *p = kmalloc(32, GFP_KERNEL);

	kfree(p);
	return p != NULL;
}

KSIM_TEST(inject_lock_class)
{
	struct ksim_fault_config cfg;
	struct ksim_fault_site_stats st[16];
	rqspinlock_t a;
	char err[128];
	unsigned int n;
	int fails = 0;

	raw_res_spin_lock_init(&a);
	KSIM_ASSERT(ksim_fault_parse("class=lock,p=1,sites=site_two", &cfg, err, sizeof(err)) == 0, "%s", err);
	ksim_fault_set(&cfg);
	KSIM_EXPECT(ksim_fault_lock_armed());
	for (int i = 0; i < 5; i++) {
		KSIM_EXPECT_EQ(site_one(&a), 0);
		fails += site_two(&a) == -EDEADLK;
		KSIM_EXPECT(site_alloc());	/* allocations are another class */
	}
	KSIM_EXPECT_EQ(fails, 5);
	KSIM_EXPECT_EQ(ksim_fault_class_failures(KSIM_FAULT_LOCK), 5);
	KSIM_EXPECT_EQ(ksim_fault_class_failures(KSIM_FAULT_ALLOC), 0);
	n = ksim_fault_sites(st, 16);
	for (unsigned int i = 0; i < n; i++) {
		if (!strcmp(st[i].func, "site_two")) {
			KSIM_EXPECT_EQ(st[i].cls, KSIM_FAULT_LOCK);
			KSIM_EXPECT_EQ(st[i].reached, 5);
			KSIM_EXPECT_EQ(st[i].failed, 5);
		} else if (!strcmp(st[i].func, "site_one")) {
			KSIM_EXPECT_EQ(st[i].failed, 0);
		}
	}
	KSIM_EXPECT(!lockdep_is_held(&a));

	/* nth counts lock sites only; the default class leaves locks alone. */
	KSIM_ASSERT(ksim_fault_parse("class=lock,nth=2", &cfg, err, sizeof(err)) == 0);
	ksim_fault_set(&cfg);
	KSIM_EXPECT_EQ(site_one(&a), 0);
	KSIM_EXPECT(site_alloc());
	KSIM_EXPECT_EQ(site_two(&a), -EDEADLK);
	KSIM_EXPECT_EQ(site_one(&a), 0);
	KSIM_ASSERT(ksim_fault_parse("p=1", &cfg, err, sizeof(err)) == 0);
	ksim_fault_set(&cfg);
	KSIM_EXPECT(!ksim_fault_lock_armed());
	KSIM_EXPECT_EQ(site_one(&a), 0);
	KSIM_EXPECT(!site_alloc());
	ksim_fault_reset();
}

KSIM_TEST(parse_class)
{
	struct ksim_fault_config cfg;
	char err[128];

	KSIM_EXPECT_EQ(ksim_fault_parse("p=0.1", &cfg, err, sizeof(err)), 0);
	KSIM_EXPECT_EQ(cfg.classes, 0);	/* means alloc */
	KSIM_EXPECT_EQ(ksim_fault_parse("class=lock,p=0.1", &cfg, err, sizeof(err)), 0);
	KSIM_EXPECT_EQ(cfg.classes, KSIM_FAULT_LOCK);
	KSIM_EXPECT_EQ(ksim_fault_parse("sites=a,b,class=alloc+lock,nth=1", &cfg, err, sizeof(err)), 0);
	KSIM_EXPECT_EQ(cfg.classes, KSIM_FAULT_ALL);
	KSIM_EXPECT_EQ(cfg.nr_sites, 2);
	KSIM_EXPECT_EQ(ksim_fault_parse("class=all", &cfg, err, sizeof(err)), 0);
	KSIM_EXPECT_EQ(cfg.classes, KSIM_FAULT_ALL);
	KSIM_EXPECT_EQ(ksim_fault_parse("class=locks", &cfg, err, sizeof(err)), -1);
	KSIM_EXPECT(strstr(err, "class=locks"), "%s", err);
	KSIM_EXPECT_EQ(ksim_fault_parse("class=lock+", &cfg, err, sizeof(err)), -1);
}
