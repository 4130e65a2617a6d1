/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel tree's own uapi BTF layout. */
#include <include/uapi/linux/btf.h>
