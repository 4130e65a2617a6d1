// SPDX-License-Identifier: GPL-2.0
/*
 * tools/testing/selftests/bpf/test_maps.c from KSRC, unmodified, in parts.
 *
 * Its main() runs run_all_tests() twice, with map_opts.map_flags 0 and
 * BPF_F_NO_PREALLOC, then every map_tests/ file's test_*() entry.  Here
 * each function run_all_tests() calls is a part of its own, once per
 * flag value where it reads map_opts (suffix -no_prealloc), so CTest runs
 * them one by one and side by side; the array tests ignore map_opts, so
 * their second round would repeat the first, and they run once.
 * test_maps.c's main() is compiled (as ksim_test_maps_main()) but not run.
 *
 * Its forked children are threads (selftests.h): run_parallel() calls
 * fork(); here that starts a thread running the child's function, named
 * by the same words as in run_parallel()'s body (fn(i, data)), and
 * waitpid() joins it.  test_sockmap() (skipped: sockets) calls fork() too;
 * the file-scope fn below exists only so that it compiles.
 */
#include "map_test.h"

static void (*fn)(unsigned int task, void *data);
#define fork()				ksim_selftest_fork(fn, i, data)
#define waitpid(pid, status, options)	ksim_selftest_waitpid(pid, status, options)
#define main				ksim_test_maps_main

#include <tools/testing/selftests/bpf/test_maps.c>

#undef main
#undef waitpid
#undef fork

/* A part that reads map_opts, in both of main()'s rounds. */
#define PART2(name, call, flags)						\
	static void part_##name(void) { map_opts.map_flags = 0; call; }	\
	static void part_##name##_np(void)					\
	{ map_opts.map_flags = BPF_F_NO_PREALLOC; call; }			\
	KSIM_SELFTEST_REG(name, "test_maps/" #name, part_##name, NULL, flags)	\
	KSIM_SELFTEST_REG(name##_np, "test_maps/" #name "-no_prealloc", part_##name##_np, NULL, flags)
#define PART1(name, call, flags)						\
	static void part_##name(void) { map_opts.map_flags = 0; call; }	\
	KSIM_SELFTEST_REG(name, "test_maps/" #name, part_##name, NULL, flags)
#define SKIP(name, why)								\
	KSIM_SELFTEST_REG(name, "test_maps/" #name, NULL, why, 0)

PART2(test_hashmap, test_hashmap(0, NULL), 0)
PART2(test_hashmap_percpu, test_hashmap_percpu(0, NULL), 0)
PART2(test_hashmap_walk, test_hashmap_walk(0, NULL), 0)
PART2(test_hashmap_zero_seed, test_hashmap_zero_seed(), 0)
PART1(test_arraymap, test_arraymap(0, NULL), 0)
PART1(test_arraymap_percpu, test_arraymap_percpu(0, NULL), 0)
PART1(test_arraymap_percpu_many_keys, test_arraymap_percpu_many_keys(), 0)
SKIP(test_devmap, "BPF_MAP_TYPE_DEVMAP: kernel/bpf/devmap.c (net devices, XDP) is not built")
SKIP(test_devmap_hash, "BPF_MAP_TYPE_DEVMAP_HASH: kernel/bpf/devmap.c (net devices, XDP) is not built")
SKIP(test_sockmap, "needs TCP sockets and BPF programs (bpf_prog_test_load() of "
     "sockmap_*_prog.bpf.o); net/core/sock_map.c is not built")
/* 32768 updates of 4 KB keys: its sweep would be test_hashmap_walk()'s, slower */
PART2(test_map_large, test_map_large(), KSIM_SELFTEST_NO_SWEEP)
PART2(test_map_parallel, test_map_parallel(), KSIM_SELFTEST_TSAN | KSIM_SELFTEST_LONG)
PART2(test_map_stress, test_map_stress(), KSIM_SELFTEST_TSAN | KSIM_SELFTEST_LONG)
PART2(test_map_rdonly, test_map_rdonly(), 0)
PART2(test_map_wronly, test_map_wronly(), 0)
SKIP(test_reuseport_array, "needs SO_REUSEPORT sockets: BPF_MAP_TYPE_REUSEPORT_SOCKARRAY "
     "(kernel/bpf/reuseport_array.c, net/core/sock_reuseport.c) is not built")
PART2(test_queuemap, test_queuemap(0, NULL), 0)
PART2(test_stackmap, test_stackmap(0, NULL), 0)
SKIP(test_map_in_map, "needs BPF objects: bpf_object__open() of test_map_in_map.bpf.o and "
     "test_map_in_map_invalid.bpf.o")
