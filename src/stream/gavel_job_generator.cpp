// Gavel's job generator, re-expressed over hetsched::Rng (see the header).
#include "hetsched/stream/gavel_job_generator.hpp"

#include <cmath>

#include "hetsched/core/rng.hpp"

namespace hetsched {

StreamJob make_gavel_stream_job(const GavelThroughputTable& table, const std::string& model,
                                int scale_factor, double total_steps, double arrival_seconds,
                                double priority_weight, std::optional<double> slo_factor) {
  StreamJob job;
  job.job_type = model;
  job.gang_size = scale_factor;
  job.total_steps = total_steps;
  job.arrival_seconds = arrival_seconds;
  job.priority_weight = priority_weight;
  const auto index = table.find(model, scale_factor);
  if (!index) return job;
  const GavelJobType& type = table.job_types[*index];
  double reference_rate = 0;
  for (std::size_t k = 0; k < table.device_types.size(); ++k) {
    if (type.alone[k] > 0) job.steps_per_second[table.device_types[k]] = type.alone[k];
    if (type.unconsolidated[k] > 0)
      job.spread_steps_per_second[table.device_types[k]] = type.unconsolidated[k];
    if (table.device_types[k] == "V100") reference_rate = type.alone[k];
  }
  if (slo_factor && reference_rate > 0)
    job.deadline_seconds = arrival_seconds + *slo_factor * total_steps / reference_rate;
  return job;
}

std::vector<StreamJob> generate_gavel_jobs(const GavelThroughputTable& table,
                                           const GavelGeneratorParams& params) {
  Rng rng(params.seed);
  const std::vector<std::string> models = table.models();
  const auto reference = table.device_index("V100");
  std::vector<StreamJob> jobs;
  jobs.reserve(params.jobs);
  double arrival = 0;
  for (std::size_t i = 0; i < params.jobs; ++i) {
    int scale = 1;
    if (params.multi_gpu) {
      const double r = rng.uniform();
      scale = r < 0.7 ? 1 : r < 0.8 ? 2 : r < 0.95 ? 4 : 8;
    }
    std::string model;
    while (true) {
      model = models[rng.below(models.size())];
      if (table.find(model, scale)) break;
    }
    const bool long_job = rng.uniform() >= 0.8;
    const double duration =
        60.0 * std::pow(10.0, long_job ? rng.uniform(3.0, 4.0) : rng.uniform(1.5, 3.0));
    const GavelJobType& type = table.job_types[*table.find(model, scale)];
    const double steps = duration * (reference ? type.alone[*reference] : 1.0);
    StreamJob job = make_gavel_stream_job(table, model, scale, steps, arrival);
    job.name = "job-" + std::to_string(i);
    jobs.push_back(std::move(job));
    if (params.jobs_per_hour > 0) arrival += rng.exponential(3600.0 / params.jobs_per_hour);
  }
  return jobs;
}

StreamColocationTable gavel_colocation_table(const GavelThroughputTable& table) {
  StreamColocationTable colocation;
  for (const auto& [key, rates] : table.colocated) {
    const auto& [a, b, device] = key;
    const GavelJobType& first = table.job_types[a];
    const GavelJobType& second = table.job_types[b];
    if (first.scale_factor != 1 || second.scale_factor != 1) continue;
    colocation.rates[{first.model, second.model, table.device_types[device]}] = rates;
  }
  return colocation;
}

std::vector<StreamJob> stream_jobs_from_gavel_trace(const GavelThroughputTable& table,
                                                    const std::vector<GavelTraceJob>& trace) {
  std::vector<StreamJob> jobs;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const GavelTraceJob& entry = trace[i];
    StreamJob job =
        make_gavel_stream_job(table, entry.model, entry.scale_factor, entry.total_steps,
                              entry.arrival_seconds, entry.priority_weight, entry.slo_factor);
    job.name = "line-" + std::to_string(entry.line);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace hetsched
