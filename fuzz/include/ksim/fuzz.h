/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksim fuzz harness framework (fuzz/lib/fuzz.c, fuzz/lib/replay_main.c).
 *
 * A target is one C file that defines
 *
 *	KSIM_FUZZ_TARGET(name, init_fn, run_fn);
 *
 * where init_fn (may be NULL) runs once before the fork server starts and
 * run_fn(struct ksim_fuzz_in *in) decodes the input into operations, checks
 * each result against its reference model with KSIM_FUZZ_CHECK() and
 * validates the structure after each step (or on the schedule of
 * ksim_fuzz_full_check_due() below).  The framework supplies the
 * libFuzzer entry points (LLVMFuzzerInitialize/LLVMFuzzerTestOneInput, used
 * by AFL++'s persistent driver, libFuzzer and OSS-Fuzz) and, for the replay
 * binary, a main() that runs files or corpus directories as a test.
 *
 * Every iteration starts from a clean state and ends with: fault injection
 * disarmed, RCU callbacks run (inline: no threads, see ksim/rcu.h), then
 * a failure on any ksim problem (WARN, lockdep, RCU, leak...), on locks or
 * RCU read sections left open, and on any object still allocated in the
 * shim's slab.  A failure prints a one-line signature and aborts, so AFL++
 * records a crash and the replay binary exits non-zero.
 *
 * Inputs never fail to decode: reading past the end yields zeros and ends
 * the op loop (ksim_fuzz_more()), so every byte string is a valid program.
 */
#ifndef _KSIM_FUZZ_H
#define _KSIM_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksim_fuzz_in {
	const uint8_t *data;
	size_t size;
	size_t pos;
	unsigned long nr_ops;	/* ops decoded so far (for traces) */
};

/* ---- decoding ---- */

static inline bool ksim_fuzz_more(const struct ksim_fuzz_in *in)
{
	return in->pos < in->size;
}

static inline uint8_t ksim_fuzz_u8(struct ksim_fuzz_in *in)
{
	return in->pos < in->size ? in->data[in->pos++] : 0;
}

static inline uint16_t ksim_fuzz_u16(struct ksim_fuzz_in *in)
{
	uint16_t v = ksim_fuzz_u8(in);

	return v | (uint16_t)ksim_fuzz_u8(in) << 8;
}

static inline uint32_t ksim_fuzz_u32(struct ksim_fuzz_in *in)
{
	uint32_t v = ksim_fuzz_u16(in);

	return v | (uint32_t)ksim_fuzz_u16(in) << 16;
}

static inline uint64_t ksim_fuzz_u64(struct ksim_fuzz_in *in)
{
	uint64_t v = ksim_fuzz_u32(in);

	return v | (uint64_t)ksim_fuzz_u32(in) << 32;
}

/* ---- fault injection driven by the input ---- */

/*
 * Reads one byte.  Values below 0xe0 (7 in 8) mean "no fault".  Otherwise
 * the engine (ksim/fault.h) is armed to fail the Nth allocation from now,
 * N = (byte & 0xf) + 1, once (bit 4 clear: the kernel's retry paths) or
 * three times (bit 4 set: enough to reach the -ENOMEM paths).  Failures are
 * bounded on purpose: with every allocation failing, kernel retry loops
 * that made partial progress never end (the maple tree's mas_nomem() keeps
 * retrying while it holds some nodes; see fuzz/README.md), and a hang is
 * not a finding about a kernel that never fails GFP_KERNEL for good.
 * Returns true if armed; ksim_fuzz_fault_disarm() ends it (the iteration
 * end does too).
 */
bool ksim_fuzz_fault_arm(struct ksim_fuzz_in *in);
/* Arm the engine with a target's own decoding (e.g. lock failures); disarmed as above. */
struct ksim_fault_config;
void ksim_fuzz_fault_set(const struct ksim_fault_config *cfg);
void ksim_fuzz_fault_disarm(void);
/* Failures injected since the last arm. */
unsigned long ksim_fuzz_fault_failures(void);

/* ---- checks and traces ---- */

/* Readable op trace, printed with -v (replay) or KSIM_FUZZ_VERBOSE=1. */
extern int ksim_fuzz_verbose;
void ksim_fuzz_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define KSIM_FUZZ_TRACE(...) do {					\
	if (__builtin_expect(ksim_fuzz_verbose, 0))			\
		ksim_fuzz_trace(__VA_ARGS__);				\
} while (0)

void ksim_fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), noreturn));
#define KSIM_FUZZ_CHECK(cond, ...) do {					\
	if (__builtin_expect(!(cond), 0))				\
		ksim_fuzz_fail(__FILE__, __LINE__, #cond, "" __VA_ARGS__); \
} while (0)

/* Fails the iteration if the shim counted a problem since it began. */
void ksim_fuzz_check_problems(const char *where);

/*
 * When the whole-structure oracle runs (maple: mt_validate() and a walk of
 * the whole tree against the model, O(size) per call).  Every op's own
 * results are always checked; the whole-structure check is due
 *   - after every op in replays (fuzz_<t>_replay: CTest, triage, the
 *     reproducer commands), which pin a failure to the op that caused it;
 *   - in fuzzing binaries (AFL++, libFuzzer), after an op when @force (an
 *     error path ran: an allocation failure was injected) or when the ops
 *     since the last check times KSIM_FUZZ_CHECK_SPAN reach @size: every
 *     op while the structure is small, every 4th op at 4 * SPAN entries.
 *     The oracle then costs O(SPAN) per op instead of O(size), which is
 *     what keeps big-tree inputs from halving the exec rate (fuzz/README.md,
 *     Throughput).  A damaged tree is still caught by the next check, at
 *     the latest at the end of the input, and its replay names the op.
 * KSIM_FUZZ_EVERY_OP=1 (or 0) overrides the binary's default.
 */
#define KSIM_FUZZ_CHECK_SPAN	64
extern bool ksim_fuzz_every_op;
bool ksim_fuzz_full_check_due(unsigned long size, bool force);

/* ---- targets ---- */

struct ksim_fuzz_target {
	const char *name;
	void (*init)(void);
	void (*run)(struct ksim_fuzz_in *in);
};

extern const struct ksim_fuzz_target ksim_fuzz_target;

#define KSIM_FUZZ_TARGET(tname, init_fn, run_fn)			\
	const struct ksim_fuzz_target ksim_fuzz_target = {		\
		.name = #tname, .init = (init_fn), .run = (run_fn),	\
	}

/* One-time setup (idempotent) and one iteration: what the entry points call. */
void ksim_fuzz_setup(void);
int ksim_fuzz_one(const uint8_t *data, size_t size);
/* The input being replayed (replay binary only), for failure messages. */
extern const char *ksim_fuzz_current_file;

#endif /* _KSIM_FUZZ_H */
