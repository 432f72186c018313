// The one line for a yaml-cpp exception, for the readers still on yaml-cpp (stream workload,
// fault and cost-matrix files): its own message, except for nesting too deep, which yaml-cpp
// words as "bad file". Not a public header.
#pragma once

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <string>

namespace hetsched::io_detail {

inline std::string yaml_cpp_error_message(const YAML::Exception& error) {
  if (dynamic_cast<const YAML::DeepRecursion*>(&error) != nullptr)
    return "nesting deeper than yaml-cpp reads (500 levels)";
  return error.msg;
}

}  // namespace hetsched::io_detail
