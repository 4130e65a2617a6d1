/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel tree's own scope-based cleanup (guard(), __free()). */
#include <include/linux/cleanup.h>
