/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BTF: maps here are created without BTF (btf_key_type_id and
 * btf_value_type_id 0), so map_check_btf() is never called by the syscall
 * layer and these exist for the code that references them.
 */
#ifndef _LINUX_BTF_H
#define _LINUX_BTF_H

#include <linux/types.h>
#include <uapi/linux/btf.h>

struct btf;
struct seq_file;

static inline bool btf_type_is_void(const struct btf_type *t) { return !t; }
static inline u16 btf_type_vlen(const struct btf_type *t) { return BTF_INFO_VLEN(t->info); }
static inline u16 btf_kind(const struct btf_type *t) { return BTF_INFO_KIND(t->info); }
/* kernel/bpf/btf.c's: a 4-byte int (an array's key type) */
static inline bool btf_type_is_i32(const struct btf_type *t)
{
	return btf_kind(t) == BTF_KIND_INT && t->size == 4;
}
static inline bool btf_type_is_struct(const struct btf_type *t)
{
	u8 kind = btf_kind(t);
	return kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION;
}
void btf_type_seq_show(const struct btf *btf, u32 type_id, void *obj, struct seq_file *m);
const struct btf_type *btf_type_id_size(const struct btf *btf, u32 *type_id, u32 *ret_size);
static inline const struct btf_member *btf_type_member(const struct btf_type *t)
{
	return (const struct btf_member *)(t + 1);
}

#endif
