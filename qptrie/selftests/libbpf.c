// SPDX-License-Identifier: GPL-2.0
/*
 * libbpf for the selftests: the tree's own tools/lib/bpf/bpf.c, unmodified
 * (bpf_map_create(), bpf_map_*_elem(), the _batch calls,
 * bpf_map_get_info_by_fd(), ... with libbpf's signatures, LIBBPF_OPTS and
 * errno conventions: -errno returned and errno set), its system call
 * routed to ksim's bpf(2) (shim/kernel/bpf/sys_bpf.c).  What bpf.c needs
 * from the rest of libbpf is here: the feature probe (a kernel with map
 * names and memcg accounting, so no RLIMIT_MEMLOCK bump), libbpf_print(),
 * libbpf_num_possible_cpus() (the shim's CPUs, which size per-CPU values),
 * and stand-ins for the libbpf.c calls the selftests make around BPF
 * objects and programs: a part that reaches one fails, naming it (such
 * parts are skipped, with that reason, before they run).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ksim/sys_bpf.h"
#include "selftests.h"

/* syscall(__NR_bpf, cmd, attr, size[, common attrs]) as the kernel answers it */
static long ksim_libbpf_syscall(long nr, ...)
{
	unsigned int size;
	va_list ap;
	void *attr;
	int cmd, ret;

	if (nr != __NR_bpf) {
		errno = ENOSYS;
		return -1;
	}
	va_start(ap, nr);
	cmd = va_arg(ap, int);
	attr = va_arg(ap, void *);
	size = va_arg(ap, unsigned int);
	va_end(ap);
	ret = ksim_selftest_sys_bpf(cmd, attr, size);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}
#define syscall ksim_libbpf_syscall
#define close(fd) ksim_selftest_close(fd)

#include <tools/lib/bpf/bpf.c>

#undef close
#undef syscall

/* libbpf.c's feature probes: what ksim's bpf(2) is */
#if KSIM_HAVE_LIBBPF_FEAT_SUPPORTED
bool feat_supported(struct kern_feature_cache *cache, enum kern_feature_id feat_id)
#else
bool kernel_supports(const struct bpf_object *obj, enum kern_feature_id feat_id)
#endif
{
	return feat_id == FEAT_PROG_NAME || feat_id == FEAT_MEMCG_ACCOUNT;
}

static libbpf_print_fn_t print_fn;

void libbpf_print(enum libbpf_print_level level, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	if (print_fn)
		print_fn(level, format, ap);
	else if (level == LIBBPF_WARN)
		vfprintf(stderr, format, ap);
	va_end(ap);
}

libbpf_print_fn_t libbpf_set_print(libbpf_print_fn_t fn)
{
	libbpf_print_fn_t old = print_fn;

	print_fn = fn;
	return old;
}

int libbpf_set_strict_mode(enum libbpf_strict_mode mode)
{
	return 0;	/* libbpf 1.0 behaviour is the only one here */
}

int libbpf_num_possible_cpus(void)
{
	return ksim_sys_nr_possible_cpus();
}

long libbpf_get_error(const void *ptr)
{
	if (!ptr)
		return -errno;
	if ((unsigned long)ptr >= (unsigned long)-4095) {
		errno = -(long)ptr;
		return (long)ptr;
	}
	return 0;
}

int libbpf_probe_bpf_map_type(enum bpf_map_type map_type, const void *opts)
{
	return ksim_sys_map_type_supported(map_type);
}

/* ---- BPF objects and programs: not emulated ---- */

#define NO_PROGRAMS(what) \
	ksim_selftest_failed("needs BPF objects and programs (" what "), which ksim does not run", \
			     __FILE__, __LINE__, __func__)

struct bpf_object *bpf_object__open(const char *path)
{
	NO_PROGRAMS("bpf_object__open");
}

int bpf_object__load(struct bpf_object *obj)
{
	NO_PROGRAMS("bpf_object__load");
}

void bpf_object__close(struct bpf_object *obj)
{
	if (obj)
		NO_PROGRAMS("bpf_object__close");
}

struct bpf_map *bpf_object__find_map_by_name(const struct bpf_object *obj, const char *name)
{
	NO_PROGRAMS("bpf_object__find_map_by_name");
}

int bpf_map__fd(const struct bpf_map *map)
{
	NO_PROGRAMS("bpf_map__fd");
}

int bpf_map__set_inner_map_fd(struct bpf_map *map, int fd)
{
	NO_PROGRAMS("bpf_map__set_inner_map_fd");
}

int bpf_program__fd(const struct bpf_program *prog)
{
	NO_PROGRAMS("bpf_program__fd");
}

/* testing_helpers.c's */
int bpf_prog_test_load(const char *file, enum bpf_prog_type type, struct bpf_object **pobj,
		       int *prog_fd)
{
	NO_PROGRAMS("bpf_prog_test_load");
}
