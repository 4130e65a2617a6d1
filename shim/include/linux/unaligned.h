/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel tree's own unaligned accessors (jhash.h includes this from 6.12.y/6.13 on). */
#if KSIM_HAVE_LINUX_UNALIGNED_H
#include <include/linux/unaligned.h>
#else
#error "this tree has no include/linux/unaligned.h (see cmake/Features.cmake)"
#endif
