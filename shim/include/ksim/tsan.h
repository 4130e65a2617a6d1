/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ThreadSanitizer builds (KSIM_TSAN, set by cmake/Sanitizers.cmake): the
 * reports TSan printed, and reports a test expects (shim/ksim/tsan.c).
 */
#ifndef _KSIM_TSAN_H
#define _KSIM_TSAN_H

#ifdef KSIM_TSAN
/* Data-race (and other) reports so far, expected ones included. */
unsigned long ksim_tsan_reports(void);
/*
 * The next n reports are expected: counted, not printed, and they do not
 * make the process exit non-zero (a test that checks a race is reported).
 */
void ksim_tsan_expect_reports(unsigned long n);
#endif

#endif /* _KSIM_TSAN_H */
