// `hetsched bench cluster`: Gavel's published simulation setting (36 V100 + 36 P100
// + 36 K80, Gavel's throughput table and job generator, continuous arrivals, jobs
// 4000-5000 measured) comparing heterogeneity-agnostic LAS with our
// heterogeneity-aware policy (aware-throughput-srpt by default; Gavel's own aware LAS and the
// space-sharing variant are run alongside for reference); the static 100- and 700-job multi-GPU
// traces (makespan, FIFO vs aware min-makespan); and the Alibaba GPU-sharing trace
// under best-fit and fragmentation-aware placement.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hetsched/stream/gpu_share_placement.hpp"
#include "hetsched/stream/stream_run_sink.hpp"

namespace hetsched {

struct ClusterBenchParams {
  std::string data_dir;  // the shared data folder (holds gavel/ and alibaba-gpu-2023/)
  bool quick = false;    // fewer rates, a smaller measurement window, no 700-job case
  std::uint64_t seed = 0;
  // Continuous rows are also run with seeds seed+1 .. seed+seeds-1 (agnostic and
  // aware only), and the rows carry every seed's figures and their mean and spread.
  std::size_t seeds = 1;
  double migration_seconds = 30;
  double round_seconds = 360;
  // Our heterogeneity-aware policy (a round-mode stream policy name).
  std::string aware_policy = "aware-throughput-srpt";
  std::vector<double> rates;   // only these arrival rates (jobs/h); empty: all five
  bool static_cases = true;    // the static 100- and 700-job makespan cases
  bool alibaba = true;         // the Alibaba placement runs
  bool reference_runs = true;  // also Gavel's own aware LAS and the space-sharing run
  std::function<void(const std::string&)> progress;  // called before each run
  // The first static case's runs (100 jobs: fifo and aware-min-makespan), recorded with
  // their segments, are handed here.
  StreamRunSink report_runs;
};

// One seed of a continuous row.
struct GavelSeedRun {
  std::uint64_t seed = 0;
  double agnostic_avg_jct_hours = 0;
  double aware_avg_jct_hours = 0;
};

// Mean, sample standard deviation, least and greatest of some figures.
struct SeedSpread {
  double mean = 0, stddev = 0, min = 0, max = 0;
};
SeedSpread seed_spread(const std::vector<double>& values);

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
  std::string aware_policy;
  // Gavel's own heterogeneity-aware LAS (max-min fairness LP, `aware-las`) in our
  // simulator, for reference; 0 when not run.
  double aware_las_avg_jct_hours = 0;
  // Our aware policy with space sharing (single-GPU traces; 0 when not run) and
  // Gavel's published space-sharing figure (0 where it published none).
  double aware_space_sharing_avg_jct_hours = 0;
  double published_aware_space_sharing = 0;
  // Fairness of the measured jobs: Themis' finish-time fairness (average rho) and
  // Jain's index over inverse slowdowns.
  double agnostic_ftf_rho_average = 0, aware_ftf_rho_average = 0;
  double agnostic_jain = 0, aware_jain = 0;
  // Reading the aware run: the measured jobs' average time alone on their best type
  // (a lower bound on the average JCT), their average wait before the first round,
  // and migrations per measured job.
  double run_time_bound_hours = 0;
  double aware_avg_wait_hours = 0;
  double aware_migrations_per_job = 0;
  // Every seed run (the first is `seed`, whose figures fill the fields above).
  std::vector<GavelSeedRun> seed_runs;
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
