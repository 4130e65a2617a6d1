/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_VMALLOC_H
#define _LINUX_VMALLOC_H
#include <linux/slab.h>
#define vmalloc(size)		ksim_vmalloc((size), GFP_KERNEL, KSIM_SITE)
#define vzalloc(size)		ksim_vmalloc((size), GFP_KERNEL | __GFP_ZERO, KSIM_SITE)
#define vmalloc_node(size, node)	vmalloc(size)
#define vzalloc_node(size, node)	vzalloc(size)
#define __vmalloc(size, gfp)	ksim_vmalloc((size), (gfp), KSIM_SITE)
#define __vmalloc_node(size, align, gfp, node, caller) __vmalloc(size, gfp)
#define vmalloc_array(n, size)	ksim_kvmalloc_array((n), (size), GFP_KERNEL, KSIM_SITE)
#define vcalloc(n, size)	ksim_kvmalloc_array((n), (size), GFP_KERNEL | __GFP_ZERO, KSIM_SITE)
#endif
