# Script mode (cmake -P), run after each build of a test binary: lists its GoogleTest
# suites and writes one add_test per suite to OUTPUT. See HetschedGtestSuites.cmake.
execute_process(COMMAND "${EXECUTABLE}" --gtest_list_tests
  WORKING_DIRECTORY "${WORKING_DIRECTORY}"
  OUTPUT_VARIABLE listing
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${EXECUTABLE} --gtest_list_tests failed (${status}):\n${listing}")
endif()

set(isolated_suite "")
if(ISOLATE)
  string(REGEX REPLACE "\\.[^.]*$" "" isolated_suite "${ISOLATE}")
endif()

set(script "")
set(found_isolated OFF)
# Parameter comments ("# GetParam() = ...") may hold list separators; names never do.
string(REGEX REPLACE "#[^\n]*" "" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(suite "")
foreach(line IN LISTS lines)
  string(REGEX REPLACE " +$" "" line "${line}")
  if(line STREQUAL "")
    continue()
  endif()
  if(line MATCHES "^ ")
    string(STRIP "${line}" case_name)
    if("${suite}.${case_name}" STREQUAL "${ISOLATE}")
      set(found_isolated ON)
    endif()
    continue()
  endif()
  if(NOT line MATCHES "^(.+)\\.$")
    continue()  # gtest_main's "Running main() from ..." and other chatter
  endif()
  set(suite "${CMAKE_MATCH_1}")
  set(filter "${suite}.*")
  if(suite STREQUAL isolated_suite)
    string(APPEND filter ":-${ISOLATE}")
  endif()
  string(APPEND script
    "add_test([=[${suite}]=] \"${EXECUTABLE}\" [=[--gtest_filter=${filter}]=])\n"
    "set_tests_properties([=[${suite}]=] PROPERTIES WORKING_DIRECTORY \"${WORKING_DIRECTORY}\" TIMEOUT ${TIMEOUT}"
    " ENVIRONMENT [=[${ENVIRONMENT}]=] FIXTURES_REQUIRED [=[${FIXTURES_REQUIRED}]=])\n")
endforeach()

# A build without the isolated case (its device absent) simply has no such test.
if(found_isolated)
  string(APPEND script
    "add_test([=[${ISOLATE}]=] \"${EXECUTABLE}\" [=[--gtest_filter=${ISOLATE}]=])\n"
    "set_tests_properties([=[${ISOLATE}]=] PROPERTIES WORKING_DIRECTORY \"${WORKING_DIRECTORY}\" TIMEOUT ${TIMEOUT}"
    " ENVIRONMENT [=[${ENVIRONMENT};${ISOLATE_ENVIRONMENT}]=]"
    " FIXTURES_REQUIRED [=[${FIXTURES_REQUIRED}]=])\n")
endif()
file(WRITE "${OUTPUT}" "${script}")
