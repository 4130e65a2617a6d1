/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel tree's own uapi BPF instruction encoding. */
#include <include/uapi/linux/bpf_common.h>
