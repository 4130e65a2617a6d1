/* SPDX-License-Identifier: GPL-2.0 */
/*
 * liburcu's memb flavour, inlined (_LGPL_SOURCE) as the kernel's
 * tools/testing harnesses have it, for read.c and tree.c.  Its headers
 * define kernel names (rcu_dereference, call_rcu, ...) that linux/rcupdate.h
 * defines our way: they are dropped here, before it is included.
 */
#ifndef _KSIM_RCU_URCU_H
#define _KSIM_RCU_URCU_H

#define _LGPL_SOURCE
#include <urcu/urcu-memb.h>

#undef rcu_dereference
#undef rcu_assign_pointer
#undef rcu_read_lock
#undef rcu_read_unlock
#undef synchronize_rcu
#undef call_rcu
#undef rcu_barrier
#undef rcu_register_thread
#undef rcu_unregister_thread
#undef rcu_init
#undef rcu_xchg_pointer
#undef rcu_cmpxchg_pointer
#undef rcu_set_pointer

#endif
