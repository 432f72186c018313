// How fast, and in how much memory, hetsched reads big input files (`hetsched bench input`).
//
// It writes one generated workload as YAML and as JSON (chains of tasks in jobs of 100, each
// task with a name, kernel, work, bytes and its parent, as users write them) into a
// temporary folder, then reads each with load_workload_file in a child process of its own,
// so that each figure of peak memory is that file's alone. A third file is a generated
// WfCommons 1.5 instance (a grid of chains: each task's parents, children, input and output
// files, and its execution record with runtime, CPU, memory and machine), read with
// import_wfcommons_file. For each file:
//   - seconds of the read (file read, parse, checks and the model built), and MB/s of input;
//   - peak resident memory of the read above what the child held before it, the model's own
//     size (its resident memory after the read, once freed memory is handed back), and the
//     rest of the peak as a multiple of the file's size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hetsched {

struct InputBenchParams {
  std::size_t tasks = 400'000;           // about 40 MB of YAML or JSON
  std::size_t workflow_tasks = 100'000;  // about 50 MB of WfCommons JSON
};

struct InputBenchRow {
  std::string format;  // "yaml", "json" or "wfcommons"
  std::size_t file_bytes = 0;
  std::size_t tasks = 0;
  double seconds = 0;
  double megabytes_per_second = 0;
  double peak_megabytes = 0;       // above the child's resident memory before the read
  double model_megabytes = 0;      // resident after the read, freed memory handed back
  double peak_over_file_size = 0;  // (peak - model) / file size
};

std::vector<InputBenchRow> run_input_benchmark(const InputBenchParams& params);

}  // namespace hetsched
