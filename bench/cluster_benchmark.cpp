// The cluster-scheduling benchmark against Gavel's published figures (see header).
#include "cluster_benchmark.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "hetsched/stream/alibaba_trace.hpp"
#include "hetsched/stream/gavel_job_generator.hpp"
#include "hetsched/stream/gavel_throughputs.hpp"
#include "hetsched/stream/stream_simulator.hpp"

namespace hetsched {
namespace {

StreamCluster gavel_cluster() {
  // Gavel's simulated cluster; 8 GPUs per server so that every gang of its
  // generator (at most 8) can sit in one server.
  return make_stream_cluster({{"V100", 36}, {"P100", 36}, {"K80", 36}}, 8, 8);
}

}  // namespace

SeedSpread seed_spread(const std::vector<double>& values) {
  SeedSpread spread;
  if (values.empty()) return spread;
  spread.min = *std::min_element(values.begin(), values.end());
  spread.max = *std::max_element(values.begin(), values.end());
  for (double v : values) spread.mean += v / values.size();
  if (values.size() > 1) {
    double squares = 0;
    for (double v : values) squares += (v - spread.mean) * (v - spread.mean);
    spread.stddev = std::sqrt(squares / (values.size() - 1));
  }
  return spread;
}

ClusterBenchResult run_cluster_benchmark(const ClusterBenchParams& params) {
  ClusterBenchResult result;
  const GavelThroughputTable table =
      load_gavel_throughputs(params.data_dir + "/gavel/simulation_throughputs.json");
  auto say = [&](const std::string& what) {
    if (params.progress) params.progress(what);
  };

  struct Setting {
    const char* trace;
    bool multi_gpu;
    double rate;
    double published_agnostic;
    double published_aware;
  };
  std::vector<Setting> settings{{"single-gpu", false, 4.0, 23.49, 16.82},
                                {"single-gpu", false, 4.8, 35.79, 18.97},
                                {"single-gpu", false, 5.6, 95.99, 28.96},
                                {"multi-gpu", true, 2.6, 70.54, 36.44},
                                {"multi-gpu", true, 2.8, 169.93, 55.78}};
  if (params.quick) settings = {settings[0], settings[2], settings[3]};
  if (!params.rates.empty())
    std::erase_if(settings, [&](const Setting& setting) {
      return std::none_of(params.rates.begin(), params.rates.end(),
                          [&](double rate) { return std::abs(rate - setting.rate) < 1e-9; });
    });
  const StreamColocationTable colocation = gavel_colocation_table(table);
  result.measure_first = params.quick ? 1000 : 4000;
  result.measure_last = params.quick ? 1250 : 5000;
  const std::size_t generated = result.measure_last + (params.quick ? 1000 : 3000);

  StreamSimOptions options;
  options.round_seconds = params.round_seconds;
  options.migration_seconds = params.migration_seconds;
  options.measure_first = result.measure_first;
  options.measure_last = result.measure_last;
  for (const Setting& setting : settings) {
    StreamWorkload workload;
    workload.cluster = gavel_cluster();
    workload.jobs = generate_gavel_jobs(
        table, GavelGeneratorParams{generated, setting.rate, setting.multi_gpu, params.seed});
    GavelContinuousRow row;
    row.trace = setting.trace;
    row.rate_jobs_per_hour = setting.rate;
    row.published_agnostic = setting.published_agnostic;
    row.published_aware = setting.published_aware;
    const std::string label =
        std::string(setting.trace) + " " + fmt::format("{:.1f}", setting.rate) + " jobs/h: ";
    say(label + "las");
    const StreamReport agnostic = simulate_stream(workload, "las", options);
    say(label + params.aware_policy);
    const StreamReport aware = simulate_stream(workload, params.aware_policy, options);
    row.aware_policy = params.aware_policy;
    row.agnostic_avg_jct_hours = agnostic.average_jct_seconds / 3600.0;
    row.aware_avg_jct_hours = aware.average_jct_seconds / 3600.0;
    row.measured_jobs = aware.finished_measured;
    row.agnostic_wall_seconds = agnostic.wall_seconds;
    row.aware_wall_seconds = aware.wall_seconds;
    row.agnostic_ftf_rho_average = agnostic.ftf_rho_average;
    row.aware_ftf_rho_average = aware.ftf_rho_average;
    row.agnostic_jain = agnostic.jain_fairness;
    row.aware_avg_wait_hours = aware.average_wait_seconds / 3600.0;
    double bound = 0, migrations = 0;
    std::size_t counted = 0;
    for (std::size_t j = result.measure_first; j < result.measure_last && j < workload.jobs.size();
         ++j) {
      const StreamJob& job = workload.jobs[j];
      double best = 0;
      for (const auto& [model, rate] : job.steps_per_second) best = std::max(best, rate);
      if (best <= 0 || aware.jobs[j].rejected) continue;
      bound += job.total_steps / best;
      migrations += aware.jobs[j].migrations;
      ++counted;
    }
    if (counted > 0) {
      row.run_time_bound_hours = bound / counted / 3600.0;
      row.aware_migrations_per_job = migrations / counted;
    }
    row.aware_jain = aware.jain_fairness;
    row.seed_runs.push_back({params.seed, row.agnostic_avg_jct_hours, row.aware_avg_jct_hours});
    for (std::size_t extra = 1; extra < params.seeds; ++extra) {
      const std::uint64_t seed = params.seed + extra;
      StreamWorkload other;
      other.cluster = workload.cluster;
      other.jobs = generate_gavel_jobs(
          table, GavelGeneratorParams{generated, setting.rate, setting.multi_gpu, seed});
      say(label + "seed " + std::to_string(seed));
      row.seed_runs.push_back(
          {seed, simulate_stream(other, "las", options).average_jct_seconds / 3600.0,
           simulate_stream(other, params.aware_policy, options).average_jct_seconds / 3600.0});
    }
    if (params.reference_runs) {
      if (params.aware_policy != "aware-las") {
        say(label + "aware-las");
        row.aware_las_avg_jct_hours =
            simulate_stream(workload, "aware-las", options).average_jct_seconds / 3600.0;
      }
      if (!setting.multi_gpu) {
        say(label + params.aware_policy + " with space sharing");
        StreamWorkload shared = workload;
        shared.colocation = colocation;
        StreamSimOptions sharing = options;
        sharing.space_sharing = true;
        row.aware_space_sharing_avg_jct_hours =
            simulate_stream(shared, params.aware_policy, sharing).average_jct_seconds / 3600.0;
        if (setting.rate == 5.6) row.published_aware_space_sharing = 19.64;
      }
    }
    result.gavel.push_back(row);
  }

  struct StaticCase {
    std::size_t jobs;
    double published_fifo;
    double published_aware;
  };
  std::vector<StaticCase> static_cases{{100, 182.3, 161.2}, {700, 619.5, 244.2}};
  if (params.quick) static_cases.pop_back();
  if (!params.static_cases) static_cases.clear();
  for (const StaticCase& c : static_cases) {
    StreamWorkload workload;
    workload.cluster = gavel_cluster();
    workload.jobs =
        generate_gavel_jobs(table, GavelGeneratorParams{c.jobs, 0.0, true, params.seed});
    const bool handed = params.report_runs && &c == &static_cases.front();
    StreamSimOptions static_options;
    static_options.round_seconds = params.round_seconds;
    static_options.migration_seconds = params.migration_seconds;
    static_options.record_segments = handed;
    say("static " + std::to_string(c.jobs) + " jobs: fifo");
    const StreamReport fifo = simulate_stream(workload, "fifo", static_options);
    say("static " + std::to_string(c.jobs) + " jobs: aware-min-makespan");
    const StreamReport aware = simulate_stream(workload, "aware-min-makespan", static_options);
    if (handed) {
      const StreamResources resources = stream_resources(workload.cluster);
      params.report_runs("fifo", fifo, workload, resources);
      params.report_runs("aware-min-makespan", aware, workload, resources);
    }
    result.makespan.push_back(MakespanRow{c.jobs, fifo.makespan_seconds / 3600.0,
                                          aware.makespan_seconds / 3600.0, c.published_fifo,
                                          c.published_aware});
  }

  if (!params.alibaba) return result;
  const std::string alibaba = params.data_dir + "/alibaba-gpu-2023/";
  const auto nodes = load_alibaba_nodes(alibaba + "openb_node_list_gpu_node.csv");
  const auto pods = load_alibaba_pods(alibaba + "openb_pod_list_default.csv");
  for (DevicePlacement policy : {DevicePlacement::best_fit, DevicePlacement::fragmentation_aware}) {
    say("alibaba placement");
    result.alibaba.push_back(simulate_gpu_share(nodes, pods, policy, false));
    result.alibaba_packing.push_back(simulate_gpu_share(nodes, pods, policy, true));
  }
  return result;
}

}  // namespace hetsched
