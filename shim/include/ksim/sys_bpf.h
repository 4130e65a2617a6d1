/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bpf(2) system call of ksim's kernel, for user-space code (libbpf and
 * the programs built on it: qptrie/selftests/).  Plain C types only: user
 * code includes the tree's uapi <linux/bpf.h>, not the shim's kernel
 * headers.  Implementation: shim/kernel/bpf/sys_bpf.c.
 *
 * ksim_sys_bpf(): what bpf(@cmd, @attr, @size) returns, as a negative
 * errno on failure (the system call's return is -1 with that errno).
 * ksim_sys_close(): close(@fd) for a map fd (0), -EBADF when @fd is none
 * of ours (the caller closes it as any other fd).
 */
#ifndef _KSIM_SYS_BPF_H
#define _KSIM_SYS_BPF_H

int ksim_sys_bpf(int cmd, void *attr, unsigned int size);
int ksim_sys_close(int fd);
/* The kernel's possible CPUs (per-CPU values are this many copies). */
int ksim_sys_nr_possible_cpus(void);
/* BPF_MAP_CREATE knows @map_type: 1, else 0 (libbpf_probe_bpf_map_type()). */
int ksim_sys_map_type_supported(int map_type);

#endif
