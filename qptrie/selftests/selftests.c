// SPDX-License-Identifier: GPL-2.0
/*
 * The selftests' process model on threads, their parts' table, and the
 * verdict on a failed check (selftests.h).  User-space code: the tree's
 * uapi headers, no shim kernel headers.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksim/fault.h"
#include "ksim/sys_bpf.h"
#include "selftests.h"

/* ---- the parts ---- */

#define KSIM_MAX_SELFTESTS	256
static const struct ksim_selftest *parts[KSIM_MAX_SELFTESTS];
static unsigned int nr_parts;

void ksim_selftest_register(const struct ksim_selftest *t)
{
	if (nr_parts == KSIM_MAX_SELFTESTS) {
		fprintf(stderr, "ksim-selftest: more than %d parts\n", KSIM_MAX_SELFTESTS);
		exit(2);
	}
	parts[nr_parts++] = t;
}

unsigned int ksim_selftest_count(void)
{
	return nr_parts;
}

const struct ksim_selftest *ksim_selftest_get(unsigned int i)
{
	return i < nr_parts ? parts[i] : NULL;
}

const struct ksim_selftest *ksim_selftest_find(const char *name)
{
	for (unsigned int i = 0; i < nr_parts; i++)
		if (!strcmp(parts[i]->name, name))
			return parts[i];
	return NULL;
}

/* ---- forked children as threads ---- */

#define KSIM_PID0	1000000	/* fake pids: above any pid_max the tests could see */
#define KSIM_MAX_CHILDREN 1024

struct child {
	pthread_t tid;
	void (*fn)(unsigned int, void *);
	unsigned int task;
	void *data;
	bool used;
};
static struct child children[KSIM_MAX_CHILDREN];
static pthread_mutex_t children_lock = PTHREAD_MUTEX_INITIALIZER;

static void *child_main(void *arg)
{
	struct child *c = arg;

	c->fn(c->task, c->data);
	return NULL;
}

pid_t ksim_selftest_fork(void (*fn)(unsigned int, void *), unsigned int task, void *data)
{
	int i;

	pthread_mutex_lock(&children_lock);
	for (i = 0; i < KSIM_MAX_CHILDREN && children[i].used; i++)
		;
	if (i == KSIM_MAX_CHILDREN) {
		pthread_mutex_unlock(&children_lock);
		errno = EAGAIN;
		return -1;
	}
	children[i] = (struct child){ .fn = fn, .task = task, .data = data, .used = true };
	pthread_mutex_unlock(&children_lock);
	if (pthread_create(&children[i].tid, NULL, child_main, &children[i])) {
		children[i].used = false;
		errno = EAGAIN;
		return -1;
	}
	return KSIM_PID0 + i;
}

pid_t ksim_selftest_waitpid(pid_t pid, int *status, int options)
{
	int i = pid - KSIM_PID0;

	if (i < 0 || i >= KSIM_MAX_CHILDREN || !children[i].used || options) {
		errno = ECHILD;
		return -1;
	}
	pthread_join(children[i].tid, NULL);
	pthread_mutex_lock(&children_lock);
	children[i].used = false;
	pthread_mutex_unlock(&children_lock);
	if (status)
		*status = 0;	/* it returned: a failing child ends the process */
	return pid;
}

int ksim_selftest_close(int fd)
{
	if (ksim_sys_close(fd) == 0)
		return 0;
	return close(fd);
}

/* ---- bpf(2), and what a failed check is ---- */

/*
 * The thread's bpf(2) commands as the selftest saw them: the last one, and
 * an -ENOMEM it got and has not got past (no later success of the same
 * command: a retry that worked clears it).  A selftest that takes -ENOMEM
 * for something else (test_hashmap_walk() ends its walk at any
 * get_next_key() error) fails a later check whose own command succeeded.
 */
struct last_cmd {
	int cmd;
	int err;
	int enomem_cmd;		/* -1: none pending */
};
static __thread struct last_cmd last = { .enomem_cmd = -1 };

int ksim_selftest_sys_bpf(int cmd, void *attr, unsigned int size)
{
	int ret = ksim_sys_bpf(cmd, attr, size);

	last.cmd = cmd;
	last.err = ret < 0 ? ret : 0;
	if (ret == -ENOMEM)
		last.enomem_cmd = cmd;
	else if (ret >= 0 && cmd == last.enomem_cmd)
		last.enomem_cmd = -1;
	return ret;
}

void ksim_selftest_failed(const char *what, const char *file, int line, const char *func)
{
	const char *base = strrchr(file, '/');

	base = base ? base + 1 : file;
	fflush(stdout);
	if (ksim_fault_armed() && ksim_fault_failures() && last.enomem_cmd >= 0) {
		fprintf(stderr, "ksim-selftest: test-code limit: %s:%d %s() %s: bpf(cmd %d) "
			"returned -ENOMEM after %lu injected failure(s), which the selftest "
			"does not expect there\n", base, line, func, what, last.enomem_cmd,
			ksim_fault_failures());
		_exit(KSIM_SELFTEST_LIMIT);
	}
	fprintf(stderr, "ksim-selftest: FAILED: %s:%d %s() %s (last bpf command %d: %d%s)\n",
		base, line, func, what, last.cmd, last.err,
		ksim_fault_failures() ? ", with injected failures" : "");
	_exit(1);
}

void ksim_selftest_exit(int code, const char *file, int line, const char *func)
{
	char what[64];

	if (!code) {
		fflush(stdout);
		exit(0);
	}
	snprintf(what, sizeof(what), "exit(%d) after a failed check", code);
	ksim_selftest_failed(what, file, line, func);
}

/* glibc's assert() failure, for the selftests' assert()s (and any other) */
void __assert_fail(const char *assertion, const char *file, unsigned int line,
		   const char *function)
{
	char what[512];

	snprintf(what, sizeof(what), "assertion `%s' failed", assertion);
	ksim_selftest_failed(what, file, line, function);
}
