// SPDX-License-Identifier: GPL-2.0
/*
 * Per-thread context (ksim/task.h): part of the shim's base, which every
 * subsystem reads and which depends on nothing.
 */
#include <ksim/task.h>

__thread struct ksim_task ksim_current_task;
/* The CPU a thread pinned itself to (linux/smp.h): the slab's per-CPU sheaves read it too. */
__thread int ksim_cpu_pinned;
static int next_task_id;

int ksim_task_assign_id(void)
{
	return __atomic_add_fetch(&next_task_id, 1, __ATOMIC_RELAXED);
}
