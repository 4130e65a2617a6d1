// SPDX-License-Identifier: GPL-2.0
/*
 * The replay binary of a fuzz target (fuzz_<name>_replay): runs inputs
 * (files, or every file in a corpus directory, sorted) through the same
 * LLVMFuzzerTestOneInput the fuzzers call, one TAP line per input.  Its
 * command line is the run convention's (ksim/run.h): -v prints the decoded
 * operation trace, -t NAME picks inputs by file name, --list lists them,
 * --fault SPEC arms every op's fault window with SPEC (seeded from --seed),
 * --timing prints each input's CPU time.  A failing input aborts with the
 * signature line and the command that replays it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <ksim/fuzz.h>
#include <ksim/ksim.h>
#include <ksim/run.h>

#define KSIM_FUZZ_MAX_INPUT	(1 << 20)

static bool timing;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_file(const char *path, int idx)
{
	static uint8_t buf[KSIM_FUZZ_MAX_INPUT];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		fprintf(stderr, "ksim-fuzz: %s: %s\n", path, strerror(errno));
		return -1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	ksim_fuzz_current_file = path;
	if (ksim_fuzz_verbose)
		printf("# %s (%zu bytes)\n", path, n);
	/* A copy of exactly n bytes, so ASan sees reads past the input's end. */
	uint8_t *copy = malloc(n ? n : 1);

	if (!copy)
		abort();
	memcpy(copy, buf, n);
	struct timespec t0, t1;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	ksim_fuzz_one(copy, n);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	free(copy);
	if (timing)
		printf("ok %d - %s # %ld us\n", idx, path,
		       (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000);
	else
		printf("ok %d - %s\n", idx, path);
	fflush(stdout);
	return 0;
}

static int collect(const char *path, char ***list, int *nr, int *cap)
{
	struct stat st;

	if (stat(path, &st)) {
		fprintf(stderr, "ksim-fuzz: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *e;

		if (!d) {
			fprintf(stderr, "ksim-fuzz: %s: %s\n", path, strerror(errno));
			return -1;
		}
		while ((e = readdir(d))) {
			char *p;

			if (e->d_name[0] == '.')
				continue;
			if (asprintf(&p, "%s/%s", path, e->d_name) < 0)
				abort();
			if (stat(p, &st) || !S_ISREG(st.st_mode)) {
				free(p);
				continue;
			}
			if (*nr == *cap) {
				*cap = *cap ? *cap * 2 : 64;
				*list = realloc(*list, *cap * sizeof(char *));
			}
			(*list)[(*nr)++] = p;
		}
		closedir(d);
		return 0;
	}
	if (*nr == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*list = realloc(*list, *cap * sizeof(char *));
	}
	(*list)[(*nr)++] = strdup(path);
	return 0;
}

enum { OPT_TIMING = 256 };
static const struct ksim_run_option replay_options[] = {
	{ "timing", OPT_TIMING, NULL, "print each input's CPU time (finds the inputs that slow a campaign)" },
	{ NULL, 0, NULL, NULL },
};

static int replay_set(struct ksim_options *o, int key, const char *arg)
{
	(void)o;
	(void)arg;
	if (key == OPT_TIMING)
		timing = true;
	return 0;
}

static void replay_help(struct ksim_options *o, FILE *out)
{
	(void)o;
	fprintf(out,
		"  -v prints the decoded operation trace; -t NAME matches an input's file name\n"
		"  (or path); --fault SPEC replaces every op's fault byte with SPEC\n"
		"environment: KSIM_FUZZ_VERBOSE=1 (same as -v); KSIM_FUZZ_EVERY_OP=0\n"
		"  checks the whole structure on the fuzzers' schedule, not after every op\n");
}

static bool picked(const struct ksim_options *o, const char *path)
{
	const char *base = strrchr(path, '/');

	return ksim_run_selected(o, path) || ksim_run_selected(o, base ? base + 1 : path);
}

int main(int argc, char **argv)
{
	static struct ksim_options opts = {
		.mode = KSIM_RUN_FUZZ,
		.args_help = "FILE|DIR...",
		.own = replay_options,
		.set = replay_set,
		.help = replay_help,
	};
	static char what[160], replay[2048];
	char **files = NULL;
	int nr = 0, cap = 0, i, n = 0, status;

	snprintf(what, sizeof(what), "Replays fuzz inputs for target '%s' (a directory: every file in it).",
		 ksim_fuzz_target.name);
	opts.what = what;
	ksim_fuzz_every_op = true;	/* a replay pins a failure to its op */
	if (!ksim_options_parse(&opts, argc, argv, &status))
		return status;
	ksim_fuzz_verbose += opts.verbose;
	if (!opts.nr_args) {
		fprintf(stderr, "%s: no input given (try --help)\n", argv[0]);
		return 2;
	}
	for (i = 0; i < opts.nr_args; i++)
		if (collect(opts.args[i], &files, &nr, &cap))
			return 2;
	qsort(files, nr, sizeof(files[0]), cmp_str);
	for (i = 0; i < nr; i++) {
		if (picked(&opts, files[i]))
			files[n++] = files[i];
		else
			free(files[i]);
	}
	nr = n;
	if (opts.nr_names && !nr) {
		fprintf(stderr, "%s: no input matches -t '%s' (try --list)\n", argv[0], opts.names[0]);
		return 2;
	}
	if (opts.list) {
		for (i = 0; i < nr; i++)
			printf("%s\n", files[i]);
		return 0;
	}
	ksim_fuzz_setup();
	ksim_fault_record_reset();
	ksim_run_replay(NULL, replay, sizeof(replay));
	for (i = 0; i < opts.nr_names; i++)
		ksim_run_replay_add(replay, sizeof(replay), "-t", opts.names[i]);
	for (i = 0; i < opts.nr_args; i++)
		ksim_run_replay_add(replay, sizeof(replay), NULL, opts.args[i]);
	printf("TAP version 13\n1..%d\n# target %s\n# seed %" PRIu64 " (replay: %s)\n", nr,
	       ksim_fuzz_target.name, ksim_seed(), replay);
	for (i = 0; i < nr; i++) {
		if (run_file(files[i], i + 1))
			return 2;
		free(files[i]);
	}
	free(files);
	ksim_run_fault_summary(stdout);
	printf("# %d input(s) passed\n", nr);
	return 0;
}
