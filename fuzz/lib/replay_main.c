// SPDX-License-Identifier: GPL-2.0
/*
 * The replay binary of a fuzz target (fuzz_<name>_replay): runs inputs
 * (files, or every file in a corpus directory, sorted) through the same
 * LLVMFuzzerTestOneInput the fuzzers call, one TAP line per input.
 * -v prints the decoded operation trace.  A failing input aborts with the
 * signature line and the command that replays it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <ksim/fuzz.h>
#include <ksim/ksim.h>

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

static void usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [-v] [-q] [-t] FILE|DIR...\n"
		"  Replays fuzz inputs for target '%s' (a directory: every file in it).\n"
		"  -v  print the decoded operation trace\n"
		"  -q  no shim messages\n"
		"  -t  print each input's CPU time (finds the inputs that slow a campaign)\n"
		"environment: KSIM_FUZZ_VERBOSE=1 (same as -v); KSIM_FUZZ_EVERY_OP=0\n"
		"  checks the whole structure on the fuzzers' schedule, not after every op\n",
		prog, ksim_fuzz_target.name);
}

int main(int argc, char **argv)
{
	char **files = NULL;
	int nr = 0, cap = 0, i;
	int first_path = 0;

	ksim_fuzz_every_op = true;	/* a replay pins a failure to its op */
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v")) {
			ksim_fuzz_verbose++;
		} else if (!strcmp(argv[i], "-t")) {
			timing = true;
		} else if (!strcmp(argv[i], "-q")) {
			ksim_verbose = 0;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout, argv[0]);
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "%s: unknown option '%s' (try --help)\n", argv[0], argv[i]);
			return 2;
		} else {
			if (!first_path)
				first_path = i;
			if (collect(argv[i], &files, &nr, &cap))
				return 2;
		}
	}
	if (!first_path) {
		fprintf(stderr, "%s: no input given (try --help)\n", argv[0]);
		return 2;
	}
	/* For the failure message's replay command. */
	setenv("KSIM_FUZZ_PROG", argv[0], 0);
	qsort(files, nr, sizeof(files[0]), cmp_str);
	ksim_fuzz_setup();
	printf("TAP version 13\n1..%d\n# target %s\n", nr, ksim_fuzz_target.name);
	for (i = 0; i < nr; i++) {
		if (run_file(files[i], i + 1))
			return 2;
		free(files[i]);
	}
	free(files);
	printf("# %d input(s) passed\n", nr);
	return 0;
}
