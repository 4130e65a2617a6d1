// SPDX-License-Identifier: GPL-2.0
/* lib/llist.c from KSRC, unmodified. */
#include <lib/llist.c>
