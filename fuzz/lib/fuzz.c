// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzz framework (see ksim/fuzz.h): libFuzzer entry points, per-iteration
 * reset and end-of-iteration checks, input-driven fault injection, traces.
 */
#include <execinfo.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/lockdep.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <ksim/fault.h>
#include <ksim/fuzz.h>
#include <ksim/ksim.h>
#include <ksim/rcu.h>
#include <ksim/run.h>
#include <ksim/slab.h>

int ksim_fuzz_verbose;
const char *ksim_fuzz_current_file;
bool ksim_fuzz_every_op;		/* the replay binary's main() sets it */
static unsigned long ops_since_full_check;

static bool fault_armed;
static bool in_iteration;
static unsigned long live_at_start;
static unsigned long fault_windows;	/* windows armed in this iteration */

/* ---- fault injection ---- */

bool ksim_fuzz_fault_arm(struct ksim_fuzz_in *in)
{
	struct ksim_fault_config cfg = { 0 };
	uint8_t b = ksim_fuzz_u8(in);

	if (ksim_run && ksim_run->fault_spec) {
		/*
		 * A replay's --fault replaces every op's fault byte: each op is
		 * a window armed with the spec, its seed taken now from the
		 * run's seed (or the spec's seed=) and the window's number in
		 * the input, so windows differ and an input replays alone.
		 */
		uint64_t base = ksim_run->fault.seed_from_run ? ksim_seed() : ksim_run->fault.seed;

		cfg = ksim_run->fault;
		cfg.seed_from_run = false;
		cfg.seed = base ^ (++fault_windows * 0x9e3779b97f4a7c15ULL);
		ksim_fault_set(&cfg);
		fault_armed = true;
		KSIM_FUZZ_TRACE("    fault: %s (window %lu)\n", ksim_run->fault_spec, fault_windows);
		return true;
	}
	if (b < 0xe0)
		return false;
	cfg.nth = (b & 0xf) + 1;
	cfg.times = (b & 0x10) ? 3 : 1;
	ksim_fault_set(&cfg);
	fault_armed = true;
	KSIM_FUZZ_TRACE("    fault: fail allocation #%lu from here%s\n", cfg.nth,
			cfg.times > 1 ? " and the next two" : " (once)");
	return true;
}

void ksim_fuzz_fault_set(const struct ksim_fault_config *cfg)
{
	ksim_fault_set(cfg);
	fault_armed = true;
}

void ksim_fuzz_fault_disarm(void)
{
	if (!fault_armed)
		return;
	if (ksim_fuzz_verbose && ksim_fault_failures())
		KSIM_FUZZ_TRACE("    fault: %lu allocation(s) failed\n", ksim_fault_failures());
	ksim_fault_reset();
	fault_armed = false;
}

unsigned long ksim_fuzz_fault_failures(void)
{
	return fault_armed ? ksim_fault_failures() : 0;
}

/* ---- traces and failures ---- */

void ksim_fuzz_trace(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fflush(stdout);	/* a hang must not swallow the trace */
}

static void __attribute__((noreturn)) die(void)
{
	fflush(stdout);
	if (ksim_fuzz_current_file && ksim_run && ksim_run->prog) {
		char replay[1024];

		/* Built from the replay binary's options: its --seed and --fault. */
		ksim_run_replay(NULL, replay, sizeof(replay));
		ksim_run_replay_add(replay, sizeof(replay), "-v", ksim_fuzz_current_file);
		fprintf(stderr, "ksim-fuzz: replay: %s\n", replay);
	}
	fflush(stderr);
	abort();
}

/* The fuzz mode's report of a failed check (ksim_fail(), ksim/run.h). */
static void __attribute__((noreturn)) report(const char *file, int line, const char *text)
{
	const char *base = strrchr(file, '/');

	fflush(stdout);
	/* The signature line is what the campaign deduplicates on. */
	fprintf(stderr, "ksim-fuzz: FAIL %s: %s:%d: %s\n", ksim_fuzz_target.name,
		base ? base + 1 : file, line, text);
	fprintf(stderr, "ksim-fuzz: signature: %s:%d\n", base ? base + 1 : file, line);
	ksim_dump_stack();
	die();
}

void ksim_fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ksim_vfail(file, line, cond, fmt, ap);
	va_end(ap);
	abort();	/* not reached: the fuzz mode's report aborts */
}

void ksim_fuzz_check_problems(const char *where)
{
	unsigned long n = ksim_problem_total();

	if (!n)
		return;
	fflush(stdout);
	fprintf(stderr, "ksim-fuzz: FAIL %s: %lu problem(s) reported by the shim %s:",
		ksim_fuzz_target.name, n, where);
	for (int k = 0; k < KSIM_P_NR; k++)
		if (ksim_problem_count(k))
			fprintf(stderr, " %s=%lu", ksim_problem_names[k], ksim_problem_count(k));
	fprintf(stderr, "\nksim-fuzz: signature: problem");
	for (int k = 0; k < KSIM_P_NR; k++)
		if (ksim_problem_count(k))
			fprintf(stderr, ":%s", ksim_problem_names[k]);
	fprintf(stderr, " %s\n", where);
	die();
}

bool ksim_fuzz_full_check_due(unsigned long size, bool force)
{
	if (ksim_fuzz_every_op || force ||
	    ++ops_since_full_check * KSIM_FUZZ_CHECK_SPAN >= size) {
		ops_since_full_check = 0;
		return true;
	}
	return false;
}

/* ---- setup and iterations ---- */

void ksim_fuzz_setup(void)
{
	static struct ksim_options fuzzer = { .mode = KSIM_RUN_FUZZ };
	static bool done;
	const char *v = getenv("KSIM_FUZZ_VERBOSE");

	if (done)
		return;
	done = true;
	/*
	 * The replay binary parsed its command line (ksim/run.h: seed 0 unless
	 * --seed); a fuzzer has none: the input is the only source of choices.
	 */
	if (!ksim_run) {
		ksim_set_seed(0);
		ksim_run_set(&fuzzer);
	}
	ksim_run->report = report;
	if (v && *v)
		ksim_fuzz_verbose = atoi(v);
	v = getenv("KSIM_FUZZ_EVERY_OP");
	if (v && *v)
		ksim_fuzz_every_op = atoi(v);
	/*
	 * backtrace() loads libgcc_s on first use: do it before the fork
	 * server, not in every child that fails an input (crash reports).
	 */
	{
		void *frame;

		backtrace(&frame, 1);
	}
	ksim_init();
	/*
	 * No threads before (or after) the fork server: callbacks run inline,
	 * and the allocator skips its locks (one thread, checked).
	 * KSIM_FUZZ_RCU_WORKER=1 keeps the shim's callback thread instead
	 * (replay only: to compare behaviours).
	 */
	if (!getenv("KSIM_FUZZ_RCU_WORKER")) {
		ksim_rcu_set_inline_callbacks(true);
		ksim_slab_set_single_threaded(true);
	}
	if (ksim_fuzz_target.init)
		ksim_fuzz_target.init();
	rcu_barrier();
	/* Whatever setup allocated is global state, not a per-input leak. */
	ksim_slab_mark();
}

static void end_checks(void)
{
	ksim_fuzz_fault_disarm();
	/* The run convention's end-of-run check; a problem fails the input. */
	if (ksim_run_check("the iteration", __FILE__, live_at_start, NULL))
		ksim_fuzz_check_problems("at iteration end");
}

int ksim_fuzz_one(const uint8_t *data, size_t size)
{
	struct ksim_fuzz_in in = { .data = data, .size = size };

	ksim_fuzz_setup();
	/*
	 * The kernel's randomness (get_random_u32(): hash seeds) restarts
	 * with every input, as for the first input of a replay: in a
	 * persistent fuzzer it went on from the inputs before, and a failure
	 * found there did not replay alone.
	 */
	ksim_random_restart();
	in_iteration = true;
	ksim_problems_reset();
	live_at_start = ksim_run_live();
	ops_since_full_check = 0;
	fault_windows = 0;
	ksim_fuzz_target.run(&in);
	end_checks();
	in_iteration = false;
	return 0;
}

/* ---- libFuzzer / AFL++ driver / OSS-Fuzz entry points ---- */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	ksim_fuzz_setup();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ksim_fuzz_one(data, size);
}
