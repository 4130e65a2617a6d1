/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libbpf's internal header (tools/lib/bpf/libbpf_internal.h, which the
 * tree's bpf.c includes) declares its ELF helpers with libelf's types;
 * bpf.c calls none of them.  The two opaque types are all it needs, so the
 * selftests do not need libelf-dev.
 */
#ifndef _KSIM_LIBELF_H
#define _KSIM_LIBELF_H

#include <elf.h>

typedef struct Elf Elf;
typedef struct Elf_Scn Elf_Scn;

#endif
