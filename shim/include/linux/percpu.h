/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Dynamic per-CPU memory (shim/mm/percpu.c).  A __percpu pointer points at
 * CPU 0's copy; the copies of the KSIM_NR_CPUS CPUs follow at a fixed
 * stride stored just before the first one, so per_cpu_ptr() needs only the
 * pointer, as in the kernel.  Areas are zeroed like the kernel's.
 * Static DEFINE_PER_CPU variables are arrays indexed by CPU.
 */
#ifndef _LINUX_PERCPU_H
#define _LINUX_PERCPU_H

#include <linux/types.h>
#include <linux/gfp.h>
#include <linux/smp.h>
#include <linux/cpumask.h>
#include <linux/preempt.h>
#include <linux/slab.h>

void *ksim_alloc_percpu(size_t size, size_t align, gfp_t gfp, KSIM_SITE_ARGS);
void free_percpu(void __percpu *p);
size_t ksim_percpu_stride(const void __percpu *p);

#define __alloc_percpu_gfp(size, align, gfp)	ksim_alloc_percpu((size), (align), (gfp), KSIM_SITE)
#define __alloc_percpu(size, align)		__alloc_percpu_gfp((size), (align), GFP_KERNEL)
#define alloc_percpu_gfp(type, gfp)					\
	((typeof(type) __percpu *)__alloc_percpu_gfp(sizeof(type), __alignof__(type), (gfp)))
#define alloc_percpu(type)	alloc_percpu_gfp(type, GFP_KERNEL)

#define per_cpu_ptr(ptr, cpu)						\
	((typeof(ptr))((char *)(ptr) + (size_t)(cpu) * ksim_percpu_stride(ptr)))
#define raw_cpu_ptr(ptr)	per_cpu_ptr(ptr, raw_smp_processor_id())
#define this_cpu_ptr(ptr)	per_cpu_ptr(ptr, smp_processor_id())
#define get_cpu_ptr(ptr)	({ preempt_disable(); this_cpu_ptr(ptr); })
#define put_cpu_ptr(ptr)	do { (void)(ptr); preempt_enable(); } while (0)

/* Static per-CPU variables: an array of KSIM_NR_CPUS. */
#define DEFINE_PER_CPU(type, name)	__typeof__(type) name[KSIM_NR_CPUS]
#define DECLARE_PER_CPU(type, name)	extern __typeof__(type) name[KSIM_NR_CPUS]
#define per_cpu(var, cpu)		((var)[cpu])
#define EXPORT_PER_CPU_SYMBOL(var)
#define EXPORT_PER_CPU_SYMBOL_GPL(var)

/* this_cpu_* on dynamic per-CPU lvalues: atomic (see linux/smp.h). */
#define __ksim_this_cpu(lv)	(*this_cpu_ptr(&(lv)))
#define this_cpu_read(lv)	__atomic_load_n(this_cpu_ptr(&(lv)), __ATOMIC_RELAXED)
#define this_cpu_write(lv, v)	__atomic_store_n(this_cpu_ptr(&(lv)), (v), __ATOMIC_RELAXED)
#define this_cpu_add(lv, v)	((void)__atomic_add_fetch(this_cpu_ptr(&(lv)), (v), __ATOMIC_RELAXED))
#define this_cpu_sub(lv, v)	this_cpu_add(lv, -(v))
#define this_cpu_inc(lv)	this_cpu_add(lv, 1)
#define this_cpu_dec(lv)	this_cpu_add(lv, -1)
#define this_cpu_add_return(lv, v) __atomic_add_fetch(this_cpu_ptr(&(lv)), (v), __ATOMIC_RELAXED)
#define this_cpu_inc_return(lv)	this_cpu_add_return(lv, 1)
#define this_cpu_dec_return(lv)	this_cpu_add_return(lv, -1)
#define __this_cpu_read		this_cpu_read
#define __this_cpu_write	this_cpu_write
#define __this_cpu_add		this_cpu_add
#define __this_cpu_sub		this_cpu_sub
#define __this_cpu_inc		this_cpu_inc
#define __this_cpu_dec		this_cpu_dec
#define __this_cpu_inc_return	this_cpu_inc_return
#define __this_cpu_dec_return	this_cpu_dec_return
#define __this_cpu_add_return	this_cpu_add_return

#endif
