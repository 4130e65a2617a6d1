// SPDX-License-Identifier: GPL-2.0
/*
 * lib/radix-tree.c from KSRC, unmodified: the xa_node slab cache
 * (radix_tree_node_cachep, its constructor and RCU free), the preload
 * machinery and the radix-tree API the kernel's tools/testing/radix-tree
 * tests use.
 *
 * The kernel's harness makes a few of its static functions visible by
 * sed'ing "static" away (tools/testing/shared/shared.mk); its test.h
 * declares them.  We compile the file as shipped and rename those statics
 * while it is included, then export them under their own names below.
 */
#include <linux/init.h>
#include <linux/radix-tree.h>

/*
 * The preload pool is per thread (see shim/include/linux/radix-tree.h):
 * the file's one DEFINE_PER_CPU defines it, and only this file reaches it
 * through per-CPU accessors.
 */
#undef DEFINE_PER_CPU
#define DEFINE_PER_CPU(type, name)	__thread __typeof__(type) ksim_radix_tree_preloads
#undef this_cpu_ptr
#define this_cpu_ptr(ptr)		(ptr)
#undef per_cpu
#define per_cpu(var, cpu)		(*({ (void)(cpu); &(var); }))

#define entry_to_node		ksim_rt_entry_to_node
#define root_tag_get		ksim_rt_root_tag_get
#define node_maxindex		ksim_rt_node_maxindex
#define shift_maxindex		ksim_rt_shift_maxindex
#define radix_tree_cpu_dead	ksim_rt_radix_tree_cpu_dead
#include <lib/radix-tree.c>
#undef entry_to_node
#undef root_tag_get
#undef node_maxindex
#undef shift_maxindex
#undef radix_tree_cpu_dead

struct radix_tree_preload *ksim_radix_tree_preloads_ptr(void)
{
	return &ksim_radix_tree_preloads;
}

struct radix_tree_node *entry_to_node(void *ptr)
{
	return ksim_rt_entry_to_node(ptr);
}

int root_tag_get(const struct radix_tree_root *root, unsigned int tag)
{
	return ksim_rt_root_tag_get(root, tag);
}

unsigned long node_maxindex(const struct radix_tree_node *node)
{
	return ksim_rt_node_maxindex(node);
}

unsigned long shift_maxindex(unsigned int shift)
{
	return ksim_rt_shift_maxindex(shift);
}

int radix_tree_cpu_dead(unsigned int cpu)
{
	return ksim_rt_radix_tree_cpu_dead(cpu);
}

/* start_kernel() calls radix_tree_init(); users of the library get it at load. */
__attribute__((constructor)) static void ksim_radix_tree_init(void)
{
	radix_tree_init();
}
