// Gavel's synthetic job stream (Narayanan et al., OSDI 2020, and its simulator):
// a job type drawn uniformly from the measured models; for multi-GPU streams a gang
// of 1, 2, 4 or 8 GPUs with probability 0.7, 0.1, 0.15, 0.05 (a gang > 1 redraws
// the model until it is one measured at that scale); a duration of 60 * 10^U(1.5, 3)
// seconds for 80 % of jobs and 60 * 10^U(3, 4) for the other 20 %, turned into steps
// at the job's V100 rate; Poisson arrivals at the given rate (or all at time 0).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hetsched/stream/gavel_throughputs.hpp"
#include "hetsched/stream/gavel_trace.hpp"
#include "hetsched/stream/stream_job.hpp"

namespace hetsched {

struct GavelGeneratorParams {
  std::size_t jobs = 100;
  double jobs_per_hour = 4.0;  // <= 0: every job arrives at time 0 (a static trace)
  bool multi_gpu = false;
  std::uint64_t seed = 0;
};

std::vector<StreamJob> generate_gavel_jobs(const GavelThroughputTable& table,
                                           const GavelGeneratorParams& params);

// A stream job of a measured (model, scale) with its rates from the table; the
// rates are left empty when the table lacks the pair (it is then rejected at
// submission). `slo_factor` sets the deadline to arrival + factor * its V100 duration.
StreamJob make_gavel_stream_job(const GavelThroughputTable& table, const std::string& model,
                                int scale_factor, double total_steps, double arrival_seconds,
                                double priority_weight = 1,
                                std::optional<double> slo_factor = std::nullopt);

// The table's co-location measurements of single-device job types (scale factor 1),
// keyed by model name as StreamJob::job_type holds it.
StreamColocationTable gavel_colocation_table(const GavelThroughputTable& table);

std::vector<StreamJob> stream_jobs_from_gavel_trace(const GavelThroughputTable& table,
                                                    const std::vector<GavelTraceJob>& trace);

}  // namespace hetsched
