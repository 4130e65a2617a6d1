# KSIM_SANITIZE: "address,undefined" (default), "thread", or "" (none).
# KSIM_FUZZ: build fuzz harnesses for AFL++/libFuzzer (needs clang/afl-clang-fast).
set(KSIM_SANITIZE "address,undefined" CACHE STRING "Sanitizers: address,undefined | thread | empty")
option(KSIM_FUZZ "Build fuzz harnesses with -fsanitize=fuzzer" OFF)
# KSIM_COVERAGE: clang source-based coverage (the coverage preset, `make coverage`).
option(KSIM_COVERAGE "Instrument for clang source-based coverage (-fprofile-instr-generate)" OFF)

# Debug information: line tables and function names (inlined frames too),
# what a sanitizer's or ksim's backtrace needs; full -g (locals for gdb)
# cost 22% of the compile time of lib/maple_tree.c and doubled its object.
# -DKSIM_DEBUG_INFO=-g for a debugging session; AFL++ builds need none
# (their crashes replay in an ASan build).
if(KSIM_FUZZ)
  set(_ksim_g -g0)
else()
  set(_ksim_g -g1)
endif()
set(KSIM_DEBUG_INFO ${_ksim_g} CACHE STRING "Debug information flag (-g1: line tables for backtraces)")
# -Wno-format-zero-length: KSIM_EXPECT(cond) passes "" when there is no message.
add_compile_options(${KSIM_DEBUG_INFO} -fno-omit-frame-pointer -Wall -Wno-format-zero-length)
if(KSIM_SANITIZE)
  add_compile_options(-fsanitize=${KSIM_SANITIZE} -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=${KSIM_SANITIZE})
  if(KSIM_SANITIZE MATCHES "thread")
    add_compile_definitions(KSIM_TSAN=1)
  endif()
endif()
if(KSIM_COVERAGE)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "ksim: KSIM_COVERAGE needs clang (source-based coverage), not ${CMAKE_C_COMPILER_ID}")
  endif()
  # Not continuous mode (-mllvm -runtime-counter-relocation, which would
  # keep an aborted process's counters): ASan then checks every counter
  # update, and the ASan binaries crashed at start (the counter relocation
  # ran before ASan's shadow memory existed).
  add_compile_options(-fprofile-instr-generate -fcoverage-mapping)
  add_link_options(-fprofile-instr-generate)
  # The tests read GCC's __SANITIZE_ADDRESS__, which clang 14 does not
  # define; the kernel's compiler-clang.h defines it the same way.
  if(KSIM_SANITIZE MATCHES "address")
    add_compile_definitions(__SANITIZE_ADDRESS__=1)
  endif()
endif()
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE RelWithDebInfo)
endif()
set(CMAKE_C_FLAGS_RELWITHDEBINFO "-O2")
if(KSIM_FUZZ)
  # Fuzzing builds are judged by execs/s: -O3 ran the maple target's AFL++
  # binary ~1.1x faster on a fixed queue (docs/measurements/fuzz.md).
  set(CMAKE_C_FLAGS_RELWITHDEBINFO "-O3")
endif()
