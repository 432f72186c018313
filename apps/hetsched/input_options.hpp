// The --cluster / --workload / --seed options shared by several subcommands; loading them
// is load_scheduling_input's (any workload format, told by content).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "hetsched/io/scheduling_input.hpp"

namespace hetsched::cli {

struct InputOptions {
  std::string cluster_file;
  std::string workload_file;
  std::uint64_t seed = 1;
  bool quiet = false;

  void add_to(CLI::App& command);
  SchedulingInput load() const;
};

}  // namespace hetsched::cli
