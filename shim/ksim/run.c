// SPDX-License-Identifier: GPL-2.0
/*
 * The run convention (see ksim/run.h): the command line every test, stress
 * and fuzz replay binary shares, the failure sink and the end-of-run check.
 */
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/preempt.h>
#include <linux/lockdep.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include <ksim/fault.h>
#include <ksim/ksim.h>
#include <ksim/run.h>
#include <ksim/slab.h>
#include <ksim/task.h>

struct ksim_options *ksim_run;

static const struct ksim_run_option common[] = {
	{ "list", 'l', NULL, "list what -t selects from" },
	{ "test", 't', "NAME", "run only NAME (shell glob; repeatable)" },
	{ "seed", 's', "N", "the run's seed (default: KSIM_SEED, else random; printed)" },
	{ "fault", 'f', "SPEC", "fault injection, e.g. p=0.01, nth=5, class=lock,p=0.1 or a bare\n"
	  "                        probability (keys: nth, p, times, seed, sites, nowait, class;\n"
	  "                        default KSIM_FAULT; without seed= it draws from --seed)" },
	{ "verbose", 'v', NULL, "more output" },
	{ "quiet", 'q', NULL, "less output" },
	{ "help", 'h', NULL, "this text" },
	{ NULL, 0, NULL, NULL },
};

static void usage_lines(FILE *out, const struct ksim_run_option *opt)
{
	for (; opt->name; opt++) {
		char left[64];

		if (opt->key < 256)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", opt->key, opt->name,
				 opt->arg ? " " : "", opt->arg ? opt->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", opt->name,
				 opt->arg ? " " : "", opt->arg ? opt->arg : "");
		fprintf(out, "  %-20s  %s\n", left, opt->help);
	}
}

static void usage(struct ksim_options *o, FILE *out)
{
	fprintf(out, "usage: %s [options]%s%s\n", o->prog, o->args_help ? " " : "",
		o->args_help ? o->args_help : "");
	if (o->what)
		fprintf(out, "%s\n", o->what);
	usage_lines(out, common);
	if (o->own && o->own->name) {
		fprintf(out, "this program's own:\n");
		usage_lines(out, o->own);
	}
	if (o->help)
		o->help(o, out);
	fprintf(out, "environment: KSIM_SEED, KSIM_SEED_SALT, KSIM_FAULT, KSIM_VERBOSE, KSIM_YIELD, KSIM_LOGLEVEL\n");
}

static int parse_seed(struct ksim_options *o, const char *from, const char *arg)
{
	char *end;

	o->seed = strtoull(arg, &end, 0);
	if (*end || !*arg) {
		fprintf(stderr, "%s: %s %s: not a number\n", o->prog, from, arg);
		return -1;
	}
	return 0;
}

static uint64_t clock_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ getpid();
}

void ksim_run_set(struct ksim_options *o)
{
	ksim_run = o;
}

bool ksim_options_parse(struct ksim_options *o, int argc, char **argv, int *exit_status)
{
	struct option *lopts;
	char shorts[128] = "";
	const char *seed_arg = NULL;
	int n = 0, nr_own = 0, c;

	o->prog = argv[0];
	*exit_status = 2;
	while (o->own && o->own[nr_own].name)
		nr_own++;
	lopts = calloc(sizeof(common) / sizeof(common[0]) + nr_own, sizeof(*lopts));
	o->names = calloc(argc + 1, sizeof(char *));
	o->args = calloc(argc + 1, sizeof(char *));
	if (!lopts || !o->names || !o->args)
		abort();
	for (int pass = 0; pass < 2; pass++) {
		const struct ksim_run_option *opt = pass ? o->own : common;

		for (; opt && opt->name; opt++) {
			lopts[n++] = (struct option){ opt->name,
				opt->arg ? required_argument : no_argument, NULL, opt->key };
			if (opt->key < 256) {
				size_t len = strlen(shorts);

				snprintf(shorts + len, sizeof(shorts) - len, "%c%s", opt->key,
					 opt->arg ? ":" : "");
			}
		}
	}
	/* '+' would stop at the first non-option; a replay takes files among options. */
	optind = 1;
	while ((c = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			o->list = true;
			break;
		case 't':
			o->names[o->nr_names++] = optarg;
			break;
		case 's':
			seed_arg = optarg;
			break;
		case 'f':
			o->fault_spec = optarg;
			o->fault_from = "--fault";
			break;
		case 'v':
			o->verbose++;
			ksim_verbose++;
			break;
		case 'q':
			ksim_verbose = 0;
			break;
		case 'h':
			usage(o, stdout);
			*exit_status = 0;
			free(lopts);
			return false;
		case '?':
			fprintf(stderr, "%s: bad option (try --help)\n", o->prog);
			free(lopts);
			return false;
		default:
			if (!o->set || o->set(o, c, optarg)) {
				free(lopts);
				return false;
			}
		}
	}
	free(lopts);
	for (; optind < argc; optind++) {
		if (!o->args_help) {
			fprintf(stderr, "%s: unexpected argument '%s' (try --help)\n", o->prog,
				argv[optind]);
			return false;
		}
		o->args[o->nr_args++] = argv[optind];
	}

	/* The seed first: everything seeded from the run reads it from here on. */
	if (seed_arg) {
		if (parse_seed(o, "--seed", seed_arg))
			return false;
	} else if (getenv("KSIM_SEED") && *getenv("KSIM_SEED")) {
		if (parse_seed(o, "KSIM_SEED", getenv("KSIM_SEED")))
			return false;
	} else {
		/* A fuzz input is its own seed: a replay is deterministic by default. */
		o->seed = o->mode == KSIM_RUN_FUZZ ? 0 : clock_seed();
	}
	/*
	 * KSIM_SEED_SALT: a different run from the same command line (repeated
	 * runs of a CTest test, `ksim false-alarms`); the seed printed and put
	 * in the replay line is the salted one, so a replay needs no salt.
	 */
	if (getenv("KSIM_SEED_SALT") && *getenv("KSIM_SEED_SALT")) {
		uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

		for (const char *c = getenv("KSIM_SEED_SALT"); *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ULL;
		o->seed ^= h;
	}
	ksim_set_seed(o->seed);

	/* KSIM_FAULT is read here, once, as the default of --fault. */
	if (!o->fault_spec && getenv("KSIM_FAULT") && *getenv("KSIM_FAULT")) {
		o->fault_spec = getenv("KSIM_FAULT");
		o->fault_from = "KSIM_FAULT";
	}
	if (o->fault_spec) {
		char err[200];

		if (ksim_fault_parse(o->fault_spec, &o->fault, err, sizeof(err))) {
			fprintf(stderr, "%s: %s%s%s: %s\n", o->prog, o->fault_from,
				*o->fault_from == '-' ? " " : "=", o->fault_spec, err);
			return false;
		}
	}
	ksim_run = o;
	ksim_init();
	return true;
}

bool ksim_run_selected(const struct ksim_options *o, const char *name)
{
	if (!o || !o->nr_names)
		return true;
	for (int i = 0; i < o->nr_names; i++)
		if (!fnmatch(o->names[i], name, 0))
			return true;
	return false;
}

/* ---- fault injection ---- */

void ksim_run_fault_arm(void)
{
	ksim_fault_record_reset();
	if (ksim_run && ksim_run->fault_spec)
		ksim_fault_set(&ksim_run->fault);
	else
		ksim_fault_reset();
}

void ksim_run_fault_summary(FILE *out)
{
	uint64_t digest;
	unsigned long n;

	if (!ksim_run || !ksim_run->fault_spec)
		return;
	n = ksim_fault_record(&digest);
	fprintf(out, "# fault: %lu injected, digest %016" PRIx64 "\n", n, digest);
}

/* ---- replay lines ---- */

static void append(char *buf, size_t len, const char *s)
{
	size_t at = strlen(buf);

	snprintf(buf + at, len > at ? len - at : 0, "%s", s);
}

/* A word the shell reads back unchanged: quoted unless it is plain. */
static void append_word(char *buf, size_t len, const char *s)
{
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			 "_-+=.,:/@%") == strlen(s)) {
		append(buf, len, s);
		return;
	}
	append(buf, len, "'");
	for (; *s; s++) {
		char one[2] = { *s, 0 };

		append(buf, len, *s == '\'' ? "'\\''" : one);
	}
	append(buf, len, "'");
}

void ksim_run_replay_add(char *buf, size_t len, const char *opt, const char *arg)
{
	if (opt) {
		append(buf, len, " ");
		append(buf, len, opt);
	}
	if (arg) {
		append(buf, len, " ");
		append_word(buf, len, arg);
	}
}

void ksim_run_replay(const char *name, char *buf, size_t len)
{
	char seed[32];

	if (!len)
		return;
	buf[0] = 0;
	append_word(buf, len, ksim_run ? ksim_run->prog : "<program>");
	if (name)
		ksim_run_replay_add(buf, len, "-t", name);
	snprintf(seed, sizeof(seed), "%" PRIu64, ksim_seed());
	ksim_run_replay_add(buf, len, "--seed", seed);
	if (ksim_run && ksim_run->fault_spec)
		ksim_run_replay_add(buf, len, "--fault", ksim_run->fault_spec);
}

/* ---- the failure sink ---- */

void ksim_vfail(const char *file, int line, const char *cond, const char *fmt, va_list ap)
{
	char msg[512], text[700];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (cond)
		snprintf(text, sizeof(text), "expected %s%s%s", cond, *msg ? ": " : "", msg);
	else
		snprintf(text, sizeof(text), "%s", msg);
	if (ksim_run && ksim_run->report)
		ksim_run->report(file, line, text);
	else
		ksim_problem(KSIM_P_TEST, file, line, "%s", text);
}

void ksim_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ksim_vfail(file, line, cond, fmt, ap);
	va_end(ap);
}

/* ---- the end-of-run check ---- */

unsigned long ksim_run_live(void)
{
	struct ksim_slab_stats st;

	ksim_slab_totals(&st);
	return st.live;
}

unsigned long ksim_run_check(const char *what, const char *file, unsigned long live_before,
			     unsigned long *leaked)
{
	struct ksim_task *task = ksim_task();
	bool in_rcu = task->rcu_urcu_nesting > task->rcu_atomic;
	unsigned long n = 0;

	ksim_fault_suspend();
	if (in_rcu) {
		ksim_problem(KSIM_P_RCU, file, 0, "%s returned inside an RCU read-side critical section",
			     what);
		ksim_rcu_leave_all(task, false);
	}
	if (task->nr_held) {
		ksim_problem(KSIM_P_LOCKDEP, file, 0, "%s returned holding %d lock(s)", what,
			     task->nr_held);
		ksim_lockdep_print_held_locks();
		task->nr_held = 0;
	}
	if (task->preempt_count || task->irqs_off || task->softirq_count) {
		ksim_problem(KSIM_P_LOCKDEP, file, 0,
			     "%s returned with preempt_count %d, irqs_off %d, softirq %d",
			     what, task->preempt_count, task->irqs_off, task->softirq_count);
		task->preempt_count = task->irqs_off = task->softirq_count = 0;
		ksim_current_atomic_changed();	/* leaves the atomic read-side section */
	}
	/*
	 * The leak check needs the callbacks run, so a grace period; not after
	 * a function returned inside a read-side section, as before that
	 * section was left (above): the run has failed already.  And the
	 * deferred work the callbacks queue, which the kernel's workers would
	 * run sooner or later (a BPF map freed after a grace period:
	 * bpf_map_put()), until none is left (bounded).
	 */
	if (!in_rcu) {
		for (int i = 0; i < 8; i++) {
			unsigned long runs = ksim_work_runs();

			rcu_barrier();
			ksim_run_pending_work();
			if (ksim_work_runs() == runs)
				break;
		}
		if (live_before == KSIM_RUN_ALWAYS_WALK || ksim_run_live() != live_before)
			n = ksim_slab_leak_check(stderr);
	}
	if (leaked)
		*leaked = n;
	ksim_fault_resume();
	return ksim_problem_total();
}
