// SPDX-License-Identifier: GPL-2.0
/*
 * The KCSAN annotations under ThreadSanitizer (linux/kcsan-checks.h,
 * shim/kernel/kcsan.c): each is reported where KCSAN reports and silent
 * where KCSAN is silent, and each test has its twin without the
 * annotation, so a shim that ignored the annotation (or TSan itself) fails
 * one of the two.  Two threads meet at a barrier, then each makes one
 * access, unordered by happens-before; the test counts TSan's reports
 * (ksim/tsan.h).  Every test uses its own variable: TSan reports one race
 * per address only once.  Built and run in TSan builds only.
 */
#include <pthread.h>
#include <string.h>

#include <linux/kernel.h>
#include <linux/atomic.h>
#include <linux/compiler.h>
#include <ksim/tsan.h>
#include <ksim/test.h>

static pthread_barrier_t meet;
static void (*other_fn)(void);

static void *other_thread(void *unused)
{
	other_fn();
	return NULL;
}

/* Run other() in a second thread and mine() here, concurrently; the reports they cause. */
static unsigned long race(void (*mine)(void), void (*other)(void), unsigned long expect)
{
	unsigned long before = ksim_tsan_reports();
	pthread_t t;

	ksim_tsan_expect_reports(expect);
	pthread_barrier_init(&meet, NULL, 2);
	other_fn = other;
	KSIM_EXPECT(!pthread_create(&t, NULL, other_thread, NULL));
	pthread_barrier_wait(&meet);
	mine();
	pthread_join(t, NULL);
	pthread_barrier_destroy(&meet);
	ksim_tsan_expect_reports(0);
	return ksim_tsan_reports() - before;
}

/* ---- data_race(): a plain read racing with a plain write is not reported */
static int dr_a, dr_b;
static void dr_write_a(void) { pthread_barrier_wait(&meet); dr_a = 1; }
static void dr_write_b(void) { pthread_barrier_wait(&meet); dr_b = 1; }
static void dr_read_a_marked(void) { int v = data_race(dr_a); barrier_data(&v); }
static void dr_read_b_plain(void) { int v = dr_b; barrier_data(&v); }

KSIM_TEST(data_race_read)
{
	KSIM_EXPECT_EQ(race(dr_read_a_marked, dr_write_a, 0), 0);
	KSIM_EXPECT_EQ(race(dr_read_b_plain, dr_write_b, 1), 1);	/* unannotated */
}

/*
 * The 6.12 report: vm_area_dup()'s data_race(memcpy(new, orig, ...)) while
 * another thread updates a counter inside *orig atomically.
 */
struct obj { long before; atomic_t count; char after[200]; };
static struct obj cp_a, cp_b, cp_dst;
static void cp_dec_a(void) { pthread_barrier_wait(&meet); atomic_dec(&cp_a.count); }
static void cp_dec_b(void) { pthread_barrier_wait(&meet); atomic_dec(&cp_b.count); }
static void cp_copy_a_marked(void) { data_race(memcpy(&cp_dst, &cp_a, sizeof(cp_a))); }
static void cp_copy_b_plain(void) { memcpy(&cp_dst, &cp_b, sizeof(cp_b)); barrier_data(&cp_dst); }

KSIM_TEST(data_race_memcpy)
{
	KSIM_EXPECT_EQ(race(cp_copy_a_marked, cp_dec_a, 0), 0);
	KSIM_EXPECT_EQ(race(cp_copy_b_plain, cp_dec_b, 1), 1);
}

/* data_race() on the writing side: the plain reader is not reported either */
static int drw_a, drw_b;
static void drw_read_a(void) { pthread_barrier_wait(&meet); int v = drw_a; barrier_data(&v); }
static void drw_read_b(void) { pthread_barrier_wait(&meet); int v = drw_b; barrier_data(&v); }
static void drw_write_a_marked(void) { data_race(drw_a = 2); }
static void drw_write_b_plain(void) { drw_b = 2; }

KSIM_TEST(data_race_write)
{
	KSIM_EXPECT_EQ(race(drw_write_a_marked, drw_read_a, 0), 0);
	KSIM_EXPECT_EQ(race(drw_write_b_plain, drw_read_b, 1), 1);
}

/* ---- READ_ONCE()/WRITE_ONCE(): marked accesses, not a data race */
static long once_a, once_b;
static void once_write_a(void) { pthread_barrier_wait(&meet); WRITE_ONCE(once_a, 3); }
static void once_write_b(void) { pthread_barrier_wait(&meet); once_b = 3; }
static void once_read_a(void) { long v = READ_ONCE(once_a); barrier_data(&v); }
static void once_read_b(void) { long v = once_b; barrier_data(&v); }

KSIM_TEST(read_write_once)
{
	KSIM_EXPECT_EQ(race(once_read_a, once_write_a, 0), 0);
	KSIM_EXPECT_EQ(race(once_read_b, once_write_b, 1), 1);
}

/*
 * ---- ASSERT_EXCLUSIVE_WRITER(): a concurrent write is reported even when
 * it is marked (the assertion's point); readers are fine.
 */
static long aw_a, aw_b, aw_c;
static void aw_write_once_a(void) { pthread_barrier_wait(&meet); WRITE_ONCE(aw_a, 4); }
static void aw_write_once_b(void) { pthread_barrier_wait(&meet); WRITE_ONCE(aw_b, 4); }
static void aw_read_once_c(void) { pthread_barrier_wait(&meet); long v = READ_ONCE(aw_c); barrier_data(&v); }
static void aw_assert_a(void) { ASSERT_EXCLUSIVE_WRITER(aw_a); }
static void aw_read_b(void) { long v = READ_ONCE(aw_b); barrier_data(&v); }
static void aw_assert_c(void) { ASSERT_EXCLUSIVE_WRITER(aw_c); }

KSIM_TEST(assert_exclusive_writer)
{
	KSIM_EXPECT_EQ(race(aw_assert_a, aw_write_once_a, 1), 1);
	KSIM_EXPECT_EQ(race(aw_read_b, aw_write_once_b, 0), 0);	/* no assertion */
	KSIM_EXPECT_EQ(race(aw_assert_c, aw_read_once_c, 0), 0);	/* a reader */
}

/* data_race() writes are invisible to the assertion, as to KCSAN */
static long awd;
static void awd_write_marked(void) { pthread_barrier_wait(&meet); data_race(awd = 5); }
static void awd_assert(void) { ASSERT_EXCLUSIVE_WRITER(awd); }

KSIM_TEST(assert_exclusive_writer_data_race)
{
	KSIM_EXPECT_EQ(race(awd_assert, awd_write_marked, 0), 0);
}

/* ---- ASSERT_EXCLUSIVE_ACCESS(): even a marked reader is reported */
static long aa_a, aa_b;
static void aa_read_once_a(void) { pthread_barrier_wait(&meet); long v = READ_ONCE(aa_a); barrier_data(&v); }
static void aa_read_once_b(void) { pthread_barrier_wait(&meet); long v = READ_ONCE(aa_b); barrier_data(&v); }
static void aa_assert_a(void) { ASSERT_EXCLUSIVE_ACCESS(aa_a); }
static void aa_write_b(void) { WRITE_ONCE(aa_b, 6); }

KSIM_TEST(assert_exclusive_access)
{
	KSIM_EXPECT_EQ(race(aa_assert_a, aa_read_once_a, 1), 1);
	KSIM_EXPECT_EQ(race(aa_write_b, aa_read_once_b, 0), 0);	/* no assertion */
}

/* ---- the scoped assertions: a write inside the scope is reported */
static long sw_a, sw_b, sa_a;
static void sw_write_a(void) { pthread_barrier_wait(&meet); WRITE_ONCE(sw_a, 7); }
static void sw_write_b(void) { pthread_barrier_wait(&meet); WRITE_ONCE(sw_b, 7); }
static void sa_read_a(void) { pthread_barrier_wait(&meet); long v = READ_ONCE(sa_a); barrier_data(&v); }
static void sw_scope_a(void)
{
	ASSERT_EXCLUSIVE_WRITER_SCOPED(sw_a);
	barrier();
}
static void sw_noscope_b(void) { long v = READ_ONCE(sw_b); barrier_data(&v); }
static void sa_scope_a(void)
{
	ASSERT_EXCLUSIVE_ACCESS_SCOPED(sa_a);
	barrier();
}

KSIM_TEST(assert_exclusive_scoped)
{
	/* at least one report: the scope's start and end may each conflict */
	KSIM_EXPECT(race(sw_scope_a, sw_write_a, 2) >= 1);
	KSIM_EXPECT_EQ(race(sw_noscope_b, sw_write_b, 0), 0);
	KSIM_EXPECT(race(sa_scope_a, sa_read_a, 2) >= 1);
}
