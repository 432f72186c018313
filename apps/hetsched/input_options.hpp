// The --cluster / --workload options shared by several subcommands, and loading
// them (or the built-in defaults).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/workload/workload.hpp"

namespace hetsched::cli {

struct InputOptions {
  std::string cluster_file;
  std::string workload_file;
  std::uint64_t seed = 1;
  bool quiet = false;

  void add_to(CLI::App& command);
  Cluster load_cluster() const;
  Workload load_workload(const Cluster& cluster) const;
};

}  // namespace hetsched::cli
