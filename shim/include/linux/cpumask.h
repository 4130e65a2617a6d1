/* SPDX-License-Identifier: GPL-2.0 */
/* All KSIM_NR_CPUS CPUs are possible and online (linux/smp.h). */
#ifndef _LINUX_CPUMASK_H
#define _LINUX_CPUMASK_H

#include <linux/kernel.h>	/* WARN_ON_ONCE, min/max, as the kernel's chain provides */
#include <linux/smp.h>

struct cpumask { unsigned long bits[1]; };
typedef struct cpumask cpumask_t;
extern const struct cpumask ksim_cpu_possible_mask;
#define cpu_possible_mask	(&ksim_cpu_possible_mask)
#define cpu_online_mask		(&ksim_cpu_possible_mask)

static inline unsigned int cpumask_first(const struct cpumask *m)
{
	(void)m;
	return 0;
}
/* Next CPU after @n (n = -1: the first); nr_cpu_ids when none is left. */
static inline unsigned int cpumask_next(int n, const struct cpumask *m)
{
	(void)m;
	return n + 1 < (int)nr_cpu_ids ? (unsigned int)(n + 1) : nr_cpu_ids;
}
/* Next CPU after @n, wrapping around (7.x; every CPU is in every mask here). */
static inline unsigned int cpumask_next_wrap(int n, const struct cpumask *m)
{
	(void)m;
	return (unsigned int)(n + 1) % nr_cpu_ids;
}
#define for_each_possible_cpu(cpu)	for ((cpu) = 0; (cpu) < (int)nr_cpu_ids; (cpu)++)
#define for_each_online_cpu(cpu)	for_each_possible_cpu(cpu)
#define for_each_cpu(cpu, mask)		for_each_possible_cpu(cpu)
/* Every CPU once, starting at @start and wrapping around, as the kernel's. */
#define for_each_cpu_wrap(cpu, mask, start)				\
	for (int __ksim_i = 0;						\
	     __ksim_i < (int)nr_cpu_ids && ((cpu) = ((start) + __ksim_i) % nr_cpu_ids, 1); \
	     __ksim_i++)
#define cpu_possible(cpu)	((unsigned int)(cpu) < nr_cpu_ids)
#define cpu_online(cpu)		cpu_possible(cpu)

#endif
