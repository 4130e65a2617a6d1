// SPDX-License-Identifier: GPL-2.0
/*
 * stress_hang: the stress harness must report a thread that never stops
 * (shim/ksim/stress.c, --hang) as a failed check with its stack and the
 * replay line, not leave it to CTest's timeout.  Role "worker" loops as
 * every stress program does; role "hang" (no threads by default) ignores
 * the end of the run, as a reader caught in a cycle of freed nodes would;
 * with a "stuck_teardown" thread the teardown never returns, as a final
 * walk of a structure left with a cycle would.
 */
#include <unistd.h>
#include <ksim/stress.h>

static void worker(struct ksim_stress_thread *t)
{
	while (ksim_stress_running())
		ksim_stress_op(t);
}

static void hang(struct ksim_stress_thread *t)
{
	(void)t;
	for (;;)
		usleep(1000);
}

static int teardown_loops;

static void stuck_teardown(struct ksim_stress_thread *t)
{
	(void)t;
	__atomic_store_n(&teardown_loops, 1, __ATOMIC_RELAXED);
}

/* A spin, no system call: under TSan a signal never reaches such a loop. */
static void teardown(void)
{
	while (__atomic_load_n(&teardown_loops, __ATOMIC_RELAXED))
		;
}

static struct ksim_stress program = {
	.name = "stress_hang",
	.what = "self-test of the stress harness's hang detector",
	.roles = {
		{ .name = "worker", .nr = 1, .fn = worker },
		{ .name = "hang", .nr = 0, .fn = hang },
		{ .name = "stuck_teardown", .nr = 0, .fn = stuck_teardown },
	},
	.teardown = teardown,
};

int main(int argc, char **argv)
{
	return ksim_stress_main(&program, argc, argv);
}
