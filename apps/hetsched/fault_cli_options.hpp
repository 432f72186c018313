// The fault options of `hetsched simulate`: a fault file, or quick switches for
// seeded failures (MTBF override or scale) and checkpointing; and the lines that
// summarise what failures did to a run.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "hetsched/backend/run_report.hpp"
#include "hetsched/fault/fault_options.hpp"

namespace hetsched::cli {

struct FaultCliOptions {
  std::string failures_file;
  std::optional<double> mtbf_scale;
  std::optional<double> mtbf_hours;
  std::string checkpoint = "";  // none, daly or fixed; empty: the file's choice (or none)
  std::optional<double> checkpoint_interval_seconds;
  std::optional<double> clone_threshold;

  void add_to(CLI::App& command);
  // Fault options for the run (disabled when none of the switches is given);
  // throws InputError on bad values.
  FaultOptions build(const Cluster& cluster) const;
};

std::string fault_summary(const RunReport& report);

}  // namespace hetsched::cli
