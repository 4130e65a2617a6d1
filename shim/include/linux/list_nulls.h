/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel tree's own list_nulls.h (hashtab.c's bucket lists). */
#include <include/linux/list_nulls.h>
