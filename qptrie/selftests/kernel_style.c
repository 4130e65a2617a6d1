// SPDX-License-Identifier: GPL-2.0
/*
 * The bpf findings of docs/findings.toml written as tests in the style of
 * tools/testing/selftests/bpf/test_maps.c (bpf(2) through libbpf, assert(),
 * the file's map_opts), so that `scripts/ksim report ID --patch DIR` can add
 * them there, called from run_all_tests().  Here each is a part of
 * bpf_selftests (label bpf-selftests, kernel_style/<name>), on ksim's bpf(2)
 * layer over the tree's map code; where its finding is present it XFAILs.
 *
 * Test code is ours.
 */
#include "map_test.h"

#include <bpf/bpf.h>
#include "bpf_util.h"

/* test_maps.c's own, which its tests pass to bpf_map_create() */
static struct bpf_map_create_opts map_opts = { .sz = sizeof(map_opts) };

/*
 * bpf-percpu-update-flags: an update of a per-CPU hash with BPF_NOEXIST and
 * BPF_EXIST together is refused, as for every other map type.
 */
static void test_hashmap_percpu_update_flags(unsigned int task, void *data)
{
	unsigned int nr_cpus = bpf_num_possible_cpus();
	BPF_DECLARE_PERCPU(long, value);
	long long key = 1;
	int fd, i;

	fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, NULL, sizeof(key),
			    sizeof(bpf_percpu(value, 0)), 2, &map_opts);
	if (fd < 0) {
		printf("Failed to create hashmap '%s'!\n", strerror(errno));
		exit(1);
	}

	for (i = 0; i < nr_cpus; i++)
		bpf_percpu(value, i) = i + 100;

	assert(bpf_map_update_elem(fd, &key, value, BPF_NOEXIST | BPF_EXIST) < 0 &&
	       errno == EINVAL);
	assert(bpf_map_lookup_elem(fd, &key, value) < 0 && errno == ENOENT);

	close(fd);
}

static void part_percpu_update_flags(void)
{
	map_opts.map_flags = 0;
	test_hashmap_percpu_update_flags(0, NULL);
}

static void part_percpu_update_flags_np(void)
{
	map_opts.map_flags = BPF_F_NO_PREALLOC;
	test_hashmap_percpu_update_flags(0, NULL);
}

KSIM_SELFTEST_REG(ks_percpu_update_flags, "kernel_style/test_hashmap_percpu_update_flags",
		  part_percpu_update_flags, NULL, 0)
KSIM_SELFTEST_REG(ks_percpu_update_flags_np,
		  "kernel_style/test_hashmap_percpu_update_flags-no_prealloc",
		  part_percpu_update_flags_np, NULL, 0)

#if KSIM_HAVE_BPF_F_CPU
/*
 * bpf-percpu-cpu-flags-exist: BPF_F_CPU says which CPU's value an update
 * writes; BPF_NOEXIST and BPF_EXIST still say whether the element may exist
 * (uapi bpf.h, BPF_MAP_UPDATE_ELEM: EEXIST "if flags specifies BPF_NOEXIST
 * and the element with key already exists", ENOENT for BPF_EXIST and a
 * missing key).  An array's elements always exist.  BPF_F_ALL_CPUS with
 * either is refused as a whole (EINVAL: (u32)flags > BPF_F_ALL_CPUS),
 * which keeps the promise too.
 */
static void test_percpu_cpu_flags_exist(enum bpf_map_type type)
{
	unsigned int nr_cpus = bpf_num_possible_cpus();
	bool array = type == BPF_MAP_TYPE_PERCPU_ARRAY;
	BPF_DECLARE_PERCPU(long, value);
	__u64 cpu0 = BPF_F_CPU, all = BPF_F_ALL_CPUS;
	int key = array ? 0 : 1, fd, i;
	long one = 7;

	fd = bpf_map_create(type, NULL, sizeof(key), sizeof(bpf_percpu(value, 0)), 2,
			    &map_opts);
	if (fd < 0) {
		printf("Failed to create percpu map '%s'!\n", strerror(errno));
		exit(1);
	}

	if (!array) {
		assert(bpf_map_update_elem(fd, &key, &one, cpu0 | BPF_EXIST) < 0 &&
		       errno == ENOENT);
		assert(bpf_map_update_elem(fd, &key, &one, all | BPF_EXIST) < 0 &&
		       (errno == ENOENT || errno == EINVAL));
		assert(bpf_map_lookup_elem(fd, &key, value) < 0 && errno == ENOENT);
	}
	for (i = 0; i < nr_cpus; i++)
		bpf_percpu(value, i) = i + 100;
	assert(bpf_map_update_elem(fd, &key, value, BPF_ANY) == 0);

	assert(bpf_map_update_elem(fd, &key, &one, cpu0 | BPF_NOEXIST) < 0 && errno == EEXIST);
	assert(bpf_map_update_elem(fd, &key, &one, all | BPF_NOEXIST) < 0 &&
	       (errno == EEXIST || errno == EINVAL));
	assert(bpf_map_lookup_elem(fd, &key, value) == 0);
	for (i = 0; i < nr_cpus; i++)
		assert(bpf_percpu(value, i) == i + 100);

	close(fd);
}

static void part_percpu_cpu_flags_hash(void)
{
	map_opts.map_flags = 0;
	test_percpu_cpu_flags_exist(BPF_MAP_TYPE_PERCPU_HASH);
}

static void part_percpu_cpu_flags_lru(void)
{
	map_opts.map_flags = 0;
	test_percpu_cpu_flags_exist(BPF_MAP_TYPE_LRU_PERCPU_HASH);
}

static void part_percpu_cpu_flags_array(void)
{
	map_opts.map_flags = 0;
	test_percpu_cpu_flags_exist(BPF_MAP_TYPE_PERCPU_ARRAY);
}

KSIM_SELFTEST_REG(ks_percpu_cpu_flags_hash, "kernel_style/test_percpu_cpu_flags_exist-hash",
		  part_percpu_cpu_flags_hash, NULL, 0)
KSIM_SELFTEST_REG(ks_percpu_cpu_flags_lru, "kernel_style/test_percpu_cpu_flags_exist-lru_hash",
		  part_percpu_cpu_flags_lru, NULL, 0)
KSIM_SELFTEST_REG(ks_percpu_cpu_flags_array, "kernel_style/test_percpu_cpu_flags_exist-array",
		  part_percpu_cpu_flags_array, NULL, 0)
#endif
