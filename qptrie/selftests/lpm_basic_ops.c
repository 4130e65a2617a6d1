// SPDX-License-Identifier: GPL-2.0
/*
 * The LPM trie's own selftest, unmodified, in parts: its naive reference
 * (tlpm, linked lists) against the trie for random prefixes, the
 * real-world addresses, deletes, get_next_key's order, four threads
 * updating/deleting/looking up/walking one trie, and (7.2 on) update
 * flags, a full trie, and walks in key order.
 *
 * Where it lives is a tree's choice: map_tests/lpm_trie_map_basic_ops.c
 * (7.2 on, entry test_lpm_trie_map_basic_ops()), before that the program
 * test_lpm_map.c (main(), compiled here as ksim_test_lpm_map_main(), not
 * run).  Both entries seed rand() with 0xf00ba1 and call these functions in
 * turn; here each part is one of them, seeded the same way first, so each
 * replays alone (the later parts draw from the start of that stream, not
 * from where the previous function left it).  The 16 key sizes of
 * test_lpm_map() are one part.
 *
 * test_lpm_map() over-reads a tlpm node of its own (finding
 * bpf-selftest-lpm-tlpm-overread: it copies keysize bytes from a node that
 * holds the prefix's bytes), which ASan stops at the first delete.  So it
 * runs twice: as it is (XFAIL with that finding), and from
 * lpm_basic_ops_padded.c (KSIM_LPM_PADDED) with the test's malloc()s 16
 * bytes longer, zeroed, so that the over-read stays in memory the test
 * owns and the other 15 key sizes run; only that part is registered there.
 */
#include "map_test.h"

#if defined(KSIM_LPM_PADDED)
static void *ksim_lpm_padded_malloc(size_t size)
{
	return calloc(1, size + 16);	/* keysize is at most 16 */
}
#define malloc(size)	ksim_lpm_padded_malloc(size)
/* the tree file's non-static symbols are the other object's */
#define test_lpm_trie_map_basic_ops	ksim_padded_test_lpm_trie_map_basic_ops
#define ksim_test_lpm_map_main		ksim_padded_test_lpm_map_main
#endif

#if KSIM_HAVE_BPF_SELFTEST_LPM_BASIC_OPS
#include <tools/testing/selftests/bpf/map_tests/lpm_trie_map_basic_ops.c>
#define LPM_FILE "map_tests/lpm_trie_map_basic_ops/"
#else
#define main ksim_test_lpm_map_main
#include <tools/testing/selftests/bpf/test_lpm_map.c>
#undef main
#define LPM_FILE "test_lpm_map/"
#endif

#define PART(name, call, flags)							\
	static void part_##name(void) { srand(0xf00ba1); call; }		\
	KSIM_SELFTEST_REG(name, LPM_FILE #name, part_##name, NULL, flags)

static void test_lpm_map_all(void)
{
	for (int i = 1; i <= 16; ++i)
		test_lpm_map(i);
}

#if defined(KSIM_LPM_PADDED)
static void part_padded(void)
{
	srand(0xf00ba1);
	test_lpm_map_all();
}
KSIM_SELFTEST_REG(padded, LPM_FILE "test_lpm_map-tlpm-padded", part_padded, NULL, 0)
#else
PART(test_lpm_basic, test_lpm_basic(), 0)
PART(test_lpm_order, test_lpm_order(), 0)
PART(test_lpm_map, test_lpm_map_all(), 0)
PART(test_lpm_ipaddr, test_lpm_ipaddr(), 0)
PART(test_lpm_delete, test_lpm_delete(), 0)
PART(test_lpm_get_next_key, test_lpm_get_next_key(), 0)
PART(test_lpm_multi_thread, test_lpm_multi_thread(), KSIM_SELFTEST_TSAN)
#if KSIM_HAVE_BPF_SELFTEST_LPM_BASIC_OPS
PART(test_lpm_trie_update_flags, test_lpm_trie_update_flags(), 0)
PART(test_lpm_trie_update_full_map, test_lpm_trie_update_full_map(), 0)
PART(test_lpm_trie_iterate_strs, test_lpm_trie_iterate_strs(), 0)
PART(test_lpm_trie_iterate_ints, test_lpm_trie_iterate_ints(), 0)
#endif
#endif	/* KSIM_LPM_PADDED */
