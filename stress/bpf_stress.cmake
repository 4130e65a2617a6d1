# Extra short-tier tests for bpf_stress (included from stress/CMakeLists.txt).
#
# Our qp-trie in bpf_mem_alloc's checking mode (freed objects poisoned and
# quarantined): a reader touching a node freed too early is an ASan report.
add_test(NAME stress/bpf_qp_trie_ref-checking COMMAND bpf_qp_trie_ref_stress -d 3 -s 3)
set_tests_properties(stress/bpf_qp_trie_ref-checking PROPERTIES ENVIRONMENT KSIM_BPF_MEM=checking)
set(_bpf_tests stress/bpf_qp_trie_ref-checking)

# The test-only mutant (our qp-trie frees without a grace period) must be
# caught: by the readers' value check (faithful mode: the node is reused at
# once for another key), by ASan (checking mode: use-after-poison) and by
# TSan (the free races with the readers).
set(_caught "FAILED check|ERROR: AddressSanitizer|WARNING: ThreadSanitizer")
add_test(NAME stress/bpf_qp_trie_ref-mutant-no-rcu COMMAND bpf_qp_trie_ref_stress -d 3 -s 4)
set_tests_properties(stress/bpf_qp_trie_ref-mutant-no-rcu PROPERTIES
  ENVIRONMENT KSIM_QP_TRIE_REF_MUTANT=no-rcu PASS_REGULAR_EXPRESSION "${_caught}")
list(APPEND _bpf_tests stress/bpf_qp_trie_ref-mutant-no-rcu)
if(KSIM_SANITIZE MATCHES "address")
  add_test(NAME stress/bpf_qp_trie_ref-mutant-no-rcu-checking COMMAND bpf_qp_trie_ref_stress -d 3 -s 5)
  set_tests_properties(stress/bpf_qp_trie_ref-mutant-no-rcu-checking PROPERTIES
    ENVIRONMENT "KSIM_QP_TRIE_REF_MUTANT=no-rcu;KSIM_BPF_MEM=checking"
    PASS_REGULAR_EXPRESSION "ERROR: AddressSanitizer")
  list(APPEND _bpf_tests stress/bpf_qp_trie_ref-mutant-no-rcu-checking)
endif()
# Lock failures (fault class lock): res_spin_lock() failing (7.x) or a
# program re-entering the map under its bucket lock (6.x, the kernel's
# map_locked refuses it), with allocation failures too.
foreach(_v bpf_hash bpf_hash_noprealloc bpf_lru_hash bpf_lpm_trie)
  add_test(NAME stress/${_v}-locks COMMAND ${_v}_stress -d 3 -s 6 --fault class=all,p=0.01)
  list(APPEND _bpf_tests stress/${_v}-locks)
endforeach()
set_tests_properties(${_bpf_tests} PROPERTIES LABELS stress-short TIMEOUT 120)

# The posted qp-trie series' get_next_key shape (an absent key restarts the
# walk; BTF-typed dynptr key) on our qp-trie: judged by what it promises, it
# must pass as the series must.
ksim_stress_program(bpf_qp_trie_ref_restart SOURCES bpf_stress.c LIBS ksim_bpfmaps)
target_compile_definitions(bpf_qp_trie_ref_restart_stress PRIVATE BPF_STRESS_VARIANT="qp_trie_ref_restart")
# A map that breaks its own get_next_key contract must fail: a skipped key,
# a present key taken for an absent one (a key seen twice).
foreach(_m next-skip next-repeat)
  foreach(_v bpf_qp_trie_ref bpf_qp_trie_ref_restart)
    add_test(NAME stress/${_v}-mutant-${_m} COMMAND ${_v}_stress -d 2 -s 7)
    set_tests_properties(stress/${_v}-mutant-${_m} PROPERTIES ENVIRONMENT KSIM_QP_TRIE_REF_MUTANT=${_m}
      PASS_REGULAR_EXPRESSION "final walk: .*(twice|of .* keys|model successor|first key)|went backwards"
      LABELS stress-short TIMEOUT 120)
  endforeach()
endforeach()
