// SPDX-License-Identifier: GPL-2.0
/*
 * Map fds and map ids: kernel/bpf/syscall.c's bpf_map_new_fd(), the map
 * file's release, bpf_map_alloc_id()/bpf_map_free_id() and the id lookup
 * of BPF_MAP_GET_FD_BY_ID/BPF_MAP_GET_NEXT_ID, for the bpf(2) layer
 * (sys_bpf.c) and for kernel/bpf/map_in_map.c, which takes inner maps by
 * fd (fdget(), __bpf_map_get()) and reports them by id.
 *
 * A map fd is a real fd of the process, open on /dev/null, so that its
 * number is unique and the lowest free one, as the kernel's, and never
 * collides with the test's own files; the table below, indexed by that
 * number, holds its struct file.  Files are plain calloc()s: creating an fd
 * makes no kernel allocation, so the fault sweeps (which count the
 * allocations of map commands) see none here.
 *
 * Two kinds of file:
 *   - the driver's (ksim_bpf_map_fd()): made on first use for a map the
 *     driver created (ksim_bpf_map_create()), owning no reference: the
 *     creator's reference is dropped by ksim_bpf_map_free(), which closes
 *     this fd first (then it is a bad fd, -EBADF);
 *   - bpf(2)'s (ksim_bpf_map_new_fd(): BPF_MAP_CREATE, BPF_MAP_GET_FD_BY_ID):
 *     owns one user reference of the map (refcnt + usercnt), dropped when
 *     the file's last reference goes, after close() (ksim_bpf_close())
 *     and every fdget() of a command in flight: bpf_map_release().
 *
 * Ids count up from 1 (the kernel's idr_alloc_cyclic() never hands out an
 * id again before it wraps at INT_MAX); a map leaves the id table when its
 * last reference goes (bpf_map_put(): bpf_map_free_id()).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/bpf.h>
#include <linux/file.h>
#include <ksim/bpf.h>

#define KSIM_BPF_NR_FDS	1024

/* __bpf_map_get() compares f_op with the map file's: ours is this. */
static const int ksim_bpf_map_fops;

static struct file *fd_table[KSIM_BPF_NR_FDS];
static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;
static u32 next_id;
static bool primary_fds;	/* a driver fd was ever made (else map frees skip the scan) */
static LIST_HEAD(id_list);	/* maps with an id, by map->ksim_id_node */

/* bpf_map_alloc_id() */
void ksim_bpf_map_new_id(struct bpf_map *map)
{
	pthread_mutex_lock(&fd_lock);
	map->id = ++next_id;
	list_add_tail(&map->ksim_id_node, &id_list);
	pthread_mutex_unlock(&fd_lock);
}

/* bpf_map_free_id(): the id goes with the last reference (bpf_map_put()) */
void ksim_bpf_map_free_id(struct bpf_map *map)
{
	pthread_mutex_lock(&fd_lock);
	if (map->id) {
		list_del(&map->ksim_id_node);
		WRITE_ONCE(map->id, 0);
	}
	pthread_mutex_unlock(&fd_lock);
}

/* A new fd for @file: -EMFILE when the process has none left below the table's end. */
static int install_fd(struct file *file)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fd >= KSIM_BPF_NR_FDS) {
		close(fd);
		return -EMFILE;
	}
	pthread_mutex_lock(&fd_lock);
	BUG_ON(fd_table[fd]);	/* an fd closed behind our back (close() not ksim_bpf_close()) */
	file->ksim_fd = fd;
	fd_table[fd] = file;
	pthread_mutex_unlock(&fd_lock);
	return fd;
}

static struct file *new_file(struct bpf_map *map, fmode_t mode, bool primary)
{
	struct file *file = calloc(1, sizeof(*file));

	if (!file)
		return NULL;
	file->f_op = &ksim_bpf_map_fops;
	file->private_data = map;
	file->f_mode = mode;
	file->f_count = 1;	/* the fd table's */
	file->ksim_primary = primary;
	return file;
}

int ksim_bpf_map_fd(struct bpf_map *map)
{
	struct file *file;
	int fd;

	pthread_mutex_lock(&fd_lock);
	for (fd = 0; fd < KSIM_BPF_NR_FDS; fd++)
		if (fd_table[fd] && fd_table[fd]->private_data == map)
			break;
	pthread_mutex_unlock(&fd_lock);
	if (fd < KSIM_BPF_NR_FDS)
		return fd;
	file = new_file(map, FMODE_READ | FMODE_WRITE | FMODE_CAN_READ | FMODE_CAN_WRITE, true);
	if (!file)
		return -ENOMEM;
	__atomic_store_n(&primary_fds, true, __ATOMIC_RELAXED);
	fd = install_fd(file);
	if (fd < 0)
		free(file);
	return fd;
}

/* bpf_map_new_fd(): @flags O_RDONLY, O_WRONLY or O_RDWR (bpf_get_file_flag()) */
int ksim_bpf_map_new_fd(struct bpf_map *map, int flags)
{
	fmode_t mode = 0;
	struct file *file;
	int fd;

	if ((flags & O_ACCMODE) != O_WRONLY)
		mode |= FMODE_READ | FMODE_CAN_READ;
	if ((flags & O_ACCMODE) != O_RDONLY)
		mode |= FMODE_WRITE | FMODE_CAN_WRITE;
	file = new_file(map, mode, false);
	if (!file)
		return -ENOMEM;
	fd = install_fd(file);
	if (fd < 0)
		free(file);
	return fd;
}

void fput(struct file *file)
{
	long left;

	pthread_mutex_lock(&fd_lock);
	left = --file->f_count;
	pthread_mutex_unlock(&fd_lock);
	BUG_ON(left < 0);
	if (left)
		return;
	/* bpf_map_release(): the file's user reference */
	if (!file->ksim_primary)
		bpf_map_put_with_uref(file->private_data);
	free(file);
}

/* Take @fd out of the table; its file, or NULL when @fd is not a map fd. */
static struct file *remove_fd(int fd)
{
	struct file *file = NULL;

	pthread_mutex_lock(&fd_lock);
	if (fd >= 0 && fd < KSIM_BPF_NR_FDS) {
		file = fd_table[fd];
		fd_table[fd] = NULL;
	}
	pthread_mutex_unlock(&fd_lock);
	return file;
}

int ksim_bpf_close(int fd)
{
	struct file *file = remove_fd(fd);

	if (!file)
		return -EBADF;
	close(fd);
	fput(file);
	return 0;
}

void ksim_bpf_map_close_fd(struct bpf_map *map)
{
	int fd, found = -1;

	if (!__atomic_load_n(&primary_fds, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&fd_lock);
	for (fd = 0; fd < KSIM_BPF_NR_FDS && found < 0; fd++)
		if (fd_table[fd] && fd_table[fd]->private_data == map && fd_table[fd]->ksim_primary)
			found = fd;
	pthread_mutex_unlock(&fd_lock);
	if (found >= 0)
		ksim_bpf_close(found);
}

struct fd fdget(unsigned int fd)
{
	struct fd f = { NULL };

	pthread_mutex_lock(&fd_lock);
	if (fd < KSIM_BPF_NR_FDS && fd_table[fd]) {
		f.file = fd_table[fd];
		f.file->f_count++;
	}
	pthread_mutex_unlock(&fd_lock);
	return f;
}

/* kernel/bpf/syscall.c's */
struct bpf_map *__bpf_map_get(struct fd f)
{
	if (!fd_file(f))
		return ERR_PTR(-EBADF);
	if (fd_file(f)->f_op != &ksim_bpf_map_fops)
		return ERR_PTR(-EINVAL);
	return fd_file(f)->private_data;
}

/*
 * BPF_MAP_GET_FD_BY_ID's lookup: a user reference of the map with @id
 * (__bpf_map_inc_not_zero(map, true)), or -ENOENT.
 */
struct bpf_map *ksim_bpf_map_get_by_id(u32 id)
{
	struct bpf_map *map, *found = ERR_PTR(-ENOENT);

	pthread_mutex_lock(&fd_lock);
	list_for_each_entry(map, &id_list, ksim_id_node) {
		if (map->id != id)
			continue;
		if (atomic64_fetch_add_unless(&map->refcnt, 1, 0)) {
			atomic64_inc(&map->usercnt);
			found = map;
		}
		break;
	}
	pthread_mutex_unlock(&fd_lock);
	return found;
}

/* BPF_MAP_GET_NEXT_ID: the smallest id above @start, or -ENOENT. */
int ksim_bpf_map_next_id(u32 start, u32 *next)
{
	struct bpf_map *map;
	u32 best = 0;

	pthread_mutex_lock(&fd_lock);
	list_for_each_entry(map, &id_list, ksim_id_node)
		if (map->id > start && (!best || map->id < best))
			best = map->id;
	pthread_mutex_unlock(&fd_lock);
	if (!best)
		return -ENOENT;
	*next = best;
	return 0;
}
