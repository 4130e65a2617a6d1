/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Debug-yield points (shim/ksim/sched.c): the shim calls ksim_yield_point()
 * where kernel code synchronizes (lock acquire/release, rcu_read_lock/unlock,
 * slab alloc/free, call_rcu).  With a probability set (stress --yield P, or
 * KSIM_YIELD=P) the calling thread yields the CPU there, widening race
 * windows; under deterministic scheduling (ksim/sched.h) every yield point is
 * a scheduling point.  Off: one predictable branch.
 */
#ifndef _KSIM_YIELD_H
#define _KSIM_YIELD_H

#include <stdint.h>

extern uint32_t ksim_yield_threshold;	/* P * 2^32; 0 = off */
void __ksim_yield_point(void);
/*
 * The switch is read in kernel code at every RCU dereference, where ASan
 * checks a global's shadow before each load (GCC always instruments an
 * extern global): 9% of xas_load()'s time on 7.3.4.  A load through asm is
 * not instrumented; the switch is the shim's, never kernel memory.  TSan
 * builds and other architectures read it plainly.
 */
static inline uint32_t ksim_yield_threshold_read(void)
{
#if defined(__x86_64__) && !defined(KSIM_TSAN)
	uint32_t v;

	__asm__("movl %1, %0" : "=r"(v) : "m"(ksim_yield_threshold));
	return v;
#else
	return ksim_yield_threshold;
#endif
}
static inline void ksim_yield_point(void)
{
	if (__builtin_expect(ksim_yield_threshold_read() != 0, 0))
		__ksim_yield_point();
}
void ksim_set_yield(double probability);
/*
 * A test's hook at every yield point (NULL clears it; while set, no yielding):
 * a single-threaded reduction of a race found under --sched runs the other
 * thread's steps from the hook, where the scheduler switched threads.  Only
 * the thread that set the hook runs it (the RCU callback worker's yield
 * points are not the reduced thread's).  The hook must guard against
 * re-entry: the steps it runs reach yield points too.
 */
void ksim_set_yield_hook(void (*hook)(void));

#endif
