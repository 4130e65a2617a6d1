// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own maple tree test suite, unmodified, under the ksim shim.
 *
 * This file #includes the kernel's tools/testing/radix-tree/maple.c, which
 * itself #includes lib/maple_tree.c and lib/test_maple_tree.c: one
 * translation unit, as in the kernel's harness, so the suite's static test
 * functions are reachable.  The kernel's main() there is weak; ours (the
 * ksim test runner) replaces it and runs the suite in parts, each a ksim
 * test that CTest runs as its own process:
 *
 *   regression    regression_tests()   (6.12+)
 *   farmer        farmer_tests()       maple.c's userspace-only tests, but
 *                                      for check_rcu_threaded():
 *   rcu_threaded  check_rcu_threaded() on the tree farmer_tests() gives it:
 *                 200 reader threads, run beside the rest, since the
 *                 suite's wall time is its longest part's
 *   seed          maple_tree_seed() and maple_tree_harvest():
 *                 lib/test_maple_tree.c, the in-kernel test module's init
 *                 and exit
 *
 * Every check is the kernel's: MT_BUG_ON() counts into the kernel's
 * maple_tree_tests_run/passed and aborts on failure (maple.c maps
 * dump_stack() to assert(0)).  On top, the ksim runner fails a part on
 * leaked nodes, lockdep/RCU splats and WARNs.
 *
 * What we provide that the kernel's harness (tools/testing/shared) does:
 * the slab with its "non-kernel" budget for non-blocking allocations
 * (strict mode), kmem_cache bulk ops, liburcu RCU, test_kmem_cache_bulk(),
 * and nr_allocated.  time() is the run's seed, so rcu_stress()'s
 * srand(time(NULL)) layout replays from --seed.
 */
#include <assert.h>
#include <time.h>
#include <ksim/test.h>
#include <ksim/uatomic.h>

static time_t ksim_suite_time(time_t *t)
{
	time_t v = (time_t)(ksim_test_seed() & 0x3fffffff);

	if (t)
		*t = v;
	return v;
}
#define time(t) ksim_suite_time(t)

/*
 * The suite's threaded RCU tests pace themselves with usleep(): the writer
 * sleeps 5 us between steps, slow readers 200-400 us between walks.  On
 * 2 cores with 200 reader threads, each short sleep costs a scheduler round
 * trip, and the kernel's harness spends most of its wall time asleep.
 * Compress time instead: sleeps of 10 us or less become a yield, longer
 * ones an eighth of their length.  The ordering the tests rely on (slow
 * readers stay slow relative to the writer) is kept.
 *
 * One exception, by calling function: rcu_stress()'s writer
 * (rcu_stress_fwd(), rcu_stress_rev()) and its 200 readers
 * (rcu_reader_fwd(), rcu_reader_rev()).  What the test wants is each reader
 * walking its ranges again after each change of the tree, so that it sees
 * every toggle, add and delete (it counts them).  A writer's pause after a
 * step that took a lock (it stored) publishes the step, wakes the waiting
 * readers and waits (at most 10 ms) until each reader has begun a walk
 * after it; a reader's pause waits (at most 10 ms) for the next published
 * step.  So every reader walks once per change, overlapping the writer's
 * next stores, and no reader stands between the writer and a CPU.  Readers
 * that yield instead let a CPU-bound neighbour (`seed`, when CTest runs the
 * parts side by side) starve the writer; readers that sleep without the
 * writer waiting for them miss most toggles (docs/measurements/maple.md).
 */
#include <limits.h>
#include <pthread.h>
#include <linux/futex.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bug.h>
#include <ksim/task.h>

static unsigned int ksim_stress_step;		/* futex: the writer's storing steps */
static int ksim_stress_readers;			/* live readers that paused once */
static unsigned int ksim_stress_started;	/* futex: readers that began a walk since */

static long ksim_futex(unsigned int *word, int op, unsigned int val, long timeout_ns)
{
	struct timespec ts = {
		.tv_sec = timeout_ns / 1000000000,
		.tv_nsec = timeout_ns % 1000000000,
	};

	return syscall(SYS_futex, word, op, val, timeout_ns ? &ts : NULL, NULL, 0);
}

static void ksim_stress_writer_pause(void)
{
	static __thread unsigned int lockdep_seq, idle_pauses;
	unsigned int started;
	int i;

	if (ksim_task()->lockdep_seq == lockdep_seq) {
		/* It stores every 5th step: if it stopped taking the tree's lock,
		 * the readers would only walk at their timeouts, seeing little. */
		WARN_ONCE(++idle_pauses == 100,
			  "ksim: rcu_stress()'s writer made 100 steps without taking a lock; "
			  "the readers' pacing (maple/kernel_suite.c) needs another signal");
		return;				/* nothing stored since the last pause */
	}
	idle_pauses = 0;
	lockdep_seq = ksim_task()->lockdep_seq;
	__atomic_store_n(&ksim_stress_started, 0, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&ksim_stress_step, 1, __ATOMIC_SEQ_CST);
	ksim_futex(&ksim_stress_step, FUTEX_WAKE_PRIVATE, INT_MAX, 0);
	/* Until every reader has begun a walk after this change (or 10 ms). */
	for (i = 0; i < 10; i++) {
		started = __atomic_load_n(&ksim_stress_started, __ATOMIC_SEQ_CST);
		if (started >= (unsigned int)__atomic_load_n(&ksim_stress_readers,
							     __ATOMIC_SEQ_CST))
			break;
		ksim_futex(&ksim_stress_started, FUTEX_WAIT_PRIVATE, started, 1000000);
	}
}

/* A reader thread's exit takes it off ksim_stress_readers. */
static pthread_key_t ksim_stress_key;
static pthread_once_t ksim_stress_once = PTHREAD_ONCE_INIT;

static void ksim_stress_reader_exit(void *unused)
{
	__atomic_sub_fetch(&ksim_stress_readers, 1, __ATOMIC_SEQ_CST);
}

static void ksim_stress_key_init(void)
{
	pthread_key_create(&ksim_stress_key, ksim_stress_reader_exit);
}

static void ksim_stress_reader_pause(void)
{
	static __thread unsigned int seen;	/* the step the last walk began after */
	static __thread bool counted;
	unsigned int step;

	if (!counted) {
		pthread_once(&ksim_stress_once, ksim_stress_key_init);
		pthread_setspecific(ksim_stress_key, &counted);
		__atomic_add_fetch(&ksim_stress_readers, 1, __ATOMIC_SEQ_CST);
		counted = true;
	}
	/* The timeout covers the end: test->stop comes without a step. */
	ksim_futex(&ksim_stress_step, FUTEX_WAIT_PRIVATE, seen, 10000000);
	step = __atomic_load_n(&ksim_stress_step, __ATOMIC_SEQ_CST);
	if (step != seen) {
		seen = step;
		if (__atomic_add_fetch(&ksim_stress_started, 1, __ATOMIC_SEQ_CST) >=
		    (unsigned int)__atomic_load_n(&ksim_stress_readers, __ATOMIC_SEQ_CST))
			ksim_futex(&ksim_stress_started, FUTEX_WAKE_PRIVATE, 1, 0);
	}
}

static int ksim_suite_usleep(useconds_t us, const char *caller)
{
	struct timespec ts;

	if (!strcmp(caller, "rcu_stress_fwd") || !strcmp(caller, "rcu_stress_rev")) {
		ksim_stress_writer_pause();
		return 0;
	}
	if (!strcmp(caller, "rcu_reader_fwd") || !strcmp(caller, "rcu_reader_rev")) {
		ksim_stress_reader_pause();
		return 0;
	}
	/*
	 * A new reader's wait for test->start, which rcu_stress() sets after
	 * creating all 200: the kernel's 500 us.  Shortened, the readers
	 * already created polled so often that they starved the thread
	 * creating the rest (7.2 million nanosleeps a run, 0.7 million now).
	 * Not a check: the walks are paced by the writer's steps above.
	 */
	if (!strcmp(caller, "rcu_reader_register"))
		return (usleep)(us);
	if (us <= 10)
		return sched_yield();
	us /= 8;
	ts.tv_sec = us / 1000000;
	ts.tv_nsec = (us % 1000000) * 1000L;
	return nanosleep(&ts, NULL);
}
#define usleep(us) ksim_suite_usleep(us, __func__)

#include <tools/testing/radix-tree/maple.c>

#undef time
#undef usleep

int nr_allocated;

/* The kernel harness tests its own slab here; we test ours the same way. */
void test_kmem_cache_bulk(void)
{
	struct kmem_cache *c = kmem_cache_create("test_cache", 256, 0, SLAB_PANIC, NULL);
	void *list[12];
	int i;

	for (i = 0; i < 5; i++)
		list[i] = kmem_cache_alloc(c, __GFP_DIRECT_RECLAIM);
	for (i = 0; i < 5; i++)
		kmem_cache_free(c, list[i]);
	MT_BUG_ON(NULL, kmem_cache_alloc_bulk(c, __GFP_DIRECT_RECLAIM, 5, list) != 5);
	kmem_cache_free_bulk(c, 5, list);
	for (i = 0; i < 12; i++)
		list[i] = kmem_cache_alloc(c, __GFP_DIRECT_RECLAIM);
	MT_BUG_ON(NULL, kmem_cache_nr_allocated(c) != 12);
	for (i = 0; i < 12; i++)
		kmem_cache_free(c, list[i]);
	MT_BUG_ON(NULL, kmem_cache_nr_allocated(c) != 0);
	kmem_cache_destroy(c);
}

void ksim_maple_suite_init(void);

#if KSIM_HAVE_MAPLE_REGRESSION_TESTS
KSIM_TEST(regression)
{
	regression_tests();
}
#endif

/*
 * farmer_tests() once more, extracted verbatim at build time (maple/extract/
 * farmer.txt), with its check_rcu_threaded() call left out: that test is
 * the rcu_threaded part.
 */
#define farmer_tests ksim_farmer_tests_but_rcu_threaded
#define check_rcu_threaded(mt) ((void)(mt))
#include "maple_farmer_gen.c"
#undef check_rcu_threaded
#undef farmer_tests

KSIM_TEST(farmer)
{
	ksim_farmer_tests_but_rcu_threaded();
}

/* As farmer_tests() calls it (a 64-bit tree, which is all ksim builds). */
KSIM_TEST(rcu_threaded)
{
	DEFINE_MTREE(tree);

	mt_init_flags(&tree, MT_FLAGS_ALLOC_RANGE);
	check_rcu_threaded(&tree);
	mtree_destroy(&tree);
}

KSIM_TEST(seed)
{
	maple_tree_seed();
	maple_tree_harvest();
}

/* Counters for the "maple_tree: N of N tests passed" line. */
unsigned int ksim_maple_tests_run(void)
{
	return atomic_read(&maple_tree_tests_run);
}

unsigned int ksim_maple_tests_passed(void)
{
	return atomic_read(&maple_tree_tests_passed);
}

void ksim_maple_suite_init(void)
{
	maple_tree_init();
}
