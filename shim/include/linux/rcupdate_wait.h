/* SPDX-License-Identifier: GPL-2.0 */
/* synchronize_rcu_mult() and friends live in the shim's rcupdate.h. */
#include <linux/rcupdate.h>
