/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel tree's own (cleanup.h uses it).  glibc's <sys/cdefs.h> also
 * defines __CONCAT (same expansion, other parameter names): the kernel's
 * definition replaces it instead of warning on every file.
 */
#undef __CONCAT
#include <include/linux/args.h>
