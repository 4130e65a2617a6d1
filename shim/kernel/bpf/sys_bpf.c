// SPDX-License-Identifier: GPL-2.0
/*
 * The bpf(2) system call for maps: kernel/bpf/syscall.c's __sys_bpf() and
 * its map commands, by file descriptor, over the driver (syscall.c,
 * ksim/bpf.h), for user-space code built against libbpf (the selftests:
 * qptrie/selftests/, through the tree's own tools/lib/bpf/bpf.c).
 *
 * What each command does, in the kernel's order (7.3 line numbers in
 * kernel/bpf/syscall.c): the attr copied in with bpf_check_uarg_tail_zero()
 * (-E2BIG for non-zero bytes past the kernel's union), the fields past the
 * command's last one checked zero (CHECK_ATTR, -EINVAL), the map fd looked
 * up (-EBADF, -EINVAL for an fd that is not a map), the file's permissions
 * (map_get_sys_perms(): BPF_F_RDONLY/BPF_F_WRONLY at creation, a frozen
 * map is read-only: -EPERM), the op's flags (the driver's checks), the key
 * copied into kernel memory (kvmalloc: -ENOMEM), a kernel buffer for the
 * value, the op (the driver: the tree's bpf_map_copy_value()/
 * bpf_map_update_value(), extracted), the value copied out.  A NULL user
 * pointer where the kernel would copy is -EFAULT (user memory is ours: no
 * other address can be caught).
 *
 * Commands: BPF_MAP_CREATE, _LOOKUP_ELEM, _UPDATE_ELEM, _DELETE_ELEM,
 * _GET_NEXT_KEY, _LOOKUP_AND_DELETE_ELEM, _FREEZE, the four _BATCH
 * commands (the map's own batch ops, else the tree's generic ones),
 * BPF_MAP_GET_FD_BY_ID, BPF_MAP_GET_NEXT_ID, BPF_OBJ_GET_INFO_BY_FD (maps).
 * Every other command (programs, links, BTF, pinning) is -EOPNOTSUPP with
 * one line on stderr: ksim runs no BPF programs.
 *
 * A command runs on a simulated CPU of its own (cpu_get()): the kernel's
 * map code keeps per-CPU state that only the task on that CPU touches while
 * preemption is off (hashtab.c's extra_elems swap on a preallocated
 * BPF_EXIST update, 6.x's map_locked counters), and ksim's CPUs are
 * numbers (linux/smp.h), so two threads of a multi-threaded program (the
 * selftests' run_parallel(): 100) would share one.  So at most
 * KSIM_NR_CPUS commands are in the kernel at once, each on a free CPU, as
 * on a machine of that many CPUs whose tasks are not preempted in a
 * syscall.  Threads of the same CPU are ordered for ThreadSanitizer as a
 * context switch orders them; commands on different CPUs are not.
 *
 * Differences: BPF_MAP_CREATE's CHECK_ATTR is not done (its last field
 * moves from tree to tree; libbpf zeroes what it does not set); a map with
 * BTF (btf_fd, key/value type ids) or for a device (map_ifindex), or a BPF
 * token, is -EOPNOTSUPP (no BTF objects, devices or tokens here); no
 * capability checks (root); no memcg, no LSM hooks.
 */
#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/bpf.h>
#include <linux/file.h>
#include <ksim/bpf.h>
#include <ksim/sys_bpf.h>

/* CHECK_ATTR(): the bytes of @attr past @last_end (offsetofend of the command's last field) are 0 */
static bool attr_tail_nonzero(const union bpf_attr *attr, size_t last_end)
{
	const u8 *p = (const u8 *)attr;

	for (size_t i = last_end; i < sizeof(*attr); i++)
		if (p[i])
			return true;
	return false;
}
#define CHECK_ATTR(attr, field)	attr_tail_nonzero(attr, offsetofend(union bpf_attr, field))

/* bpf_get_file_flag() */
static int file_flag(u32 flags)
{
	if ((flags & BPF_F_RDONLY) && (flags & BPF_F_WRONLY))
		return -EINVAL;
	if (flags & BPF_F_RDONLY)
		return O_RDONLY;
	if (flags & BPF_F_WRONLY)
		return O_WRONLY;
	return O_RDWR;
}

/* map_get_sys_perms() */
static fmode_t sys_perms(struct bpf_map *map, struct fd f)
{
	fmode_t mode = fd_file(f)->f_mode;

	if (READ_ONCE(map->frozen))
		mode &= ~FMODE_CAN_WRITE;
	return mode;
}

/* __bpf_copy_key(): a kernel copy of the key; NULL for a map without keys */
static void *copy_key(u64 ukey, u32 key_size)
{
	void *key;

	if (!key_size)
		return ukey ? ERR_PTR(-EINVAL) : NULL;
	if (!ukey)
		return ERR_PTR(-EFAULT);
	key = kvmalloc(key_size, GFP_USER | __GFP_NOWARN);
	if (!key)
		return ERR_PTR(-ENOMEM);
	memcpy(key, u64_to_user_ptr(ukey), key_size);
	return key;
}

/* bpf_obj_name_cpy(): letters, digits, '_' and '.', NUL within the field */
static int name_cpy(char *dst, const char *src, unsigned int size)
{
	const char *end = src + size;

	memset(dst, 0, size);
	while (src < end && *src) {
		if (!isalnum(*src) && *src != '_' && *src != '.')
			return -EINVAL;
		*dst++ = *src++;
	}
	return src == end ? -EINVAL : 0;
}

static int map_create(union bpf_attr *attr)
{
	const struct bpf_map_ops *ops;
	struct bpf_map *map;
	int err, f_flags, fd;

	if (attr->btf_fd || attr->btf_key_type_id || attr->btf_value_type_id ||
	    attr->btf_vmlinux_value_type_id || attr->map_ifindex) {
		fprintf(stderr, "ksim: bpf(BPF_MAP_CREATE): a map with BTF or for a device "
			"is not emulated (no BTF objects, no devices)\n");
		return -EOPNOTSUPP;
	}
	ops = ksim_bpf_map_type_ops(attr->map_type);
	if (!ops)
		return -EINVAL;	/* a map type this build has no code for, as one not compiled in */
	map = ksim_bpf_map_create_attr(ops, attr, NULL, &err);
	if (!map)
		return err;
	err = name_cpy(map->name, attr->map_name, sizeof(attr->map_name));
	f_flags = file_flag(attr->map_flags);
	if (!err && f_flags < 0)
		err = f_flags;
	if (err) {
		ksim_bpf_map_free(map);
		return err;
	}
	fd = ksim_bpf_map_new_fd(map, f_flags);
	if (fd < 0)
		ksim_bpf_map_free(map);	/* bpf_map_put_with_uref() */
	return fd;
}

/* The map of @ufd and a reference on its file (fdput() when done), or an error. */
static struct bpf_map *map_get(u32 ufd, struct fd *f)
{
	struct bpf_map *map;

	*f = fdget(ufd);
	map = __bpf_map_get(*f);
	if (IS_ERR(map)) {
		fdput(*f);
		*f = (struct fd){ NULL };
		return map;
	}
	if (map->map_flags & BPF_F_DYNPTR_KEY) {	/* the qp-trie series' own syscall layer */
		fdput(*f);
		*f = (struct fd){ NULL };
		return ERR_PTR(-EOPNOTSUPP);
	}
	return map;
}

static int map_lookup_elem(union bpf_attr *attr)
{
	struct bpf_map *map;
	void *key, *value;
	struct fd f;
	u32 size;
	int err;

	if (CHECK_ATTR(attr, flags))
		return -EINVAL;
	map = map_get(attr->map_fd, &f);
	if (IS_ERR(map))
		return PTR_ERR(map);
	err = -EPERM;
	if (!(sys_perms(map, f) & FMODE_CAN_READ))
		goto out;
	err = ksim_bpf_map_check_flags(map, attr->flags, false);
	if (err)
		goto out;
	key = copy_key(attr->key, map->key_size);
	err = PTR_ERR_OR_ZERO(key);
	if (err)
		goto out;
	size = ksim_bpf_value_size_flags(map, attr->flags);
	err = -ENOMEM;
	value = kvmalloc(size, GFP_USER | __GFP_NOWARN);
	if (!value)
		goto free_key;
	if (map->map_type == BPF_MAP_TYPE_BLOOM_FILTER) {	/* the value is what to look for */
		err = -EFAULT;
		if (attr->value) {
			memcpy(value, u64_to_user_ptr(attr->value), size);
			err = ksim_bpf_map_lookup(map, key, map->key_size, value, attr->flags);
		}
		goto free_value;
	}
	err = ksim_bpf_map_lookup(map, key, map->key_size, value, attr->flags);
	if (!err && !attr->value)
		err = -EFAULT;
	if (!err)
		memcpy(u64_to_user_ptr(attr->value), value, size);
free_value:
	kvfree(value);
free_key:
	kvfree(key);
out:
	fdput(f);
	return err;
}

static int map_update_elem(union bpf_attr *attr)
{
	struct bpf_map *map;
	struct fd f;
	void *key;
	int err;

	if (CHECK_ATTR(attr, flags))
		return -EINVAL;
	map = map_get(attr->map_fd, &f);
	if (IS_ERR(map))
		return PTR_ERR(map);
	err = -EPERM;
	if (!(sys_perms(map, f) & FMODE_CAN_WRITE))
		goto out;
	err = ksim_bpf_map_check_flags(map, attr->flags, true);
	if (err)
		goto out;
	key = copy_key(attr->key, map->key_size);
	err = PTR_ERR_OR_ZERO(key);
	if (err)
		goto out;
	err = -EFAULT;
	if (attr->value)	/* the driver copies the value into a kernel buffer */
		err = ksim_bpf_map_update_file(map, fd_file(f), key, map->key_size,
					       u64_to_user_ptr(attr->value), attr->flags);
	if (!err)
		ksim_bpf_maybe_wait_programs(map);
	kvfree(key);
out:
	fdput(f);
	return err;
}

static int map_delete_elem(union bpf_attr *attr)
{
	struct bpf_map *map;
	struct fd f;
	void *key;
	int err;

	if (CHECK_ATTR(attr, key))
		return -EINVAL;
	map = map_get(attr->map_fd, &f);
	if (IS_ERR(map))
		return PTR_ERR(map);
	err = -EPERM;
	if (!(sys_perms(map, f) & FMODE_CAN_WRITE))
		goto out;
	key = copy_key(attr->key, map->key_size);
	err = PTR_ERR_OR_ZERO(key);
	if (err)
		goto out;
	err = ksim_bpf_map_delete(map, key, map->key_size);
	if (!err)
		ksim_bpf_maybe_wait_programs(map);
	kvfree(key);
out:
	fdput(f);
	return err;
}

static int map_get_next_key(union bpf_attr *attr)
{
	struct bpf_map *map;
	void *key = NULL, *next;
	u32 next_len;
	struct fd f;
	int err;

	if (CHECK_ATTR(attr, next_key))
		return -EINVAL;
	map = map_get(attr->map_fd, &f);
	if (IS_ERR(map))
		return PTR_ERR(map);
	err = -EPERM;
	if (!(sys_perms(map, f) & FMODE_CAN_READ))
		goto out;
	if (attr->key) {
		key = copy_key(attr->key, map->key_size);
		err = PTR_ERR_OR_ZERO(key);
		if (err)
			goto out;
	}
	err = -ENOMEM;
	next = kvmalloc(map->key_size, GFP_USER);
	if (!next)
		goto free_key;
	next_len = map->key_size;
	err = ksim_bpf_map_get_next_key(map, key, key ? map->key_size : 0, next, &next_len);
	if (!err && !attr->next_key)
		err = -EFAULT;
	if (!err)
		memcpy(u64_to_user_ptr(attr->next_key), next, map->key_size);
	kvfree(next);
free_key:
	kvfree(key);
out:
	fdput(f);
	return err;
}

static int map_lookup_and_delete_elem(union bpf_attr *attr)
{
	struct bpf_map *map;
	void *key, *value;
	struct fd f;
	u32 size;
	int err;

	if (CHECK_ATTR(attr, flags))
		return -EINVAL;
	if (attr->flags & ~BPF_F_LOCK)
		return -EINVAL;
	map = map_get(attr->map_fd, &f);
	if (IS_ERR(map))
		return PTR_ERR(map);
	err = -EPERM;
	if (!(sys_perms(map, f) & FMODE_CAN_READ) || !(sys_perms(map, f) & FMODE_CAN_WRITE))
		goto out;
	key = copy_key(attr->key, map->key_size);
	err = PTR_ERR_OR_ZERO(key);
	if (err)
		goto out;
	size = ksim_bpf_value_size_flags(map, 0);
	err = -ENOMEM;
	value = kvmalloc(size, GFP_USER | __GFP_NOWARN);
	if (!value)
		goto free_key;
	err = ksim_bpf_map_lookup_and_delete(map, key, map->key_size, value, attr->flags);
	if (!err && !attr->value)
		err = -EFAULT;
	if (!err)
		memcpy(u64_to_user_ptr(attr->value), value, size);
	kvfree(value);
free_key:
	kvfree(key);
out:
	fdput(f);
	return err;
}

/* map_freeze() */
static int map_freeze(union bpf_attr *attr)
{
	struct bpf_map *map;
	struct fd f;
	int err = 0;

	if (CHECK_ATTR(attr, map_fd))
		return -EINVAL;
	map = map_get(attr->map_fd, &f);
	if (IS_ERR(map))
		return PTR_ERR(map);
	if (btf_record_has_field(map->record, BPF_TIMER | BPF_WORKQUEUE | BPF_TASK_WORK)) {
		err = -ENOTSUPP;
		goto out;
	}
	mutex_lock(&map->freeze_mutex);
	if (atomic64_read(&map->writecnt) || READ_ONCE(map->frozen))
		err = -EBUSY;
	else if (!(sys_perms(map, f) & FMODE_CAN_WRITE))
		err = -EPERM;
	else
		WRITE_ONCE(map->frozen, true);
	mutex_unlock(&map->freeze_mutex);
out:
	fdput(f);
	return err;
}

/*
 * bpf_map_do_batch(): the map's batch op (its own, or the tree's generic
 * one), which reads @attr and writes the count and cursor back to the
 * caller's @uattr; -ENOTSUPP for a map without it.
 */
static int map_do_batch(union bpf_attr *attr, union bpf_attr *uattr, int cmd)
{
	bool has_read = cmd == BPF_MAP_LOOKUP_BATCH || cmd == BPF_MAP_LOOKUP_AND_DELETE_BATCH;
	bool has_write = cmd != BPF_MAP_LOOKUP_BATCH;
	struct bpf_map *map;
	struct fd f;
	int err;

	if (CHECK_ATTR(attr, batch.flags))
		return -EINVAL;
	map = map_get(attr->batch.map_fd, &f);
	if (IS_ERR(map))
		return PTR_ERR(map);
	err = -EPERM;
	if (has_read && !(sys_perms(map, f) & FMODE_CAN_READ))
		goto out;
	if (has_write && !(sys_perms(map, f) & FMODE_CAN_WRITE))
		goto out;
	err = -ENOTSUPP;
	if (cmd == BPF_MAP_LOOKUP_BATCH) {
		if (map->ops->map_lookup_batch)
			err = map->ops->map_lookup_batch(map, attr, uattr);
	} else if (cmd == BPF_MAP_LOOKUP_AND_DELETE_BATCH) {
		if (map->ops->map_lookup_and_delete_batch)
			err = map->ops->map_lookup_and_delete_batch(map, attr, uattr);
	} else if (cmd == BPF_MAP_UPDATE_BATCH) {
		if (map->ops->map_update_batch)
#if KSIM_HAVE_BPF_OPS_LONG
			err = map->ops->map_update_batch(map, fd_file(f), attr, uattr);
#else
			err = map->ops->map_update_batch(map, attr, uattr);
#endif
	} else if (map->ops->map_delete_batch) {
		err = map->ops->map_delete_batch(map, attr, uattr);
	}
	if (has_write)
		ksim_bpf_maybe_wait_programs(map);
out:
	fdput(f);
	return ksim_bpf_cmd_done(err);
}

/* bpf_map_get_fd_by_id() */
static int map_get_fd_by_id(union bpf_attr *attr)
{
	struct bpf_map *map;
	int f_flags, fd;

	if (CHECK_ATTR(attr, open_flags))
		return -EINVAL;
	if (attr->open_flags & ~(BPF_F_RDONLY | BPF_F_WRONLY))
		return -EINVAL;
	f_flags = file_flag(attr->open_flags);
	if (f_flags < 0)
		return f_flags;
	map = ksim_bpf_map_get_by_id(attr->map_id);
	if (IS_ERR(map))
		return PTR_ERR(map);
	fd = ksim_bpf_map_new_fd(map, f_flags);
	if (fd < 0)
		bpf_map_put_with_uref(map);
	return fd;
}

/* bpf_obj_get_next_id() for maps */
static int map_get_next_id(union bpf_attr *attr, union bpf_attr *uattr)
{
	u32 next;
	int err;

	if (CHECK_ATTR(attr, next_id) || attr->start_id >= INT_MAX)
		return -EINVAL;
	err = ksim_bpf_map_next_id(attr->start_id, &next);
	if (!err)
		uattr->next_id = next;
	return err;
}

/* bpf_map_get_info_by_fd(), the fields a map without BTF or device has */
static int obj_get_info_by_fd(union bpf_attr *attr, union bpf_attr *uattr)
{
	struct bpf_map_info info, *uinfo = u64_to_user_ptr(attr->info.info);
	u32 info_len = attr->info.info_len;
	struct bpf_map *map;
	struct fd f;
	int err = 0;

	if (CHECK_ATTR(attr, info.info))
		return -EINVAL;
	map = map_get(attr->info.bpf_fd, &f);
	if (IS_ERR(map))
		return PTR_ERR(map);
	if (!uinfo) {
		err = -EFAULT;
		goto out;
	}
	/* bpf_check_uarg_tail_zero(): a bigger struct than ours must end in zeroes */
	for (u32 i = sizeof(info); i < info_len; i++)
		if (((u8 *)uinfo)[i]) {
			err = -E2BIG;
			goto out;
		}
	info_len = min_t(u32, sizeof(info), info_len);
	memset(&info, 0, sizeof(info));
	memcpy(&info, uinfo, info_len);
	info.type = map->map_type;
	info.id = map->id;
	info.key_size = map->key_size;
	info.value_size = map->value_size;
	info.max_entries = map->max_entries;
	info.map_flags = map->map_flags;
	info.map_extra = map->map_extra;
	memcpy(info.name, map->name, sizeof(info.name));
	memcpy(uinfo, &info, info_len);
	uattr->info.info_len = info_len;
out:
	fdput(f);
	return err;
}

static const char *const cmd_names[] = {
	[BPF_PROG_LOAD] = "BPF_PROG_LOAD", [BPF_OBJ_PIN] = "BPF_OBJ_PIN",
	[BPF_OBJ_GET] = "BPF_OBJ_GET", [BPF_PROG_ATTACH] = "BPF_PROG_ATTACH",
	[BPF_PROG_DETACH] = "BPF_PROG_DETACH", [BPF_BTF_LOAD] = "BPF_BTF_LOAD",
	[BPF_LINK_CREATE] = "BPF_LINK_CREATE", [BPF_ITER_CREATE] = "BPF_ITER_CREATE",
};

/*
 * The free simulated CPUs, a bit each, and the threads waiting for one
 * (futex on the bit mask).  Relaxed atomics with fences: a CPU handed over
 * orders its two tasks for TSan (cpu_sync), nothing else does.
 */
static unsigned int cpus_free = (1u << KSIM_NR_CPUS) - 1;
static unsigned int cpu_waiters;
#ifdef KSIM_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
static char cpu_sync[KSIM_NR_CPUS];
#endif

static int cpu_get(void)
{
	unsigned int free, cpu;

	for (;;) {
		free = __atomic_load_n(&cpus_free, __ATOMIC_RELAXED);
		if (free) {
			cpu = __builtin_ctz(free);
			if (__atomic_compare_exchange_n(&cpus_free, &free, free & ~(1u << cpu), false,
							__ATOMIC_RELAXED, __ATOMIC_RELAXED))
				break;
			continue;
		}
		__atomic_fetch_add(&cpu_waiters, 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* against cpu_put()'s */
		syscall(SYS_futex, &cpus_free, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
		__atomic_fetch_sub(&cpu_waiters, 1, __ATOMIC_RELAXED);
	}
#ifdef KSIM_TSAN
	__tsan_acquire(&cpu_sync[cpu]);	/* after the CPU's previous task */
#endif
	return cpu;
}

static void cpu_put(int cpu)
{
#ifdef KSIM_TSAN
	__tsan_release(&cpu_sync[cpu]);
#endif
	__atomic_fetch_or(&cpus_free, 1u << cpu, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* a waiter counted, or it sees the bit */
	if (__atomic_load_n(&cpu_waiters, __ATOMIC_RELAXED))
		syscall(SYS_futex, &cpus_free, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static int sys_bpf(int cmd, union bpf_attr *uattr, unsigned int size);

int ksim_sys_bpf(int cmd, void *uattr, unsigned int size)
{
	int cpu = cpu_get(), pinned = ksim_cpu_pinned, err;

	ksim_set_cpu(cpu);
	err = sys_bpf(cmd, uattr, size);
	ksim_cpu_pinned = pinned;
	cpu_put(cpu);
	return err;
}

static int sys_bpf(int cmd, union bpf_attr *uattr, unsigned int size)
{
	union bpf_attr attr;
	int err;

	if (!uattr)
		return -EFAULT;
	/* bpf_check_uarg_tail_zero() and the copy of what the kernel knows */
	for (unsigned int i = sizeof(attr); i < size; i++)
		if (((u8 *)uattr)[i])
			return -E2BIG;
	memset(&attr, 0, sizeof(attr));
	memcpy(&attr, uattr, min_t(unsigned int, size, sizeof(attr)));

	switch (cmd) {
	case BPF_MAP_CREATE:
		err = map_create(&attr);
		break;
	case BPF_MAP_LOOKUP_ELEM:
		err = map_lookup_elem(&attr);
		break;
	case BPF_MAP_UPDATE_ELEM:
		err = map_update_elem(&attr);
		break;
	case BPF_MAP_DELETE_ELEM:
		err = map_delete_elem(&attr);
		break;
	case BPF_MAP_GET_NEXT_KEY:
		err = map_get_next_key(&attr);
		break;
	case BPF_MAP_LOOKUP_AND_DELETE_ELEM:
		err = map_lookup_and_delete_elem(&attr);
		break;
	case BPF_MAP_FREEZE:
		err = map_freeze(&attr);
		break;
	case BPF_MAP_LOOKUP_BATCH:
	case BPF_MAP_LOOKUP_AND_DELETE_BATCH:
	case BPF_MAP_UPDATE_BATCH:
	case BPF_MAP_DELETE_BATCH:
		err = map_do_batch(&attr, uattr, cmd);
		break;
	case BPF_MAP_GET_FD_BY_ID:
		err = map_get_fd_by_id(&attr);
		break;
	case BPF_MAP_GET_NEXT_ID:
		err = map_get_next_id(&attr, uattr);
		break;
	case BPF_OBJ_GET_INFO_BY_FD:
		err = obj_get_info_by_fd(&attr, uattr);
		break;
	default:
		fprintf(stderr, "ksim: bpf(%s): only map commands are emulated (no BPF programs, "
			"links, BTF or pinning)\n",
			cmd >= 0 && cmd < (int)ARRAY_SIZE(cmd_names) && cmd_names[cmd] ?
			cmd_names[cmd] : "command");
		return -EOPNOTSUPP;
	}
	return err;
}

int ksim_sys_close(int fd)
{
	int cpu = cpu_get(), pinned = ksim_cpu_pinned, err;

	/* the last reference of a map may go with its fd: its free is kernel work */
	ksim_set_cpu(cpu);
	err = ksim_bpf_close(fd);
	ksim_cpu_pinned = pinned;
	cpu_put(cpu);
	return err;
}

int ksim_sys_nr_possible_cpus(void)
{
	return num_possible_cpus();
}

int ksim_sys_map_type_supported(int map_type)
{
	return ksim_bpf_map_type_ops(map_type) != NULL;
}
