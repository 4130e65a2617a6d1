/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_STDDEF_H
#define _LINUX_STDDEF_H
#include <stddef.h>
#include <linux/compiler_types.h>

enum {
	false_kernel_unused = 0,
};

#define sizeof_field(TYPE, MEMBER)	sizeof((((TYPE *)0)->MEMBER))
#define offsetofend(TYPE, MEMBER) \
	(offsetof(TYPE, MEMBER) + sizeof_field(TYPE, MEMBER))
#define struct_group(NAME, MEMBERS...)	\
	union { struct { MEMBERS }; struct { MEMBERS } NAME; }
#define struct_group_tagged(TAG, NAME, MEMBERS...) \
	union { struct { MEMBERS }; struct TAG { MEMBERS } NAME; }
#define DECLARE_FLEX_ARRAY(TYPE, NAME) \
	struct { struct { } __empty_ ## NAME; TYPE NAME[]; }
#endif
