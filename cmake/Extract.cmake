# ksim_extract(OUT <generated file> LIST <extract list> SOURCES <kernel files...> [COMMENT text]):
# generate OUT with scripts/ksim-extract from the functions named in LIST
# (verbatim kernel text, #line into KSRC), re-run when the list, the tool or
# one of the kernel SOURCES (paths relative to KSRC) changes.  The tool fails
# the build with one line (file, function, kernel version) when a function is
# missing or changed shape.  Lines of LIST may depend on probed features
# ([KSIM_HAVE_X] / [!KSIM_HAVE_X], cmake/Features.cmake): the tool reads
# them from the generated features.h.
include_guard(GLOBAL)

function(ksim_extract)
  cmake_parse_arguments(E "" "OUT;LIST;COMMENT" "SOURCES" ${ARGN})
  get_filename_component(_dir ${E_OUT} DIRECTORY)
  list(TRANSFORM E_SOURCES PREPEND ${KSIM_KSRC}/)
  add_custom_command(
    OUTPUT ${E_OUT}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_dir}
    COMMAND ${KSIM_PYTHON} ${CMAKE_SOURCE_DIR}/scripts/ksim-extract --ksrc ${KSIM_KSRC}
            --kver ${KSIM_KVERSION} --features ${KSIM_FEATURES_H} --out ${E_OUT} ${E_LIST}
    DEPENDS ${E_LIST} ${CMAKE_SOURCE_DIR}/scripts/ksim-extract ${KSIM_FEATURES_H} ${E_SOURCES}
    COMMENT "ksim-extract: ${E_COMMENT} (kernel ${KSIM_KVERSION})")
endfunction()
