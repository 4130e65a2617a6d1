// SPDX-License-Identifier: GPL-2.0
/*
 * The fault-injection engine (see ksim/fault.h), in the spirit of the
 * kernel's lib/fault-inject.c (failslab, fail_page_alloc): one decision
 * function, deterministic from a seed, with per-site accounting.
 *
 * KSIM_FAULT_SITES_FILE=PATH: the process also keeps a second site table
 * that no arm, disarm or clear empties, and appends it to PATH at exit, one
 * line per site: "class<TAB>function<TAB>file<TAB>line<TAB>reached<TAB>failed".
 * `ksim coverage` adds these up over every test process.
 *
 * KSIM_FAULT_COVERAGE=under-failure (coverage builds): the process's
 * coverage profile holds only what ran between arming a configuration and
 * the first failure it injected.  The counters are reset when a
 * configuration is set (armed or not), written out (merged into
 * LLVM_PROFILE_FILE) at the configuration's first injected failure and
 * reset again, and dropped at exit.  A branch such a profile shows taken
 * was taken with a failure still to come in the same armed operation: `ksim coverage --under-failure` runs the failure sweeps
 * this way.  With KSIM_FAULT_COVERAGE_AFTER=PATTERN too, what ran from the
 * first injected failure to the end of the armed window (the abort path)
 * is written there, at the next ksim_fault_set().
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <linux/gfp.h>
#include <ksim/fault.h>
#include <ksim/ksim.h>

#define SITE_BUCKETS	1024

struct site {
	const char *func;
	const char *file;
	int line;
	unsigned long reached;
	unsigned long failed;
	unsigned int cls;
	struct site *next;
};

static pthread_mutex_t fault_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ksim_fault_config cfg;
static bool armed;
static unsigned long calls, failures;
static unsigned long limited;	/* the failures cfg.times limits: nth's and p's */
static unsigned long class_failures[3];	/* alloc, lock, signal */
static bool lock_armed;			/* armed with KSIM_FAULT_LOCK */
static struct ksim_rng rng;
static struct site *site_table[SITE_BUCKETS];
static unsigned int nr_sites;
static __thread int suspended;
static bool tracking;
static struct site *export_table[SITE_BUCKETS];	/* KSIM_FAULT_SITES_FILE */
static const char *export_path;
static bool exporting;

/* The clang profile runtime, linked only with -fprofile-instr-generate. */
int __llvm_profile_write_file(void) __attribute__((weak));
void __llvm_profile_reset_counters(void) __attribute__((weak));
void __llvm_profile_set_filename(const char *pattern) __attribute__((weak));
static int under_failure = -1;	/* KSIM_FAULT_COVERAGE=under-failure; -1: not read yet */
static const char *after_failure;	/* KSIM_FAULT_COVERAGE_AFTER */
static bool window_failed;		/* a failure injected since the last ksim_fault_set() */

static void coverage_drop(void)
{
	__llvm_profile_reset_counters();
}

static bool coverage_under_failure(void)
{
	int on = __atomic_load_n(&under_failure, __ATOMIC_ACQUIRE);

	if (on < 0) {	/* first from ksim_fault_set(), before any thread can inject */
		const char *v = getenv("KSIM_FAULT_COVERAGE");

		on = v && !strcmp(v, "under-failure");
		__atomic_store_n(&under_failure, on, __ATOMIC_RELEASE);
		if (on && !__llvm_profile_write_file) {
			fprintf(stderr, "ksim: KSIM_FAULT_COVERAGE=under-failure needs a coverage build "
				"(cmake --preset coverage)\n");
			exit(2);
		}
		/* Registered after the runtime's own exit handler (its constructor
		 * ran before main), so it runs first: nothing after the last
		 * failure reaches the profile. */
		if (on) {
			after_failure = getenv("KSIM_FAULT_COVERAGE_AFTER");
			atexit(coverage_drop);
		}
	}
	return on;
}
static unsigned long record_n;
static uint64_t record_digest = 0xcbf29ce484222325ULL;

static unsigned int cls_index(unsigned int cls)
{
	return cls == KSIM_FAULT_LOCK ? 1 : cls == KSIM_FAULT_SIGNAL ? 2 : 0;
}

static const char *cls_name(unsigned int cls)
{
	return cls == KSIM_FAULT_LOCK ? "lock" : cls == KSIM_FAULT_SIGNAL ? "signal" : "alloc";
}

static unsigned int site_hash(const char *func, const char *file, int line)
{
	uintptr_t h = (uintptr_t)func * 31 + (uintptr_t)file * 17 + (unsigned)line;

	return (h ^ (h >> 13) ^ (h >> 29)) % SITE_BUCKETS;
}

/* Call sites are string literals, so pointer identity is enough. */
static struct site *site_get_in(struct site **buckets, const char *func,
				const char *file, int line, unsigned int cls)
{
	unsigned int b = site_hash(func, file, line);
	struct site *s;

	for (s = buckets[b]; s; s = s->next)
		if (s->func == func && s->file == file && s->line == line)
			return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		abort();
	s->func = func;
	s->file = file;
	s->line = line;
	s->cls = cls;
	s->next = buckets[b];
	buckets[b] = s;
	if (buckets == site_table)
		nr_sites++;
	return s;
}

static struct site *site_get(const char *func, const char *file, int line,
			     unsigned int cls)
{
	return site_get_in(site_table, func, file, line, cls);
}

static void clear_sites(void)
{
	/* Every arm and disarm clears: skip the bucket scan when nothing was recorded. */
	if (!nr_sites)
		return;
	for (int b = 0; b < SITE_BUCKETS; b++) {
		struct site *s = site_table[b];

		while (s) {
			struct site *n = s->next;

			free(s);
			s = n;
		}
		site_table[b] = NULL;
	}
	nr_sites = 0;
}

void ksim_fault_clear_counts(void)
{
	pthread_mutex_lock(&fault_lock);
	calls = failures = limited = 0;
	class_failures[0] = class_failures[1] = 0;
	clear_sites();
	ksim_rng_seed(&rng, cfg.seed);
	pthread_mutex_unlock(&fault_lock);
}

void ksim_fault_set(const struct ksim_fault_config *c)
{
	pthread_mutex_lock(&fault_lock);
	cfg = *c;
	if (cfg.seed_from_run)
		cfg.seed = ksim_seed();
	if (cfg.times == 0)
		cfg.times = cfg.nth ? 1 : -1;
	if (!cfg.classes)
		cfg.classes = KSIM_FAULT_ALLOC;
	armed = cfg.nth || cfg.probability > 0;
	__atomic_store_n(&lock_armed, armed && (cfg.classes & KSIM_FAULT_LOCK),
			 __ATOMIC_RELAXED);
	pthread_mutex_unlock(&fault_lock);
	ksim_fault_clear_counts();
	if (coverage_under_failure()) {
		if (window_failed && after_failure && *after_failure) {
			__llvm_profile_set_filename(after_failure);
			__llvm_profile_write_file();
			__llvm_profile_set_filename(getenv("LLVM_PROFILE_FILE"));
		}
		window_failed = false;
		__llvm_profile_reset_counters();
	}
}

void ksim_fault_reset(void)
{
	struct ksim_fault_config none = { 0 };

	ksim_fault_set(&none);
}

void ksim_fault_track(bool on)
{
	__atomic_store_n(&tracking, on, __ATOMIC_RELAXED);
}

void ksim_fault_suspend(void)
{
	suspended++;
}

void ksim_fault_resume(void)
{
	suspended--;
}

static bool site_eligible(const char *func, unsigned int cls, unsigned int gfp)
{
	if (!(cfg.classes & cls))
		return false;
	/* gfp restricts allocations only: a lock site has none. */
	if (cls == KSIM_FAULT_ALLOC) {
		if (gfp & __GFP_NOFAIL)
			return false;
		if (cfg.nowait_only && (gfp & __GFP_DIRECT_RECLAIM))
			return false;
	}
	if (!cfg.nr_sites)
		return true;
	for (int i = 0; i < cfg.nr_sites; i++)
		if (!strcmp(cfg.sites[i], func))
			return true;
	return false;
}

static bool should_fail(const char *func, const char *file, int line,
			unsigned int cls, unsigned int gfp)
{
	struct site *s, *x = NULL;
	bool fail = false;

	/* Fast path: nothing armed and no one asked for a site table. */
	if (suspended || !(__atomic_load_n(&armed, __ATOMIC_RELAXED) ||
			   __atomic_load_n(&tracking, __ATOMIC_RELAXED) || exporting))
		return false;
	pthread_mutex_lock(&fault_lock);
	if (exporting) {
		x = site_get_in(export_table, func, file, line, cls);
		x->reached++;
	}
	if (!armed && !tracking) {
		pthread_mutex_unlock(&fault_lock);
		return false;
	}
	s = site_get(func, file, line, cls);
	s->reached++;
	if (armed && site_eligible(func, cls, gfp)) {
		if (cls == KSIM_FAULT_ALLOC && cfg.pressure && !(gfp & __GFP_DIRECT_RECLAIM)) {
			/* Reclaim pressure: not a call, so nth and p count the sleeping ones. */
			fail = true;
		} else {
			calls++;
			if (cfg.times < 0 || limited < (unsigned long)cfg.times) {
				if (cfg.nth && calls >= cfg.nth)
					fail = true;
				else if (cfg.probability > 0 &&
					 (double)(ksim_rng_next(&rng) >> 11) * 0x1.0p-53 < cfg.probability)
					fail = true;
			}
			limited += fail;
		}
		if (fail) {
			failures++;
			class_failures[cls_index(cls)]++;
			s->failed++;
			if (x)
				x->failed++;
			record_n++;
			record_digest = (record_digest ^ calls) * 0x100000001b3ULL;
			record_digest = (record_digest ^ (unsigned int)line) * 0x100000001b3ULL;
		}
	}
	pthread_mutex_unlock(&fault_lock);
	if (fail && coverage_under_failure() && !window_failed) {
		/* What ran before the window's first failure; the rest is its abort path. */
		__llvm_profile_write_file();
		__llvm_profile_reset_counters();
		window_failed = true;
	}
	return fail;
}

bool ksim_should_fail(const char *func, const char *file, int line, unsigned int gfp)
{
	return should_fail(func, file, line, KSIM_FAULT_ALLOC, gfp);
}

bool ksim_should_fail_lock(const char *func, const char *file, int line)
{
	return should_fail(func, file, line, KSIM_FAULT_LOCK, 0);
}

bool ksim_should_fail_signal(const char *func, const char *file, int line)
{
	return should_fail(func, file, line, KSIM_FAULT_SIGNAL, 0);
}

bool ksim_fault_lock_armed(void)
{
	return __atomic_load_n(&lock_armed, __ATOMIC_RELAXED) && !suspended;
}

unsigned long ksim_fault_class_failures(unsigned int classes)
{
	unsigned long n = 0;

	if (classes & KSIM_FAULT_ALLOC)
		n += __atomic_load_n(&class_failures[0], __ATOMIC_RELAXED);
	if (classes & KSIM_FAULT_LOCK)
		n += __atomic_load_n(&class_failures[1], __ATOMIC_RELAXED);
	if (classes & KSIM_FAULT_SIGNAL)
		n += __atomic_load_n(&class_failures[2], __ATOMIC_RELAXED);
	return n;
}

unsigned long ksim_fault_calls(void)
{
	return __atomic_load_n(&calls, __ATOMIC_RELAXED);
}

unsigned long ksim_fault_failures(void)
{
	return __atomic_load_n(&failures, __ATOMIC_RELAXED);
}

bool ksim_fault_armed(void)
{
	return armed;
}

unsigned long ksim_fault_record(uint64_t *digest)
{
	unsigned long n;

	pthread_mutex_lock(&fault_lock);
	n = record_n;
	if (digest)
		*digest = record_digest;
	pthread_mutex_unlock(&fault_lock);
	return n;
}

void ksim_fault_record_reset(void)
{
	pthread_mutex_lock(&fault_lock);
	record_n = 0;
	record_digest = 0xcbf29ce484222325ULL;
	pthread_mutex_unlock(&fault_lock);
}

static unsigned int count_sites(bool failed_only)
{
	unsigned int n = 0;

	pthread_mutex_lock(&fault_lock);
	for (int b = 0; b < SITE_BUCKETS; b++)
		for (struct site *s = site_table[b]; s; s = s->next)
			if (!failed_only || s->failed)
				n++;
	pthread_mutex_unlock(&fault_lock);
	return n;
}

unsigned int ksim_fault_sites_reached(void)
{
	return count_sites(false);
}

unsigned int ksim_fault_sites_failed(void)
{
	return count_sites(true);
}

unsigned int ksim_fault_sites(struct ksim_fault_site_stats *out, unsigned int max)
{
	unsigned int n = 0;

	pthread_mutex_lock(&fault_lock);
	for (int b = 0; b < SITE_BUCKETS; b++)
		for (struct site *s = site_table[b]; s; s = s->next) {
			if (n < max)
				out[n] = (struct ksim_fault_site_stats){
					s->func, s->file, s->line, s->reached, s->failed, s->cls };
			n++;
		}
	pthread_mutex_unlock(&fault_lock);
	return n < max ? n : max;
}

static int cmp_site(const void *a, const void *b)
{
	const struct ksim_fault_site_stats *x = a, *y = b;
	int c = strcmp(x->func, y->func);

	return c ? c : x->line - y->line;
}

void ksim_fault_report(FILE *out)
{
	struct ksim_fault_site_stats st[512];
	unsigned int n = ksim_fault_sites(st, 512);

	qsort(st, n, sizeof(st[0]), cmp_site);
	fprintf(out, "fault injection: %u sites reached, %u failed; %lu eligible calls, %lu failures\n",
		n, ksim_fault_sites_failed(), ksim_fault_calls(), ksim_fault_failures());
	fprintf(out, "  %-5s %-32s %-40s %10s %8s\n", "class", "function", "site", "reached", "failed");
	for (unsigned int i = 0; i < n; i++) {
		const char *f = strrchr(st[i].file, '/');

		fprintf(out, "  %-5s %-32s %-34s:%-5d %10lu %8lu\n",
			cls_name(st[i].cls), st[i].func,
			f ? f + 1 : st[i].file, st[i].line, st[i].reached, st[i].failed);
	}
}

/* Append the export table to export_path: one write under flock, so test
 * processes running in parallel never interleave lines. */
static void export_sites(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int fd;

	if (!m)
		return;
	pthread_mutex_lock(&fault_lock);
	for (int b = 0; b < SITE_BUCKETS; b++)
		for (struct site *s = export_table[b]; s; s = s->next)
			fprintf(m, "%s\t%s\t%s\t%d\t%lu\t%lu\n",
				cls_name(s->cls), s->func,
				s->file, s->line, s->reached, s->failed);
	pthread_mutex_unlock(&fault_lock);
	fclose(m);
	fd = open(export_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		flock(fd, LOCK_EX);
		for (size_t off = 0; off < len;) {
			ssize_t n = write(fd, buf + off, len - off);

			if (n <= 0)
				break;
			off += n;
		}
		close(fd);
	}
	free(buf);
}

__attribute__((constructor)) static void export_init(void)
{
	const char *p = getenv("KSIM_FAULT_SITES_FILE");

	if (p && *p) {
		export_path = p;
		exporting = true;
		atexit(export_sites);
	}
}

/* "alloc", "lock", "signal", "all", "alloc+lock": '+' joins classes (',' separates keys). */
static int parse_classes(const char *val, unsigned int *classes)
{
	unsigned int c = 0;

	while (*val) {
		size_t n = strcspn(val, "+");

		if (n == 5 && !strncmp(val, "alloc", n))
			c |= KSIM_FAULT_ALLOC;
		else if (n == 4 && !strncmp(val, "lock", n))
			c |= KSIM_FAULT_LOCK;
		else if (n == 6 && !strncmp(val, "signal", n))
			c |= KSIM_FAULT_SIGNAL;
		else if (n == 3 && !strncmp(val, "all", n))
			c |= KSIM_FAULT_ALL;
		else
			return -1;
		val += n;
		if (*val == '+' && *++val == 0)
			return -1;
	}
	*classes = c;
	return c ? 0 : -1;
}

int ksim_fault_parse(const char *spec, struct ksim_fault_config *c, char *err, size_t errlen)
{
	char *dup = strdup(spec), *save = NULL, *tok;
	bool in_sites = false;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	c->seed_from_run = true;
	/* A bare probability: the stress programs' historical "--fault 0.01". */
	if (*spec && !strpbrk(spec, "=,")) {
		char *end;

		c->probability = strtod(spec, &end);
		free(dup);
		if (*end || !(c->probability >= 0 && c->probability <= 1)) {
			snprintf(err, errlen, "'%s': expected a probability in [0, 1] or key=value,... (keys: nth, p, times, seed, sites, nowait, pressure, class)", spec);
			return -1;
		}
		return 0;
	}
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *end;
		const char *val;

		if (!eq && in_sites) {
			/* sites=a,b,c: bare words continue the list */
			val = tok;
			goto site;
		}
		in_sites = false;
		if (!eq) {
			snprintf(err, errlen, "'%s': expected key=value (keys: nth, p, times, seed, sites, nowait, pressure, class)", tok);
			ret = -1;
			break;
		}
		*eq = 0;
		val = eq + 1;
		if (!*val && strcmp(tok, "sites")) {
			snprintf(err, errlen, "%s=: empty value", tok);
			ret = -1;
			break;
		}
		if (!strcmp(tok, "nth")) {
			c->nth = strtoul(val, &end, 0);
		} else if (!strcmp(tok, "p")) {
			c->probability = strtod(val, &end);
			if (!(c->probability >= 0 && c->probability <= 1)) {	/* NaN too */
				snprintf(err, errlen, "p=%s: probability must be in [0, 1]", val);
				ret = -1;
				break;
			}
		} else if (!strcmp(tok, "times")) {
			c->times = strtol(val, &end, 0);
		} else if (!strcmp(tok, "seed")) {
			c->seed = strtoull(val, &end, 0);
			c->seed_from_run = false;
		} else if (!strcmp(tok, "nowait")) {
			c->nowait_only = strtol(val, &end, 0) != 0;
		} else if (!strcmp(tok, "pressure")) {
			c->pressure = strtol(val, &end, 0) != 0;
		} else if (!strcmp(tok, "class")) {
			if (parse_classes(val, &c->classes)) {
				snprintf(err, errlen, "class=%s: expected alloc, lock, signal, all or a '+' list", val);
				ret = -1;
				break;
			}
			continue;
		} else if (!strcmp(tok, "sites")) {
			in_sites = true;
site:
			if (c->nr_sites >= KSIM_FAULT_MAX_SITES) {
				snprintf(err, errlen, "too many sites (max %d)", KSIM_FAULT_MAX_SITES);
				ret = -1;
				break;
			}
			snprintf(c->sites[c->nr_sites++], sizeof(c->sites[0]), "%s", val);
			continue;
		} else {
			snprintf(err, errlen, "unknown key '%s' (keys: nth, p, times, seed, sites, nowait, pressure, class)", tok);
			ret = -1;
			break;
		}
		if (*end) {
			snprintf(err, errlen, "%s=%s: not a number", tok, val);
			ret = -1;
			break;
		}
	}
	free(dup);
	return ret;
}
