/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPUs for per-CPU data (BPF maps: per-CPU freelists, LRU lists, map_locked
 * counters, per-CPU values).  ksim emulates a small fixed machine of
 * KSIM_NR_CPUS possible CPUs, all online.  A thread "runs on" CPU
 * ksim_cpu(): by default its task id modulo KSIM_NR_CPUS; tests and stress
 * threads pin themselves with ksim_set_cpu().
 *
 * Deliberate difference: in the kernel, code with preemption or migration
 * disabled owns its CPU exclusively.  Here two threads can share a CPU
 * number; __this_cpu_* read-modify-writes are therefore done atomically,
 * and concurrent users should pin distinct CPUs (ksim_set_cpu) when the
 * kernel code relies on exclusivity (hashtab.c's map_locked counters
 * return -EBUSY when they see a "reentrant" user on the same CPU).
 */
#ifndef _LINUX_SMP_H
#define _LINUX_SMP_H

#include <linux/types.h>
#include <ksim/task.h>

#define KSIM_NR_CPUS	4

extern __thread int ksim_cpu_pinned;	/* 0: not pinned, else cpu + 1 */
static inline int ksim_cpu(void)
{
	if (ksim_cpu_pinned)
		return ksim_cpu_pinned - 1;
	return ksim_task()->id % KSIM_NR_CPUS;
}
static inline void ksim_set_cpu(int cpu)
{
	ksim_cpu_pinned = cpu < 0 ? 0 : (cpu % KSIM_NR_CPUS) + 1;
}

#define nr_cpu_ids		((unsigned int)KSIM_NR_CPUS)
#define num_possible_cpus()	KSIM_NR_CPUS
#define num_online_cpus()	KSIM_NR_CPUS
#define smp_processor_id()	ksim_cpu()
#define raw_smp_processor_id()	ksim_cpu()
/* cant_migrate(): a debug assertion; migrate_disable() is bookkeeping here. */
#define cant_migrate()		do { } while (0)
#define get_cpu()		({ preempt_disable(); smp_processor_id(); })
#define put_cpu()		preempt_enable()

#endif
