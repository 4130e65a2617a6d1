/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel tree's own rculist_nulls.h on the shim's rcupdate.h.  Its body is
 * under #ifdef __KERNEL__, which ksim does not define globally.
 */
#ifndef __KERNEL__
#define __KERNEL__
#define _KSIM_UNDEF_KERNEL_rculist_nulls
#endif
#include <linux/rculist.h>	/* 6.1 uses its hlist_next_rcu() */
#include <include/linux/rculist_nulls.h>
#ifdef _KSIM_UNDEF_KERNEL_rculist_nulls
#undef __KERNEL__
#undef _KSIM_UNDEF_KERNEL_rculist_nulls
#endif
