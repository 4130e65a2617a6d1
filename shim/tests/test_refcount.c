// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for linux/refcount.h: the two mistakes lib/refcount.c
 * catches (an increment from 0, a decrement below 0) WARN through the
 * problem sink and leave the counter saturated, so the object is never
 * freed twice (a put of a saturated counter warns again); inc_not_zero
 * refuses 0 silently; a normal get/put cycle warns nothing.
 */
#include <linux/kernel.h>
#include <linux/refcount.h>
#include <ksim/test.h>

KSIM_TEST(refcount_get_put)
{
	refcount_t r = REFCOUNT_INIT(1);

	refcount_inc(&r);
	KSIM_EXPECT_EQ(refcount_read(&r), 2);
	KSIM_EXPECT(!refcount_dec_and_test(&r));
	KSIM_EXPECT(refcount_dec_and_test(&r));
	KSIM_EXPECT(!refcount_inc_not_zero(&r));	/* 0: refused, no warning */
	KSIM_EXPECT_EQ(refcount_read(&r), 0);
	KSIM_EXPECT_EQ(ksim_problem_total(), 0);
}

KSIM_TEST(refcount_inc_on_zero_warns)
{
	unsigned long base = ksim_problem_count(KSIM_P_WARN);
	refcount_t r = REFCOUNT_INIT(0);

	ksim_expect_problems(KSIM_P_WARN, 2);
	refcount_inc(&r);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_WARN), base + 1);
	/*
	 * Saturated: no later put reaches zero, so nothing is freed twice;
	 * a put of a saturated counter warns again, as the kernel's
	 * REFCOUNT_SUB_UAF does.
	 */
	KSIM_EXPECT_EQ((int)refcount_read(&r), REFCOUNT_SATURATED);
	KSIM_EXPECT(!refcount_dec_and_test(&r));
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_WARN), base + 2);
	KSIM_EXPECT_EQ((int)refcount_read(&r), REFCOUNT_SATURATED);
}

KSIM_TEST(refcount_underflow_warns)
{
	unsigned long base = ksim_problem_count(KSIM_P_WARN);
	refcount_t r = REFCOUNT_INIT(1);

	KSIM_EXPECT(refcount_dec_and_test(&r));
	ksim_expect_problems(KSIM_P_WARN, 1);
	KSIM_EXPECT(!refcount_dec_and_test(&r));	/* the put of a reference never taken */
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_WARN), base + 1);
	KSIM_EXPECT_EQ((int)refcount_read(&r), REFCOUNT_SATURATED);
}

