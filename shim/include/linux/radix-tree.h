/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel tree's own radix-tree.h (lib/radix-tree.c is built by
 * xarray/, the xa_node cache and the IDR live there).
 *
 * Its per-CPU preload pool, radix_tree_preloads, is per thread here, as in
 * the kernel's own harness (tools/include/linux/percpu.h): the kernel uses
 * it only between local_lock() and local_unlock(), with preemption off, so
 * the section owns its CPU's pool; shim threads share simulated CPUs and
 * are preempted by the OS, so "the section's CPU" is its thread.  The
 * static per-CPU arrays of linux/percpu.h cannot express it: kernel code
 * reaches into the pool as a struct (radix_tree_preloads.lock).
 * radix_tree_cpu_dead(cpu) frees the calling thread's pool.
 */
#ifndef _KSIM_LINUX_RADIX_TREE_H
#define _KSIM_LINUX_RADIX_TREE_H
#include <linux/percpu.h>
#include <linux/local_lock.h>
/*
 * The name stands for the calling thread's pool (an lvalue of the type),
 * so every use in the kernel's code and tests, declarations included,
 * compiles as written; lib/radix-tree.c's definition (xarray/radix_tree.c)
 * makes it a thread-local variable.
 */
struct radix_tree_preload *ksim_radix_tree_preloads_ptr(void);
#define radix_tree_preloads	(*ksim_radix_tree_preloads_ptr())
#pragma push_macro("DECLARE_PER_CPU")
#undef DECLARE_PER_CPU
#define DECLARE_PER_CPU(type, name)	extern __typeof__(type) name
#include <include/linux/radix-tree.h>
#pragma pop_macro("DECLARE_PER_CPU")
#endif
