/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel tree's own rculist.h on the shim's rcupdate.h.  Its body is
 * under #ifdef __KERNEL__, which ksim does not define globally.
 */
#ifndef __KERNEL__
#define __KERNEL__
#define _KSIM_UNDEF_KERNEL_rculist
#endif
#include <include/linux/rculist.h>
#ifdef _KSIM_UNDEF_KERNEL_rculist
#undef __KERNEL__
#undef _KSIM_UNDEF_KERNEL_rculist
#endif
