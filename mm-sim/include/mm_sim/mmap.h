/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What mmap(2)'s own code (ksys_mmap_pgoff(), vm_mmap_pgoff(), do_mmap(),
 * extract/mmap.txt) compiles against in mm-sim: the uapi flag values, the
 * file descriptor lookup on a per-process table of simulated files, and
 * the subsystems it asks that are not configured here (hugetlb, an LSM,
 * audit, fsnotify, protection keys, memfd seals), stubbed as a kernel
 * built without them behaves.  Included by kernel_mm.c right before the
 * extracted code, after mremap.h (get_unmapped_area() and mm_populate()).
 */
#ifndef _MM_SIM_MMAP_H
#define _MM_SIM_MMAP_H

/*
 * uapi/asm-generic/mman-common.h, mman.h, uapi/linux/mman.h,
 * arch/x86/include/uapi/asm/mman.h: ABI values, the same on every tree.
 */
#define MAP_TYPE		0x0f
#ifndef MAP_SHARED
#define MAP_SHARED		0x01
#endif
#define MAP_PRIVATE		0x02
#define MAP_SHARED_VALIDATE	0x03
#define MAP_DROPPABLE		0x08
#ifndef MAP_FIXED
#define MAP_FIXED		0x10
#endif
#define MAP_ANONYMOUS		0x20
#define MAP_32BIT		0x40	/* x86: read only by x86's arch_get_unmapped_area(), not here */
#define MAP_ABOVE4G		0x80
#define MAP_GROWSDOWN		0x0100
#define MAP_DENYWRITE		0x0800
#define MAP_EXECUTABLE		0x1000
#define MAP_LOCKED		0x2000
#define MAP_NORESERVE		0x4000
#define MAP_POPULATE		0x008000
#define MAP_NONBLOCK		0x010000
#define MAP_STACK		0x020000
#define MAP_HUGETLB		0x040000
#define MAP_SYNC		0x080000
#define MAP_FIXED_NOREPLACE	0x100000
#define MAP_UNINITIALIZED	0x4000000
#define MAP_HUGE_SHIFT		26
#define MAP_HUGE_MASK		0x3f
#define MAP_HUGE_2MB		(21U << MAP_HUGE_SHIFT)
#define MAP_HUGE_1GB		(30U << MAP_HUGE_SHIFT)

/*
 * Files: a simulated file is a regular file opened read-write on a
 * mount without noexec (ksim_file_open()); no append-only or swap files,
 * no memfd seals, no hugetlbfs.
 */
#define FMODE_READ		((fmode_t)(1 << 0))
#define FMODE_WRITE		((fmode_t)(1 << 1))
#define S_IFMT			00170000
#define S_IFSOCK		0140000
#define S_IFBLK			0060000
#define S_IFREG			0100000
#define S_ISREG(m)		(((m) & S_IFMT) == S_IFREG)
#define S_ISBLK(m)		(((m) & S_IFMT) == S_IFBLK)
#define S_ISSOCK(m)		(((m) & S_IFMT) == S_IFSOCK)
#define MAX_LFS_FILESIZE	((loff_t)LLONG_MAX)	/* include/linux/fs.h, 64-bit */
#define FOP_MMAP_SYNC		((fop_flags_t)(1 << 2))	/* include/linux/fs.h: no simulated file has it */
#define FOP_UNSIGNED_OFFSET	((fop_flags_t)(1 << 5))
struct inode {
	umode_t i_mode;
};
/* every simulated file is a regular file: its inode is one shared S_IFREG inode */
static const struct inode ksim_reg_inode = { .i_mode = S_IFREG };
#define file_inode(f)			((struct inode *)&ksim_reg_inode)
#define IS_APPEND(inode)		false
#define IS_SWAPFILE(inode)		false	/* (the argument, f_mapping->host, is not simulated) */
#define path_noexec(path)		false
#define memfd_check_seals_mmap(f, vf)	0

/* fs/file.c's fget() on current->mm's ksim_fd[] table (sim_memory.c): a reference, or NULL */
struct file *fget(unsigned int fd);

/* no LSM, audit, fsnotify, protection keys (can_do_mlock() is mm/mlock.c's: extract/syscalls.txt) */
#define security_mmap_file(file, prot, flags)		0
#define fsnotify_mmap_perm(file, prot, off, len)	0
#define audit_mmap_fd(fd, flags)			do { } while (0)
#define execute_only_pkey(mm)				0
#define arch_calc_vm_flag_bits(file, flags)		0

/* hugetlb not configured (include/linux/hugetlb.h's stubs): MAP_HUGETLB is -EINVAL */
#define hstate_sizelog(log)				((struct hstate *)NULL)
#define hstate_file(f)					((struct hstate *)NULL)
#define hugetlb_file_setup(name, size, vmf, creat, log)	ERR_PTR(-ENOSYS)

#ifndef ENOTSUPP
#define ENOTSUPP	524	/* include/linux/errno.h: MAP_DROPPABLE where VM_DROPPABLE is VM_NONE */
#endif

/* mm/util.c: the default overcommit policy, so MAP_NORESERVE is honoured */
#define OVERCOMMIT_GUESS	0
#define OVERCOMMIT_NEVER	2
#define sysctl_overcommit_memory	OVERCOMMIT_GUESS

#endif
