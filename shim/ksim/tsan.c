// SPDX-License-Identifier: GPL-2.0
/*
 * ThreadSanitizer defaults for every ksim binary built with the tsan preset.
 *
 * The RCU happens-before model is in shim/rcu/tree.c.  What remains are
 * races the kernel code has on purpose: plain, word-sized stores to fields
 * that lockless RCU readers load and re-check.  The kernel tolerates them
 * (KCSAN's default CONFIG_KCSAN_ASSUME_PLAIN_WRITES_ATOMIC treats aligned
 * word stores as atomic), TSan cannot know.  Each suppression names the
 * writing function, is as narrow as TSan allows (a suppression matches a
 * function anywhere on either stack).  A free that skips the grace period is
 * still reported (stress/README.md shows the mutant), and ASan catches it as
 * a use-after-free too.
 *
 * Built in through __tsan_default_suppressions(), so a replay command needs
 * no TSAN_OPTIONS.
 */
#ifdef KSIM_TSAN
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <ksim/tsan.h>

/* Called from ksim_init(), so the linker keeps this file. */
void ksim_tsan_init(void);
void ksim_tsan_init(void)
{
}

static unsigned long reports, expected;

unsigned long ksim_tsan_reports(void)
{
	return __atomic_load_n(&reports, __ATOMIC_RELAXED);
}

void ksim_tsan_expect_reports(unsigned long n)
{
	__atomic_store_n(&expected, n, __ATOMIC_RELAXED);
}

/*
 * TSan's hook for every report, suppressed or not (weak in the runtime, a
 * C++ name: __tsan::OnReport(const ReportDesc *, bool)); true means
 * "suppressed": not printed and not counted for the exit code.
 *
 * The runtime calls it from ReportRace() with its locks held.  So it must
 * not enter the runtime: no instrumentation (this file is compiled without
 * -fsanitize=thread, shim/CMakeLists.txt) and no intercepted libc call (the
 * message goes out through syscall(2)).  An instrumented hook deadlocked
 * maple_stress: gdb showed its function-entry hook blocked in
 * TraceSwitchPartImpl() inside the report, and the other threads queued on
 * the runtime's locks.  Suppressed races reach this hook hundreds of times
 * a second there.  The CTest
 * shim/tsan-hook-uninstrumented checks the binary.
 */
bool ksim_tsan_on_report(const void *rep, bool suppressed)
	__asm__("_ZN6__tsan8OnReportEPKNS_10ReportDescEb");
bool ksim_tsan_on_report(const void *rep, bool suppressed)
{
	unsigned long e = __atomic_load_n(&expected, __ATOMIC_RELAXED);

	if (suppressed)
		return true;
	__atomic_fetch_add(&reports, 1, __ATOMIC_RELAXED);
	while (e && !__atomic_compare_exchange_n(&expected, &e, e - 1, false, __ATOMIC_RELAXED,
						 __ATOMIC_RELAXED))
		;
	if (!e)
		return false;
	{
		static const char msg[] =
			"ksim: an expected ThreadSanitizer report (not printed, not failing)\n";

		syscall(SYS_write, 2, msg, sizeof(msg) - 1);
	}
	return true;
}

const char *__tsan_default_suppressions(void);
const char *__tsan_default_options(void);

const char *__tsan_default_suppressions(void)
{
	return
		/* lib/maple_tree.c: a dead node points its parent at itself;
		 * readers load ->parent (ma_dead_node) to notice and re-walk. */
		"race:mte_set_node_dead\n"
		/* lib/maple_tree.c: children of a replaced node get their new
		 * parent; readers ascending or checking for death load it. */
		"race:mas_set_parent\n"
		"race:mte_set_parent\n"	/* its name in 6.1 */
		/* lib/maple_tree.c: the tree height lives in ma_flags, which
		 * readers load for mt_external_lock()/mt_height(). */
		"race:mas_set_height\n"
		/* lib/maple_tree.c: in RCU mode a slot store may update one
		 * pivot in place (mas_wr_slot_store); readers re-check. */
		"race:mas_wr_slot_store\n"
		/* lib/maple_tree.c: nodes being retired are chained through
		 * their pivots (mat_add) and walked for freeing
		 * (mt_destroy_walk) after being marked dead. */
		"race:mat_add\n"
		"race:mt_destroy_walk\n"
		/* lib/maple_tree.c: new nodes are zeroed (mas_pop_node) and
		 * filled (mab_mas_cp) before publication, but readers can
		 * reach them through ->parent, a plain load with only an
		 * address dependency, which TSan does not model. */
		"race:mas_pop_node\n"
		"race:mas_alloc_nodes\n"
		"race:mab_mas_cp\n"
		"race:mas_wr_node_store\n"
		/* The same on 7.x, whose write path fills new nodes with
		 * node_copy()/node_finalise() through cp_data_write(). */
		"race:node_copy\n"
		"race:node_finalise\n"
		/* mm (7.x): vm_area_cachep is SLAB_TYPESAFE_BY_RCU, so a
		 * VMA freed and reallocated is zeroed by vma_init() while a
		 * lock_vma_under_rcu() reader may still load its vm_refcnt
		 * (0 before and after: the reader's inc-not-zero fails). */
		"race:vma_init\n"
		"race:cp_data_write\n"
		/* 7.x's name for mas_set_height(). */
		"race:mt_set_height\n"
		/* kernel/bpf/hashtab.c: elements are reused at once by design
		 * (pcpu_freelist/extra_elems, bpf_mem_cache_free): a new key
		 * and value are written into an element that lockless readers
		 * may still hold (hlist_nulls lookups re-check the key; programs
		 * can see the value change).  Writer side only: the readers
		 * stay instrumented, and element memory never leaves the map
		 * here (see stress/bpf_stress.c for what is checked instead). */
		"race:alloc_htab_elem\n"
		/* The same for LRU maps: popping a node (with eviction and list
		 * rotation: node->type, hash, key) and writing its value. */
		"race:prealloc_lru_pop\n"
		"race:htab_lru_map_update_elem\n"
		/* Per-CPU hashes: an update of a present key copies each CPU's
		 * value in place (pcpu_copy_value()) while a program on that
		 * CPU may read it; per-CPU values have no atomicity
		 * (stress/bpf_stress.c accepts a torn copy only with an
		 * operation in flight). */
		"race:pcpu_copy_value\n"
		/* kernel/bpf/arraymap.c: array_map_update_elem() and
		 * bpf_percpu_array_update() copy the value in place with no
		 * lock (BPF_F_LOCK is the opt-in) while programs read it
		 * (stress/bpf_stress.c accepts a torn value of the index only
		 * with an operation on it in flight). */
		"race:array_map_update_elem\n"
		"race:bpf_percpu_array_update\n"
		/* 7.x's RHASH map: an update of a present key copies the
		 * value in place (rhtab_map_update_existing(): "Torn reads: a
		 * concurrent reader without BPF_F_LOCK may observe the value
		 * mid-copy ... matching arraymap semantics"). */
		"race:rhtab_map_update_existing\n"
		/* kernel/bpf/lpm_trie.c: deleting a node with two children
		 * marks it intermediate in place (node->flags), which lockless
		 * lookups load; top frame only, so a free in that function's
		 * callees is still reported. */
		"race_top:trie_delete_elem\n"
		/* include/linux/rculist_nulls.h in 6.1 stores n->next plainly
		 * in hlist_nulls_add_head_rcu() while lockless readers of a
		 * reused element load it; later kernels (6.12) mark the same
		 * store WRITE_ONCE(), annotating it as the intended race it is.
		 * Top frame only. */
		"race_top:hlist_nulls_add_head_rcu\n"
		/* lib/xarray.c: xas_delete_node() unlinks an emptied node
		 * from its parent (and the head) with a plain store of NULL
		 * ("parent->slots[xas->xa_offset] = NULL;") while RCU readers
		 * load the slot with rcu_dereference(): an aligned word
		 * store, which KCSAN's default assumes atomic.  Seen in the
		 * TSan tier (stress/xarray, 2 of 10 false-alarm runs on
		 * 7.2.13).  Top frame only: the node's free (xa_node_free(),
		 * call_rcu) and everything it calls stay checked. */
		"race_top:xas_delete_node\n"
		/* lib/xarray.c: a node's mark bitmaps are updated with the
		 * non-atomic __set_bit()/__clear_bit() under xa_lock, while
		 * RCU readers (xas_find_marked(), xas_get_mark()) load the
		 * words without it; a mark being set or cleared is allowed to
		 * be seen either way. */
		"race:node_set_mark\n"
		"race:node_clear_mark\n"
		/* linux/bit_spinlock.h: TSan counts a compare-and-swap that
		 * fails as a write, and checks an RMW before its acquire, so a
		 * waiter spinning on a bucket lock of lib/rhashtable.c races
		 * with the holder's plain reads of the same word (the bucket's
		 * first pointer: rht_dereference_bucket() under the lock).
		 * Top frame only: every other write of that word is an
		 * rcu_assign_pointer() and stays checked. */
		"race_top:ksim_bit_spin_try\n"
		/* lib/rhashtable.c: an inserter that finds the table
		 * overloaded attaches the next table with cmpxchg() on
		 * ->future_tbl under a bucket lock only, while the deferred
		 * worker reads the same field with rht_dereference() (a plain
		 * load, "protected" by ht->mutex, which the inserter does not
		 * hold): rhashtable_rehash_table() after publishing, and
		 * rht_deferred_worker().  KCSAN would call it a data race; it
		 * is benign (a NULL read only ends this worker run, and the
		 * attaching inserter queues the worker again), so not claimed
		 * as a finding.  Seen once in 4 s of stress/bpf_rhash on a CI
		 * machine (7.3.4); the same code in 6.1.  Top frame only: the
		 * cmpxchg is that function's only access. */
		"race_top:rhashtable_rehash_attach\n"
		/* mm/rmap.c (6.1, 6.12): __anon_vma_prepare() publishes
		 * vma->anon_vma with a plain store under page_table_lock while
		 * other threads of the mm (mmap or VMA read lock) load it with
		 * READ_ONCE(); KCSAN's default CONFIG_KCSAN_ASSUME_PLAIN_WRITES_ATOMIC
		 * does not report a marked read against a plain aligned word
		 * store.  7.x stores it with smp_store_release(), marked.  Top
		 * frame only: the function's other stores stay checked. */
		"race_top:__anon_vma_prepare\n"
		/* liburcu's grace-period futex word (urcu-common.h), inlined
		 * into our rcu_read_unlock(); liburcu's own design. */
		"race:urcu_common_wake_up_gp\n";
}

const char *__tsan_default_options(void)
{
	/* Keep going after a report, so a run shows all of them; exit non-zero. */
	return "halt_on_error=0:exitcode=66:second_deadlock_stack=1";
}
#endif
