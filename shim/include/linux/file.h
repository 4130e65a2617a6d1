/* SPDX-License-Identifier: GPL-2.0 */
/*
 * File descriptors, as far as BPF map fds need them: a map fd is a real
 * file descriptor of the process (open on /dev/null, so the numbers are
 * the kernel's: unique, lowest free first) whose file, in the BPF
 * driver's fd table (shim/kernel/bpf/map_fd.c), holds the map
 * (private_data) and the mode it was opened with.  fdget() takes a
 * reference on the file and fdput() drops it, so a close() racing with a
 * command leaves the file (and the map's user reference it holds) alive
 * until the command is done, as the kernel's file references do.
 */
#ifndef _LINUX_FILE_H
#define _LINUX_FILE_H

#include <linux/types.h>
#include <linux/fs.h>
#if KSIM_HAVE_BPF_FD_CLASS
#include <linux/cleanup.h>
#endif

struct file {
	const void *f_op;	/* &ksim_bpf_map_fops for a map */
	void *private_data;	/* the struct bpf_map */
	fmode_t f_mode;
	long f_count;		/* the fd table's reference (while open) + fdget()s */
	int ksim_fd;
	/* the driver's fd of the map (ksim_bpf_map_fd()): it does not own a
	 * reference of its own, the map's creator does (ksim_bpf_map_free()) */
	bool ksim_primary;
};

struct fd {
	struct file *file;	/* NULL: not an open fd */
};
#define fd_file(f)	((f).file)
#define fd_empty(f)	(!(f).file)

struct fd fdget(unsigned int fd);
void fput(struct file *file);
static inline void fdput(struct fd f)
{
	if (f.file)
		fput(f.file);
}

#if KSIM_HAVE_BPF_FD_CLASS
DEFINE_CLASS(fd, struct fd, fdput(_T), fdget(fd), int fd)
#endif

#endif
