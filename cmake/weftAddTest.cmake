# weft_add_test: build a program with weft's compiler wrappers and run `weft run` on it as a
# ctest test (docs/install.md).
#
#   weft_add_test(NAME name SOURCES file.c...
#                 [WEFT_ARGS arg...]        options of `weft run` (--strategy, --time-limit, ...)
#                 [COMPILE_OPTIONS opt...]  for the wrapper (-I, -D, -O2, -l..., ...)
#                 [ARGS arg...]             the program's own arguments
#                 [FAIL_ON_INCOMPLETE])
#
# weft's exit code decides the test: 0 (every behaviour explored, no bug) passes; 1 (a bug) and
# 2 (a usage or build error) fail; 3 (no bug found, but the exploration was incomplete: a bound
# or the time limit was hit) makes the test "skipped" in ctest's summary, or failed with
# FAIL_ON_INCOMPLETE. The program is built by the target `name` (part of ALL), as
# weft-programs/name in the current binary directory, with weft-c++ when a source is C++, else
# weft-cc. The test runs in the current binary directory, where weft writes its replay file.
function(weft_add_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "FAIL_ON_INCOMPLETE" "NAME"
                        "SOURCES;WEFT_ARGS;COMPILE_OPTIONS;ARGS")
  if(NOT arg_NAME)
    message(FATAL_ERROR "weft_add_test: NAME is missing (weft_add_test(NAME name SOURCES ...))")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "weft_add_test(${arg_NAME}): SOURCES is missing")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "weft_add_test(${arg_NAME}): unknown arguments ${arg_UNPARSED_ARGUMENTS} "
                        "(it takes NAME, SOURCES, WEFT_ARGS, COMPILE_OPTIONS, ARGS and "
                        "FAIL_ON_INCOMPLETE)")
  endif()
  set(compiler "${WEFT_CC}")
  set(sources)
  foreach(source IN LISTS arg_SOURCES)
    get_filename_component(source "${source}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(source MATCHES "\\.(cc|cpp|cxx|c\\+\\+|C)$")
      set(compiler "${WEFT_CXX}")
    endif()
    list(APPEND sources "${source}")
  endforeach()
  # In a directory of its own: ninja cannot have a file and a target of the same name.
  set(program "${CMAKE_CURRENT_BINARY_DIR}/weft-programs/${arg_NAME}")
  add_custom_command(OUTPUT "${program}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${CMAKE_CURRENT_BINARY_DIR}/weft-programs"
    COMMAND "${compiler}" ${arg_COMPILE_OPTIONS} ${sources} -o "${program}"
    DEPENDS ${sources} "${compiler}"
    COMMENT "Building ${arg_NAME} with ${compiler}"
    VERBATIM COMMAND_EXPAND_LISTS)
  add_custom_target(${arg_NAME} ALL DEPENDS "${program}")
  add_test(NAME ${arg_NAME} COMMAND "${WEFT_EXECUTABLE}" run ${arg_WEFT_ARGS} "${program}" ${arg_ARGS})
  if(NOT arg_FAIL_ON_INCOMPLETE)
    set_tests_properties(${arg_NAME} PROPERTIES SKIP_RETURN_CODE 3)
  endif()
endfunction()
