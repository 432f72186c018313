#include "input_options.hpp"

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/io/cluster_file.hpp"
#include "hetsched/io/workload_file.hpp"
#include "hetsched/workload/generators.hpp"
#include "hetsched/workload/workload_validation.hpp"

namespace hetsched::cli {

void InputOptions::add_to(CLI::App& command) {
  command.add_option("--cluster", cluster_file, "cluster file (YAML or JSON); default: built-in");
  command.add_option("--workload", workload_file,
                     "workload file (YAML or JSON); default: built-in mix");
  command.add_option("--seed", seed, "seed of every random choice")->capture_default_str();
  command.add_flag("--quiet,-q", quiet, "no progress on stderr");
}

Cluster InputOptions::load_cluster() const {
  return cluster_file.empty() ? default_cluster() : load_cluster_file(cluster_file);
}

Workload InputOptions::load_workload(const Cluster& cluster) const {
  if (!workload_file.empty()) return load_workload_file(workload_file, cluster);
  Workload workload = default_workload(seed);
  validate_workload(workload, cluster, "<built-in workload>");
  return workload;
}

}  // namespace hetsched::cli
