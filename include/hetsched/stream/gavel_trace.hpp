// Gavel job traces (tab-separated, one job a line). Two layouts exist:
//   10 fields: job_type, command, working_directory, num_steps_arg, needs_data_dir,
//              total_steps, scale_factor, priority_weight, SLO, arrival_time
//    7 fields: job_type, command, num_steps_arg, needs_data_dir, total_steps,
//              arrival_time, scale_factor   (the older "msr" traces)
// The layout is taken from the first line; any line with another field count, or a
// number that does not parse, is an InputError with the file and line number.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace hetsched {

struct GavelTraceJob {
  std::string model;  // job type without the scale factor, e.g. "ResNet-18 (batch size 128)"
  double total_steps = 0;
  int scale_factor = 1;
  double priority_weight = 1;
  std::optional<double> slo_factor;  // Gavel's SLO: allowed slowdown; none when <= 0
  double arrival_seconds = 0;
  int line = 0;  // 1-based line in the trace
};

std::vector<GavelTraceJob> parse_gavel_trace(const std::string& text, const std::string& file_name);
std::vector<GavelTraceJob> load_gavel_trace(const std::string& path);

}  // namespace hetsched
