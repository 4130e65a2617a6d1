// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_stress for the maps without keys (#included by bpf_stress.c, one
 * source per component): bpf_queue, bpf_stack (queue_stack_maps.c) and
 * bpf_bloom (bloom_filter.c).  Writers are producers, readers consumers.
 *
 * Values.  Producer p's n-th push is enc(p, n, i) over VWORDS words
 * (bpf_stress.c's self-checking words), so every value is unique and a
 * torn value or memory that never was a value shows.
 *
 * Queue and stack.  Producers push (BPF_ANY: 0 or -E2BIG when full;
 * BPF_EXIST: 0, a full map drops its oldest element, the queue's tail or
 * the stack's bottom; BPF_NOEXIST: -EINVAL).  Consumers pop
 * (lookup_and_delete) and peek (lookup): -ENOENT when empty.  Every value
 * popped or peeked was pushed and its push did not fail; a value is taken
 * (popped, or drained at the end) at most once; a peek never returns a
 * value whose pop had completed before the peek began (a global pop
 * counter dates each pop); a queue gives each producer's values in push
 * order, so each consumer sees each producer's values in increasing order
 * (a peeked value is the oldest: older ones are gone).  At the end the map
 * is drained: every value pushed is popped, drained or dropped, and only a
 * BPF_EXIST push that succeeded can drop one, so the dropped values number
 * at most those pushes (not exact: whether the map was full under its lock
 * does not show); on a queue a producer's dropped values are all older than
 * its drained ones.
 *
 * Bloom filter.  Producers add their first BLOOM_MAX / W values (then only
 * look up), publishing how far they got; consumers look up a value whose
 * add had completed before the lookup started: it must be found (no false
 * negatives).  Values never added (sequence numbers from BLOOM_NEVER) may
 * be found: false positives are counted, never failed.
 */

#define QS_MAX		64		/* queue/stack max_entries: full often */
#define QS_SEQ_MAX	(1u << 24)	/* pushes per producer that are tracked */
#define BLOOM_MAX	8192		/* bloom max_entries and values added in all */
#define BLOOM_NEVER	(1u << 30)	/* sequence numbers never added */

struct ksim_qs_producer {
	u64 started;		/* pushes started: the next sequence number (atomic) */
	u64 exist_ok;		/* BPF_EXIST pushes that succeeded: each may drop one */
	u64 failed_n;
	u32 *taken;		/* per sequence: the pop's date (qs_epoch), 0 not taken */
	u8 *failed;		/* per sequence: the push failed (or bloom: was not added) */
};

static struct ksim_qs_producer qsp[MAX_WRITERS];
static u64 qs_epoch;		/* pops completed (atomic) */
static unsigned long bloom_fp, bloom_fp_probes;

static bool is_qs(void)
{
	return is(KSIM_BPF_KIND_QUEUE | KSIM_BPF_KIND_STACK);
}

/* Lazily backed: only the sequence numbers a run reaches cost memory. */
static void *ksim_qs_area(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);

	if (p == MAP_FAILED) {
		perror("bpf_stress: mmap");
		exit(2);
	}
	return p;
}

static void keyless_setup(struct ksim_bpf_map_attr *a)
{
	a->key_size = 0;
	a->max_entries = is_qs() ? QS_MAX : BLOOM_MAX;
	for (int p = 0; p < nr_writers; p++) {
		qsp[p].taken = ksim_qs_area(QS_SEQ_MAX * sizeof(u32));
		qsp[p].failed = ksim_qs_area(QS_SEQ_MAX);
	}
}

/*
 * The producer and sequence number of value @val, or what is wrong with
 * it: every word must be word i of one value a producer started to push.
 */
static const char *keyless_decode(const u64 *val, u32 *p, u32 *seq)
{
	u64 v0 = 0, v;
	u32 k0 = 0, k;

	for (u32 i = 0; i < VWORDS; i++) {
		if (!dec(val[i], i, &k, &v))
			return "a word that never was a word of any value";
		if (!i) {
			k0 = k;
			v0 = v;
		} else if (k != k0 || v != v0) {
			return "a TORN value (words of two pushes)";
		}
	}
	*p = k0;
	*seq = v0;
	if (k0 >= (u32)nr_writers)
		return "a value of no producer";
	if (v0 >= __atomic_load_n(&qsp[k0].started, __ATOMIC_ACQUIRE))
		return "a value never pushed (its push had not started)";
	return NULL;
}

/* ---- queue, stack ---- */

static void qs_producer(struct ksim_stress_thread *t)
{
	struct ksim_qs_producer *q = &qsp[t->index];
	u32 seq = q->started, op = ksim_rng_below(&t->rng, 100);
	u64 val[VWORDS], f = op < 5 ? BPF_NOEXIST : op < 15 ? BPF_EXIST : BPF_ANY;
	int ret;

	if (seq >= QS_SEQ_MAX)
		return;		/* out of tracked values: the run goes on with the consumers */
	fill(val, t->index, seq);
	__atomic_store_n(&q->started, seq + 1, __ATOMIC_RELEASE);
	ret = ksim_bpf_map_update(map, NULL, 0, val, f);
	ksim_stress_checks(t, 1);
	if (!ret && f == BPF_EXIST)
		q->exist_ok++;
	if (!ret)
		return;
	/* refused: the value must never show */
	__atomic_store_n(&q->failed[seq], 1, __ATOMIC_RELEASE);
	q->failed_n++;
	if (!lock_errno(t, true, ret) && !fault_errno(ret))
		KSIM_STRESS_CHECK(t, ret == (f == BPF_NOEXIST ? -EINVAL : f == BPF_ANY ? -E2BIG : 0),
				  "push (flags %" PRIu64 ") returned %d", f, ret);
	KSIM_STRESS_CHECK(t, !__atomic_load_n(&q->taken[seq], __ATOMIC_ACQUIRE),
			  "push %u of producer %d failed (%d), yet a consumer took its value", seq, t->index, ret);
}

/*
 * Consumer @t's view of producer p: the next sequence number of p it may
 * see on a queue (FIFO per producer), in t->priv.
 */
static void qs_consume(struct ksim_stress_thread *t, bool pop)
{
	u32 *low = t->priv, p, seq;
	u64 val[VWORDS], epoch0 = __atomic_load_n(&qs_epoch, __ATOMIC_ACQUIRE), date;
	const char *bad;
	int ret;

	ret = pop ? ksim_bpf_map_lookup_and_delete(map, NULL, 0, val, 0) :
		    ksim_bpf_map_lookup(map, NULL, 0, val, 0);
	ksim_stress_checks(t, 1);
	if (ret == -ENOENT || lock_errno(t, false, ret) || fault_errno(ret))
		return;
	if (ret) {
		ksim_stress_fail(t, __FILE__, __LINE__, "%s returned %d", pop ? "pop" : "peek", ret);
		return;
	}
	bad = keyless_decode(val, &p, &seq);
	if (bad) {
		ksim_stress_fail(t, __FILE__, __LINE__, "%s: %s (word 0 %#" PRIx64 ")",
				 pop ? "pop" : "peek", bad, val[0]);
		return;
	}
	KSIM_STRESS_CHECK(t, !__atomic_load_n(&qsp[p].failed[seq], __ATOMIC_ACQUIRE),
			  "%s returned value %u of producer %u, whose push failed", pop ? "pop" : "peek", seq, p);
	if (is(KSIM_BPF_KIND_QUEUE)) {
		KSIM_STRESS_CHECK(t, seq >= low[p],
				  "queue %s returned value %u of producer %u after this consumer saw %u of it",
				  pop ? "pop" : "peek", seq, p, low[p] - 1);
		low[p] = seq + pop;	/* peeked: the oldest, so older ones are gone */
	}
	if (!pop) {
		date = __atomic_load_n(&qsp[p].taken[seq], __ATOMIC_ACQUIRE);
		KSIM_STRESS_CHECK(t, !date || date > epoch0,
				  "peek returned value %u of producer %u, popped (pop %" PRIu64
				  ") before the peek began (%" PRIu64 " pops done)", seq, p, date, epoch0);
		return;
	}
	/* dated after the pop completed: a peek that began later must not see it */
	date = __atomic_add_fetch(&qs_epoch, 1, __ATOMIC_ACQ_REL);
	{
		u32 was = 0;

		if (!__atomic_compare_exchange_n(&qsp[p].taken[seq], &was, (u32)date, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			ksim_stress_fail(t, __FILE__, __LINE__,
					 "pop returned value %u of producer %u, already taken (pop %u)", seq, p, was);
	}
}

static void qs_consumer(struct ksim_stress_thread *t)
{
	if (!t->priv)
		t->priv = calloc(MAX_WRITERS, sizeof(u32));
	qs_consume(t, ksim_rng_below(&t->rng, 4) != 0);
}

/* Writers stopped: drain, then account for every value pushed. */
static void qs_teardown(void)
{
	struct ksim_bpf_model mm = { 0 };
	u64 val[VWORDS], drained = 0, popped = 0, dropped = 0, pushed = 0, exist_ok = 0;
	u64 date = __atomic_load_n(&qs_epoch, __ATOMIC_ACQUIRE) + 1;
	u32 first_drained[MAX_WRITERS], last_drained[MAX_WRITERS];
	const char *why;
	int ret, n = 0;

	for (int p = 0; p < nr_writers; p++)
		first_drained[p] = QS_SEQ_MAX;
	for (;;) {
		u32 p, seq;

		ret = ksim_bpf_map_lookup_and_delete(map, NULL, 0, val, 0);
		if (ret == -ENOENT)
			break;
		if (ret == -EBUSY || fault_errno(ret)) {	/* the fault engine may still fail locks */
			if (++n < 1000)
				continue;
		}
		if (ret) {
			ksim_stress_fail(NULL, __FILE__, __LINE__, "drain: pop returned %d", ret);
			break;
		}
		why = keyless_decode(val, &p, &seq);
		if (why) {
			ksim_stress_fail(NULL, __FILE__, __LINE__, "drain: %s", why);
			break;
		}
		if (is(KSIM_BPF_KIND_QUEUE) && first_drained[p] != QS_SEQ_MAX)
			KSIM_STRESS_CHECK(NULL, seq > last_drained[p],
					  "drain: value %u of producer %u after its %u", seq, p, last_drained[p]);
		if (first_drained[p] == QS_SEQ_MAX || seq < first_drained[p])
			first_drained[p] = seq;
		last_drained[p] = seq;
		__atomic_store_n(&qs_epoch, date, __ATOMIC_RELEASE);
		drained++;
		KSIM_STRESS_CHECK(NULL, drained <= QS_MAX, "drain: more than max_entries %u values", QS_MAX);
		if (drained > QS_MAX)
			break;
		/* the drain's pops are dated after every consumer's */
		{
			u32 was = 0;

			KSIM_STRESS_CHECK(NULL, !qsp[p].failed[seq] &&
					  __atomic_compare_exchange_n(&qsp[p].taken[seq], &was, (u32)date, false,
								      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE),
					  "drain: value %u of producer %u failed or already taken (pop %u)",
					  seq, p, was);
		}
	}
	/* empty now, as the model of an empty map says: pop and peek -ENOENT */
	ksim_bpf_model_init(&mm, V, map, 1);
	ret = ksim_bpf_map_lookup(map, NULL, 0, val, 0);
	why = ksim_bpf_model_check_lookup(&mm, NULL, 0, ret, val);
	if (!why) {
		ret = ksim_bpf_map_lookup_and_delete(map, NULL, 0, val, 0);
		why = ksim_bpf_model_check_pop(&mm, ret, val);
	}
	if (why)
		ksim_stress_fail(NULL, __FILE__, __LINE__, "after the drain: %s", why);
	ksim_bpf_model_fini(&mm);
	for (int p = 0; p < nr_writers; p++) {
		struct ksim_qs_producer *q = &qsp[p];

		exist_ok += q->exist_ok;
		pushed += q->started - q->failed_n;
		for (u32 seq = 0; seq < q->started; seq++) {
			u32 d = q->taken[seq];

			if (q->failed[seq])
				continue;
			if (d && d < date) {
				popped++;
			} else if (!d) {
				dropped++;
				/* a queue drops at its tail: older than anything left in it */
				if (is(KSIM_BPF_KIND_QUEUE) && first_drained[p] != QS_SEQ_MAX)
					KSIM_STRESS_CHECK(NULL, seq < first_drained[p],
							  "value %u of producer %u lost, though its %u was still queued",
							  seq, p, first_drained[p]);
			}
		}
	}
	KSIM_STRESS_CHECK(NULL, dropped <= exist_ok,
			  "%" PRIu64 " values pushed but never popped or drained, yet only %" PRIu64
			  " BPF_EXIST pushes could drop one", dropped, exist_ok);
	if (ksim_verbose > 0 || dropped > exist_ok)
		fprintf(stderr, "# bpf %s: %" PRIu64 " pushed = %" PRIu64 " popped + %" PRIu64 " drained + %" PRIu64
			" dropped (%" PRIu64 " BPF_EXIST pushes succeeded)\n",
			V->name, pushed, popped, drained, dropped, exist_ok);
}

/* ---- bloom filter ---- */

/* Producers' progress: values below done[] are added (failed[] says which were not). */
static u64 bloom_done[MAX_WRITERS];

static int bloom_lookup(struct ksim_stress_thread *t, u32 p, u32 seq)
{
	u64 val[VWORDS];
	int ret;

	fill(val, p, seq);
	ret = ksim_bpf_map_lookup(map, NULL, 0, val, 0);
	if (t)
		ksim_stress_checks(t, 1);
	if (ret == 0 || ret == -ENOENT || lock_errno(t, false, ret) || fault_errno(ret))
		return ret;
	ksim_stress_fail(t, __FILE__, __LINE__, "bloom lookup of value %u of producer %u returned %d",
			 seq, p, ret);
	return ret;
}

/* A value whose add completed before the lookup began: never a false negative. */
static void bloom_check_added(struct ksim_stress_thread *t, u32 p)
{
	u64 done = __atomic_load_n(&bloom_done[p], __ATOMIC_ACQUIRE);
	u32 seq;

	if (!done)
		return;
	seq = ksim_rng_below(&t->rng, done);
	if (__atomic_load_n(&qsp[p].failed[seq], __ATOMIC_ACQUIRE))
		return;
	KSIM_STRESS_CHECK(t, bloom_lookup(t, p, seq) != -ENOENT,
			  "bloom filter: value %u of producer %u was added, lookup did not find it", seq, p);
}

static void bloom_probe_never(struct ksim_stress_thread *t)
{
	u32 p = ksim_rng_below(&t->rng, nr_writers);

	if (!bloom_lookup(t, p, BLOOM_NEVER + ksim_rng_below(&t->rng, BLOOM_NEVER)))
		__atomic_add_fetch(&bloom_fp, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&bloom_fp_probes, 1, __ATOMIC_RELAXED);
}

static void bloom_producer(struct ksim_stress_thread *t)
{
	struct ksim_qs_producer *q = &qsp[t->index];
	u32 seq = q->started;
	u64 val[VWORDS], f = ksim_rng_below(&t->rng, 10) ? BPF_ANY : BPF_EXIST;
	int ret;

	if (seq >= BLOOM_MAX / nr_writers) {	/* added its share: a full filter proves little */
		bloom_check_added(t, t->index);
		bloom_probe_never(t);
		return;
	}
	fill(val, t->index, seq);
	__atomic_store_n(&q->started, seq + 1, __ATOMIC_RELEASE);
	ret = ksim_bpf_map_update(map, NULL, 0, val, f);
	ksim_stress_checks(t, 1);
	if (ret) {
		q->failed[seq] = 1;
		q->failed_n++;
		/* bloom_map_push_elem(): BPF_ANY only; it has no lock and allocates nothing */
		if (!fault_errno(ret))
			KSIM_STRESS_CHECK(t, ret == -EINVAL && f == BPF_EXIST,
					  "bloom add (flags %" PRIu64 ") returned %d", f, ret);
	}
	__atomic_store_n(&bloom_done[t->index], seq + 1, __ATOMIC_RELEASE);
	if (!ret)
		KSIM_STRESS_CHECK(t, bloom_lookup(t, t->index, seq) != -ENOENT,
				  "bloom filter: value %u just added, lookup did not find it", seq);
}

static void bloom_consumer(struct ksim_stress_thread *t)
{
	if (ksim_rng_below(&t->rng, 4))
		bloom_check_added(t, ksim_rng_below(&t->rng, nr_writers));
	else
		bloom_probe_never(t);
}

/* Writers stopped: every value added is found; the model judges a sample too. */
static void bloom_teardown(void)
{
	struct ksim_bpf_model mm = { 0 };
	u64 val[VWORDS], added = 0;
	const char *why = NULL;

	ksim_bpf_model_init(&mm, V, map, 256);
	for (int p = 0; p < nr_writers; p++) {
		for (u32 seq = 0; seq < qsp[p].started; seq++) {
			if (qsp[p].failed[seq])
				continue;
			added++;
			KSIM_STRESS_CHECK(NULL, bloom_lookup(NULL, p, seq) == 0,
					  "bloom filter: value %u of producer %u was added, not found at the end",
					  seq, p);
			if (mm.n < mm.cap) {
				fill(val, p, seq);
				ksim_bpf_model_put(&mm, NULL, 0, val);
			}
		}
	}
	for (u32 i = 0; i < mm.n && !why; i++) {
		int ret;

		memcpy(val, mm.e[i].val, sizeof(val));
		ret = ksim_bpf_map_lookup(map, NULL, 0, val, 0);
		why = ksim_bpf_model_check_lookup(&mm, NULL, 0, ret, val);
	}
	if (why)
		ksim_stress_fail(NULL, __FILE__, __LINE__, "bloom filter after the run: %s", why);
	ksim_bpf_model_fini(&mm);
	if (ksim_verbose > 0 || bloom_fp)
		fprintf(stderr, "# bpf bloom: %" PRIu64 " values added; %lu of %lu lookups of values never added "
			"found (false positives, allowed)\n", added, bloom_fp, bloom_fp_probes);
}

/* ---- the roles ---- */

static void keyless_writer(struct ksim_stress_thread *t)
{
	ksim_set_cpu(t->index);
	while (ksim_stress_running()) {
		if (is_qs())
			qs_producer(t);
		else
			bloom_producer(t);
		ksim_stress_op(t);
	}
}

static void keyless_reader(struct ksim_stress_thread *t)
{
	ksim_set_cpu(nr_writers + t->index);
	while (ksim_stress_running()) {
		if (is_qs())
			qs_consumer(t);
		else
			bloom_consumer(t);
		ksim_stress_op(t);
	}
	free(t->priv);
	t->priv = NULL;
}

static void keyless_teardown(void)
{
	ksim_set_cpu(0);
	if (is_qs())
		qs_teardown();
	else
		bloom_teardown();
	for (int p = 0; p < nr_writers; p++) {
		munmap(qsp[p].taken, QS_SEQ_MAX * sizeof(u32));
		munmap(qsp[p].failed, QS_SEQ_MAX);
	}
	ksim_bpf_map_free(map);
	ksim_set_cpu(-1);
}
