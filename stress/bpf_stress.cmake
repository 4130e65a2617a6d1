# More short-tier tests of the bpf stress programs (included by
# ksim_component(bpf), cmake/Component.cmake; the programs, one per map
# variant, are listed there in qptrie/CMakeLists.txt).
set(_w LABELS stress-short TIMEOUT 120 WORKING_DIRECTORY ${CMAKE_BINARY_DIR}/stress)

# Our qp-trie in bpf_mem_alloc's checking mode (freed objects poisoned and
# quarantined): a reader touching a node freed too early is an ASan report.
ksim_test(NAME stress/bpf_qp_trie_ref-checking COMMAND bpf_qp_trie_ref_stress -d ${KSIM_STRESS_SECONDS} -s 3
  ENVIRONMENT KSIM_BPF_MEM=checking ${_w})

# The test-only mutant (our qp-trie frees without a grace period) must be
# caught: by the readers' value check (faithful mode: the node is reused at
# once for another key), by ASan (checking mode: use-after-poison) and by
# TSan (the free races with the readers).  In checking mode a reader can
# also load a pointer from the poison (0x6b, POISON_FREE) and UBSan reports
# the misaligned member access before ASan sees the access (1 of 6
# false-alarm runs on 6.12.95): the poison seen is the same detection.
# The run ends at the first failure: under ASan about one per
# 300,000-550,000 checks (1-3 s on an idle machine), so a loaded one could
# run 3 s without it (seen once in the false-alarm runs, at nice 19): 10 s
# there.  TSan reports the race at once.
if(KSIM_SANITIZE MATCHES "address")
  set(_mutant_d 10)
else()
  set(_mutant_d 3)
endif()
ksim_test(NAME stress/bpf_qp_trie_ref-mutant-no-rcu COMMAND bpf_qp_trie_ref_stress -d ${_mutant_d} -s 4
  ENVIRONMENT KSIM_QP_TRIE_REF_MUTANT=no-rcu
  PASS_REGULAR_EXPRESSION "FAILED check|ERROR: AddressSanitizer|WARNING: ThreadSanitizer" ${_w})
if(KSIM_SANITIZE MATCHES "address")
  ksim_test(NAME stress/bpf_qp_trie_ref-mutant-no-rcu-checking COMMAND bpf_qp_trie_ref_stress -d ${_mutant_d} -s 5
    ENVIRONMENT KSIM_QP_TRIE_REF_MUTANT=no-rcu KSIM_BPF_MEM=checking
    PASS_REGULAR_EXPRESSION "ERROR: AddressSanitizer|runtime error: .* address 0x6b6b6b6b6b6b6b6" ${_w})
endif()
# Lock failures (fault class lock): res_spin_lock() failing (7.x) or a
# program re-entering the map under its bucket lock (6.x, the kernel's
# map_locked refuses it), with allocation failures too.
# Queues and stacks: a failed lock is -EBUSY with nothing done.
foreach(_v bpf_hash bpf_hash_noprealloc bpf_lru_hash bpf_percpu_hash bpf_lpm_trie bpf_queue bpf_stack)
  ksim_test(NAME stress/${_v}-locks COMMAND ${_v}_stress -d ${KSIM_STRESS_SECONDS} -s 6 --fault class=all,p=0.01 ${_w})
endforeach()

# A map that breaks its own get_next_key contract must fail: a skipped key,
# a present key taken for an absent one (a key seen twice).
foreach(_m next-skip next-repeat)
  foreach(_v bpf_qp_trie_ref bpf_qp_trie_ref_restart)
    ksim_test(NAME stress/${_v}-mutant-${_m} COMMAND ${_v}_stress -d 2 -s 7
      ENVIRONMENT KSIM_QP_TRIE_REF_MUTANT=${_m}
      PASS_REGULAR_EXPRESSION "final walk: .*(twice|of .* keys|model successor|first key)|went backwards"
      ${_w})
  endforeach()
endforeach()
