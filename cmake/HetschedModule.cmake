# hetsched_module(NAME [DEPENDS module...] [LIBS target...] [SOURCES file...])
#
# One static library per folder of src/: hetsched_<NAME>, built from src/<NAME>/**.cpp,
# with the public headers of include/hetsched/<NAME>/. A module may use only the modules
# it names in DEPENDS (and what they depend on), and each of those must have been declared
# before it: the modules form a chain in the order of the calls, so a cycle cannot be
# written down. ctest's `module_layers` check (scripts/checks/module_layers.sh) fails when
# a file of a module includes a header of a module outside that set; it reads the list
# this function writes to ${CMAKE_BINARY_DIR}/hetsched_modules.txt.
set(HETSCHED_MODULES_FILE ${CMAKE_BINARY_DIR}/hetsched_modules.txt)
file(WRITE ${HETSCHED_MODULES_FILE} "")
set_property(GLOBAL PROPERTY HETSCHED_MODULES "")

function(hetsched_module name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "DEPENDS;LIBS;SOURCES")
  get_property(declared GLOBAL PROPERTY HETSCHED_MODULES)
  foreach(dependency IN LISTS arg_DEPENDS)
    if(NOT dependency IN_LIST declared)
      message(FATAL_ERROR "hetsched module '${name}' depends on '${dependency}', which is not "
                          "declared before it (modules are declared lowest first)")
    endif()
  endforeach()
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cpp)
  add_library(hetsched_${name} STATIC ${sources} ${arg_SOURCES})
  target_include_directories(hetsched_${name} PUBLIC ${PROJECT_SOURCE_DIR}/include)
  # Compiled in batches of eight files: the headers they share (nlohmann/json, httplib, fmt)
  # are compiled once per batch instead of once per file. File-local helpers of one module
  # thus need distinct names, and a class with linkage may not hold an anonymous type.
  set_target_properties(hetsched_${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  list(TRANSFORM arg_DEPENDS PREPEND hetsched_ OUTPUT_VARIABLE dependency_targets)
  target_link_libraries(hetsched_${name} PUBLIC ${dependency_targets} PRIVATE ${arg_LIBS})
  set_property(GLOBAL APPEND PROPERTY HETSCHED_MODULES ${name})
  list(JOIN arg_DEPENDS " " dependency_line)
  file(APPEND ${HETSCHED_MODULES_FILE} "${name}: ${dependency_line}\n")
endfunction()
