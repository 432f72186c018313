# One ctest test per GoogleTest suite, rather than gtest_discover_tests' one per test case.
#
# Every sanitized test process pays a fixed start-up and exit (LeakSanitizer's scan) of
# about half a second; with one process per suite instead of per case the suite's few
# hundred cases start about a hundred processes. Each suite still reports every case by
# name in its output, and ctest --output-on-failure shows it when the suite fails.
#
# hetsched_add_gtest_suites(<target> [TIMEOUT <s>] [ENVIRONMENT <VAR=value>]
#                           [FIXTURES_REQUIRED <fixture>]
#                           [ISOLATE <Suite.Case> [ISOLATE_ENVIRONMENT <VAR=value>]])
#   ENVIRONMENT is set for every suite's process; every suite requires FIXTURES_REQUIRED. ISOLATE runs one case in a process of its
#   own with ENVIRONMENT and ISOLATE_ENVIRONMENT, and leaves it out of its suite's process.
#
# The cases are listed after each build (POST_BUILD runs the binary's --gtest_list_tests),
# the way CMake's GoogleTest module discovers them, and ctest reads the generated file.

set(_HETSCHED_GTEST_SUITES_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/hetsched_gtest_suites_write.cmake")

function(hetsched_add_gtest_suites target)
  cmake_parse_arguments(arg "" "TIMEOUT;ENVIRONMENT;FIXTURES_REQUIRED;ISOLATE;ISOLATE_ENVIRONMENT"
                        "" ${ARGN})
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 600)
  endif()
  set(tests_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND}
      -D "EXECUTABLE=$<TARGET_FILE:${target}>"
      -D "OUTPUT=${tests_file}"
      -D "WORKING_DIRECTORY=${CMAKE_CURRENT_BINARY_DIR}"
      -D "TIMEOUT=${arg_TIMEOUT}"
      -D "ENVIRONMENT=${arg_ENVIRONMENT}"
      -D "FIXTURES_REQUIRED=${arg_FIXTURES_REQUIRED}"
      -D "ISOLATE=${arg_ISOLATE}"
      -D "ISOLATE_ENVIRONMENT=${arg_ISOLATE_ENVIRONMENT}"
      -P "${_HETSCHED_GTEST_SUITES_SCRIPT}"
    BYPRODUCTS "${tests_file}"
    VERBATIM)
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites_include.cmake")
  file(WRITE "${include_file}"
    "if(EXISTS \"${tests_file}\")\n"
    "  include(\"${tests_file}\")\n"
    "else()\n"
    "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
