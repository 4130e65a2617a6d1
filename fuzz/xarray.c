// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target `xarray`: lib/xarray.c (ksim_xarray, unmodified) against the
 * xarray model (xarray/model.c, shared with xarray/test_model.c).
 *
 * Input: byte 0 configures the array (bit 0: XA_FLAGS_ALLOC); then each op
 * is [kind][flags][fault][index: 2 bytes][last: 2 bytes][order/mark] (see
 * get_index()); the fault byte may arm the fault engine
 * (ksim_fuzz_fault_arm(), ksim/fuzz.h) so the input decides which
 * allocation fails, and -ENOMEM must then leave the array unchanged.
 *
 * Oracles: every op's result against the model (model.c); after ops that
 * may change the array, on the schedule of ksim_fuzz_full_check_due(), the
 * whole-array check (every entry, its extent and marks, xa_load() at both
 * ends, and the node structure: counts, links, mark propagation); the
 * shim's problems (WARN, XA_NODE_BUG_ON's BUG, lockdep, RCU); at the end
 * of the input no leaked node and no lock held.
 */
#include <linux/xarray.h>
#include <ksim/fuzz.h>

#include "model.h"

#define MAX_OPS		512

static struct ksim_xa_sim sim;

static bool enomem_ok(void)
{
	return ksim_fuzz_fault_failures() > 0;
}

/* Dense small indices (collisions, shared nodes), sparse, near the top. */
static unsigned long get_index(struct ksim_fuzz_in *in)
{
	uint16_t v = ksim_fuzz_u16(in);

	switch (v >> 14) {
	case 0:
	case 1:
		return v & 0x3ff;
	case 2:
		return (unsigned long)(v & 0x3fff) << 10;
	default:
		return ULONG_MAX - (v & 0x3fff);
	}
}

static bool read_only(uint8_t kind)
{
	switch (kind) {
	case KSIM_XA_LOAD:
	case KSIM_XA_GET_ORDER:
	case KSIM_XA_GET_MARK:
	case KSIM_XA_FIND:
	case KSIM_XA_FIND_AFTER:
		return true;
	}
	return false;
}

static void xarray_run(struct ksim_fuzz_in *in)
{
	uint8_t cfg = ksim_fuzz_u8(in);

	ksim_xa_sim_init(&sim, cfg & 1);
	sim.enomem_ok = enomem_ok;
	sim.trace = ksim_fuzz_verbose;
	while (ksim_fuzz_more(in) && in->nr_ops < MAX_OPS) {
		struct ksim_xa_op op;
		uint8_t om;
		bool injected;

		op.kind = ksim_fuzz_u8(in) % KSIM_XA_OP_NR;
		op.flags = ksim_fuzz_u8(in);
		ksim_fuzz_fault_arm(in);
		op.index = get_index(in);
		op.last = ksim_fuzz_u8(in) == 0xff ? get_index(in) : op.index + ksim_fuzz_u8(in);
		om = ksim_fuzz_u8(in);
		op.order = om & 0xf;
		op.mark = om >> 4;
		ksim_xa_sim_op(&sim, &op);
		injected = ksim_fuzz_fault_failures() > 0;
		ksim_fuzz_fault_disarm();
		ksim_fuzz_check_problems("op");
		if (!read_only(op.kind) && ksim_fuzz_full_check_due(sim.nr, injected)) {
			ksim_xa_sim_check(&sim, "after op");
			ksim_fuzz_check_problems("whole-array check");
		}
		in->nr_ops++;
	}
	ksim_xa_sim_check(&sim, "end of input");
	ksim_fuzz_check_problems("end of input");
	ksim_xa_sim_destroy(&sim);
}

KSIM_FUZZ_TARGET(xarray, NULL, xarray_run);
