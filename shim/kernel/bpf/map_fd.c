// SPDX-License-Identifier: GPL-2.0
/*
 * Map fds and map ids, for the map-in-map code (kernel/bpf/map_in_map.c
 * takes inner maps by fd and reports them by id).  The kernel's are files
 * and an idr; ours are a fixed table and a counter, so that creating a map
 * allocates nothing more than it did (the fault sweeps count allocation
 * sites).  An fd is the user's reference from creation: it is given out by
 * ksim_bpf_map_fd() and closed by ksim_bpf_map_free() (bpf_map_release()),
 * after which it is a bad fd (-EBADF), as a closed one would be.
 */
#include <pthread.h>

#include <linux/kernel.h>
#include <linux/bpf.h>
#include <linux/file.h>
#include <ksim/bpf.h>

#define KSIM_BPF_NR_FDS	1024
#define KSIM_BPF_FD0	3	/* 0..2 are never maps */

/* __bpf_map_get() compares f_op with the map file's: ours is this. */
static const int ksim_bpf_map_fops;

static struct file fd_table[KSIM_BPF_NR_FDS];
static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_t next_id = ATOMIC_INIT(0);
static bool fds_given;

/* bpf_map_alloc_id(): ids count up from 1 (idr_alloc_cyclic) */
void ksim_bpf_map_new_id(struct bpf_map *map)
{
	map->id = atomic_inc_return(&next_id);
}

int ksim_bpf_map_fd(struct bpf_map *map)
{
	int fd = -EMFILE, free_fd = -1;

	pthread_mutex_lock(&fd_lock);
	for (int i = 0; i < KSIM_BPF_NR_FDS; i++) {
		if (fd_table[i].private_data == map) {
			fd = i;
			break;
		}
		if (free_fd < 0 && !fd_table[i].private_data)
			free_fd = i;
	}
	if (fd < 0 && free_fd >= 0) {
		fd_table[free_fd].f_op = &ksim_bpf_map_fops;
		fd_table[free_fd].private_data = map;
		fd = free_fd;
		__atomic_store_n(&fds_given, true, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&fd_lock);
	return fd < 0 ? fd : fd + KSIM_BPF_FD0;
}

void ksim_bpf_map_close_fd(struct bpf_map *map)
{
	/* no fd ever given (maps outside map-in-map tests): no lock, no scan */
	if (!__atomic_load_n(&fds_given, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&fd_lock);
	for (int i = 0; i < KSIM_BPF_NR_FDS; i++) {
		if (fd_table[i].private_data == map) {
			fd_table[i].private_data = NULL;
			fd_table[i].f_op = NULL;
		}
	}
	pthread_mutex_unlock(&fd_lock);
}

struct fd fdget(unsigned int fd)
{
	struct fd f = { NULL };

	pthread_mutex_lock(&fd_lock);
	if (fd >= KSIM_BPF_FD0 && fd - KSIM_BPF_FD0 < KSIM_BPF_NR_FDS &&
	    fd_table[fd - KSIM_BPF_FD0].private_data)
		f.file = &fd_table[fd - KSIM_BPF_FD0];
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
 * map_in_map.c compares an inner map's ops with the array maps' (whose
 * meta it copies bigger); no arraymap.c is built, so these are never a
 * map's ops.  Weak: a build that links arraymap.c gets the real ones.
 */
const struct bpf_map_ops array_map_ops __attribute__((weak)) = { };
const struct bpf_map_ops percpu_array_map_ops __attribute__((weak)) = { };
