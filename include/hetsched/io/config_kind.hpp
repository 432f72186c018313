// Which kind of input a file holds, told by its content rather than its name: the
// top-level fields of a YAML or JSON map, or an XML root. `hetsched validate`,
// `simulate` and `pareto` use it to accept every format `import` reads.
//
//   cluster          `nodes`                      (cluster_file.hpp)
//   workload         `jobs`                       (workload_file.hpp)
//   stream_workload  `kind: stream`               (stream_workload_file.hpp)
//   wfcommons        `workflow`                   (wfcommons_importer.hpp)
//   cost_matrix      `devices` and `tasks`        (cost_matrix_file.hpp)
//   fault            `model` or `failures`, ...   (fault_file.hpp)
//   pegasus_dax      an XML document              (pegasus_dax_importer.hpp)
#pragma once

#include <string>
#include <string_view>

namespace hetsched {

enum class ConfigKind {
  cluster,
  workload,
  stream_workload,
  wfcommons,
  cost_matrix,
  fault,
  pegasus_dax,
  unknown
};

// The kind of `text`; unknown when it is none of the above (or not even YAML, JSON or
// XML: the loaders then report why, with the position).
ConfigKind detect_config_kind_of_text(std::string_view text);

// What a file says about itself: its kind and, for a workload, the cluster file its
// `cluster` field names (empty when none).
struct ConfigFileSummary {
  ConfigKind kind = ConfigKind::unknown;
  std::string cluster_file;
};
ConfigFileSummary summarize_config_text(std::string_view text);

// The kind of the file at `path`, read with read_text_file (an InputError naming the file
// when it cannot be read: missing, a directory, too large).
ConfigKind detect_config_kind(const std::string& path);

// "cluster", "workload", "stream workload", "WfCommons workflow", ...
std::string_view config_kind_name(ConfigKind kind);

}  // namespace hetsched
