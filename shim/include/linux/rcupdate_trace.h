/* SPDX-License-Identifier: GPL-2.0 */
/* RCU tasks trace is mapped onto normal RCU (linux/rcupdate.h). */
#include <linux/rcupdate.h>
