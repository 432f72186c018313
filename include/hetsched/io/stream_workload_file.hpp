// The stream workload file (YAML or JSON, read by the io module's one document reader), documented
// in docs/cluster-scheduling.md:
//   kind: stream                       # marks the file as a job stream
//   cluster:
//     devices_per_node: 4              # optional, default 4
//     nodes_per_rack: 8                # optional, default 8
//     devices: {V100: 36, P100: 36, K80: 36}   # catalog names and counts
//   throughputs: path/to/simulation_throughputs.json   # optional, relative to the file
//   gavel_trace: path/to/a.trace       # optional: jobs from a Gavel trace
//   generate: {jobs: 100, jobs_per_hour: 4.0, multi_gpu: false, seed: 1}  # optional
//   jobs:                              # optional explicit jobs
//     - {name: a, user: alice, gang: 2, steps: 1e5, arrival: 0, weight: 1,
//        deadline: 7200, rates: {V100: 10.5, K80: 2.1}, spread_rates: {V100: 8}}
//     - {model: "ResNet-50 (batch size 64)", gang: 1, steps: 5e4}   # rates from the table
// Structural mistakes are InputErrors with file:line:column (unknown fields with the closest
// valid names); a job naming a device
// type that does not exist is kept and rejected at submission by the simulator.
#pragma once

#include <string>

#include "hetsched/stream/stream_job.hpp"

namespace hetsched {

StreamWorkload load_stream_workload(const std::string& path);
StreamWorkload parse_stream_workload(const std::string& text, const std::string& file_name,
                                     const std::string& base_directory = ".");

}  // namespace hetsched
