/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel tree's own uapi: union bpf_attr, enum bpf_map_type, BPF_ANY /
 * BPF_NOEXIST / BPF_EXIST, BPF_F_* map flags, struct bpf_insn, struct
 * bpf_lpm_trie_key* are the tree's, bit for bit.
 */
#ifndef _KSIM_UAPI_LINUX_BPF_H
#define _KSIM_UAPI_LINUX_BPF_H
#include <linux/types.h>
#ifndef __aligned_u64
#define __aligned_u64 __u64 __attribute__((aligned(8)))
#define __aligned_be64 __be64 __attribute__((aligned(8)))
#define __aligned_le64 __le64 __attribute__((aligned(8)))
#endif
#include <include/uapi/linux/bpf.h>
#endif
