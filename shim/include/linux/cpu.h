/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU hotplug: no CPU ever goes away, so a teardown callback registered
 * with cpuhp_setup_state_nocalls() never runs (the kernel's harness calls
 * such callbacks, e.g. radix_tree_cpu_dead(), by hand at exit).
 */
#ifndef _LINUX_CPU_H
#define _LINUX_CPU_H

#include <linux/cpumask.h>

enum cpuhp_state {
	CPUHP_INVALID = -1,
	CPUHP_OFFLINE = 0,
	CPUHP_RADIX_DEAD,
	CPUHP_ONLINE_DYN,
	CPUHP_ONLINE,
};

static inline int cpuhp_setup_state_nocalls(enum cpuhp_state state, const char *name,
					    int (*startup)(unsigned int cpu),
					    int (*teardown)(unsigned int cpu))
{
	(void)name; (void)startup; (void)teardown;
	return state == CPUHP_ONLINE_DYN ? CPUHP_ONLINE_DYN : 0;
}

#endif
