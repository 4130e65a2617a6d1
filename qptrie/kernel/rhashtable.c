// SPDX-License-Identifier: GPL-2.0
/*
 * lib/rhashtable.c from KSRC, unmodified: 7.x hashtab.c's
 * BPF_MAP_TYPE_RHASH map (rhtab_map_ops) is built on it.  Its deferred
 * resize (ht->run_work, bounced through ht->run_irq_work) runs from
 * ksim_run_pending_work() (linux/workqueue.h).
 */
#include <lib/rhashtable.c>
