#include "hetsched/io/config_kind.hpp"

#include <yaml-cpp/yaml.h>

namespace hetsched {

ConfigKind detect_config_kind(const std::string& path) {
  try {
    const YAML::Node root = YAML::LoadFile(path);
    if (!root.IsMap()) return ConfigKind::unknown;
    if (root["nodes"]) return ConfigKind::cluster;
    if (root["jobs"]) return ConfigKind::workload;
  } catch (const YAML::Exception&) {
  }
  return ConfigKind::unknown;
}

}  // namespace hetsched
