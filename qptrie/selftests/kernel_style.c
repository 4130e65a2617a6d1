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
