/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel tree's own poison values (list.h and friends use them). */
#include <include/linux/poison.h>
