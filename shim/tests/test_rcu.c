// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the shim's RCU (shim/rcu/tree.c on liburcu): read-side
 * nesting and the *_held() answers per flavour, call_rcu() ordering against
 * a grace period and the context its callbacks run in, rcu_barrier() (also
 * with nothing queued), kfree_rcu()/kvfree_rcu(), synchronize_rcu() waiting
 * for a reader in another thread, publication with rcu_assign_pointer(),
 * the CONFIG_PROVE_RCU checks (rcu_dereference() outside a reader,
 * rcu_dereference_protected(), unbalanced rcu_read_unlock()), the stats, and
 * a small reader/updater stress test whose use-after-free AddressSanitizer
 * would catch.
 */
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include <ksim/rcu.h>
#include <ksim/slab.h>
#include <ksim/test.h>

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static unsigned long kmalloc_live(void)
{
	struct ksim_slab_stats st;

	ksim_slab_stats(KSIM_CACHE_KMALLOC, &st);
	return st.live;
}

KSIM_TEST(read_lock_nesting)
{
	KSIM_EXPECT(!rcu_read_lock_held());
	KSIM_EXPECT(!rcu_read_lock_bh_held());
	KSIM_EXPECT(!rcu_read_lock_sched_held());

	rcu_read_lock();
	KSIM_EXPECT(rcu_read_lock_held());
	rcu_read_lock();
	rcu_read_lock();
	KSIM_EXPECT_EQ(ksim_task()->rcu_nesting, 3);
	rcu_read_unlock();
	rcu_read_unlock();
	KSIM_EXPECT(rcu_read_lock_held());
	rcu_read_unlock();
	KSIM_EXPECT(!rcu_read_lock_held());
	KSIM_EXPECT_EQ(ksim_task()->rcu_nesting, 0);

	rcu_read_lock_bh();
	KSIM_EXPECT(rcu_read_lock_bh_held());
	KSIM_EXPECT(in_softirq());
	rcu_read_lock_bh();
	rcu_read_unlock_bh();
	KSIM_EXPECT(rcu_read_lock_bh_held());
	rcu_read_unlock_bh();
	KSIM_EXPECT(!rcu_read_lock_bh_held());
	KSIM_EXPECT(!in_softirq());

	rcu_read_lock_sched();
	KSIM_EXPECT(rcu_read_lock_sched_held());
	KSIM_EXPECT(!preemptible());
	rcu_read_lock_sched();
	rcu_read_unlock_sched();
	KSIM_EXPECT(rcu_read_lock_sched_held());
	rcu_read_unlock_sched();
	KSIM_EXPECT(!rcu_read_lock_sched_held());
	KSIM_EXPECT(preemptible());

	/* flavours nest inside each other; one liburcu section underneath */
	rcu_read_lock();
	rcu_read_lock_bh();
	rcu_read_lock_sched();
	/* 3 flavours + 1 for the atomic section (bh and preemption off) */
	KSIM_EXPECT_EQ(ksim_task()->rcu_urcu_nesting, 4);
	KSIM_EXPECT(rcu_read_lock_any_held());
	rcu_read_unlock_sched();
	rcu_read_unlock_bh();
	rcu_read_unlock();
	KSIM_EXPECT_EQ(ksim_task()->rcu_urcu_nesting, 0);
	KSIM_EXPECT(!rcu_read_lock_any_held());

	/* preempt_disable() is a sched reader, as in the kernel */
	preempt_disable();
	KSIM_EXPECT(rcu_read_lock_sched_held());
	preempt_enable();
	local_bh_disable();
	KSIM_EXPECT(rcu_read_lock_bh_held());
	local_bh_enable();
}

/*
 * The kernel's rcu_read_lock_held() is lock_is_held(&rcu_lock_map): true only
 * inside rcu_read_lock().  A spinlock, disabled irqs, or the bh/sched
 * flavours do not make it true, so rcu_dereference() there is "suspicious
 * RCU usage" (kernel/rcu/update.c).  In the shim a spinlock does not even
 * hold off a grace period (it enters no liburcu read section).
 */
KSIM_TEST(rcu_read_lock_held_only_in_rcu_read_lock)
{
	unsigned long base = ksim_problem_count(KSIM_P_RCU);
	static int target = 1;
	int *gp = &target, *p;
	unsigned long flags;
	DEFINE_SPINLOCK(lock);

	spin_lock(&lock);
	KSIM_EXPECT(!rcu_read_lock_held());
	ksim_expect_problems(KSIM_P_RCU, 1);
	p = rcu_dereference(gp);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_RCU), base + 1);
	spin_unlock(&lock);
	KSIM_EXPECT(p == &target);

	local_irq_save(flags);
	KSIM_EXPECT(!rcu_read_lock_held());
	local_irq_restore(flags);

	preempt_disable();
	KSIM_EXPECT(!rcu_read_lock_held());
	preempt_enable();

	rcu_read_lock_bh();
	KSIM_EXPECT(!rcu_read_lock_held());
	rcu_read_unlock_bh();

	rcu_read_lock_sched();
	KSIM_EXPECT(!rcu_read_lock_held());
	rcu_read_unlock_sched();
}

struct cb_probe {
	struct rcu_head rcu;
	int ran;
	int thread_id;
	bool serving_softirq;
	bool in_softirq;
	bool in_atomic;
	bool callback_map_held;
	bool bh_held;
};

static void probe_cb(struct rcu_head *head)
{
	struct cb_probe *p = container_of(head, struct cb_probe, rcu);

	p->thread_id = ksim_task()->id;
	p->serving_softirq = in_serving_softirq();
	p->in_softirq = in_softirq();
	p->in_atomic = in_atomic();
	p->callback_map_held = lock_is_held(&rcu_callback_map);
	p->bh_held = rcu_read_lock_bh_held();
	__atomic_store_n(&p->ran, p->ran + 1, __ATOMIC_RELEASE);
}

KSIM_TEST(call_rcu_after_grace_period)
{
	static struct cb_probe probe;
	struct ksim_rcu_stats s0, s1;

	memset(&probe, 0, sizeof(probe));
	ksim_rcu_stats(&s0);

	/* queued inside a reader: it cannot run until the reader ends */
	rcu_read_lock();
	call_rcu(&probe.rcu, probe_cb);
	usleep(20000);
	KSIM_EXPECT_EQ(__atomic_load_n(&probe.ran, __ATOMIC_ACQUIRE), 0);
	rcu_read_unlock();

	rcu_barrier();
	KSIM_EXPECT_EQ(__atomic_load_n(&probe.ran, __ATOMIC_ACQUIRE), 1);
	KSIM_EXPECT(probe.thread_id != ksim_task()->id);
	KSIM_EXPECT(probe.serving_softirq);
	KSIM_EXPECT(probe.callback_map_held);
	KSIM_EXPECT(probe.bh_held);
	/* and not afterwards */
	KSIM_EXPECT(!in_serving_softirq());
	KSIM_EXPECT(!lock_is_held(&rcu_callback_map));

	ksim_rcu_stats(&s1);
	KSIM_EXPECT_EQ(s1.callbacks_queued, s0.callbacks_queued + 1);
	KSIM_EXPECT_EQ(s1.callbacks_invoked, s0.callbacks_invoked + 1);
	KSIM_EXPECT(s1.grace_periods >= s0.grace_periods + 1);
}

/*
 * Callbacks run from softirq (or with bh disabled in an rcuo kthread), so
 * the kernel's in_softirq() and in_atomic() are true in them: both read
 * softirq_count(), which includes the SOFTIRQ_OFFSET a serving softirq holds.
 */
KSIM_TEST(call_rcu_callback_is_in_softirq)
{
	static struct cb_probe probe;

	memset(&probe, 0, sizeof(probe));
	call_rcu(&probe.rcu, probe_cb);
	rcu_barrier();
	KSIM_EXPECT_EQ(probe.ran, 1);
	KSIM_EXPECT(probe.serving_softirq);
	KSIM_EXPECT(probe.in_softirq);
	KSIM_EXPECT(probe.in_atomic);
}

static bool probes_ran_within(struct cb_probe *a, struct cb_probe *b, double secs)
{
	double t0 = now_sec();

	while (!__atomic_load_n(&a->ran, __ATOMIC_ACQUIRE) ||
	       !__atomic_load_n(&b->ran, __ATOMIC_ACQUIRE)) {
		if (now_sec() - t0 > secs)
			return false;
		usleep(1000);
	}
	return true;
}

/*
 * The worker lets callbacks gather for ksim_rcu_gather_ns before their
 * grace period: two callbacks 20 ms apart share one, inside a 500 ms
 * window, and the window ends by itself (no rcu_barrier() here).
 */
KSIM_TEST(call_rcu_callbacks_gather_for_one_grace_period)
{
	static struct cb_probe a, b;
	unsigned long saved = ksim_rcu_gather_ns;
	struct ksim_rcu_stats s0, s1;

	rcu_barrier();
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	ksim_rcu_gather_ns = 500 * 1000 * 1000;
	ksim_rcu_stats(&s0);
	call_rcu(&a.rcu, probe_cb);
	usleep(20000);
	KSIM_EXPECT_EQ(__atomic_load_n(&a.ran, __ATOMIC_ACQUIRE), 0);
	call_rcu(&b.rcu, probe_cb);
	KSIM_EXPECT(probes_ran_within(&a, &b, 30));
	ksim_rcu_stats(&s1);
	KSIM_EXPECT_EQ(s1.grace_periods, s0.grace_periods + 1);
	ksim_rcu_gather_ns = saved;
}

/* rcu_barrier() does not wait out the gathering (here a minute long). */
KSIM_TEST(rcu_barrier_ends_the_gathering)
{
	static struct cb_probe a, b;
	unsigned long saved = ksim_rcu_gather_ns;
	double t0;

	rcu_barrier();
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	ksim_rcu_gather_ns = 60UL * 1000 * 1000 * 1000;
	t0 = now_sec();
	call_rcu(&a.rcu, probe_cb);
	call_rcu(&b.rcu, probe_cb);
	rcu_barrier();
	KSIM_EXPECT(probes_ran_within(&a, &b, 0));
	KSIM_EXPECT(now_sec() - t0 < 30);
	ksim_rcu_gather_ns = saved;
}

KSIM_TEST(rcu_barrier_empty_is_prompt)
{
	double t0;

	rcu_barrier();		/* drain anything left from earlier tests */
	t0 = now_sec();
	for (int i = 0; i < 100; i++)
		rcu_barrier();
	/* liburcu's own rcu_barrier() would take ~10 ms each */
	KSIM_EXPECT(now_sec() - t0 < 0.1);
}

struct rcu_obj {
	char pad[40];
	int value;
	struct rcu_head rcu;	/* not at offset 0 */
};

KSIM_TEST(kfree_rcu_frees)
{
	unsigned long live0 = kmalloc_live();
	struct ksim_slab_stats v0, v1;
	struct rcu_obj *o[10];
	struct rcu_obj *big;

	for (int i = 0; i < 10; i++) {
		o[i] = kzalloc(sizeof(*o[i]), GFP_KERNEL);
		KSIM_ASSERT(o[i]);
	}
	KSIM_EXPECT_EQ(kmalloc_live(), live0 + 10);
	for (int i = 0; i < 10; i++)
		kfree_rcu(o[i], rcu);
	rcu_barrier();
	KSIM_EXPECT_EQ(kmalloc_live(), live0);

	/* kvfree_rcu() on a vmalloc'ed object frees it with vfree */
	ksim_slab_stats(KSIM_CACHE_VMALLOC, &v0);
	big = kvzalloc(1 << 20, GFP_KERNEL);
	KSIM_ASSERT(big);
	KSIM_EXPECT(is_vmalloc_addr(big));
	kvfree_rcu(big, rcu);
	rcu_barrier();
	ksim_slab_stats(KSIM_CACHE_VMALLOC, &v1);
	KSIM_EXPECT_EQ(v1.live, v0.live);

	/* kfree_rcu(NULL) is a no-op */
	big = NULL;
	kfree_rcu(big, rcu);
}

/* What the reader thread holds while the grace period should wait. */
enum sync_section { S_RCU, S_SPINLOCK, S_PREEMPT, S_BH, S_IRQ, S_NR };

static const char *const sync_section_names[] = {
	"rcu_read_lock()", "spin_lock()", "preempt_disable()", "local_bh_disable()",
	"local_irq_save()",
};

struct sync_reader {
	pthread_mutex_t m;
	pthread_cond_t c;
	enum sync_section how;
	int inside;
	int done;
};

static DEFINE_SPINLOCK(sync_lock);

/* The reader's side: it is in its section now. */
static void sync_reader_inside(struct sync_reader *r)
{
	pthread_mutex_lock(&r->m);
	r->inside = 1;
	pthread_cond_signal(&r->c);
	pthread_mutex_unlock(&r->m);
}

/* Start fn(r) on a thread and wait until it is in its section. */
static void sync_reader_start(pthread_t *th, void *(*fn)(void *), struct sync_reader *r)
{
	KSIM_ASSERT(!pthread_create(th, NULL, fn, r));
	pthread_mutex_lock(&r->m);
	while (!r->inside)
		pthread_cond_wait(&r->c, &r->m);
	pthread_mutex_unlock(&r->m);
}

static void *sync_reader_fn(void *arg)
{
	struct sync_reader *r = arg;
	unsigned long flags = 0;

	switch (r->how) {
	case S_RCU:	rcu_read_lock(); break;
	case S_SPINLOCK: spin_lock(&sync_lock); break;
	case S_PREEMPT:	preempt_disable(); break;
	case S_BH:	local_bh_disable(); break;
	default:	local_irq_save(flags); break;
	}
	sync_reader_inside(r);
	usleep(50000);
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	switch (r->how) {
	case S_RCU:	rcu_read_unlock(); break;
	case S_SPINLOCK: spin_unlock(&sync_lock); break;
	case S_PREEMPT:	preempt_enable(); break;
	case S_BH:	local_bh_enable(); break;
	default:	local_irq_restore(flags); break;
	}
	return NULL;
}

/*
 * A grace period waits for RCU readers and, as in the kernel since the
 * flavours were consolidated, for every atomic section (a spinlock held,
 * preemption, bottom halves or interrupts off): kernel code reads nodes
 * under a spinlock after queueing their free.
 */
KSIM_TEST(synchronize_rcu_waits_for_reader)
{
	for (int how = 0; how < S_NR; how++) {
		struct sync_reader r = {
			.m = PTHREAD_MUTEX_INITIALIZER, .c = PTHREAD_COND_INITIALIZER,
			.how = how,
		};
		pthread_t th;
		double t0;

		sync_reader_start(&th, sync_reader_fn, &r);

		t0 = now_sec();
		synchronize_rcu();
		KSIM_EXPECT(__atomic_load_n(&r.done, __ATOMIC_ACQUIRE) == 1,
			    "synchronize_rcu() returned while a thread was inside %s",
			    sync_section_names[how]);
		KSIM_EXPECT(now_sec() - t0 > 0.02);
		pthread_join(th, NULL);
	}

	/* with no reader it does not wait for one */
	synchronize_rcu();
}

/*
 * A thread that exits inside a read-side section (or holding a spinlock,
 * an atomic section) is reported, and the grace period already waiting for
 * it ends: liburcu's waiter sleeps until the reader's read_unlock wakes it,
 * so the shim leaves the thread's sections at exit (shim/rcu/read.c,
 * ksim_rcu_leave_all()).  Before, a kernel function that lost its
 * rcu_read_unlock() hung its test after the report.
 */
static DEFINE_SPINLOCK(exit_lock);

static void *exit_inside_fn(void *arg)
{
	struct sync_reader *r = arg;

	if (r->how == S_RCU)
		rcu_read_lock();
	else
		spin_lock(&exit_lock);
	sync_reader_inside(r);
	usleep(50000);		/* synchronize_rcu() is waiting by now */
	return NULL;
}

KSIM_TEST(thread_exit_inside_section_is_left)
{
	static const enum sync_section hows[] = { S_RCU, S_SPINLOCK };

	ksim_expect_problems(KSIM_P_RCU, 1);
	ksim_expect_problems(KSIM_P_LOCKDEP, 1);
	for (int i = 0; i < 2; i++) {
		struct sync_reader r = {
			.m = PTHREAD_MUTEX_INITIALIZER, .c = PTHREAD_COND_INITIALIZER,
			.how = hows[i],
		};
		pthread_t th;

		sync_reader_start(&th, exit_inside_fn, &r);
		synchronize_rcu();
		pthread_join(th, NULL);
		synchronize_rcu();
		rcu_barrier();
	}
}

/*
 * A callback queued inside a read-side section (here under a spinlock, as
 * lib/xarray.c's xas_delete_node() queues a node's free before it clears the
 * slot that points at it) does not run while a reader that began before
 * that section ended is still inside, even one that began after the
 * call_rcu() (shim/rcu/tree.c: the deferral, and how it differs from the
 * kernel's promise).
 */
struct late_reader {
	pthread_mutex_t m;
	pthread_cond_t c;
	int inside;		/* the reader is in its section */
	int unlocked;		/* the queuing section has ended */
	struct cb_probe *probe;
	int ran_inside;		/* the callback had run before the reader left */
};

static void *late_reader_fn(void *arg)
{
	struct late_reader *r = arg;

	rcu_read_lock();
	pthread_mutex_lock(&r->m);
	r->inside = 1;
	pthread_cond_broadcast(&r->c);
	while (!r->unlocked)
		pthread_cond_wait(&r->c, &r->m);
	pthread_mutex_unlock(&r->m);
	usleep(50000);		/* time for a grace period that ignored this reader */
	r->ran_inside = __atomic_load_n(&r->probe->ran, __ATOMIC_ACQUIRE);
	rcu_read_unlock();
	return NULL;
}

KSIM_TEST(call_rcu_in_section_waits_for_later_readers)
{
	static struct cb_probe probe;
	struct late_reader r = {
		.m = PTHREAD_MUTEX_INITIALIZER, .c = PTHREAD_COND_INITIALIZER, .probe = &probe,
	};
	pthread_t th;

	memset(&probe, 0, sizeof(probe));
	spin_lock(&sync_lock);
	call_rcu(&probe.rcu, probe_cb);
	usleep(20000);		/* time for a grace period to start */
	KSIM_ASSERT(!pthread_create(&th, NULL, late_reader_fn, &r));
	pthread_mutex_lock(&r.m);
	while (!r.inside)
		pthread_cond_wait(&r.c, &r.m);
	pthread_mutex_unlock(&r.m);
	spin_unlock(&sync_lock);
	pthread_mutex_lock(&r.m);
	r.unlocked = 1;
	pthread_cond_broadcast(&r.c);
	pthread_mutex_unlock(&r.m);
	pthread_join(th, NULL);
	KSIM_EXPECT_EQ(r.ran_inside, 0);
	rcu_barrier();
	KSIM_EXPECT_EQ(__atomic_load_n(&probe.ran, __ATOMIC_ACQUIRE), 1);
}

struct pub {
	int a, b;
};

static struct pub *published;

static void *pub_reader_fn(void *arg)
{
	int *seen = arg;

	for (int i = 0; i < 20000 && !*seen; i++) {
		struct pub *p;

		rcu_read_lock();
		p = rcu_dereference(published);
		if (p)
			*seen = p->a + p->b;
		rcu_read_unlock();
		if (!*seen)
			usleep(100);
	}
	return NULL;
}

KSIM_TEST(assign_and_dereference)
{
	struct pub *p, *q;
	pthread_t th;
	int seen = 0;

	RCU_INIT_POINTER(published, NULL);
	KSIM_ASSERT(!pthread_create(&th, NULL, pub_reader_fn, &seen));
	p = kmalloc(sizeof(*p), GFP_KERNEL);
	KSIM_ASSERT(p);
	p->a = 40;
	p->b = 2;
	rcu_assign_pointer(published, p);
	pthread_join(th, NULL);
	KSIM_EXPECT_EQ(seen, 42);

	rcu_read_lock();
	KSIM_EXPECT(rcu_dereference(published) == p);
	rcu_read_unlock();
	KSIM_EXPECT(rcu_access_pointer(published) == p);

	q = rcu_replace_pointer(published, NULL, true);
	KSIM_EXPECT(q == p);
	KSIM_EXPECT(rcu_access_pointer(published) == NULL);
	synchronize_rcu();
	kfree(q);
}

KSIM_TEST(dereference_checks)
{
	unsigned long base = ksim_problem_count(KSIM_P_RCU);
	struct ksim_rcu_stats s0, s1;
	static int target = 5;
	int *gp = &target;
	DEFINE_SPINLOCK(lock);

	ksim_rcu_stats(&s0);
	ksim_expect_problems(KSIM_P_RCU, 2);

	/* outside a reader */
	KSIM_EXPECT(rcu_dereference(gp) == &target);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_RCU), base + 1);

	/* the protected form checks only its condition */
	KSIM_EXPECT(rcu_dereference_protected(gp, 0) == &target);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_RCU), base + 2);
	KSIM_EXPECT(rcu_dereference_protected(gp, 1) == &target);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_RCU), base + 2);

	/* fine: inside readers, or with the condition true */
	rcu_read_lock();
	KSIM_EXPECT(rcu_dereference(gp) == &target);
	rcu_read_unlock();
	rcu_read_lock_bh();
	KSIM_EXPECT(rcu_dereference_bh(gp) == &target);
	rcu_read_unlock_bh();
	rcu_read_lock_sched();
	KSIM_EXPECT(rcu_dereference_sched(gp) == &target);
	rcu_read_unlock_sched();
	spin_lock(&lock);
	KSIM_EXPECT(rcu_dereference_check(gp, lockdep_is_held(&lock)) == &target);
	KSIM_EXPECT(rcu_dereference_protected(gp, lockdep_is_held(&lock)) == &target);
	spin_unlock(&lock);
	KSIM_EXPECT(rcu_dereference_raw(gp) == &target);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_RCU), base + 2);

	ksim_rcu_stats(&s1);
	KSIM_EXPECT_EQ(s1.suspicious, s0.suspicious + 2);
}

KSIM_TEST(unlock_without_lock)
{
	unsigned long base = ksim_problem_count(KSIM_P_RCU);

	ksim_expect_problems(KSIM_P_RCU, 2);
	rcu_read_unlock();
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_RCU), base + 1);
	KSIM_EXPECT_EQ(ksim_task()->rcu_nesting, 0);
	KSIM_EXPECT_EQ(ksim_task()->rcu_urcu_nesting, 0);

	/* unlocking the wrong flavour is caught too, and leaves the reader */
	rcu_read_lock();
	rcu_read_unlock_sched();	/* preempt_enable() underneath... */
	preempt_disable();		/* ...rebalanced here */
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_RCU), base + 2);
	KSIM_EXPECT(rcu_read_lock_held());
	rcu_read_unlock();
	KSIM_EXPECT_EQ(ksim_task()->rcu_urcu_nesting, 0);
}

/* ---- reader/updater stress ---- */

#define STRESS_MAGIC	0x5eed5eedU
#define STRESS_READERS	4
#define STRESS_UPDATES	2000

struct stress_obj {
	unsigned int magic;
	unsigned int gen;
	struct rcu_head rcu;
};

static struct stress_obj *stress_gp;
static int stress_stop;
static int stress_running;

struct stress_reader {
	pthread_t th;
	unsigned long reads;
	unsigned long bad;
	unsigned int max_gen;
};

static void *stress_reader_fn(void *arg)
{
	struct stress_reader *r = arg;

	while (!__atomic_load_n(&stress_stop, __ATOMIC_ACQUIRE)) {
		struct stress_obj *p;

		rcu_read_lock();
		p = rcu_dereference(stress_gp);
		/* hold on to the object a while: widens any premature-free window */
		for (int k = 0; p && k < 32; k++) {
			if (READ_ONCE(p->magic) != STRESS_MAGIC)
				r->bad++;
			if (READ_ONCE(p->gen) > r->max_gen)
				r->max_gen = p->gen;
		}
		rcu_read_unlock();
		if (r->reads++ == 0)
			__atomic_add_fetch(&stress_running, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

KSIM_TEST(stress_readers_and_updater)
{
	struct stress_reader rd[STRESS_READERS] = { 0 };
	unsigned long live0 = kmalloc_live();
	struct stress_obj *p, *old;
	int started = 0;

	p = kmalloc(sizeof(*p), GFP_KERNEL);
	KSIM_ASSERT(p);
	p->magic = STRESS_MAGIC;
	p->gen = 0;
	RCU_INIT_POINTER(stress_gp, p);
	__atomic_store_n(&stress_stop, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&stress_running, 0, __ATOMIC_RELAXED);
	for (int i = 0; i < STRESS_READERS; i++)
		started += !pthread_create(&rd[i].th, NULL, stress_reader_fn, &rd[i]);
	KSIM_EXPECT_EQ(started, STRESS_READERS);
	/* every reader is in its loop before the updates start */
	while (__atomic_load_n(&stress_running, __ATOMIC_ACQUIRE) < started)
		sched_yield();

	for (unsigned int gen = 1; gen <= STRESS_UPDATES; gen++) {
		p = kmalloc(sizeof(*p), GFP_KERNEL);
		KSIM_EXPECT(p);
		if (!p)
			break;
		p->magic = STRESS_MAGIC;
		p->gen = gen;
		old = rcu_replace_pointer(stress_gp, p, true);
		kfree_rcu(old, rcu);
	}
	__atomic_store_n(&stress_stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < started; i++) {
		pthread_join(rd[i].th, NULL);
		KSIM_EXPECT_EQ(rd[i].bad, 0);
		KSIM_EXPECT(rd[i].reads > 0);
		KSIM_EXPECT(rd[i].max_gen <= STRESS_UPDATES);
	}
	old = rcu_replace_pointer(stress_gp, NULL, true);
	KSIM_EXPECT(old && old->gen == STRESS_UPDATES);
	kfree_rcu(old, rcu);
	rcu_barrier();
	KSIM_EXPECT_EQ(kmalloc_live(), live0);
}

/*
 * The lockdep condition of rcu_dereference_check() (inline fast path in
 * linux/lockdep.h) is exact: another lock, or a lock released, does not
 * satisfy it.
 */
KSIM_TEST(dereference_check_needs_the_named_lock)
{
	unsigned long base = ksim_problem_count(KSIM_P_RCU);
	static int target = 7;
	int *gp = &target;
	DEFINE_SPINLOCK(lock);
	DEFINE_SPINLOCK(other);

	ksim_expect_problems(KSIM_P_RCU, 3);
	spin_lock(&other);
	KSIM_EXPECT(rcu_dereference_check(gp, lockdep_is_held(&lock)) == &target);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_RCU), base + 1);
	spin_lock(&lock);
	KSIM_EXPECT(rcu_dereference_check(gp, lockdep_is_held(&lock)) == &target);
	KSIM_EXPECT(rcu_dereference_check(gp, lockdep_is_held(&other)) == &target);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_RCU), base + 1);
	spin_unlock(&lock);
	KSIM_EXPECT(rcu_dereference_protected(gp, lockdep_is_held(&lock)) == &target);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_RCU), base + 2);
	spin_unlock(&other);
	KSIM_EXPECT(rcu_dereference_check(gp, lockdep_is_held(&other)) == &target);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_RCU), base + 3);
}
