/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksim: the KCSAN annotations (ASSERT_EXCLUSIVE_*(), kcsan_check_*(),
 * data_race() through kcsan_disable_current()), from the tree's own
 * header.
 *
 * Without ThreadSanitizer (ASan, release, AFL++ builds) KCSAN is not
 * configured and the tree's header makes them no-ops, as in a kernel built
 * without CONFIG_KCSAN.
 *
 * Under ThreadSanitizer (KSIM_TSAN) the tree's header is read as a KCSAN
 * kernel reads it, and shim/kernel/kcsan.c is the runtime behind it, on
 * TSan's primitives, so that TSan reports what KCSAN reports and is silent
 * where KCSAN is silent:
 *   data_race(expr)               not reported (TSan ignores the thread's
 *                                 accesses while expr runs)
 *   ASSERT_EXCLUSIVE_WRITER(v)    a concurrent write of v is reported, a
 *                                 marked one (WRITE_ONCE) too; readers are not
 *   ASSERT_EXCLUSIVE_ACCESS(v)    any concurrent access of v is reported
 *   the _SCOPED variants          checked where the scope starts and ends
 *   kcsan_check_read/_write()     a plain access for TSan
 * Where we differ: ASSERT_EXCLUSIVE_BITS() is not checked (TSan sees bytes,
 * not bits) and the access after it stays checked (kcsan_atomic_next() is a
 * no-op); TSan's verdict is happens-before, not KCSAN's sampled watchpoints,
 * so it sees more races, never fewer.  READ_ONCE()/WRITE_ONCE() are relaxed
 * atomics (linux/compiler.h), the marked accesses KCSAN ignores.
 */
#ifndef _KSIM_LINUX_KCSAN_CHECKS_H
#define _KSIM_LINUX_KCSAN_CHECKS_H

#ifdef KSIM_TSAN
/* Only for this header: nothing else of the tree is built as for KCSAN. */
#define CONFIG_KCSAN 1
#include <include/linux/kcsan-checks.h>
#undef CONFIG_KCSAN
#else
#include <include/linux/kcsan-checks.h>
#endif

#endif /* _KSIM_LINUX_KCSAN_CHECKS_H */
