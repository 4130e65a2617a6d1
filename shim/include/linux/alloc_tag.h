/* SPDX-License-Identifier: GPL-2.0 */
/* No memory allocation profiling (CONFIG_MEM_ALLOC_PROFILING=n). */
#ifndef _LINUX_ALLOC_TAG_H
#define _LINUX_ALLOC_TAG_H

struct alloc_tag;
#define alloc_hooks_tag(tag, impl)	(impl)
#define alloc_hooks(impl)		(impl)
/* 7.x: remember the caller's tag (lib/rhashtable.c): nothing to remember. */
#define alloc_tag_record(p)		do { } while (0)

#endif
