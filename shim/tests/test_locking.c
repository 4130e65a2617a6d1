// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the shim's locks and lockdep-style tracking
 * (shim/locking/): spinlocks (held-lock tracking, preempt/irq/bh
 * bookkeeping, trylock, unlocking an unheld lock), lockdep_assert_*(),
 * might_sleep() for a mutex taken under a spinlock, mutex trylock and
 * is_locked, rw_semaphores (shared readers, writers excluding readers,
 * writer preference, downgrade_write, held-type queries), rwlocks, and a
 * contention test checking mutual exclusion.
 */
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/lockdep.h>
#include <ksim/test.h>

KSIM_TEST(spin_lock_held_and_preempt_count)
{
	DEFINE_SPINLOCK(a);
	spinlock_t b;

	spin_lock_init(&b);
	KSIM_EXPECT_EQ(preempt_count(), 0);
	KSIM_EXPECT(!in_atomic());
	KSIM_EXPECT(preemptible());
	KSIM_EXPECT(!lockdep_is_held(&a));
	KSIM_EXPECT(!spin_is_locked(&a));

	spin_lock(&a);
	KSIM_EXPECT(lockdep_is_held(&a));
	KSIM_EXPECT(lock_is_held_type(&a.dep_map, 0));
	KSIM_EXPECT(spin_is_locked(&a));
	KSIM_EXPECT_EQ(preempt_count(), 1);
	KSIM_EXPECT(in_atomic());
	KSIM_EXPECT(!preemptible());
	KSIM_EXPECT_EQ(ksim_held_lock_count(), 1);

	spin_lock(&b);
	KSIM_EXPECT(lockdep_is_held(&b));
	KSIM_EXPECT_EQ(preempt_count(), 2);
	KSIM_EXPECT_EQ(ksim_held_lock_count(), 2);
	lockdep_assert_held(&a);
	lockdep_assert_held(&b);

	/* out-of-order release is fine */
	spin_unlock(&a);
	KSIM_EXPECT(!lockdep_is_held(&a));
	KSIM_EXPECT(lockdep_is_held(&b));
	KSIM_EXPECT_EQ(preempt_count(), 1);
	spin_unlock(&b);
	KSIM_EXPECT(!lockdep_is_held(&b));
	KSIM_EXPECT(!spin_is_locked(&b));
	KSIM_EXPECT_EQ(preempt_count(), 0);
	KSIM_EXPECT(!in_atomic());
	KSIM_EXPECT_EQ(ksim_held_lock_count(), 0);
	lockdep_assert_not_held(&a);

	preempt_disable();
	preempt_disable();
	KSIM_EXPECT_EQ(preempt_count(), 2);
	KSIM_EXPECT(in_atomic());
	preempt_enable();
	preempt_enable();
	KSIM_EXPECT_EQ(preempt_count(), 0);
}

KSIM_TEST(spin_lock_irq_and_bh)
{
	unsigned long flags, flags2;
	DEFINE_SPINLOCK(a);
	DEFINE_SPINLOCK(b);
	DEFINE_RAW_SPINLOCK(r);

	KSIM_EXPECT(!irqs_disabled());
	spin_lock_irqsave(&a, flags);
	KSIM_EXPECT(irqs_disabled());
	KSIM_EXPECT(!irqs_disabled_flags(flags));
	lockdep_assert_irqs_disabled();
	spin_lock_irqsave(&b, flags2);
	KSIM_EXPECT(irqs_disabled_flags(flags2));
	spin_unlock_irqrestore(&b, flags2);
	KSIM_EXPECT(irqs_disabled());	/* still off: the outer section */
	spin_unlock_irqrestore(&a, flags);
	KSIM_EXPECT(!irqs_disabled());
	lockdep_assert_irqs_enabled();

	spin_lock_irq(&a);
	KSIM_EXPECT(irqs_disabled());
	spin_unlock_irq(&a);
	KSIM_EXPECT(!irqs_disabled());

	spin_lock_bh(&a);
	KSIM_EXPECT(in_softirq());
	KSIM_EXPECT(in_atomic());
	lockdep_assert_in_softirq();
	spin_unlock_bh(&a);
	KSIM_EXPECT(!in_softirq());

	raw_spin_lock(&r);
	KSIM_EXPECT(lockdep_is_held(&r));
	KSIM_EXPECT_EQ(preempt_count(), 1);
	raw_spin_unlock(&r);
	KSIM_EXPECT_EQ(preempt_count(), 0);
}

static void *hold_spin_fn(void *arg)
{
	spinlock_t *l = ((void **)arg)[0];
	int *state = ((void **)arg)[1];

	spin_lock(l);
	__atomic_store_n(state, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(state, __ATOMIC_ACQUIRE) != 2)
		usleep(100);
	spin_unlock(l);
	return NULL;
}

KSIM_TEST(spin_trylock)
{
	DEFINE_SPINLOCK(l);
	void *args[2];
	pthread_t th;
	int state = 0;

	KSIM_EXPECT(spin_trylock(&l));
	KSIM_EXPECT(lockdep_is_held(&l));
	KSIM_EXPECT_EQ(preempt_count(), 1);
	spin_unlock(&l);

	args[0] = &l;
	args[1] = &state;
	KSIM_ASSERT(!pthread_create(&th, NULL, hold_spin_fn, args));
	KSIM_EXPECT(ksim_test_wait_flag(&state));
	/* held by another thread: fails, and leaves no trace */
	KSIM_EXPECT(!spin_trylock(&l));
	KSIM_EXPECT(!lockdep_is_held(&l));
	KSIM_EXPECT(spin_is_locked(&l));
	KSIM_EXPECT_EQ(preempt_count(), 0);
	__atomic_store_n(&state, 2, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	KSIM_EXPECT(!spin_is_locked(&l));
}

KSIM_TEST(lockdep_assert_held_unheld)
{
	unsigned long base = ksim_problem_count(KSIM_P_LOCKDEP);
	DEFINE_SPINLOCK(l);
	DEFINE_MUTEX(m);

	ksim_expect_problems(KSIM_P_LOCKDEP, 3);
	lockdep_assert_held(&l);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_LOCKDEP), base + 1);
	lockdep_assert_held(&m);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_LOCKDEP), base + 2);
	spin_lock(&l);
	lockdep_assert_held(&l);
	lockdep_assert_not_held(&l);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_LOCKDEP), base + 3);
	spin_unlock(&l);
}

KSIM_TEST(spin_unlock_unheld)
{
	unsigned long base = ksim_problem_count(KSIM_P_LOCKDEP);
	DEFINE_SPINLOCK(l);

	ksim_expect_problems(KSIM_P_LOCKDEP, 1);
	spin_unlock(&l);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_LOCKDEP), base + 1);
	/* the bad unlock changed nothing */
	KSIM_EXPECT_EQ(preempt_count(), 0);
	KSIM_EXPECT_EQ(ksim_held_lock_count(), 0);
	spin_lock(&l);
	spin_unlock(&l);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_LOCKDEP), base + 1);
}

KSIM_TEST(mutex_under_spinlock_sleeps)
{
	unsigned long base = ksim_problem_count(KSIM_P_SLEEP);
	DEFINE_SPINLOCK(l);
	DEFINE_MUTEX(m);

	mutex_lock(&m);		/* fine on its own */
	mutex_unlock(&m);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_SLEEP), base);

	ksim_expect_problems(KSIM_P_SLEEP, 1);
	spin_lock(&l);
	mutex_lock(&m);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_SLEEP), base + 1);
	mutex_unlock(&m);
	spin_unlock(&l);

	/* spinlock under mutex is fine */
	mutex_lock(&m);
	spin_lock(&l);
	spin_unlock(&l);
	mutex_unlock(&m);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_SLEEP), base + 1);
}

static void *mutex_trylock_fn(void *arg)
{
	struct mutex *m = arg;
	long ok = mutex_trylock(m);

	if (ok)
		mutex_unlock(m);
	return (void *)ok;
}

KSIM_TEST(mutex_trylock_is_locked)
{
	unsigned long base = ksim_problem_count(KSIM_P_LOCKDEP);
	struct mutex m;
	pthread_t th;
	void *ret;

	mutex_init(&m);
	KSIM_EXPECT(!mutex_is_locked(&m));
	KSIM_EXPECT(mutex_trylock(&m));
	KSIM_EXPECT(mutex_is_locked(&m));
	KSIM_EXPECT(lockdep_is_held(&m));
	KSIM_EXPECT_EQ(preempt_count(), 0);	/* a mutex is not atomic context */
	KSIM_ASSERT(!pthread_create(&th, NULL, mutex_trylock_fn, &m));
	pthread_join(th, &ret);
	KSIM_EXPECT(ret == NULL);
	mutex_unlock(&m);
	KSIM_EXPECT(!mutex_is_locked(&m));
	KSIM_EXPECT(!lockdep_is_held(&m));

	/* free again: another thread's trylock succeeds */
	KSIM_ASSERT(!pthread_create(&th, NULL, mutex_trylock_fn, &m));
	pthread_join(th, &ret);
	KSIM_EXPECT(ret == (void *)1);

	ksim_expect_problems(KSIM_P_LOCKDEP, 1);
	mutex_unlock(&m);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_LOCKDEP), base + 1);
	mutex_destroy(&m);
}

struct rwsem_arg {
	struct rw_semaphore *sem;
	int state;
	int trylock_read;
	int trylock_write;
};

static void *rwsem_reader_fn(void *arg)
{
	struct rwsem_arg *a = arg;

	down_read(a->sem);
	__atomic_store_n(&a->state, 1, __ATOMIC_RELEASE);
	up_read(a->sem);
	return NULL;
}

KSIM_TEST(rwsem_shared_readers)
{
	struct rw_semaphore sem;
	struct rwsem_arg a = { .sem = &sem };
	pthread_t th;

	init_rwsem(&sem);
	KSIM_EXPECT(!rwsem_is_locked(&sem));
	down_read(&sem);
	KSIM_EXPECT(rwsem_is_locked(&sem));
	KSIM_EXPECT(lockdep_is_held(&sem));
	KSIM_EXPECT(lockdep_is_held_type(&sem, 1));
	KSIM_EXPECT(!lockdep_is_held_type(&sem, 0));
	lockdep_assert_held_read(&sem);
	/* a second reader gets in while we hold it */
	KSIM_ASSERT(!pthread_create(&th, NULL, rwsem_reader_fn, &a));
	KSIM_EXPECT(ksim_test_wait_flag(&a.state));
	up_read(&sem);
	pthread_join(th, NULL);
	KSIM_EXPECT(!rwsem_is_locked(&sem));
	KSIM_EXPECT(!lockdep_is_held(&sem));
}

static void *rwsem_try_fn(void *arg)
{
	struct rwsem_arg *a = arg;

	a->trylock_read = down_read_trylock(a->sem);
	if (a->trylock_read)
		up_read(a->sem);
	a->trylock_write = down_write_trylock(a->sem);
	if (a->trylock_write)
		up_write(a->sem);
	return NULL;
}

KSIM_TEST(rwsem_writer_excludes_readers)
{
	DECLARE_RWSEM(sem);
	struct rwsem_arg a = { .sem = &sem };
	pthread_t th;


	down_write(&sem);
	KSIM_EXPECT(lockdep_is_held_type(&sem, 0));
	KSIM_EXPECT(lock_is_held_type(&sem.dep_map, 0));
	KSIM_EXPECT(!lock_is_held_type(&sem.dep_map, 1));
	lockdep_assert_held_write(&sem);

	KSIM_ASSERT(!pthread_create(&th, NULL, rwsem_try_fn, &a));
	pthread_join(th, NULL);
	KSIM_EXPECT(!a.trylock_read);
	KSIM_EXPECT(!a.trylock_write);

	KSIM_ASSERT(!pthread_create(&th, NULL, rwsem_reader_fn, &a));
	usleep(30000);
	KSIM_EXPECT_EQ(__atomic_load_n(&a.state, __ATOMIC_ACQUIRE), 0);
	up_write(&sem);
	pthread_join(th, NULL);
	KSIM_EXPECT_EQ(a.state, 1);
	KSIM_EXPECT(!rwsem_is_locked(&sem));

	/* unlocked: both trylocks succeed */
	KSIM_ASSERT(!pthread_create(&th, NULL, rwsem_try_fn, &a));
	pthread_join(th, NULL);
	KSIM_EXPECT(a.trylock_read);
	KSIM_EXPECT(a.trylock_write);
}

static void *rwsem_writer_fn(void *arg)
{
	struct rwsem_arg *a = arg;

	down_write(a->sem);
	__atomic_store_n(&a->state, 1, __ATOMIC_RELEASE);
	up_write(a->sem);
	return NULL;
}

KSIM_TEST(rwsem_waiting_writer_blocks_new_readers)
{
	DECLARE_RWSEM(sem);
	struct rwsem_arg a = { .sem = &sem };
	pthread_t th;

	int i;

	down_read(&sem);
	KSIM_ASSERT(!pthread_create(&th, NULL, rwsem_writer_fn, &a));
	for (i = 0; i < 20000 && !rwsem_is_contended(&sem); i++)
		usleep(100);
	KSIM_EXPECT(rwsem_is_contended(&sem));
	KSIM_EXPECT_EQ(__atomic_load_n(&a.state, __ATOMIC_ACQUIRE), 0);
	/* a new reader must queue behind the waiting writer */
	KSIM_EXPECT(!down_read_trylock(&sem));
	up_read(&sem);
	pthread_join(th, NULL);
	KSIM_EXPECT_EQ(a.state, 1);
	KSIM_EXPECT(!rwsem_is_contended(&sem));
}

KSIM_TEST(rwsem_downgrade_write)
{
	DECLARE_RWSEM(sem);
	struct rwsem_arg a = { .sem = &sem };
	pthread_t th;


	down_write(&sem);
	downgrade_write(&sem);
	KSIM_EXPECT(lockdep_is_held_type(&sem, 1));
	KSIM_EXPECT(!lockdep_is_held_type(&sem, 0));
	KSIM_EXPECT(rwsem_is_locked(&sem));
	KSIM_EXPECT_EQ(ksim_held_lock_count(), 1);
	/* other readers may now enter, writers may not */
	KSIM_ASSERT(!pthread_create(&th, NULL, rwsem_try_fn, &a));
	pthread_join(th, NULL);
	KSIM_EXPECT(a.trylock_read);
	KSIM_EXPECT(!a.trylock_write);
	up_read(&sem);
	KSIM_EXPECT(!rwsem_is_locked(&sem));
	KSIM_EXPECT_EQ(ksim_held_lock_count(), 0);
}

KSIM_TEST(rwsem_bad_unlock)
{
	unsigned long base = ksim_problem_count(KSIM_P_LOCKDEP);
	struct rw_semaphore sem;

	init_rwsem(&sem);
	ksim_expect_problems(KSIM_P_LOCKDEP, 2);
	up_read(&sem);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_LOCKDEP), base + 1);
	down_read(&sem);
	up_write(&sem);		/* held for read, not write */
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_LOCKDEP), base + 2);
	KSIM_EXPECT(lockdep_is_held_type(&sem, 1));
	up_read(&sem);
	KSIM_EXPECT(!rwsem_is_locked(&sem));
}

struct rwlock_arg {
	rwlock_t *l;
	int state;
};

static void *rwlock_reader_fn(void *arg)
{
	struct rwlock_arg *a = arg;

	read_lock(a->l);
	__atomic_store_n(&a->state, 1, __ATOMIC_RELEASE);
	read_unlock(a->l);
	return NULL;
}

KSIM_TEST(rwlock_read_write)
{
	DEFINE_RWLOCK(l);
	struct rwlock_arg a = { .l = &l };
	unsigned long flags;
	pthread_t th;

	read_lock(&l);
	KSIM_EXPECT(lockdep_is_held_type(&l, 1));
	KSIM_EXPECT_EQ(preempt_count(), 1);
	/* readers share: another thread gets in */
	KSIM_ASSERT(!pthread_create(&th, NULL, rwlock_reader_fn, &a));
	KSIM_EXPECT(ksim_test_wait_flag(&a.state));
	pthread_join(th, NULL);
	read_unlock(&l);
	KSIM_EXPECT(!lockdep_is_held(&l));
	KSIM_EXPECT_EQ(preempt_count(), 0);

	a.state = 0;
	write_lock(&l);
	KSIM_EXPECT(lockdep_is_held_type(&l, 0));
	KSIM_EXPECT(!lockdep_is_held_type(&l, 1));
	KSIM_ASSERT(!pthread_create(&th, NULL, rwlock_reader_fn, &a));
	usleep(30000);
	KSIM_EXPECT_EQ(__atomic_load_n(&a.state, __ATOMIC_ACQUIRE), 0);
	write_unlock(&l);
	pthread_join(th, NULL);
	KSIM_EXPECT_EQ(a.state, 1);
	KSIM_EXPECT(!lockdep_is_held(&l));

	write_lock_irqsave(&l, flags);
	KSIM_EXPECT(irqs_disabled());
	write_unlock_irqrestore(&l, flags);
	KSIM_EXPECT(!irqs_disabled());
	read_lock_bh(&l);
	KSIM_EXPECT(in_softirq());
	read_unlock_bh(&l);
	KSIM_EXPECT(!in_softirq());
	KSIM_EXPECT_EQ(preempt_count(), 0);
}

#define CONTEND_THREADS	4
#define CONTEND_ITERS	10000

static DEFINE_SPINLOCK(contend_lock);
static unsigned long contend_counter;

static void *contend_fn(void *arg)
{
	(void)arg;
	for (int i = 0; i < CONTEND_ITERS; i++) {
		spin_lock(&contend_lock);
		contend_counter++;
		spin_unlock(&contend_lock);
	}
	return NULL;
}

KSIM_TEST(spinlock_contention)
{
	pthread_t th[CONTEND_THREADS];
	int started = 0;

	contend_counter = 0;
	for (int i = 0; i < CONTEND_THREADS; i++) {
		if (pthread_create(&th[i], NULL, contend_fn, NULL))
			break;
		started++;
	}
	KSIM_EXPECT_EQ(started, CONTEND_THREADS);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	KSIM_EXPECT_EQ(contend_counter, (unsigned long)started * CONTEND_ITERS);
	KSIM_EXPECT_EQ(contend_counter, CONTEND_THREADS * CONTEND_ITERS);
	KSIM_EXPECT(!spin_is_locked(&contend_lock));
}
