/* SPDX-License-Identifier: GPL-2.0 */
/* Local storage maps are not built; hashtab.c includes this for nothing it uses. */
#include <linux/bpf.h>
