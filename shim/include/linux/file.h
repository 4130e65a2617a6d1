/* SPDX-License-Identifier: GPL-2.0 */
/*
 * File descriptors, as far as BPF map fds need them (kernel/bpf/map_in_map.c
 * takes an inner map by fd): a file is a slot of the BPF driver's fd table
 * (shim/kernel/bpf/syscall.c, ksim_bpf_map_fd()), whose private_data is the
 * map.  fdget() takes no reference: the table is changed only by the
 * thread that creates and closes maps, between commands.
 */
#ifndef _LINUX_FILE_H
#define _LINUX_FILE_H

#include <linux/types.h>
#if KSIM_HAVE_BPF_FD_CLASS
#include <linux/cleanup.h>
#endif

struct file {
	const void *f_op;	/* &ksim_bpf_map_fops for a map */
	void *private_data;	/* the struct bpf_map */
};

struct fd {
	struct file *file;	/* NULL: not an open fd */
};
#define fd_file(f)	((f).file)
#define fd_empty(f)	(!(f).file)

struct fd fdget(unsigned int fd);
static inline void fdput(struct fd f) { (void)f; }

#if KSIM_HAVE_BPF_FD_CLASS
DEFINE_CLASS(fd, struct fd, fdput(_T), fdget(fd), int fd)
#endif

#endif
