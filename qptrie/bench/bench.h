/* SPDX-License-Identifier: GPL-2.0 */
/* Timing helpers for the qptrie/ benchmarks (x86-64). */
#ifndef _KSIM_QPTRIE_BENCH_H
#define _KSIM_QPTRIE_BENCH_H
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Serialized timestamps: nothing before starts late, nothing after starts early. */
static inline uint64_t bench_tsc_begin(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) :: "memory");
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t bench_tsc_end(void)
{
	uint32_t lo, hi, aux;

	__asm__ __volatile__("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) :: "memory");
	return (uint64_t)hi << 32 | lo;
}

static inline int bench_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static inline uint64_t bench_median_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), bench_cmp_u64);
	return v[n / 2];
}

/* Comma-separated unsigned list; returns the count (at most max), 0 on bad input. */
static inline int bench_parse_list(const char *s, unsigned int *out, int max)
{
	int n = 0;
	char *end;

	while (*s && n < max) {
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || (*end && *end != ','))
			return 0;
		out[n++] = (unsigned int)v;
		s = *end ? end + 1 : end;
	}
	return *s ? 0 : n;
}
#endif
