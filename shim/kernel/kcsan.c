// SPDX-License-Identifier: GPL-2.0
/*
 * The KCSAN runtime (kernel/kcsan/core.c) for ThreadSanitizer builds: the
 * functions include/linux/kcsan-checks.h calls when KCSAN is configured,
 * which linux/kcsan-checks.h arranges under TSan only.  KCSAN watches
 * sampled accesses for a concurrent conflicting one; TSan checks every
 * access against happens-before.  So each annotation becomes what TSan
 * needs to reach KCSAN's verdict:
 *
 *   - kcsan_disable_current() .. kcsan_enable_current() (data_race()) and
 *     the atomic regions: TSan ignores the thread's accesses in between, as
 *     KCSAN does not watch them; nestable, as KCSAN's are.
 *   - an assertion (ASSERT_EXCLUSIVE_WRITER/ACCESS): an access for TSan
 *     that nobody made, so that TSan reports what conflicts with it: a
 *     read conflicts with any write (marked ones too: TSan reports a plain
 *     access against an atomic store), a write with any access.
 *   - kcsan_check_read/_write(): the plain access they stand for.
 *   - scoped assertions: checked where the scope starts and where it ends.
 *
 * Not emulated: access masks (ASSERT_EXCLUSIVE_BITS: TSan has no bit
 * granularity, so such an assertion checks nothing) and
 * kcsan_atomic_next() (the next accesses stay plain for TSan); the weak
 * memory barriers (__kcsan_mb() and friends) are no-ops.
 */
#ifdef KSIM_TSAN
#include <linux/kernel.h>
#include <linux/kcsan-checks.h>

void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
void __tsan_read_range(void *addr, unsigned long size);
void __tsan_write_range(void *addr, unsigned long size);

/* kcsan_set_access_mask(): set while an ASSERT_EXCLUSIVE_BITS() checks */
static __thread unsigned long access_mask;
/* kcsan_flat_atomic_begin(): not nestable, unlike the others */
static __thread bool flat_atomic;

void __kcsan_check_access(const volatile void *ptr, size_t size, int type)
{
	if (type & KCSAN_ACCESS_ATOMIC)
		return;		/* a marked access races with nothing */
	if ((type & KCSAN_ACCESS_ASSERT) && access_mask)
		return;		/* bit-granular: not emulated */
	if (type & (KCSAN_ACCESS_WRITE | KCSAN_ACCESS_COMPOUND))
		__tsan_write_range((void *)ptr, size);
	else
		__tsan_read_range((void *)ptr, size);
}

void kcsan_disable_current(void)
{
	__tsan_ignore_thread_begin();
}

void kcsan_enable_current(void)
{
	__tsan_ignore_thread_end();
}

void kcsan_enable_current_nowarn(void)
{
	__tsan_ignore_thread_end();
}

void kcsan_nestable_atomic_begin(void)
{
	__tsan_ignore_thread_begin();
}

void kcsan_nestable_atomic_end(void)
{
	__tsan_ignore_thread_end();
}

void kcsan_flat_atomic_begin(void)
{
	if (!flat_atomic)
		__tsan_ignore_thread_begin();
	flat_atomic = true;
}

void kcsan_flat_atomic_end(void)
{
	if (flat_atomic)
		__tsan_ignore_thread_end();
	flat_atomic = false;
}

void kcsan_atomic_next(int n)
{
}

void kcsan_set_access_mask(unsigned long mask)
{
	access_mask = mask;
}

struct kcsan_scoped_access *kcsan_begin_scoped_access(const volatile void *ptr, size_t size,
						      int type, struct kcsan_scoped_access *sa)
{
	sa->ptr = ptr;
	sa->size = size;
	sa->type = type & ~KCSAN_ACCESS_SCOPED;
	__kcsan_check_access(ptr, size, sa->type);
	return sa;
}

void kcsan_end_scoped_access(struct kcsan_scoped_access *sa)
{
	__kcsan_check_access(sa->ptr, sa->size, sa->type);
}

void __kcsan_mb(void)
{
}

void __kcsan_wmb(void)
{
}

void __kcsan_rmb(void)
{
}

void __kcsan_release(void)
{
}
#endif /* KSIM_TSAN */
