/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel tree's own list.h (inline helpers and macros only). */
#include <include/linux/list.h>
