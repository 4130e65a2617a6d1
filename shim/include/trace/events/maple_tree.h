/* SPDX-License-Identifier: GPL-2.0 */
/* Maple tree tracepoints: no-ops with the tree's signatures. */
#ifndef _KSIM_TRACE_MAPLE_TREE_H
#define _KSIM_TRACE_MAPLE_TREE_H
#include <linux/tracepoint.h>
struct ma_state;
#define trace_ma_op(fn, mas)			do { (void)(fn); (void)(mas); } while (0)
#define trace_ma_read(fn, mas)			do { (void)(fn); (void)(mas); } while (0)
#define trace_ma_write(fn, mas, piv, val)	do { (void)(fn); (void)(mas); (void)(piv); (void)(val); } while (0)
#endif
