/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The little of include/linux/fs.h the BPF syscall layer needs: a file's
 * mode bits.  A map fd's file is opened read-only, write-only or
 * read-write (bpf_get_file_flag() from BPF_F_RDONLY/BPF_F_WRONLY), and
 * kernel/bpf/syscall.c's map_get_sys_perms() reads FMODE_CAN_READ/
 * FMODE_CAN_WRITE from it.  Values are the kernel's.
 */
#ifndef _LINUX_FS_H
#define _LINUX_FS_H

#include <linux/types.h>	/* fmode_t */

#define FMODE_READ		((__force fmode_t)(1 << 0))
#define FMODE_WRITE		((__force fmode_t)(1 << 1))
#define FMODE_CAN_READ		((__force fmode_t)(1 << 17))
#define FMODE_CAN_WRITE		((__force fmode_t)(1 << 18))

#endif
