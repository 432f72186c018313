// `hetsched bench cluster`: Gavel's published simulation setting (36 V100 + 36 P100
// + 36 K80, Gavel's throughput table and job generator, continuous arrivals, jobs
// 4000-5000 measured) comparing heterogeneity-agnostic LAS with our
// heterogeneity-aware max-min fairness; the static 100- and 700-job multi-GPU
// traces (makespan, FIFO vs aware min-makespan); and the Alibaba GPU-sharing trace
// under best-fit and fragmentation-aware placement.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hetsched/stream/gpu_share_placement.hpp"

namespace hetsched {

struct ClusterBenchParams {
  std::string data_dir;  // the shared data folder (holds gavel/ and alibaba-gpu-2023/)
  bool quick = false;    // fewer rates, a smaller measurement window, no 700-job case
  std::uint64_t seed = 0;
  double migration_seconds = 30;
  double round_seconds = 360;
  std::function<void(const std::string&)> progress;  // called before each run
};

struct GavelContinuousRow {
  std::string trace;  // "single-gpu" or "multi-gpu"
  double rate_jobs_per_hour = 0;
  double agnostic_avg_jct_hours = 0;
  double aware_avg_jct_hours = 0;
  double published_agnostic = 0;
  double published_aware = 0;
  std::size_t measured_jobs = 0;
  double agnostic_wall_seconds = 0;
  double aware_wall_seconds = 0;
};

struct MakespanRow {
  std::size_t jobs = 0;
  double fifo_hours = 0;
  double aware_hours = 0;
  double published_fifo = 0;
  double published_aware = 0;
};

struct ClusterBenchResult {
  std::vector<GavelContinuousRow> gavel;
  std::vector<MakespanRow> makespan;
  std::vector<GpuShareResult> alibaba;          // trace timing (arrivals and deletions)
  std::vector<GpuShareResult> alibaba_packing;  // every pod kept: how much demand fits
  std::size_t measure_first = 0, measure_last = 0;
};

ClusterBenchResult run_cluster_benchmark(const ClusterBenchParams& params);

}  // namespace hetsched
