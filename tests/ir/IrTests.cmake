# IR-file tests: an input file (.tir, .py, or any extension a frontend
# reads) whose lines include
#
#   # RUN: <arguments of `tessera compile INPUT`>
#
# and, next to it, NAME.expected: the exact expected stdout, optionally
# headed by directives
#
#   # EXIT: 1            expected exit code (default 0)
#   # STREAM: stderr     which output to compare: stdout | stderr | both
#                        (default: stdout when EXIT is 0, else stderr)
#
# The runner executes `tessera compile NAME <RUN args> --verify-roundtrip`
# from the input's directory (so diagnostics say `NAME.tir:3:5`), compares,
# and prints a unified diff on mismatch. TESSERA_UPDATE_EXPECTED=1 in the
# environment rewrites the .expected files from the actual output.
#
#   include(${CMAKE_SOURCE_DIR}/tests/ir/IrTests.cmake)
#   tessera_add_ir_tests(<dir> [PLUGIN_PATHS <path>...] [LABELS <label>...])
#
# One ctest test per input file, named ir.<dir relative to tests/>.<NAME>.
# PLUGIN_PATHS become --plugin-path arguments (generator expressions such
# as $<TARGET_FILE_DIR:my_plugin> are fine); in-tree plugins in the build
# tree's plugin directory are found without them.
include_guard(GLOBAL)

# A cache entry, not a plain variable: include_guard(GLOBAL) skips this file
# in every directory after the first one that includes it.
set(TESSERA_IR_TEST_RUNNER "${CMAKE_CURRENT_LIST_DIR}/run_ir_test.py"
    CACHE INTERNAL "The IR-file test runner")

function(tessera_add_ir_tests dir)
  cmake_parse_arguments(ARG "" "" "PLUGIN_PATHS;LABELS" ${ARGN})
  get_filename_component(dir "${dir}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(EXISTS "${TESSERA_PYTHON}")
    set(python "${TESSERA_PYTHON}")
  else()
    find_program(python NAMES python3 REQUIRED)
  endif()

  file(RELATIVE_PATH area "${PROJECT_SOURCE_DIR}/tests" "${dir}")
  string(REPLACE "/" "." area "${area}")

  set(plugin_args "")
  foreach(path IN LISTS ARG_PLUGIN_PATHS)
    list(APPEND plugin_args --plugin-path "${path}")
  endforeach()

  file(GLOB inputs CONFIGURE_DEPENDS "${dir}/*")
  list(SORT inputs)
  foreach(input IN LISTS inputs)
    if(IS_DIRECTORY "${input}" OR input MATCHES "\\.expected$")
      continue()
    endif()
    file(STRINGS "${input}" run_lines REGEX "# RUN:")
    if(NOT run_lines)
      continue()
    endif()
    get_filename_component(name "${input}" NAME_WLE)
    set(test_name "ir.${area}.${name}")
    add_test(NAME "${test_name}"
             COMMAND "${python}" "${TESSERA_IR_TEST_RUNNER}"
                     --tessera $<TARGET_FILE:tessera>
                     --input "${input}"
                     --expected "${dir}/${name}.expected"
                     ${plugin_args})
    set_tests_properties("${test_name}" PROPERTIES
      LABELS "ir;${ARG_LABELS}"
      TIMEOUT 120)
  endforeach()
endfunction()
