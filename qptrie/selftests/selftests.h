/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's BPF map selftests (tools/testing/selftests/bpf/test_maps.c
 * and map_tests/), unmodified, as user-space programs on ksim's bpf(2)
 * (qptrie/README.md, "The kernel's map selftests").  This header is user-space
 * code's: plain C, next to the tree's uapi and libbpf headers, never the
 * shim's kernel headers.
 *
 * Each selftest function is a part (one CTest test each): registered by the
 * file that #includes the tree's test file, with its name, and either the
 * function to run or why it cannot run here (skip: it needs BPF programs,
 * sockets, devices, BTF, ...).  Parts flagged KSIM_SELFTEST_TSAN (threads
 * on one map, batch ops) run under ThreadSanitizer too, in the stress tier.
 */
#ifndef _KSIM_SELFTESTS_H
#define _KSIM_SELFTESTS_H

#include <stdbool.h>
#include <sys/types.h>

#define KSIM_SELFTEST_TSAN	0x1	/* threads on one map, or batch ops: the TSan stress tier runs it too */
/*
 * Minutes, not seconds: run only by `ctest -C long` (CTest configuration
 * "long"), not by make test.  test_map_parallel() and test_map_stress()
 * make about 21 million bpf(2) commands each (100 tasks, half of them
 * filling and walking a 10,000-entry map of their own), and the selftest
 * has no knob that scales them.
 */
#define KSIM_SELFTEST_LONG	0x2
/*
 * No one-failure sweep (bpf-selftests-fault/): the part checks nothing a
 * failed allocation could make it check differently (a concurrency test
 * asserting only that nothing crashes), or repeats one step thousands of
 * times, which the plain sweep of a shorter part covers.
 */
#define KSIM_SELFTEST_NO_SWEEP	0x4

struct ksim_selftest {
	const char *name;		/* test_maps/test_hashmap, map_tests/test_htab_map_batch_ops */
	void (*fn)(void);
	const char *skip;		/* NULL: runs; else the reason it cannot run under ksim */
	unsigned int flags;
};

void ksim_selftest_register(const struct ksim_selftest *t);
unsigned int ksim_selftest_count(void);
const struct ksim_selftest *ksim_selftest_get(unsigned int i);
const struct ksim_selftest *ksim_selftest_find(const char *name);

#define KSIM_SELFTEST_REG(id, ...)						\
	static const struct ksim_selftest ksim_selftest_##id = { __VA_ARGS__ };	\
	__attribute__((constructor)) static void ksim_selftest_reg_##id(void)	\
	{ ksim_selftest_register(&ksim_selftest_##id); }

/*
 * The process model of the selftests, on threads.  test_maps.c forks
 * children that share the parent's map fds (the kernel's maps are shared
 * by fork: the fd table is copied, the maps are not); here a map lives in
 * the process, so a child is a thread running the child's function
 * (run_parallel()'s fn(i, data)) and waitpid() joins it, with status 0 when
 * it returned: a child that fails a check ends the whole process, which
 * fails the part.  The including files map fork(), waitpid(), close() and
 * exit() onto these (test_maps.c, map_test.h).
 */
pid_t ksim_selftest_fork(void (*fn)(unsigned int, void *), unsigned int task, void *data);
pid_t ksim_selftest_waitpid(pid_t pid, int *status, int options);
/* close(): map fds through bpf(2)'s table, others to the C library */
int ksim_selftest_close(int fd);
/*
 * exit() from a selftest: 0 ends the process (a forked child's normal end,
 * never reached on threads); anything else is a failed check, judged
 * (ksim_selftest_failed()) before the process exits.
 */
void ksim_selftest_exit(int code, const char *file, int line, const char *func)
	__attribute__((noreturn));

/*
 * A check of the selftest failed (CHECK(), assert(), exit(1) after a
 * failed call).  Under fault injection, when the calling thread's last
 * bpf(2) command returned -ENOMEM and a failure was injected in this run,
 * it is a test-code limit (the selftest does not expect -ENOMEM there): one
 * line "ksim-selftest: test-code limit: FUNC:LINE (...)", and the process
 * exits with KSIM_SELFTEST_LIMIT.  Otherwise it is a failure of the map
 * (or of ksim): the process exits non-zero.
 */
#define KSIM_SELFTEST_LIMIT	75
void ksim_selftest_failed(const char *what, const char *file, int line, const char *func)
	__attribute__((noreturn));

/* libbpf.c: bpf(2) as the selftests call it, recording each thread's last command. */
int ksim_selftest_sys_bpf(int cmd, void *attr, unsigned int size);

#endif
