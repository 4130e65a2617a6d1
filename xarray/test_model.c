// SPDX-License-Identifier: GPL-2.0
/*
 * Seeded random operations on lib/xarray.c, every one checked against the
 * model (model.c), with the whole-array check (entries, orders, marks,
 * node structure) every 64 ops and at the end.  Replays from --seed; with
 * --fault SPEC the engine fails allocations and -ENOMEM must leave the
 * array as it was.
 *
 *   random_ops         a plain array: multi-index stores, ranges, marks, searches
 *   random_ops_alloc   an allocating array (XA_FLAGS_ALLOC): xa_alloc, reserved entries
 *   oracle_sees_damage the checks report an entry changed behind the model's
 *                      back and a node whose count is wrong
 */
#include <linux/xarray.h>
#include <ksim/fault.h>
#include <ksim/test.h>

#include "model.h"

#define NR_OPS		50000
#define CHECK_EVERY	64

static unsigned long faults_before;

static bool enomem_ok(void)
{
	return ksim_fault_failures() > faults_before;
}

static unsigned long rand_index(struct ksim_rng *rng)
{
	unsigned int r = ksim_rng_below(rng, 100);

	if (r < 70)
		return ksim_rng_below(rng, 256);
	if (r < 90)
		return ksim_rng_below(rng, 65536);
	if (r < 95)
		return ULONG_MAX - ksim_rng_below(rng, 256);
	return ksim_rng_next(rng);
}

/* Weights: stores and reads dominate, destroy is rare. */
static const unsigned char weights[KSIM_XA_OP_NR] = {
	[KSIM_XA_STORE] = 14, [KSIM_XA_STORE_ORDER] = 8, [KSIM_XA_STORE_RANGE] = 4,
	[KSIM_XA_ERASE] = 8, [KSIM_XA_INSERT] = 5, [KSIM_XA_CMPXCHG] = 5,
	[KSIM_XA_RESERVE] = 3, [KSIM_XA_RELEASE] = 3, [KSIM_XA_LOAD] = 10,
	[KSIM_XA_GET_ORDER] = 3, [KSIM_XA_SET_MARK] = 8, [KSIM_XA_CLEAR_MARK] = 4,
	[KSIM_XA_GET_MARK] = 4, [KSIM_XA_FIND] = 6, [KSIM_XA_FIND_AFTER] = 6,
	[KSIM_XA_ALLOC] = 6, [KSIM_XA_DESTROY] = 0, [KSIM_XA_SPLIT] = 4,
};

static void rand_op(struct ksim_rng *rng, struct ksim_xa_op *op)
{
	unsigned int total = 0, r;

	for (int k = 0; k < KSIM_XA_OP_NR; k++)
		total += weights[k];
	r = ksim_rng_below(rng, total + 1);
	op->kind = KSIM_XA_DESTROY;	/* the +1: about one op in 120 */
	for (int k = 0; k < KSIM_XA_OP_NR; k++) {
		if (r < weights[k]) {
			op->kind = k;
			break;
		}
		r -= weights[k];
	}
	op->flags = ksim_rng_below(rng, 4) == 0 ? KSIM_XA_F_NULL : 0;
	if (ksim_rng_below(rng, 4) == 0)
		op->flags |= KSIM_XA_F_NOWAIT;
	if (ksim_rng_below(rng, 2))
		op->flags |= KSIM_XA_F_WRONG_OLD;
	if (ksim_rng_below(rng, 2))
		op->flags |= KSIM_XA_F_MARKED;
	if (ksim_rng_below(rng, 2))
		op->flags |= KSIM_XA_F_TRY;
	if (ksim_rng_below(rng, 4) == 0)
		op->flags |= KSIM_XA_F_ANY_ORDER;
	if (ksim_rng_below(rng, 2))
		op->flags |= KSIM_XA_F_CYCLIC;
	op->order = ksim_rng_below(rng, 3) ? ksim_rng_below(rng, 4) : ksim_rng_below(rng, 13);
	op->mark = ksim_rng_below(rng, 3);
	op->index = rand_index(rng);
	switch (ksim_rng_below(rng, 4)) {
	case 0:
		op->last = op->index + ksim_rng_below(rng, 8);
		break;
	case 1:
		op->last = op->index + ksim_rng_below(rng, 300);
		break;
	case 2:
		op->last = ULONG_MAX;
		break;
	default:
		op->last = rand_index(rng);
	}
	if (op->kind == KSIM_XA_DESTROY && ksim_rng_below(rng, 2))
		op->kind = KSIM_XA_LOAD;
}

static void run(bool alloc)
{
	struct ksim_rng *rng = ksim_test_rng();
	struct ksim_xa_sim s;
	struct ksim_xa_op op;

	ksim_xa_sim_init(&s, alloc);
	s.enomem_ok = enomem_ok;
	s.trace = getenv("KSIM_XA_TRACE") != NULL;
	for (int i = 0; i < NR_OPS; i++) {
		rand_op(rng, &op);
		faults_before = ksim_fault_failures();
		ksim_xa_sim_op(&s, &op);
		if (ksim_problem_count(KSIM_P_TEST))
			break;
		if (i % CHECK_EVERY == CHECK_EVERY - 1 && !ksim_xa_sim_check(&s, "periodic"))
			break;
	}
	if (!ksim_problem_count(KSIM_P_TEST))
		ksim_xa_sim_check(&s, "end");
	if (ksim_verbose)
		printf("# %lu ops (%lu outside the contract, skipped; %lu marked xa_find_after() "
		       "quirks; %lu splits; %lu known-finding results), %zu entries at the end\n",
		       s.ops, s.skipped, s.quirks, s.splits, s.known, s.nr);
	ksim_xa_sim_destroy(&s);
}

KSIM_TEST(random_ops)
{
	run(false);
}

KSIM_TEST(random_ops_alloc)
{
	run(true);
}

KSIM_TEST(oracle_sees_damage)
{
	struct ksim_xa_sim s;
	struct ksim_xa_op op = { .kind = KSIM_XA_STORE_ORDER, .order = 3, .index = 64 };
	struct xa_node *node;

	ksim_xa_sim_init(&s, false);
	for (unsigned long i = 0; i < 40; i++) {
		op.kind = KSIM_XA_STORE;
		op.index = i * 3;
		ksim_xa_sim_op(&s, &op);
	}
	KSIM_ASSERT(ksim_xa_sim_check(&s, "before"));
	/* An entry changed behind the model's back: one report. */
	ksim_expect_problems(KSIM_P_TEST, 1);
	xa_store(&s.xa, 9, xa_mk_value(12345), GFP_KERNEL);
	KSIM_EXPECT(!ksim_xa_sim_check(&s, "changed entry"));
	xa_store(&s.xa, 9, xa_mk_value(s.e[3].val), GFP_KERNEL);
	/* A node whose count is off: the structure check reports it. */
	node = xa_to_node(rcu_dereference_raw(s.xa.xa_head));
	KSIM_ASSERT(xa_is_node(rcu_dereference_raw(s.xa.xa_head)));
	node->count++;
	ksim_expect_problems(KSIM_P_TEST, 1);
	xa_lock(&s.xa);
	KSIM_EXPECT(ksim_xa_validate(&s.xa) == 1);
	xa_unlock(&s.xa);
	node->count--;
	KSIM_EXPECT(ksim_problem_count(KSIM_P_TEST) == 2);
	ksim_xa_sim_destroy(&s);
}

/*
 * Every split the model issues, checked against it: each order o from 1 to
 * 15 (an entry marked or not, with neighbours on both sides, at 0 and far
 * up) to every order n < o, with xas_split_alloc() + xas_split() and, where
 * the tree has it, xas_try_split() from its minimum order and below.  The
 * model skips what is outside the API's contract or a listed finding
 * (model.c); an unmarked xas_split() inside XA_CHUNK_SHIFT * 2 levels must
 * never be skipped.
 */
static bool split_one(unsigned long base, unsigned int o, unsigned int n, uint8_t flags,
		      bool marked)
{
	struct ksim_xa_sim s;
	struct ksim_xa_op op = { .kind = KSIM_XA_STORE_ORDER, .order = o, .index = base };
	bool issued;

	ksim_xa_sim_init(&s, false);
	ksim_xa_sim_op(&s, &op);
	if (marked) {
		op = (struct ksim_xa_op){ .kind = KSIM_XA_SET_MARK, .index = base, .mark = 1 };
		ksim_xa_sim_op(&s, &op);
	}
	op = (struct ksim_xa_op){ .kind = KSIM_XA_STORE, .index = base + (1UL << o) };
	ksim_xa_sim_op(&s, &op);
	if (base) {
		op.index = base - 1;
		ksim_xa_sim_op(&s, &op);
	}
	op = (struct ksim_xa_op){ .kind = KSIM_XA_SPLIT, .index = base + (1UL << o) - 1,
				  .order = n, .flags = flags };
	ksim_xa_sim_op(&s, &op);
	issued = s.splits == 1;
	ksim_xa_sim_check(&s, "after the split");
	ksim_xa_sim_destroy(&s);
	return issued;
}

KSIM_TEST(split_orders)
{
	unsigned int issued = 0, tried = 0;

	for (unsigned int o = 1; o < 16; o++)
		for (unsigned int n = 0; n < o; n++)
			for (unsigned int v = 0; v < 4; v++) {
				unsigned long base = v & 1 ? 1UL << 30 : 0;
				bool marked = v & 2, plain = split_one(base, o, n, 0, marked);

				KSIM_EXPECT(plain || marked || o >= n - n % XA_CHUNK_SHIFT + 2 * XA_CHUNK_SHIFT,
					    "xas_split() of order %u to %u at %lu not issued", o, n, base);
				issued += plain;
				tried++;
#if KSIM_HAVE_XAS_TRY_SPLIT
				issued += split_one(base, o, n, KSIM_XA_F_TRY | KSIM_XA_F_ANY_ORDER, marked);
				issued += split_one(base, o, n, KSIM_XA_F_TRY, marked);
				tried += 2;
#endif
				if (ksim_problem_count(KSIM_P_TEST) > 4)
					return;
			}
	if (ksim_verbose)
		printf("# %u of %u split calls split (the others: refused below the minimum, "
		       "outside the contract, or a listed finding)\n", issued, tried);
}
