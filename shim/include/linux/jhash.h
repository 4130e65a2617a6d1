/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel tree's own jhash.h: hash values must match the tree's. */
#include <include/linux/jhash.h>
