// The local runtime's benchmark, side by side with StarPU on the same machine in
// the same run: per-task overhead of independent empty tasks on CPU workers,
// tiled DGEMM GFLOP/s on CPU workers (OpenBLAS single-threaded per worker), and
// the makespan of a CPU + OpenCL mix of kernels that favour different devices.
// The StarPU figures come from small C programs built against Debian's libstarpu
// at benchmark time by bench/starpu/run_starpu_bench.sh (StarPU is never linked).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hetsched {

struct RuntimeBenchmarkOptions {
  std::uint32_t empty_tasks = 200000;
  // Overhead runs on each side (ours: round-robin; StarPU: each of eager, lws and dmda);
  // the figure is the best, as for DGEMM. All are reported.
  std::uint32_t overhead_repetitions = 3;
  std::uint32_t gemm_side = 2048;
  std::uint32_t gemm_tile = 256;
  // Timed DGEMM runs on each side (after one untimed warm-up/calibration round); the
  // figure is the best, as machine noise only ever slows a run down. All are reported.
  std::uint32_t gemm_repetitions = 3;
  unsigned cpu_workers = 2;
  std::uint32_t mix_chains = 8;
  std::uint32_t mix_size = 128;
  std::string policy = "greedy-eft";
  // The StarPU peer script; empty: StarPU is not run (its figures stay unset).
  std::string starpu_script;
  // Called after each run (done, total); the CLI draws it on stderr between timed runs.
  std::function<void(std::size_t, std::size_t)> progress;
};

struct RuntimeBenchmarkResult {
  double overhead_us_per_task = 0;                // best of overhead_us_per_task_runs
  std::vector<double> overhead_us_per_task_runs;  // each run, in order
  double gemm_gflops = 0;                         // best of gemm_gflops_runs
  std::vector<double> gemm_gflops_runs;           // each timed run, in order
  double mix_makespan_seconds = 0;
  std::uint64_t overhead_sleeps = 0;  // futex sleeps (dispatcher + workers) in the overhead run
  std::string mix_devices;            // what the mix ran on
  // Transfers overlapped with compute in the timed mix run (OpenCL devices): uploads of
  // the next task issued while a kernel ran, those the device's timestamps show running
  // under it, and the seconds they overlapped.
  std::uint64_t mix_uploads_during_kernel = 0;
  std::uint64_t mix_uploads_overlapped = 0;
  double mix_overlap_seconds = 0;
  double mix_bytes_to_devices = 0;
  // The machine's 1-minute load average (/proc/loadavg) before and after our runs.
  double load_before = 0;
  double load_after = 0;
  std::optional<double> starpu_overhead_us_per_task;  // best of eager, lws, dmda (all runs)
  std::optional<double> starpu_gemm_gflops;
  std::optional<double> starpu_mix_makespan_seconds;
  std::map<std::string, double> starpu_details;  // every figure the script printed
  std::string starpu_openblas_core;              // the OpenBLAS kernels StarPU's DGEMM ran
  std::string starpu_error;                      // why StarPU figures are missing
  std::string notice;                            // OpenCL availability, OpenBLAS core type
};

RuntimeBenchmarkResult run_runtime_benchmark(const RuntimeBenchmarkOptions& options);

}  // namespace hetsched
