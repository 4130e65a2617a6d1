// SPDX-License-Identifier: GPL-2.0
/*
 * test_lpm_map() once more, past its own over-read (lpm_basic_ops.c says
 * why): the tree's LPM selftest file compiled a second time with the
 * test's malloc()s padded, registering that one part.
 */
#define KSIM_LPM_PADDED 1
#include "lpm_basic_ops.c"
