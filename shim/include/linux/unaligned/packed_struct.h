/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel tree's own unaligned accessors (jhash.h uses them). */
#include <include/linux/unaligned/packed_struct.h>
