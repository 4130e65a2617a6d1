/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel tree's own (cleanup.h uses it). */
#include <include/linux/args.h>
