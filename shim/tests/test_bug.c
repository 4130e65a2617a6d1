// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the ksim core (shim/ksim/core.c, shim/kernel/printk.c,
 * linux/bug.h): WARN_ON()/WARN_ON_ONCE()/WARN() return values, counting and
 * messages, BUG_ON() aborting (in a forked child), the REPORT_ONCE problem
 * policy, the seeded PRNG (known answers for xoshiro256** seeded through
 * splitmix64, determinism, ksim_rng_below() bounds, the per-test RNG), and
 * printk's console_loglevel filtering.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/bug.h>
#include <linux/printk.h>
#include <ksim/rcu.h>
#include <ksim/test.h>

/*
 * Run @fn with file descriptor @fd (1 or 2) redirected to a temporary file
 * and return what it wrote (NUL-terminated, truncated to @len - 1).
 */
static void capture(int fd, void (*fn)(void *), void *arg, char *buf, size_t len)
{
	FILE *tmp = tmpfile();
	size_t n = 0;
	int saved;

	buf[0] = 0;
	if (!tmp)
		return;
	fflush(stdout);
	fflush(stderr);
	saved = dup(fd);
	dup2(fileno(tmp), fd);
	fn(arg);
	fflush(stdout);
	fflush(stderr);
	dup2(saved, fd);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, len - 1, tmp);
	buf[n] = 0;
	fclose(tmp);
}

KSIM_TEST(warn_on_counts)
{
	unsigned long base = ksim_problem_count(KSIM_P_WARN);
	int x = 3;

	KSIM_EXPECT(!WARN_ON(0));
	KSIM_EXPECT(!WARN_ON(x == 4));
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_WARN), base);

	ksim_expect_problems(KSIM_P_WARN, 2);
	KSIM_EXPECT(WARN_ON(1));
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_WARN), base + 1);
	KSIM_EXPECT(WARN_ON(x == 3));
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_WARN), base + 2);
	/* a WARN is not another kind of problem */
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_LOCKDEP), 0);
	KSIM_EXPECT_EQ(ksim_problem_total(), 0);
}

KSIM_TEST(warn_on_once_fires_once)
{
	unsigned long base = ksim_problem_count(KSIM_P_WARN);
	int returned = 0;

	ksim_expect_problems(KSIM_P_WARN, 1);
	for (int i = 0; i < 5; i++)
		if (WARN_ON_ONCE(i >= 0))	/* returns the condition every time */
			returned++;
	KSIM_EXPECT_EQ(returned, 5);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_WARN), base + 1);
	for (int i = 0; i < 3; i++)
		KSIM_EXPECT(!WARN_ON_ONCE(0));
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_WARN), base + 1);
}

static void warn_fmt(void *arg)
{
	int v = *(int *)arg;

	*(int *)arg = WARN(v > 10, "value %d too big for %s", v, "slot");
}

static void warn_fmt_false(void *arg)
{
	*(int *)arg = WARN(0, "never printed %d", 1);
}

KSIM_TEST(warn_message)
{
	unsigned long base = ksim_problem_count(KSIM_P_WARN);
	char out[4096];
	int v = 42;

	ksim_expect_problems(KSIM_P_WARN, 1);
	capture(STDERR_FILENO, warn_fmt, &v, out, sizeof(out));
	KSIM_EXPECT_EQ(v, 1);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_WARN), base + 1);
	KSIM_EXPECT(strstr(out, "value 42 too big for slot") != NULL);
	KSIM_EXPECT(strstr(out, "WARNING") != NULL);
	KSIM_EXPECT(strstr(out, "test_bug.c") != NULL);

	v = 0;
	capture(STDERR_FILENO, warn_fmt_false, &v, out, sizeof(out));
	KSIM_EXPECT_EQ(v, 0);
	KSIM_EXPECT_EQ(out[0], 0);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_WARN), base + 1);
}

static void bug_on(void *cond)
{
	BUG_ON(*(int *)cond);
	_exit(7);
}

/* Run BUG_ON(@cond) in a child, return its wait status. */
static int bug_on_in_child(int cond)
{
	return ksim_test_run_in_child(bug_on, &cond);
}

KSIM_TEST(bug_on_aborts)
{
	int status;

	status = bug_on_in_child(1);
	KSIM_EXPECT(WIFSIGNALED(status));
	KSIM_EXPECT_EQ(WIFSIGNALED(status) ? WTERMSIG(status) : -1, SIGABRT);

	status = bug_on_in_child(0);
	KSIM_EXPECT(WIFEXITED(status));
	KSIM_EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 7);
}

KSIM_TEST(report_once_policy)
{
	unsigned long base = ksim_problem_count(KSIM_P_WARN);
	unsigned long sites = ksim_problem_sites(KSIM_P_WARN);
	int fired = 0;

	ksim_problem_set_policy(KSIM_P_WARN, KSIM_POLICY_REPORT_ONCE);
	for (int i = 0; i < 2; i++)
		fired += WARN_ON(1);	/* one site, reached twice */
	fired += WARN_ON(1);		/* a second site */
	ksim_problem_set_policy(KSIM_P_WARN, KSIM_POLICY_FAIL);

	KSIM_EXPECT_EQ(fired, 3);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_WARN), base);
	KSIM_EXPECT_EQ(ksim_problem_sites(KSIM_P_WARN), sites + 2);
	KSIM_EXPECT_EQ(ksim_problem_total(), 0);

	/* back to FAIL: a WARN counts again */
	ksim_expect_problems(KSIM_P_WARN, 1);
	WARN_ON(1);
	KSIM_EXPECT_EQ(ksim_problem_count(KSIM_P_WARN), base + 1);
}

KSIM_TEST(rng_known_answers)
{
	static const uint64_t seed0[] = {
		0x99ec5f36cb75f2b4ULL, 0xbf6e1f784956452aULL, 0x1a5f849d4933e6e0ULL,
	};
	static const uint64_t seed42[] = {
		0x15780b2e0c2ec716ULL, 0x6104d9866d113a7eULL, 0xae17533239e499a1ULL,
	};
	static const uint64_t below42[] = { 83, 378, 680 };
	struct ksim_rng r;

	ksim_rng_seed(&r, 0);
	for (int i = 0; i < 3; i++)
		KSIM_EXPECT(ksim_rng_next(&r) == seed0[i]);
	ksim_rng_seed(&r, 42);
	for (int i = 0; i < 3; i++)
		KSIM_EXPECT(ksim_rng_next(&r) == seed42[i]);
	/* below(): the high 64 bits of next() * bound */
	ksim_rng_seed(&r, 42);
	for (int i = 0; i < 3; i++)
		KSIM_EXPECT_EQ(ksim_rng_below(&r, 1000), below42[i]);
}

KSIM_TEST(rng_determinism_and_bounds)
{
	static const uint64_t bounds[] = { 1, 2, 3, 7, 10, 1000, 1ULL << 40, UINT64_MAX };
	struct ksim_rng a, b, c;
	int differ = 0, ones = 0;

	ksim_rng_seed(&a, 123456789);
	ksim_rng_seed(&b, 123456789);
	ksim_rng_seed(&c, 123456790);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = ksim_rng_next(&a);

		KSIM_EXPECT(x == ksim_rng_next(&b));
		differ += x != ksim_rng_next(&c);
	}
	KSIM_EXPECT(differ > 990);

	for (size_t k = 0; k < ARRAY_SIZE(bounds); k++)
		for (int i = 0; i < 1000; i++)
			if (ksim_rng_below(&a, bounds[k]) >= bounds[k]) {
				KSIM_EXPECT_EQ(bounds[k], 0);	/* shows which bound */
				return;
			}
	for (int i = 0; i < 100; i++)
		KSIM_EXPECT_EQ(ksim_rng_below(&a, 1), 0);
	KSIM_EXPECT_EQ(ksim_rng_below(&a, 0), 0);

	/* roughly uniform: a fair coin over 10000 flips */
	for (int i = 0; i < 10000; i++)
		ones += ksim_rng_below(&a, 2);
	KSIM_EXPECT(ones > 4700 && ones < 5300);
}

KSIM_TEST(test_rng_is_seeded_from_test_seed)
{
	struct ksim_rng copy;

	/* nothing has drawn from the test RNG yet in this test */
	ksim_rng_seed(&copy, ksim_test_seed());
	for (int i = 0; i < 10; i++)
		KSIM_EXPECT(ksim_rng_next(ksim_test_rng()) == ksim_rng_next(&copy));
	KSIM_EXPECT(!strcmp(ksim_test_name(), "test_rng_is_seeded_from_test_seed"));
}

struct pk {
	const char *fmt;
	int ret;
};

static void do_printk(void *arg)
{
	struct pk *p = arg;

	p->ret = printk(p->fmt, 7);
}

/* printk(@fmt, 7) at console level @level: what reached stdout. */
static const char *printk_out(int level, const char *fmt, char *buf, size_t len)
{
	struct pk p = { .fmt = fmt };

	console_loglevel = level;
	capture(STDOUT_FILENO, do_printk, &p, buf, len);
	return buf;
}

KSIM_TEST(printk_loglevel)
{
	int saved = console_loglevel;
	char out[256];

	/* default console level: everything but debug */
	KSIM_EXPECT(!strcmp(printk_out(7, KERN_DEBUG "dbg %d\n", out, sizeof(out)), ""));
	KSIM_EXPECT(!strcmp(printk_out(7, KERN_INFO "info %d\n", out, sizeof(out)), "info 7\n"));
	KSIM_EXPECT(!strcmp(printk_out(7, KERN_ERR "err %d\n", out, sizeof(out)), "err 7\n"));
	KSIM_EXPECT(!strcmp(printk_out(7, "plain %d\n", out, sizeof(out)), "plain 7\n"));
	/* KERN_CONT continues at the previous message's level */
	printk_out(7, KERN_DEBUG "a", out, sizeof(out));
	KSIM_EXPECT(!strcmp(printk_out(7, KERN_CONT "b %d\n", out, sizeof(out)), ""));
	printk_out(7, KERN_INFO "a", out, sizeof(out));
	KSIM_EXPECT(!strcmp(printk_out(7, KERN_CONT "b %d\n", out, sizeof(out)), "b 7\n"));

	/* level 8 shows debug; level 4 shows only below warning */
	KSIM_EXPECT(!strcmp(printk_out(8, KERN_DEBUG "dbg %d\n", out, sizeof(out)), "dbg 7\n"));
	KSIM_EXPECT(!strcmp(printk_out(4, KERN_WARNING "warn %d\n", out, sizeof(out)), ""));
	KSIM_EXPECT(!strcmp(printk_out(4, "plain %d\n", out, sizeof(out)), ""));
	KSIM_EXPECT(!strcmp(printk_out(4, KERN_ERR "err %d\n", out, sizeof(out)), "err 7\n"));
	KSIM_EXPECT(!strcmp(printk_out(0, KERN_EMERG "emerg %d\n", out, sizeof(out)), ""));

	/* pr_* helpers carry their levels */
	console_loglevel = 7;
	KSIM_EXPECT_EQ(pr_debug("x\n"), 0);
	console_loglevel = saved;
}
