// `hetsched simulate` on a stream workload file (kind: stream): runs the stream
// simulator under each stream policy and prints the job-stream metrics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hetsched::cli {

struct StreamSimulateOptions {
  std::string workload_file;
  // When set, the stream runs on this cluster file's nodes instead of its own `cluster:`.
  std::string cluster_file;
  std::string gang_placement = "spread";  // or "pack": every gang on one node
  std::string device_placement = "most-free-type";  // or "best-fit", "fragmentation-aware"
  std::vector<std::string> policies;      // default: fifo, las, aware-las
  bool easy_backfilling = false;
  double round_seconds = 360;
  double migration_seconds = 30;
  std::string format = "table";
  // When set, each job's first node and type, start, finish and moves under each policy
  // (CSV when it ends in .csv, JSON otherwise).
  std::string schedule_file;
  std::string out_dir;  // when set, the JSON reports are also written to out_dir/stream.report.json
  bool quiet = false;
};

void run_stream_simulation(const StreamSimulateOptions& options);

}  // namespace hetsched::cli
