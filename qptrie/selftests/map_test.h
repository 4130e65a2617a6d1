/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Included first by every file that #includes one of the tree's selftest
 * files (tools/testing/selftests/bpf/test_maps.c, map_tests/): the C
 * library's headers those files use, then the selftests' process model on
 * ksim (selftests.h): close() of a map fd goes to bpf(2)'s fd table, and a
 * non-zero exit() (CHECK(), or a failed call's printf() + exit(1)) is a
 * failed check, judged before the process ends.  The test files' bytes are
 * the tree's; only these names are bound to ours.
 */
#ifndef _KSIM_MAP_TEST_H
#define _KSIM_MAP_TEST_H

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "selftests.h"

#define close(fd)	ksim_selftest_close(fd)
#define exit(code)	ksim_selftest_exit(code, __FILE__, __LINE__, __func__)

#endif
