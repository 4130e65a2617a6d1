# ksim_regression_tests(COMPONENT [SOURCES extra.c...] LIBS...): every <component>/regression/*.c
# file (one reproduced kernel bug each, written as KSIM_TEST functions)
# becomes part of one binary <component>_regression; CTest runs each of its
# tests as regression/<component>/<test> with label "regression" (so `make
# test` runs them).  A bug that is not fixed in some kernel tree is listed in
# docs/findings.toml (table COMPONENT, part = the test name): there it must
# fail with its signature (XFAIL), and once a tree fixes it the test passes
# there.  A new bug file needs no CMake edit: the glob and the
# test names are re-read on build.
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
  foreach(_src ${_srcs})
    # Test names come from the file: re-read them whenever it changes.
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_src})
    file(STRINGS ${_src} _decls REGEX "^KSIM_TEST\\([a-z0-9_]+")
    foreach(_decl ${_decls})
      string(REGEX REPLACE "^KSIM_TEST\\(([a-z0-9_]+).*" "\\1" _name "${_decl}")
      set(_cmd python3 ${CMAKE_SOURCE_DIR}/scripts/ksim-xfail ${component} ${KSIM_KVERSION}
        ${_name} -- $<TARGET_FILE:${_bin}> -t ${_name})
      add_test(NAME regression/${component}/${_name} COMMAND ${_cmd})
      set_tests_properties(regression/${component}/${_name} PROPERTIES LABELS regression TIMEOUT 300)
    endforeach()
  endforeach()
endfunction()
