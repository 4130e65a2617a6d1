# ksim_regression_tests(COMPONENT [SOURCES extra.c...] LIBS...): every <component>/regression/*.c
# file (one reproduced kernel bug each, written as KSIM_TEST functions)
# becomes part of one binary <component>_regression, run by CTest as
# regression/<component> with label "regression" (so `make test` runs it).
# A new bug file needs no CMake edit: the glob is re-evaluated on build.
# SOURCES: the component's set-up for these tests (not tests themselves).
include_guard(GLOBAL)

function(ksim_regression_tests component)
  cmake_parse_arguments(R "" "" "SOURCES;LIBS" ${ARGN})
  file(GLOB _srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/regression/*.c)
  if(NOT _srcs)
    return()
  endif()
  set(_bin ${component}_regression)
  add_executable(${_bin} ${_srcs} ${R_SOURCES})
  target_link_libraries(${_bin} PRIVATE ${R_LIBS} ksim_test_main)
  add_test(NAME regression/${component} COMMAND ${_bin})
  set_tests_properties(regression/${component} PROPERTIES LABELS regression TIMEOUT 300)
endfunction()
