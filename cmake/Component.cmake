# One registration per component (README.md, "Adding a component").
#
# ksim_component(NAME ...) is called once, in the component's own folder,
# after the folder has defined its libraries.  It builds and registers with
# CTest every part the component has, each found by name in one place:
#   <dir>/tests/test_<t>.c        TEST_FILES t...: binary test_<NAME>_<t>
#   <dir>/regression/*.c          one binary <NAME>_regression, CTest
#                                 regression/<NAME>/<KSIM_TEST name>
#   fuzz/<f>.c                    FUZZ f...: fuzz_<f>_replay (+ fuzz_<f> in the
#                                 afl preset); corpus fuzz/corpus/<f>, known
#                                 kernel-bug inputs fuzz/known/<f>
#   stress/<NAME>_stress.c        STRESS_LIBS given: <NAME>_stress, or one
#                                 <NAME>_<v>_stress per STRESS_VARIANTS v
#                                 (the source compiled once; each program's
#                                 ksim_stress_variant is "v");
#                                 stress/<NAME>_stress.cmake, if there, adds
#                                 more short-tier tests of them (ksim_test())
# and appends the component to <build>/ksim-manifest.json (written by
# ksim_write_manifest() at the end of the top-level CMakeLists.txt), which
# scripts/ksim and fuzz/build.sh read instead of keeping lists of their own.
#
# Tests of other shapes are added after the call with ksim_test(), the one
# function every CTest test of a component goes through; they are listed
# under the component in the manifest too.
include_guard(GLOBAL)

# ------------------------------------------------------------ JSON helpers
function(_ksim_json_str out s)
  string(REPLACE "\\" "\\\\" s "${s}")
  string(REPLACE "\"" "\\\"" s "${s}")
  set(${out} "\"${s}\"" PARENT_SCOPE)
endfunction()

function(_ksim_json_list out)
  set(_items "")
  foreach(x IN LISTS ARGN)
    _ksim_json_str(_s "${x}")
    list(APPEND _items "${_s}")
  endforeach()
  list(JOIN _items ", " _j)
  set(${out} "[${_j}]" PARENT_SCOPE)
endfunction()

# --------------------------------------------------------- fuzz framework
# The fuzzing engine to link (OSS-Fuzz passes $LIB_FUZZING_ENGINE here).
set(KSIM_FUZZ_ENGINE "-fsanitize=fuzzer" CACHE STRING "Link flags of the fuzzing engine")
# Registered whether or not AFL++ is installed yet (make test installs it
# beside the build): without it the test says so and is skipped (77).
option(KSIM_FUZZ_SMOKE "Add an afl-fuzz smoke test per fuzz target" ON)
# The smoke test shows that the AFL++ build and run work and triages what
# the run finds; finding kernel bugs is the campaigns' job (make fuzz-*),
# and what they found replays deterministically in fuzz-replay/fuzz-known.
set(KSIM_FUZZ_SMOKE_SECONDS 10 CACHE STRING "seconds of afl-fuzz per fuzz-smoke test")

# AFL++ builds: coverage only where the input's effect is (kernel code and
# the harnesses), not in the shim or the fuzz framework, whose paths depend
# on addresses and history (the slab's object table, RCU queues), not on the
# input, nor in a component's oracles (FUZZ_NO_COVERAGE: e.g. mt_validate()
# and the maple target's model and tree walk): their counters cost time on
# every op (mt_validate() alone was ~27% of an AFL++ run, a third of it
# counters) and tell AFL++ nothing the ops do not.  AFL_LLVM_DENYLIST is
# read by afl-clang-fast at compile time; `fun:` takes exact names (a
# trailing `*` does not match the bare name in AFL++ 4.04c).  Its checksum
# is part of the compile command, so a changed list recompiles.
# AFL_LLVM_SKIP_NEVERZERO: plain 8-bit counters (no add-with-carry that
# keeps a counter off 0 after 256 hits): 9% less CPU time per exec of the
# maple target; an edge taken a multiple of 256 times in one input then
# looks untaken to AFL++, which the ops' bursts rarely hit exactly.
# The list is written, and the targets get it, in ksim_write_manifest(),
# once every component has named its oracles.
function(ksim_fuzz_no_coverage)
  set_property(GLOBAL APPEND PROPERTY KSIM_NO_COVERAGE_TARGETS ${ARGN})
endfunction()

function(_ksim_write_denylist)
  if(NOT (KSIM_FUZZ AND CMAKE_C_COMPILER MATCHES "afl-"))
    return()
  endif()
  set(_list ${CMAKE_BINARY_DIR}/fuzz/afl-denylist.txt)
  set(_deny "src: *shim/*\nsrc: *fuzz/lib/*\n")
  get_property(_fns GLOBAL PROPERTY KSIM_NO_COVERAGE_FUNCTIONS)
  foreach(f ${_fns})
    string(APPEND _deny "fun: ${f}\n")
  endforeach()
  file(WRITE ${_list} "${_deny}")
  string(MD5 _md5 "${_deny}")
  get_property(_tgts GLOBAL PROPERTY KSIM_NO_COVERAGE_TARGETS)
  set_property(TARGET ${_tgts} PROPERTY C_COMPILER_LAUNCHER
    ${CMAKE_COMMAND} -E env AFL_LLVM_DENYLIST=${_list}
    KSIM_AFL_DENYLIST_MD5=${_md5} AFL_LLVM_SKIP_NEVERZERO=1)
endfunction()

# ---------------------------------------------------------------- tests
# ksim_discover_tests(TARGET t PREFIX p XFAIL table LABELS l... TIMEOUT s
#                     [LIST_OPTION opt] [SKIP_RETURN_CODE n] [CONFIGURATION c]
#                     [TEST_ARGS arg...])
# For a binary whose test names come from the kernel tree (the tree's own
# test lists, which differ between trees and #if blocks): after each build,
# `t --list` (or `t <opt>`) names them and CTest runs one test p/<name> each
# (`t -t <name>`, through scripts/ksim-xfail: table XFAIL, part p/<name>
# without p's first component), read from a file CTest includes when it
# starts (TEST_INCLUDE_FILES).  SKIP_RETURN_CODE: a test exiting with n is
# reported skipped (a part the binary names but cannot run, and says why;
# default 77, which ksim-xfail also uses for "no verdict").
# CONFIGURATION: the tests run only with `ctest -C c` (long ones, which
# make test leaves out).  TEST_ARGS: added after `-t <name>`.
function(ksim_discover_tests)
  cmake_parse_arguments(D "" "TARGET;PREFIX;XFAIL;TIMEOUT;LIST_OPTION;SKIP_RETURN_CODE;CONFIGURATION"
    "LABELS;TEST_ARGS" ${ARGN})
  if(NOT D_LIST_OPTION)
    set(D_LIST_OPTION --list)
  endif()
  string(MAKE_C_IDENTIFIER "${D_TARGET}${D_LIST_OPTION}" _id)
  set(_out ${CMAKE_CURRENT_BINARY_DIR}/${_id}_tests.cmake)
  list(JOIN D_LABELS "," _labels)
  set(_extra "")
  if(NOT D_SKIP_RETURN_CODE)
    set(D_SKIP_RETURN_CODE 77)	# ksim-xfail's "no verdict" at least
  endif()
  list(APPEND _extra --skip-return-code ${D_SKIP_RETURN_CODE})
  if(D_CONFIGURATION)
    list(APPEND _extra --configuration ${D_CONFIGURATION})
  endif()
  if(D_TEST_ARGS)
    list(JOIN D_TEST_ARGS " " _targs)
    list(APPEND _extra "--test-args=${_targs}")
  endif()
  add_custom_command(TARGET ${D_TARGET} POST_BUILD
    COMMAND ${KSIM_PYTHON} ${CMAKE_SOURCE_DIR}/scripts/ksim-discover-tests --out ${_out}
      --prefix ${D_PREFIX} --table ${D_XFAIL} --kver ${KSIM_KVERSION}
      --xfail ${CMAKE_SOURCE_DIR}/scripts/ksim-xfail --labels "${_labels}" --timeout ${D_TIMEOUT}
      --build ${CMAKE_BINARY_DIR} --budget ${KSIM_ATTRIBUTION_BUDGET}
      --list-option=${D_LIST_OPTION} ${_extra}
      -- $<TARGET_FILE:${D_TARGET}>
    VERBATIM)
  # Before the first build there is no list: one test that says so.
  set(_inc ${CMAKE_CURRENT_BINARY_DIR}/${_id}_include.cmake)
  file(WRITE ${_inc} "if(EXISTS \"${_out}\")\n  include(\"${_out}\")\nelse()\n"
    "  add_test([=[${D_PREFIX}/NOT_BUILT]=] ${CMAKE_COMMAND} -E echo [=[${D_TARGET} not built: its tests are named when it is]=])\n"
    "  set_tests_properties([=[${D_PREFIX}/NOT_BUILT]=] PROPERTIES WILL_FAIL TRUE)\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${_inc})
  if(KSIM_COMPONENT)	# built and run with the component's other tests (repro, mutate)
    set_property(GLOBAL APPEND PROPERTY KSIM_C_${KSIM_COMPONENT}_TEST_TARGETS ${D_TARGET})
    set_property(GLOBAL APPEND PROPERTY KSIM_C_${KSIM_COMPONENT}_LABELS ${D_LABELS})
    set_property(GLOBAL APPEND PROPERTY KSIM_C_${KSIM_COMPONENT}_PREFIXES ${D_PREFIX})
  endif()
endfunction()

# ksim_test(NAME n COMMAND cmd... [LABELS l...] [TIMEOUT s] [XFAIL TABLE PART]
#           [ENVIRONMENT e...] [PASS_REGULAR_EXPRESSION re] [WORKING_DIRECTORY d]
#           [FIXTURES_SETUP f] [FIXTURES_REQUIRED f] [RUN_SERIAL] [NO_XFAIL]
#           [COST s] [SKIP_RETURN_CODE n])
# Through scripts/ksim-xfail: every test of a component with kernel code
# (PATHS), unless it expects a failure (PASS_REGULAR_EXPRESSION) or judges
# kernel failures itself (NO_XFAIL: the fuzz smoke test's triage).  It checks
# the failures the findings table (docs/findings.toml, table TABLE, part
# PART; default the component's table and the test's name) lists for this
# kernel, limits the test to TIMEOUT itself, and with KSIM_ATTRIBUTION=1
# replays any other failure on the tree with the known fixes applied, for
# which CTest's own limit leaves KSIM_ATTRIBUTION_BUDGET seconds more.  A
# first COMMAND word that is a target becomes its binary.  COST: the test's
# usual seconds, for a build that has no CTest timing data yet (a fresh
# clone): `ctest -j` starts the costly ones first instead of last, where one
# of them alone kept make test waiting on one core.  SKIP_RETURN_CODE: an
# exit with n is CTest's "skipped" (a tool the test needs is missing).
set(KSIM_ATTRIBUTION_BUDGET 1800)
# Skip code 77: ksim-xfail's "no verdict" (the sanitizer runtime hung twice).
function(_ksim_xfail_wrap out table part timeout)
  set(${out} ${KSIM_PYTHON} ${CMAKE_SOURCE_DIR}/scripts/ksim-xfail ${table} ${KSIM_KVERSION} ${part}
    --build ${CMAKE_BINARY_DIR} --timeout ${timeout} --skip-return-code 77 -- PARENT_SCOPE)
endfunction()

function(ksim_test)
  cmake_parse_arguments(T "RUN_SERIAL;NO_XFAIL" "NAME;TIMEOUT;PASS_REGULAR_EXPRESSION;WORKING_DIRECTORY;FIXTURES_SETUP;FIXTURES_REQUIRED;COST;SKIP_RETURN_CODE"
    "COMMAND;LABELS;XFAIL;ENVIRONMENT" ${ARGN})
  list(POP_FRONT T_COMMAND _exe)
  if(TARGET ${_exe})
    set(_exe $<TARGET_FILE:${_exe}>)
  endif()
  set(_cmd ${_exe} ${T_COMMAND})
  if(NOT T_XFAIL AND NOT T_NO_XFAIL AND KSIM_COMPONENT AND NOT DEFINED T_PASS_REGULAR_EXPRESSION)
    get_property(_paths GLOBAL PROPERTY KSIM_C_${KSIM_COMPONENT}_PATHS)
    get_property(_table GLOBAL PROPERTY KSIM_C_${KSIM_COMPONENT}_FINDINGS)
    if(_paths)
      set(T_XFAIL ${_table} ${T_NAME})
    endif()
  endif()
  if(T_XFAIL)
    list(GET T_XFAIL 0 _table)
    list(GET T_XFAIL 1 _part)
    if(NOT DEFINED T_TIMEOUT)
      set(T_TIMEOUT 900)
    endif()
    _ksim_xfail_wrap(_wrap ${_table} ${_part} ${T_TIMEOUT})
    set(_cmd ${_wrap} ${_cmd})
    # a rerun after a sanitizer hang, then the attribution replays
    math(EXPR T_TIMEOUT "2 * ${T_TIMEOUT} + ${KSIM_ATTRIBUTION_BUDGET}")
    set(T_SKIP_RETURN_CODE 77)
  endif()
  if(T_WORKING_DIRECTORY)
    add_test(NAME ${T_NAME} COMMAND ${_cmd} WORKING_DIRECTORY ${T_WORKING_DIRECTORY})
  else()
    add_test(NAME ${T_NAME} COMMAND ${_cmd})
  endif()
  set(_props "")
  foreach(p LABELS TIMEOUT PASS_REGULAR_EXPRESSION FIXTURES_SETUP FIXTURES_REQUIRED SKIP_RETURN_CODE COST)
    if(DEFINED T_${p})
      list(JOIN T_${p} "\\;" _v)
      list(APPEND _props ${p} "${_v}")
    endif()
  endforeach()
  if(T_ENVIRONMENT)
    set_property(TEST ${T_NAME} PROPERTY ENVIRONMENT ${T_ENVIRONMENT})
  endif()
  if(T_RUN_SERIAL)
    list(APPEND _props RUN_SERIAL TRUE)
  endif()
  if(_props)
    set_tests_properties(${T_NAME} PROPERTIES ${_props})
  endif()
  if(KSIM_COMPONENT)
    set_property(GLOBAL APPEND PROPERTY KSIM_C_${KSIM_COMPONENT}_TESTS ${T_NAME})
    set_property(GLOBAL APPEND PROPERTY KSIM_C_${KSIM_COMPONENT}_LABELS ${T_LABELS})
  endif()
endfunction()

# ------------------------------------------------------- regression/*.c
# Every <dir>/regression/*.c file (one reproduced kernel bug each, written as
# KSIM_TEST functions) becomes part of one binary <name>_regression; CTest
# runs each of its tests as regression/<name>/<test> with label
# "regression".  A bug not fixed in some kernel tree is listed in
# docs/findings.toml (the component's table, part = the test name): there it
# must fail with its signature (XFAIL), and once a tree fixes it the test
# passes there.  A new bug file needs no CMake edit: the glob and the test
# names are re-read on build.
function(_ksim_regression name table)
  cmake_parse_arguments(R "" "" "SOURCES;LIBS" ${ARGN})
  file(GLOB _srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/regression/*.c)
  if(NOT _srcs)
    return()
  endif()
  set(_bin ${name}_regression)
  add_executable(${_bin} ${_srcs} ${R_SOURCES})
  target_link_libraries(${_bin} PRIVATE ${R_LIBS} ksim_test_main)
  foreach(_src ${_srcs})
    # Test names come from the file: re-read them whenever it changes.
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_src})
    file(STRINGS ${_src} _decls REGEX "^KSIM_TEST\\([a-z0-9_]+")
    foreach(_decl ${_decls})
      string(REGEX REPLACE "^KSIM_TEST\\(([a-z0-9_]+).*" "\\1" _t "${_decl}")
      ksim_test(NAME regression/${name}/${_t} COMMAND ${_bin} -t ${_t}
        XFAIL ${table} ${_t} LABELS regression TIMEOUT 300)
    endforeach()
  endforeach()
  set_property(GLOBAL PROPERTY KSIM_C_${name}_REGRESSION ${_bin})
endfunction()

# ----------------------------------------------------------- fuzz targets
# fuzz/<f>.c with a KSIM_FUZZ_TARGET(f, ...) in it:
#   - fuzz_<f>_replay in every preset: replays files / corpus directories
#     (-v prints the op trace); CTest fuzz-replay/<f> runs fuzz/corpus/<f>;
#     CHECK_SCHEDULE: the target amortises its whole-structure check when
#     fuzzing (ksim_fuzz_full_check_due(), ksim/fuzz.h): the corpus also
#     replays on that schedule (fuzz-replay/<f>-fuzzing-schedule), which is
#     what AFL++ runs;
#   - fuzz_<f> in the afl preset (KSIM_FUZZ=ON): the AFL++ persistent-mode
#     binary (libFuzzer entry point, -fsanitize=fuzzer = AFL++'s driver with
#     shared-memory test cases);
#   - fuzz-known/<f>/<file>: inputs in fuzz/known/<f>/ that crash some kernel
#     trees (kernel bugs), XFAIL by signature (findings table "fuzz");
#   - fuzz-smoke/<f> (KSIM_FUZZ_SMOKE_SECONDS of afl-fuzz) when KSIM_FUZZ_SMOKE
#     is ON (the default): it builds its own afl tree; skipped without AFL++.
# Binaries and tests live in <build>/fuzz, wherever the component is.
function(_ksim_fuzz_target f check_schedule)
  set(_src ${CMAKE_SOURCE_DIR}/fuzz/${f}.c)
  if(NOT EXISTS ${_src})
    message(FATAL_ERROR "ksim: fuzz target ${f}: ${_src} does not exist")
  endif()
  set(_bdir ${CMAKE_BINARY_DIR}/fuzz)
  add_executable(fuzz_${f}_replay ${_src})
  set(_tgts fuzz_${f}_replay)
  if(KSIM_FUZZ)
    add_executable(fuzz_${f} ${_src})
    separate_arguments(_engine UNIX_COMMAND "${KSIM_FUZZ_ENGINE}")
    target_link_options(fuzz_${f} PRIVATE ${_engine})
    list(APPEND _tgts fuzz_${f})
  endif()
  foreach(t ${_tgts})
    target_link_libraries(${t} PRIVATE ksim_fuzz ${ARGN})
    set_target_properties(${t} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${_bdir})
    ksim_kernel_target(${t})
  endforeach()
  target_link_libraries(fuzz_${f}_replay PRIVATE ksim_fuzz_replay_main)
  ksim_fuzz_no_coverage(${_tgts})	# the components' oracle functions

  set(_corpus ${CMAKE_SOURCE_DIR}/fuzz/corpus/${f})
  if(IS_DIRECTORY ${_corpus})
    ksim_test(NAME fuzz-replay/${f} COMMAND fuzz_${f}_replay -q ${_corpus}
      LABELS fuzz-replay TIMEOUT 300 WORKING_DIRECTORY ${_bdir})
    if(check_schedule)
      ksim_test(NAME fuzz-replay/${f}-fuzzing-schedule COMMAND fuzz_${f}_replay -q ${_corpus}
        LABELS fuzz-replay TIMEOUT 300 ENVIRONMENT KSIM_FUZZ_EVERY_OP=0 WORKING_DIRECTORY ${_bdir})
    endif()
  endif()
  file(GLOB _known ${CMAKE_SOURCE_DIR}/fuzz/known/${f}/*)
  foreach(k ${_known})
    get_filename_component(_kn ${k} NAME)
    ksim_test(NAME fuzz-known/${f}/${_kn} COMMAND fuzz_${f}_replay -q ${k}
      XFAIL fuzz ${f}/${_kn} LABELS fuzz-replay TIMEOUT 300 WORKING_DIRECTORY ${_bdir})
  endforeach()
  if(KSIM_FUZZ_SMOKE AND NOT KSIM_FUZZ)
    ksim_test(NAME fuzz-smoke/${f}
      COMMAND ${KSIM_PYTHON} ${CMAKE_SOURCE_DIR}/scripts/ksim fuzz ${f} --smoke
        --duration ${KSIM_FUZZ_SMOKE_SECONDS}
        --build ${CMAKE_BINARY_DIR}/fuzz-afl --ksrc ${KSIM_KSRC}
        --replay-bin $<TARGET_FILE:fuzz_${f}_replay>
      LABELS fuzz-smoke TIMEOUT 900 NO_XFAIL WORKING_DIRECTORY ${_bdir} COST 40 SKIP_RETURN_CODE 77)
  endif()
  set_property(GLOBAL APPEND PROPERTY KSIM_FUZZ_TARGETS ${f})
  set_property(GLOBAL PROPERTY KSIM_F_${f}_CHECK_SCHEDULE ${check_schedule})
endfunction()

# -------------------------------------------------------- stress programs
# A ksim stress program (shim/include/ksim/stress.h: common CLI, progress,
# one SUMMARY line).  `make stress` runs it for minutes (scripts/ksim stress);
# the short tier here runs it for seconds in `make test` (label
# stress-short, fixed seeds): one plain run, one with allocation failures
# and debug-yield, one under deterministic scheduling.  Kernel bugs a
# program can hit by timing are listed in docs/findings.toml (table
# "stress", part = the program) and reported as XFAIL.
# Their length: make test's time goes mostly to runs of a fixed length, and
# a short run makes the same checks (every op's, the final state's, the
# end-of-run leak/lock/RCU check) on fewer ops; the deterministic run stops
# at a step count, so a shorter one is a prefix of the longer (issue #37:
# 4 s and 5,000,000 steps before; docs/measurements/make-test.md).  `make
# stress` is the long run; -DKSIM_STRESS_SECONDS=4 brings the old length back.
set(KSIM_STRESS_SECONDS 1.5 CACHE STRING "make test's stress runs: seconds each (stress-short)")
set(KSIM_STRESS_STEPS 1500000 CACHE STRING "make test's deterministic stress runs: steps each")
function(_ksim_stress_program prog src)
  set(_bdir ${CMAKE_BINARY_DIR}/stress)
  add_executable(${prog}_stress ${src})
  target_link_libraries(${prog}_stress PRIVATE ${ARGN})
  set_target_properties(${prog}_stress PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${_bdir})
  set(_x XFAIL stress ${prog} LABELS stress-short TIMEOUT 120 WORKING_DIRECTORY ${_bdir})
  ksim_test(NAME stress/${prog} COMMAND ${prog}_stress -d ${KSIM_STRESS_SECONDS} -s 1 ${_x})
  ksim_test(NAME stress/${prog}-fault-yield COMMAND ${prog}_stress
    -d ${KSIM_STRESS_SECONDS} -s 2 --fault 0.01 --yield 0.01 ${_x})
  # Deterministic scheduling (ksim/sched.h): a fixed interleaving per seed,
  # with allocation failures; replays exactly, so a failure here is a
  # reproducer, not a flake.  Not under TSan: one thread runs at a time and
  # the baton passes through a mutex, so every access is ordered and TSan
  # cannot see a race there (the ASan build runs the same interleavings).
  if(NOT KSIM_SANITIZE MATCHES "thread")
    ksim_test(NAME stress/${prog}-sched COMMAND ${prog}_stress
      -s 3 --sched 0.1 --steps ${KSIM_STRESS_STEPS} --fault 0.005 ${_x})
  endif()
  set_property(GLOBAL APPEND PROPERTY KSIM_STRESS_PROGRAMS ${prog})
endfunction()

# ------------------------------------------------------------ components
# ksim_component(NAME
#   [PATHS kernel-path...]      kernel files and directories (prefixes) it
#                               depends on: `ksim repro --suite auto` picks
#                               its suite for a series touching one; without
#                               PATHS the component has no repro suite
#   [HELP text]                 the repro suite's one-line description
#   [FINDINGS table]            docs/findings.toml `in =` value of its tests
#                               (default NAME)
#   [LABEL label]               CTest label of its tests (default NAME)
#   [TEST_PREFIX p]             CTest name prefix (default LABEL): p/<test>
#   [TEST_TIMEOUT s]            (default 300)
#   [TEST_FILES t...]           tests/test_<t>.c -> test_<NAME>_<t>, CTest p/<t>
#   [TEST_FILTER t glob ...]    run test file t's binary with -t glob
#   [TEST_LIBS lib...]          what the TEST_FILES binaries link
#   [TEST_BINARY target TESTS t...]  one CTest test p/<t> per name: target -t t,
#                               through ksim-xfail (table FINDINGS, part t);
#                               TEST_ENVIRONMENT (@TEST@ = t), TEST_FIXTURES_SETUP
#   [REGRESSION_LIBS lib...] [REGRESSION_SOURCES src...]   regression/*.c
#   [FUZZ f...] [FUZZ_LIBS lib...] [FUZZ_CHECK_SCHEDULE]
#   [FUZZ_NO_COVERAGE function...]  oracles AFL++ builds leave uninstrumented
#   [STRESS_LIBS lib...] [STRESS_VARIANTS v...]            stress/<NAME>_stress.c
#   [BENCH target...]           benchmark programs (never tests)
#   [REPRO_BENCH label target arg...]  what `ksim repro --bench` times
# Sets KSIM_COMPONENT in the caller: ksim_test() calls that follow belong
# to this component.
function(ksim_component name)
  cmake_parse_arguments(C "FUZZ_CHECK_SCHEDULE"
    "HELP;FINDINGS;LABEL;TEST_PREFIX;TEST_TIMEOUT;TEST_BINARY;TEST_FIXTURES_SETUP"
    "PATHS;TEST_ENVIRONMENT;TEST_FILES;TEST_FILTER;TEST_LIBS;TESTS;REGRESSION_LIBS;REGRESSION_SOURCES;FUZZ;FUZZ_LIBS;FUZZ_NO_COVERAGE;STRESS_LIBS;STRESS_VARIANTS;BENCH;REPRO_BENCH"
    ${ARGN})
  if(C_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ksim_component(${name}): unknown arguments ${C_UNPARSED_ARGUMENTS}")
  endif()
  get_property(_all GLOBAL PROPERTY KSIM_COMPONENTS)
  if(name IN_LIST _all)
    message(FATAL_ERROR "ksim_component(${name}): declared twice")
  endif()
  set_property(GLOBAL APPEND PROPERTY KSIM_COMPONENTS ${name})
  set(KSIM_COMPONENT ${name})
  set(KSIM_COMPONENT ${name} PARENT_SCOPE)
  foreach(k FINDINGS LABEL)
    if(NOT C_${k})
      set(C_${k} ${name})
    endif()
  endforeach()
  if(NOT C_TEST_PREFIX)
    set(C_TEST_PREFIX ${C_LABEL})
  endif()
  if(NOT C_TEST_TIMEOUT)
    set(C_TEST_TIMEOUT 300)
  endif()
  file(RELATIVE_PATH _dir ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  foreach(k dir HELP FINDINGS LABEL TEST_PREFIX PATHS REPRO_BENCH)
    if(k STREQUAL dir)
      set_property(GLOBAL PROPERTY KSIM_C_${name}_dir ${_dir})
    else()
      set_property(GLOBAL PROPERTY KSIM_C_${name}_${k} "${C_${k}}")
    endif()
  endforeach()

  # tests/test_<t>.c: one binary and one CTest test each.
  set(_bins "")
  foreach(t ${C_TEST_FILES})
    set(_b test_${name}_${t})
    add_executable(${_b} tests/test_${t}.c)
    target_link_libraries(${_b} PRIVATE ${C_TEST_LIBS} ksim_test_main)
    list(APPEND _bins ${_b})
    set(_args "")
    list(FIND C_TEST_FILTER ${t} _i)
    if(_i GREATER_EQUAL 0)
      math(EXPR _i "${_i} + 1")
      list(GET C_TEST_FILTER ${_i} _glob)
      set(_args -t ${_glob})
    endif()
    ksim_test(NAME ${C_TEST_PREFIX}/${t} COMMAND ${_b} ${_args}
      LABELS ${C_LABEL} TIMEOUT ${C_TEST_TIMEOUT})
  endforeach()
  # One binary, one CTest test per test name in it.
  if(C_TEST_BINARY)
    list(APPEND _bins ${C_TEST_BINARY})
    set(_fix "")
    if(C_TEST_FIXTURES_SETUP)
      set(_fix FIXTURES_SETUP ${C_TEST_FIXTURES_SETUP})
    endif()
    foreach(t ${C_TESTS})
      set(_env "")
      if(C_TEST_ENVIRONMENT)
        string(REPLACE "@TEST@" "${t}" _env "ENVIRONMENT;${C_TEST_ENVIRONMENT}")
      endif()
      ksim_test(NAME ${C_TEST_PREFIX}/${t} COMMAND ${C_TEST_BINARY} -t ${t}
        XFAIL ${C_FINDINGS} ${t} LABELS ${C_LABEL} TIMEOUT ${C_TEST_TIMEOUT} ${_env} ${_fix})
    endforeach()
  endif()
  set_property(GLOBAL PROPERTY KSIM_C_${name}_TEST_TARGETS ${_bins})

  _ksim_regression(${name} ${C_FINDINGS} SOURCES ${C_REGRESSION_SOURCES} LIBS ${C_REGRESSION_LIBS})

  set_property(GLOBAL APPEND PROPERTY KSIM_NO_COVERAGE_FUNCTIONS ${C_FUZZ_NO_COVERAGE})
  foreach(f ${C_FUZZ})
    _ksim_fuzz_target(${f} "${C_FUZZ_CHECK_SCHEDULE}" ${C_FUZZ_LIBS})
  endforeach()
  set_property(GLOBAL PROPERTY KSIM_C_${name}_FUZZ ${C_FUZZ})

  set(_progs "")
  if(C_STRESS_LIBS)
    set(_src ${CMAKE_SOURCE_DIR}/stress/${name}_stress.c)
    if(NOT EXISTS ${_src})
      message(FATAL_ERROR "ksim_component(${name}): STRESS_LIBS given but ${_src} does not exist")
    endif()
    if(C_STRESS_VARIANTS)
      # The source reads its variant at run time (ksim/stress.h's
      # ksim_stress_variant, one generated line per program): compiled once
      # for all of them, not once per program (15 BPF maps on 7.3.4, one
      # compile 1.6 CPU s under ASan, 0.6 under TSan).
      add_library(${name}_stress_objs OBJECT ${_src})
      target_link_libraries(${name}_stress_objs PUBLIC ${C_STRESS_LIBS})
      foreach(v ${C_STRESS_VARIANTS})
        set(_vsrc ${CMAKE_BINARY_DIR}/stress/${name}_${v}_variant.c)
        file(CONFIGURE OUTPUT ${_vsrc} CONTENT
          "/* generated: the variant ${name}_${v}_stress runs (ksim/stress.h) */\nconst char ksim_stress_variant[] = \"${v}\";\n")
        _ksim_stress_program(${name}_${v} ${_vsrc} ${name}_stress_objs)
        list(APPEND _progs ${name}_${v})
      endforeach()
    else()
      _ksim_stress_program(${name} ${_src} ${C_STRESS_LIBS})
      list(APPEND _progs ${name})
    endif()
  endif()
  set_property(GLOBAL PROPERTY KSIM_C_${name}_STRESS ${_progs})
  # The component's own short-tier tests of its stress programs (mutants,
  # other modes), if it has any.
  if(_progs AND EXISTS ${CMAKE_SOURCE_DIR}/stress/${name}_stress.cmake)
    include(${CMAKE_SOURCE_DIR}/stress/${name}_stress.cmake)
  endif()
  set_property(GLOBAL PROPERTY KSIM_C_${name}_BENCH ${C_BENCH})
endfunction()

# ksim_suite(NAME HELP text CTEST args... [TARGETS t...] [PATHS_OF fuzz|stress|regression|all]
#            [NO_AUTO]): a repro suite over several components (label-wide);
# its kernel paths are those of the components that have that kind of part.
function(ksim_suite name)
  cmake_parse_arguments(S "NO_AUTO" "HELP;PATHS_OF" "CTEST;TARGETS" ${ARGN})
  set_property(GLOBAL APPEND PROPERTY KSIM_SUITES ${name})
  foreach(k HELP PATHS_OF CTEST TARGETS NO_AUTO)
    set_property(GLOBAL PROPERTY KSIM_S_${name}_${k} "${S_${k}}")
  endforeach()
endfunction()

# -------------------------------------------------------------- manifest
# Appends one suite object to the JSON list in variable `var`.  TARGETS
# absent: null (the suite builds everything).
function(_ksim_suite_json var name component help auto bench)
  cmake_parse_arguments(J "" "" "CTEST;TARGETS;PATHS" ${ARGN})
  set(_tgj null)
  if(J_TARGETS)
    _ksim_json_list(_tgj ${J_TARGETS})
  endif()
  _ksim_json_list(_pj ${J_PATHS})
  _ksim_json_list(_ctj ${J_CTEST})
  _ksim_json_str(_hj "${help}")
  _ksim_json_str(_nj "${name}")
  set(_cj null)
  if(component)
    _ksim_json_str(_cj "${component}")
  endif()
  set(_sep "")
  if(NOT "${${var}}" STREQUAL "")
    set(_sep ",")
  endif()
  set(${var} "${${var}}${_sep}\n  {\"name\": ${_nj}, \"component\": ${_cj}, \"help\": ${_hj}, \"ctest\": ${_ctj}, \"targets\": ${_tgj}, \"paths\": ${_pj}, \"auto\": ${auto}, \"bench\": ${bench}}" PARENT_SCOPE)
endfunction()

function(_ksim_paths_json out)
  set(_l "")
  foreach(p ${ARGN})
    list(APPEND _l "$<TARGET_FILE:${p}>")
  endforeach()
  _ksim_json_list(_j ${_l})
  set(${out} "${_j}" PARENT_SCOPE)
endfunction()

# Called once at the end of the top-level CMakeLists.txt: the AFL++
# denylist, the stress-programs target and <build>/ksim-manifest.json
# (schema: README.md, "Adding a component").
function(ksim_write_manifest)
  _ksim_write_denylist()
  get_property(_comps GLOBAL PROPERTY KSIM_COMPONENTS)
  get_property(_progs GLOBAL PROPERTY KSIM_STRESS_PROGRAMS)
  set(_ptargets "")
  foreach(p ${_progs})
    list(APPEND _ptargets ${p}_stress)
  endforeach()
  # What `make test` builds in the TSan tree: the short tier's programs,
  # and the other binaries a component runs in that tier (the property
  # KSIM_STRESS_TIER_TARGETS: e.g. the BPF selftests' threaded parts).
  get_property(_tier GLOBAL PROPERTY KSIM_STRESS_TIER_TARGETS)
  add_custom_target(stress-programs DEPENDS ${_ptargets} rcu_model ${_tier})

  set(_cj "")
  set(_sj "")
  set(_union_all "")
  foreach(kind fuzz stress regression)
    set(_union_${kind} "")
  endforeach()
  # Test-name prefixes (the part before the first /) that name the tests
  # of one component only: its repro suite selects them (maple-api/,
  # xarray/); the shared tiers' (stress/, fuzz-smoke/, regression/, ...)
  # have suites of their own.
  set(_seen_prefixes "")
  set(_shared_prefixes "")
  foreach(c ${_comps})
    get_property(_t GLOBAL PROPERTY KSIM_C_${c}_TESTS)
    set(_mine "")
    foreach(_n ${_t})
      string(REGEX REPLACE "/.*" "" _p "${_n}")
      list(APPEND _mine ${_p})
    endforeach()
    if(_mine)
      list(REMOVE_DUPLICATES _mine)
    endif()
    foreach(_p ${_mine})
      if(_p IN_LIST _seen_prefixes)
        list(APPEND _shared_prefixes ${_p})
      endif()
      list(APPEND _seen_prefixes ${_p})
    endforeach()
  endforeach()
  foreach(c ${_comps})
    foreach(k dir HELP FINDINGS LABEL TEST_PREFIX PATHS REPRO_BENCH TESTS LABELS TEST_TARGETS
        REGRESSION FUZZ STRESS BENCH PREFIXES)
      get_property(_${k} GLOBAL PROPERTY KSIM_C_${c}_${k})
    endforeach()
    list(REMOVE_DUPLICATES _LABELS)
    list(APPEND _union_all ${_PATHS})
    foreach(kind FUZZ STRESS REGRESSION)
      if(_${kind})
        string(TOLOWER ${kind} _lk)
        list(APPEND _union_${_lk} ${_PATHS})
      endif()
    endforeach()
    set(_fj "")
    foreach(f ${_FUZZ})
      _ksim_json_str(_n ${f})
      set(_bin null)
      if(KSIM_FUZZ)
        set(_bin "\"$<TARGET_FILE:fuzz_${f}>\"")
      endif()
      list(APPEND _fj "{\"name\": ${_n}, \"source\": \"fuzz/${f}.c\", \"corpus\": \"fuzz/corpus/${f}\", \"known\": \"fuzz/known/${f}\", \"replay\": \"$<TARGET_FILE:fuzz_${f}_replay>\", \"binary\": ${_bin}}")
    endforeach()
    list(JOIN _fj ", " _fj)
    set(_stj "")
    foreach(p ${_STRESS})
      list(APPEND _stj "{\"name\": \"${p}\", \"binary\": \"$<TARGET_FILE:${p}_stress>\"}")
    endforeach()
    list(JOIN _stj ", " _stj)
    set(_bj "")
    foreach(b ${_BENCH})
      list(APPEND _bj "{\"name\": \"${b}\", \"binary\": \"$<TARGET_FILE:${b}>\"}")
    endforeach()
    list(JOIN _bj ", " _bj)
    set(_reg null)
    if(_REGRESSION)
      set(_reg "\"${_dir}/regression\"")
    endif()
    _ksim_json_list(_pj ${_PATHS})
    _ksim_json_list(_tj ${_TESTS})
    _ksim_json_list(_lj ${_LABELS})
    _ksim_json_str(_hj "${_HELP}")
    string(APPEND _cj "${_sep}\n  {\"name\": \"${c}\", \"dir\": \"${_dir}\", \"findings\": \"${_FINDINGS}\", "
      "\"label\": \"${_LABEL}\", \"test_prefix\": \"${_TEST_PREFIX}\", \"labels\": ${_lj},\n"
      "   \"paths\": ${_pj}, \"regression\": ${_reg},\n"
      "   \"fuzz\": [${_fj}],\n   \"stress\": [${_stj}],\n   \"bench\": [${_bj}],\n"
      "   \"tests\": ${_tj}}")
    set(_sep ",")

    # The component's repro suite: its own tests and its regression files.
    if(_PATHS)
      set(_targets ${_TEST_TARGETS} ${_REGRESSION})
      set(_re "${_TEST_PREFIX}/")
      # Tests ksim_discover_tests() names for the component (the kernel's
      # own suites run from one binary: bpf-selftests/), and the prefixes
      # only its tests use.
      foreach(_n ${_TESTS})
        string(REGEX REPLACE "/.*" "" _p "${_n}")
        if(NOT _p IN_LIST _shared_prefixes)
          list(APPEND _PREFIXES ${_p})
        endif()
      endforeach()
      if(_PREFIXES)
        list(REMOVE_DUPLICATES _PREFIXES)
      endif()
      foreach(_p ${_PREFIXES})
        if(NOT _p STREQUAL _TEST_PREFIX)
          string(APPEND _re "|${_p}/")
        endif()
      endforeach()
      if(_REGRESSION)
        string(APPEND _re "|regression/${c}/")
      endif()
      set(_bench "[]")
      if(_REPRO_BENCH)
        list(POP_FRONT _REPRO_BENCH _blabel _btarget)
        _ksim_json_str(_bl "${_blabel}")
        _ksim_json_list(_ba ${_REPRO_BENCH})
        set(_bench "[{\"label\": ${_bl}, \"binary\": \"$<TARGET_FILE:${_btarget}>\", \"args\": ${_ba}}]")
      endif()
      _ksim_suite_json(_sj ${c} ${c} "${_HELP}" true "${_bench}"
        CTEST -R "^(${_re})" TARGETS ${_targets} PATHS ${_PATHS})
      if(_REGRESSION)
        _ksim_suite_json(_sj ${c}-regression ${c} "${_dir}/regression/*.c only (the fastest ${c} check)"
          false "[]" CTEST -R "^regression/${c}/" TARGETS ${_REGRESSION} PATHS ${_PATHS})
      endif()
    endif()
  endforeach()

  get_property(_suites GLOBAL PROPERTY KSIM_SUITES)
  foreach(s ${_suites})
    foreach(k HELP PATHS_OF CTEST TARGETS NO_AUTO)
      get_property(_${k} GLOBAL PROPERTY KSIM_S_${s}_${k})
    endforeach()
    set(_p "")
    if(_PATHS_OF)
      set(_p ${_union_${_PATHS_OF}})
      list(REMOVE_DUPLICATES _p)
    endif()
    set(_auto true)
    if(_NO_AUTO)
      set(_auto false)
    endif()
    _ksim_suite_json(_sj ${s} "" "${_HELP}" ${_auto} "[]" CTEST ${_CTEST} TARGETS ${_TARGETS} PATHS ${_p})
  endforeach()

  _ksim_json_str(_ksrc "${KSIM_KSRC}")
  _ksim_json_str(_san "${KSIM_SANITIZE}")
  _ksim_json_str(_bd "${CMAKE_BINARY_DIR}")
  set(_fz false)
  if(KSIM_FUZZ)
    set(_fz true)
  endif()
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/ksim-manifest.json CONTENT
"{\"version\": 1, \"build\": ${_bd}, \"ksrc\": ${_ksrc}, \"kversion\": \"${KSIM_KVERSION}\",
 \"sanitize\": ${_san}, \"fuzz_build\": ${_fz},
 \"components\": [${_cj}],
 \"suites\": [${_sj}]}
")
endfunction()
