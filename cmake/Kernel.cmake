# The kernel tree is an input: KSRC (cache variable or environment), else
# Debian's linux-source-${KVER} extracted into a cache by scripts/ksim-kernel.
set(KSRC "$ENV{KSRC}" CACHE PATH "Kernel source tree to build against (default: Debian linux-source-KVER)")
set(KVER "$ENV{KVER}" CACHE STRING "Debian linux-source version when KSRC is unset (6.12 or 6.1)")

set(_ksim_args --version)
if(KSRC)
  list(APPEND _ksim_args --ksrc "${KSRC}")
endif()
if(KVER)
  list(APPEND _ksim_args --kver "${KVER}")
endif()
execute_process(
  COMMAND ${KSIM_PYTHON} ${CMAKE_SOURCE_DIR}/scripts/ksim-kernel ${_ksim_args}
  OUTPUT_VARIABLE _ksim_out
  ERROR_VARIABLE _ksim_err
  RESULT_VARIABLE _ksim_rc
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_STRIP_TRAILING_WHITESPACE)
if(NOT _ksim_rc EQUAL 0)
  message(FATAL_ERROR "${_ksim_err}")
endif()
string(REPLACE "\t" ";" _ksim_out "${_ksim_out}")
list(GET _ksim_out 0 KSIM_KSRC)
list(GET _ksim_out 1 KSIM_KVERSION)
string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" _m "${KSIM_KVERSION}")
set(KSIM_KVER_MAJOR ${CMAKE_MATCH_1})
set(KSIM_KVER_MINOR ${CMAKE_MATCH_2})
math(EXPR KSIM_KVER_CODE "${KSIM_KVER_MAJOR} * 65536 + ${KSIM_KVER_MINOR} * 256")
message(STATUS "ksim: kernel ${KSIM_KVERSION} at ${KSIM_KSRC}")
# Objects record the headers they read by path, so a build directory that
# silently switched trees (e.g. the default kernel changed) would keep stale
# objects: refuse, in one line.
if(KSIM_KSRC_RESOLVED AND NOT KSIM_KSRC_RESOLVED STREQUAL KSIM_KSRC)
  message(FATAL_ERROR "ksim: ${CMAKE_BINARY_DIR} was configured for ${KSIM_KSRC_RESOLVED}, now ${KSIM_KSRC}: remove it (rm -rf ${CMAKE_BINARY_DIR}) or pick its tree with KSRC/KVER")
endif()
set(KSIM_KSRC_RESOLVED "${KSIM_KSRC}" CACHE INTERNAL "kernel tree this build uses")
set(KSIM_KVERSION_RESOLVED "${KSIM_KVERSION}" CACHE INTERNAL "its version")

# Kernel code is compiled against shim/include first, then the kernel tree
# root (for the few headers the shim forwards by path, e.g.
# <include/linux/maple_tree.h>), with the shim's config force-included as
# the kernel's build force-includes kconfig.h and compiler_types.h.
set(KSIM_KERNEL_CFLAGS
  "SHELL:-include ${CMAKE_BINARY_DIR}/include/ksim/features.h"
  "SHELL:-include ${CMAKE_SOURCE_DIR}/shim/include/linux/kconfig.h"
  "SHELL:-include ${CMAKE_SOURCE_DIR}/shim/include/linux/compiler_types.h"
  -fno-strict-aliasing -fno-common
  # The kernel's Makefile builds with it on every tree: signed overflow
  # wraps there, so UBSan must not call it undefined in kernel text.
  -fno-strict-overflow
  -Wno-unused-function -Wno-unused-variable -Wno-unused-but-set-variable
  -Wno-unused-parameter -Wno-sign-compare -Wno-pointer-sign -Wno-missing-field-initializers
  -Wno-address-of-packed-member -Wno-unknown-warning-option
  # A function the shim lacks must stop the build (ksim-diagnose names it),
  # never become an implicit int.
  -Werror=implicit-function-declaration)

# ksim_kernel_target(TARGET): mark a target as compiling kernel code, so
# failures are summarised by scripts/ksim-diagnose.
function(ksim_kernel_target tgt)
  target_compile_options(${tgt} PRIVATE ${KSIM_KERNEL_CFLAGS})
  set_property(TARGET ${tgt} PROPERTY RULE_LAUNCH_COMPILE
    "${CMAKE_COMMAND} -E env KSIM_KSRC=${KSIM_KSRC} KSIM_KVER=${KSIM_KVERSION} ${KSIM_PYTHON} ${CMAKE_SOURCE_DIR}/scripts/ksim-diagnose")
  set_property(TARGET ${tgt} PROPERTY RULE_LAUNCH_LINK
    "${CMAKE_COMMAND} -E env KSIM_KSRC=${KSIM_KSRC} KSIM_KVER=${KSIM_KVERSION} ${KSIM_PYTHON} ${CMAKE_SOURCE_DIR}/scripts/ksim-diagnose")
endfunction()
