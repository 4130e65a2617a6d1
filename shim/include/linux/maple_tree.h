/* SPDX-License-Identifier: GPL-2.0 */
/* The maple tree's API and node layout: the kernel tree's own header. */
#include <include/linux/maple_tree.h>
