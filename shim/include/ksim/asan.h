/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether this is an AddressSanitizer build (KSIM_ASAN, 0 or 1: gcc says
 * __SANITIZE_ADDRESS__, clang __has_feature), and ASan's manual poisoning,
 * which is a no-op without it.  One place for the test, so no file gets it
 * half right (clang 14 does not define __SANITIZE_ADDRESS__).
 */
#ifndef _KSIM_ASAN_H
#define _KSIM_ASAN_H

#if defined(__SANITIZE_ADDRESS__)
#define KSIM_ASAN	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KSIM_ASAN	1
#endif
#endif

#ifdef KSIM_ASAN
#include <sanitizer/asan_interface.h>
#else
#define KSIM_ASAN	0
#define ASAN_POISON_MEMORY_REGION(a, s)		((void)(a), (void)(s))
#define ASAN_UNPOISON_MEMORY_REGION(a, s)	((void)(a), (void)(s))
#endif

#endif /* _KSIM_ASAN_H */
