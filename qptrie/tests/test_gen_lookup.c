// SPDX-License-Identifier: GPL-2.0
/*
 * Inlined lookups, checked differentially: a program's bpf_map_lookup_elem()
 * as the verifier rewrites it for a map with ops->map_gen_lookup (hashtab.c:
 * htab_map_gen_lookup, htab_lru_map_gen_lookup, htab_percpu_map_gen_lookup
 * where the tree has it, rhtab_map_gen_lookup on trees with RHASH), run by
 * the shim's interpreter (shim/kernel/bpf/gen_lookup.c, ksim/bpf.h).
 *
 * gen_lookup_<variant>: for several key sizes (1, 3, 4, 6, 8, 13, 20: most
 * not multiples of 8) and value sizes (1, 5, 7, 8, 12, 33, 64), random
 * updates (values differing per CPU on per-CPU maps), deletes and, on LRU
 * maps (small ones), evictions, judged by the maps' model (qptrie/model.h);
 * after each step one key, after each round every key of the key space
 * (present and absent) on every CPU (ksim_set_cpu()):
 *   - the interpreted program runs (no unknown instruction) and its r0 is
 *     the pointer ops->map_lookup_elem() returns (what the helper call
 *     would have given the program), NULL exactly for the keys the model
 *     does not hold;
 *   - the bytes at r0 are the model's value (per-CPU: this CPU's);
 *   - per-CPU: r0 is also bpf_map_lookup_percpu_elem(key, this CPU);
 *   - LRU: the inlined lookup sets the element's ref bit, as
 *     htab_lru_map_lookup_elem() does (bit cleared, program run, bit read;
 *     the same for the op).
 * The program's key is a heap buffer of exactly key_size bytes, so a
 * lookup reading past the key is an ASan report.
 * gen_lookup_which: the variants that have map_gen_lookup are the ones
 * tested here (a tree that gives another map one fails until it is added).
 * gen_lookup_interp_refuses: the interpreter refuses what it does not know.
 *
 * gen_lookup_hash_of_maps (trees with map_in_map.c): the outer map of
 * map-in-map (not a registered variant: bpf/map_in_map has its own), for
 * the same key sizes, preallocated and not: random updates with inner maps,
 * replaces and deletes; r0 is the inner map itself, what
 * htab_of_map_lookup_elem() returns, and the one the test stored.
 */
#include <stdlib.h>

#include <linux/kernel.h>
#include <linux/filter.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include <ksim/bpf.h>
#include <ksim/test.h>
#include <qptrie/model.h>

/* qptrie/kernel/hashtab.c */
int ksim_htab_lru_ref(struct bpf_map *map, const void *key, bool clear);

#define JUDGE(why) do {							\
	const char *_w = (why);						\
	if (_w)								\
		ksim_test_fail(__FILE__, __LINE__, "model", "%s", _w);	\
} while (0)

static const struct { u32 ks, vs; } shapes[] = {
	{ 4, 8 }, { 1, 1 }, { 3, 5 }, { 13, 33 }, { 8, 12 }, { 20, 7 }, { 6, 64 },
};

#define ROUNDS	4

static struct {
	const struct ksim_bpf_variant *v;
	struct bpf_map *map;
	struct ksim_bpf_model m;
	u32 ks, vs, space;
	bool lru, percpu;
	/* what the checks saw: both kinds of key, and (LRU) evictions */
	unsigned long present, absent, evicted;
} G;

/* Key @i of the key space: i's low bytes, then bytes that depend on i. */
static void key_of(u8 *k, u32 i)
{
	for (u32 b = 0; b < G.ks; b++)
		k[b] = b < 4 ? (u8)(i >> (8 * b)) : (u8)((i * 2654435761u) >> (8 * (b % 4))) ^ (u8)b;
}

/* One key on one CPU: the inlined lookup against the op and the model. */
static void check_key(u32 i, u32 cpu)
{
	u32 stride = round_up(G.vs, 8);
	void *got = NULL, *want, *pcpu = NULL;
	u8 *key = malloc(G.ks);
	int err, j, ref_gen = -1, ref_op = -1;
	const char *ks;

	KSIM_ASSERT(key);
	key_of(key, i);
	ks = ksim_bpf_keystr(G.m.kind, key, G.ks);
	j = ksim_bpf_model_find(&G.m, key, G.ks);
	if (j >= 0)
		G.present++;
	else
		G.absent++;
	ksim_set_cpu(cpu);
	if (G.lru && j >= 0)
		ksim_htab_lru_ref(G.map, key, true);
	rcu_read_lock();
	err = ksim_bpf_prog_gen_lookup(G.map, key, &got);
	if (G.lru && j >= 0)
		ref_gen = ksim_htab_lru_ref(G.map, key, true);
	want = G.map->ops->map_lookup_elem(G.map, key);
	if (G.lru && j >= 0)
		ref_op = ksim_htab_lru_ref(G.map, key, false);
	if (G.percpu)
		pcpu = ksim_bpf_prog_lookup_percpu(G.map, key, G.ks, cpu);
	KSIM_EXPECT(!err, "key %s cpu %u: gen_lookup %d: %s", ks, cpu, err, ksim_bpf_interp_error());
	KSIM_EXPECT(got == want, "key %s cpu %u: inlined lookup %p, map_lookup_elem %p", ks, cpu,
		    got, want);
	KSIM_EXPECT(!got == (j < 0), "key %s cpu %u: inlined lookup %p, model %s", ks, cpu, got,
		    j < 0 ? "absent" : "present");
	if (!err && got && j >= 0) {
		const u8 *mv = G.m.e[j].val + (G.percpu ? cpu * stride : 0);

		KSIM_EXPECT(!memcmp(got, mv, G.vs), "key %s cpu %u: value at r0 is not the model's",
			    ks, cpu);
	}
	if (G.percpu)
		KSIM_EXPECT(got == pcpu, "key %s cpu %u: inlined lookup %p, lookup_percpu_elem %p",
			    ks, cpu, got, pcpu);
	if (G.lru && j >= 0) {
		KSIM_EXPECT(ref_gen == 1, "key %s cpu %u: LRU ref %d after the inlined lookup", ks,
			    cpu, ref_gen);
		KSIM_EXPECT(ref_op == 1, "key %s cpu %u: LRU ref %d after map_lookup_elem", ks, cpu,
			    ref_op);
	}
	rcu_read_unlock();
	free(key);
}

static void check_all(void)
{
	for (u32 i = 0; i < G.space && ksim_problem_count(KSIM_P_TEST) < 10; i++)
		for (u32 cpu = 0; cpu < nr_cpu_ids; cpu++)
			check_key(i, cpu);
}

static void update(struct ksim_rng *rng, u32 i)
{
	u8 key[KSIM_BPF_MODEL_KMAX], val[KSIM_BPF_MODEL_VMAX];
	u32 vsize = ksim_bpf_value_size(G.map), n;
	int err, want;

	key_of(key, i);
	n = G.m.n + (ksim_bpf_model_find(&G.m, key, G.ks) < 0);
	for (u32 b = 0; b < vsize; b++)
		val[b] = (u8)ksim_rng_next(rng);
	want = ksim_bpf_model_update_expect(&G.m, key, G.ks, BPF_ANY);
	ksim_set_cpu(ksim_rng_below(rng, nr_cpu_ids));	/* LRU: per-CPU free lists */
	err = ksim_bpf_map_update(G.map, key, G.ks, val, BPF_ANY);
	KSIM_EXPECT(err == want ||
		    ksim_bpf_update_lru_self_evicted(G.m.kind, ksim_bpf_model_find(&G.m, key, G.ks) >= 0,
						     BPF_ANY, err),
		    "update %s: %d, model %d", ksim_bpf_keystr(G.m.kind, key, G.ks), err, want);
	if (!err)
		ksim_bpf_model_put(&G.m, key, G.ks, val);
	if (G.lru) {
		JUDGE(ksim_bpf_model_lru_reconcile(&G.m, err ? NULL : key, G.ks));
		if (!err && G.m.n < n)
			G.evicted += n - G.m.n;
	}
}

static void delete(u32 i)
{
	u8 key[KSIM_BPF_MODEL_KMAX];
	int err, j;

	key_of(key, i);
	j = ksim_bpf_model_find(&G.m, key, G.ks);
	err = ksim_bpf_map_delete(G.map, key, G.ks);
	KSIM_EXPECT_EQ(err, j >= 0 ? 0 : -ENOENT);
	if (!err && j >= 0)
		ksim_bpf_model_del(&G.m, j);
}

static void run_shape(const char *name, u32 ks, u32 vs)
{
	struct ksim_rng *rng = ksim_test_rng();
	struct ksim_bpf_map_attr a = { .key_size = ks, .value_size = vs };
	int err;

	memset(&G, 0, sizeof(G));
	G.v = ksim_bpf_variant_find(name);
	KSIM_ASSERT(G.v, "no variant %s", name);
	G.ks = ks;
	G.vs = vs;
	G.lru = G.v->kind & KSIM_BPF_KIND_LRU;
	G.percpu = G.v->kind & KSIM_BPF_KIND_PERCPU;
	/* LRU maps small, so updates evict; key space 3x the map */
	a.max_entries = G.lru ? 24 : 64;
	G.space = 3 * a.max_entries;
	G.map = ksim_bpf_map_create(G.v, &a, &err);
	KSIM_ASSERT(G.map, "create %s k%u v%u: %d", name, ks, vs, err);
	KSIM_ASSERT(G.map->ops->map_gen_lookup, "%s has no map_gen_lookup", name);
	ksim_bpf_model_init(&G.m, G.v, G.map, G.space);
	for (int r = 0; r < ROUNDS && ksim_problem_count(KSIM_P_TEST) < 10; r++) {
		for (u32 n = 0; n < 2 * G.space; n++) {
			u32 i = ksim_rng_below(rng, G.space);
			u32 dice = ksim_rng_below(rng, 100);

			if (dice < 55)
				update(rng, i);
			else if (dice < 80)
				delete(i);
			else
				check_key(i, ksim_rng_below(rng, nr_cpu_ids));
		}
		check_all();
	}
	ksim_set_cpu(-1);
	KSIM_EXPECT(G.present && G.absent && (!G.lru || G.evicted),
		    "%s k%u v%u: %lu present and %lu absent keys looked up, %lu evicted", name, ks, vs,
		    G.present, G.absent, G.evicted);
	if (ksim_verbose > 1)
		printf("# %s k%u v%u: %lu present and %lu absent keys looked up, %lu evicted\n", name,
		       ks, vs, G.present, G.absent, G.evicted);
	ksim_bpf_model_fini(&G.m);
	ksim_bpf_map_free(G.map);
}

static void run(const char *name)
{
	for (size_t s = 0; s < ARRAY_SIZE(shapes) && ksim_problem_count(KSIM_P_TEST) < 10; s++)
		run_shape(name, shapes[s].ks, shapes[s].vs);
}

KSIM_TEST(gen_lookup_hash) { run("hash"); }
KSIM_TEST(gen_lookup_hash_noprealloc) { run("hash_noprealloc"); }
KSIM_TEST(gen_lookup_lru_hash) { run("lru_hash"); }
KSIM_TEST(gen_lookup_lru_hash_nocommon) { run("lru_hash_nocommon"); }
#if KSIM_HAVE_BPF_PERCPU_GEN_LOOKUP
KSIM_TEST(gen_lookup_percpu_hash) { run("percpu_hash"); }
KSIM_TEST(gen_lookup_percpu_hash_noprealloc) { run("percpu_hash_noprealloc"); }
#endif
#if KSIM_HAVE_BPF_RHASH
KSIM_TEST(gen_lookup_rhash) { run("rhash"); }
#endif

#if KSIM_HAVE_BPF_HTAB_OF_MAPS
extern const struct bpf_map_ops htab_of_maps_map_ops;

#define NINNER	4

static void run_of_maps(u32 ks, u32 flags)
{
	static const struct ksim_bpf_variant outer_v = {
		"hash_of_maps", &htab_of_maps_map_ops, BPF_MAP_TYPE_HASH_OF_MAPS, 0,
		KSIM_BPF_KIND_HASH | KSIM_BPF_KIND_KERNEL,
	};
	struct ksim_bpf_map_attr ia = { .key_size = 4, .value_size = 8, .max_entries = 4 };
	struct ksim_rng *rng = ksim_test_rng();
	struct bpf_map *inner[NINNER], *outer, *held[48] = { NULL };
	unsigned long present = 0, absent = 0;
	int err;

	for (int n = 0; n < NINNER; n++) {
		inner[n] = ksim_bpf_map_create(ksim_bpf_variant_find("hash"), &ia, &err);
		KSIM_ASSERT(inner[n], "create inner map: %d", err);
	}
	struct ksim_bpf_map_attr oa = { .key_size = ks, .value_size = sizeof(u32), .max_entries = 32,
					.map_flags = flags, .inner_map_fd = ksim_bpf_map_fd(inner[0]) };

	outer = ksim_bpf_map_create(&outer_v, &oa, &err);
	KSIM_ASSERT(outer, "create hash of maps k%u flags %#x: %d", ks, flags, err);
	KSIM_ASSERT(outer->ops->map_gen_lookup, "hash of maps without map_gen_lookup");
	G.ks = ks;
	for (u32 n = 0; n < 600 && ksim_problem_count(KSIM_P_TEST) < 10; n++) {
		u32 i = ksim_rng_below(rng, ARRAY_SIZE(held)), dice = ksim_rng_below(rng, 100);
		u8 *key = malloc(ks);	/* exactly key_size bytes: an over-read is an ASan report */
		void *got = NULL, *want;

		KSIM_ASSERT(key);
		key_of(key, i);
		if (dice < 40) {
			u32 w = ksim_rng_below(rng, NINNER), fd = ksim_bpf_map_fd(inner[w]);

			err = ksim_bpf_map_update(outer, key, ks, &fd, BPF_ANY);
			KSIM_EXPECT(!err || (err == -E2BIG && !held[i]), "update k%u %u: %d", ks, i, err);
			if (!err)
				held[i] = inner[w];
		} else if (dice < 60) {
			err = ksim_bpf_map_delete(outer, key, ks);
			KSIM_EXPECT(err == (held[i] ? 0 : -ENOENT), "delete k%u %u: %d", ks, i, err);
			held[i] = NULL;
		} else {
			ksim_set_cpu(ksim_rng_below(rng, nr_cpu_ids));
			rcu_read_lock();
			err = ksim_bpf_prog_gen_lookup(outer, key, &got);
			want = outer->ops->map_lookup_elem(outer, key);
			rcu_read_unlock();
			ksim_set_cpu(-1);
			KSIM_EXPECT(!err, "k%u %u: gen_lookup %d: %s", ks, i, err, ksim_bpf_interp_error());
			KSIM_EXPECT(got == want && got == held[i],
				    "k%u key %u: inlined lookup %p, map_lookup_elem %p, stored inner map %p",
				    ks, i, got, want, held[i]);
			if (held[i])
				present++;
			else
				absent++;
		}
		free(key);
	}
	KSIM_EXPECT(present && absent, "k%u: %lu present and %lu absent keys looked up", ks, present,
		    absent);
	ksim_bpf_map_free(outer);
	for (int n = 0; n < NINNER; n++)
		ksim_bpf_map_free(inner[n]);
	rcu_barrier();
	ksim_run_pending_work();	/* inner maps a delete or replace let go of: freed after the grace period */
}

KSIM_TEST(gen_lookup_hash_of_maps)
{
	for (size_t s = 0; s < ARRAY_SIZE(shapes) && ksim_problem_count(KSIM_P_TEST) < 10; s++) {
		run_of_maps(shapes[s].ks, 0);
		run_of_maps(shapes[s].ks, BPF_F_NO_PREALLOC);
	}
}
#endif

/* The variants with map_gen_lookup: exactly the ones tested above. */
static const char *const which_gen[] = {
	"hash", "hash_noprealloc", "lru_hash", "lru_hash_nocommon",
#if KSIM_HAVE_BPF_PERCPU_GEN_LOOKUP
	"percpu_hash", "percpu_hash_noprealloc",
#endif
#if KSIM_HAVE_BPF_RHASH
	"rhash",
#endif
	/*
	 * Not tested here yet (issue #36): arraymap.c's generators use
	 * instructions the interpreter lacks (JGE, ALU32 AND, LSH, MUL).
	 */
	"array",
#if KSIM_HAVE_BPF_PERCPU_GEN_LOOKUP	/* percpu_array_map_gen_lookup() came with the hash's */
	"percpu_array",
#endif
};

static bool has_gen_lookup(const struct bpf_map_ops *ops)
{
	return ops->map_gen_lookup;
}

KSIM_TEST(gen_lookup_which)
{
	const struct ksim_bpf_variant *v =
		ksim_bpf_variants_differ(has_gen_lookup, which_gen, ARRAY_SIZE(which_gen));

	KSIM_EXPECT(!v, "variant %s: map_gen_lookup %s", v->name,
		    v->ops->map_gen_lookup ? "present, not tested" : "missing");
}

/* Instructions the generators do not write are refused, with their opcode. */
KSIM_TEST(gen_lookup_interp_refuses)
{
	static const struct bpf_insn bad[][1] = {
		{ BPF_ALU64_IMM(BPF_SUB, BPF_REG_0, 1) },
		{ BPF_ALU32_IMM(BPF_ADD, BPF_REG_0, 1) },
		{ BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_0, BPF_REG_1, 8, 0) },	/* movsx */
		{ BPF_RAW_INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_0, 0, 1, 1) },
		{ BPF_JMP_IMM(BPF_JGT, BPF_REG_0, 0, 0) },
		{ BPF_JMP_REG(BPF_JEQ, BPF_REG_0, BPF_REG_1, 0) },
		{ BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 5) },	/* past the end */
		{ BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 1, -3) },	/* before the start */
		{ BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0) },
		{ BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 0) },	/* from NULL */
		{ BPF_MOV64_PERCPU_REG(BPF_REG_0, BPF_REG_1) },	/* of NULL */
		{ BPF_RAW_INSN(BPF_LD | BPF_IMM | BPF_DW, BPF_REG_0, 0, 0, 0) },
	};
	u64 word = 0x1122334455667788ULL;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		u64 regs[MAX_BPF_REG] = { 0 };

		regs[BPF_REG_0] = 0;
		KSIM_EXPECT(ksim_bpf_interp(bad[i], 1, regs) == -EINVAL, "insn %zu (code 0x%02x) ran",
			    i, bad[i][0].code);
		KSIM_EXPECT(strstr(ksim_bpf_interp_error(), "code 0x"), "no opcode in '%s'",
			    ksim_bpf_interp_error());
	}
	/* and runs what they do write */
	{
		struct bpf_insn ok[] = {
			BPF_MOV64_REG(BPF_REG_0, BPF_REG_1),
			BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 3),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 4),
			BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_0, -4),
			BPF_ST_MEM(BPF_B, BPF_REG_0, 0, 0x5a),
		};
		u64 regs[MAX_BPF_REG] = { 0 };

		regs[BPF_REG_1] = (u64)(uintptr_t)&word;
		KSIM_EXPECT_EQ(ksim_bpf_interp(ok, ARRAY_SIZE(ok), regs), 0);
		KSIM_EXPECT_EQ(regs[BPF_REG_3], 0x55667788);
		KSIM_EXPECT_EQ(word, 0x1122335a55667788ULL);
	}
}
