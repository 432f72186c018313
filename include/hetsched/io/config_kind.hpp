// Which kind of hetsched file a path holds, from its top-level keys: `nodes` for a
// cluster, `jobs` for a workload. Used by `hetsched validate FILE`.
#pragma once

#include <string>

namespace hetsched {

enum class ConfigKind { cluster, workload, unknown };

// unknown when the file cannot be read or parsed (the loaders then report why).
ConfigKind detect_config_kind(const std::string& path);

}  // namespace hetsched
