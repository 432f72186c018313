#include "learned_benchmark.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <glpk.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/learn/learned_policy.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/policy/static_planner_policy.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/training/learning_scenario.hpp"
#include "hetsched/workload/feasibility.hpp"
#include "hetsched/workload/tiled_factorization.hpp"

namespace hetsched {

namespace {

// Every policy's objective on every run of a setting.
struct SettingRuns {
  std::string name;
  std::vector<double> learned;
  std::vector<double> bound;  // a lower bound on each run's objective
  std::vector<std::string> heuristic_names;
  std::vector<std::vector<double>> heuristic;  // [heuristic][run]
};

LearnedSettingResult summarize(const SettingRuns& runs) {
  LearnedSettingResult r;
  r.name = runs.name;
  r.runs = runs.learned.size();
  auto mean = [](const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return v.empty() ? 0.0 : sum / double(v.size());
  };
  r.learned_mean_seconds = mean(runs.learned);
  r.lower_bound_mean_seconds = mean(runs.bound);
  std::size_t best = 0;
  for (std::size_t h = 0; h < runs.heuristic_names.size(); ++h) {
    r.heuristic_means.emplace_back(runs.heuristic_names[h], mean(runs.heuristic[h]));
    if (r.heuristic_means[h].second < r.heuristic_means[best].second) best = h;
  }
  r.best_heuristic = runs.heuristic_names[best];
  r.best_heuristic_mean_seconds = r.heuristic_means[best].second;
  r.learned_vs_best_heuristic = r.learned_mean_seconds / r.best_heuristic_mean_seconds;
  std::size_t worse = 0;
  for (std::size_t i = 0; i < r.runs; ++i)
    if (runs.learned[i] > runs.heuristic[best][i] * (1 + 1e-9)) ++worse;
  r.worse_fraction = r.runs == 0 ? 0 : double(worse) / double(r.runs);
  return r;
}

// The least makespan of the tasks' work spread fractionally over the devices, transfers and
// precedence ignored: a linear program (GLPK) over task types — tasks with the same
// predicted run time on every device — whose actual work is their noise factors' sum:
// minimise T subject to each type's work being placed (Σ_d y[k][d] = 1) and each device's
// load Σ_k work[k]·seconds[k][d]·y[k][d] being at most T.
double spread_work_bound(const std::map<std::vector<double>, double>& work_by_type,
                         std::size_t devices) {
  glp_prob* lp = glp_create_prob();
  glp_set_obj_dir(lp, GLP_MIN);
  const int types = static_cast<int>(work_by_type.size());
  glp_add_rows(lp, types + static_cast<int>(devices));
  for (int k = 1; k <= types; ++k) glp_set_row_bnds(lp, k, GLP_FX, 1, 1);
  for (std::size_t d = 0; d < devices; ++d)
    glp_set_row_bnds(lp, types + static_cast<int>(d) + 1, GLP_UP, 0, 0);
  std::vector<int> rows{0}, cols{0};
  std::vector<double> values{0};
  const int makespan = glp_add_cols(lp, 1);
  glp_set_col_bnds(lp, makespan, GLP_LO, 0, 0);
  glp_set_obj_coef(lp, makespan, 1);
  for (std::size_t d = 0; d < devices; ++d) {
    rows.push_back(types + static_cast<int>(d) + 1);
    cols.push_back(makespan);
    values.push_back(-1);
  }
  int k = 0;
  for (const auto& [seconds, work] : work_by_type) {
    ++k;
    for (std::size_t d = 0; d < devices; ++d) {
      if (!std::isfinite(seconds[d])) continue;
      const int col = glp_add_cols(lp, 1);
      glp_set_col_bnds(lp, col, GLP_LO, 0, 0);
      rows.push_back(k), cols.push_back(col), values.push_back(1);
      rows.push_back(types + static_cast<int>(d) + 1), cols.push_back(col);
      values.push_back(work * seconds[d]);
    }
  }
  glp_load_matrix(lp, static_cast<int>(rows.size()) - 1, rows.data(), cols.data(), values.data());
  glp_smcp parameters;
  glp_init_smcp(&parameters);
  parameters.msg_lev = GLP_MSG_OFF;
  const bool solved = glp_simplex(lp, &parameters) == 0 && glp_get_status(lp) == GLP_OPT;
  const double bound = solved ? glp_get_obj_val(lp) : 0;
  glp_delete_prob(lp);
  return bound;
}

class Bench {
 public:
  Bench(const LearnedBenchmarkParams& params, std::size_t scenarios)
      : params_(params), total_runs_(scenarios * params.draws), network_(load(params.model)) {
    options_.seed = params.seed;
    options_.iteration_budget = params.ils_iterations;
    options_.time_budget_seconds = 1e9;  // bounded by iterations: deterministic plans
  }

  // Runs every policy on `draws` noise draws of the scenario. On a cluster of several
  // nodes, each static planner among the heuristics runs twice: planning transfers
  // contention-free, as the literature does, and on the NICs shared as the twin shares
  // them ("(shared NICs)"), as the learned policy's plans do.
  void run(SettingRuns& runs, LearningScenario scenario, Rng& rng) {
    std::vector<std::pair<std::string, PolicyOptions>> heuristics;
    for (const std::string& name : params_.heuristics) {
      heuristics.emplace_back(name, options_);
      if (scenario.cluster.node_count() > 1 &&
          dynamic_cast<StaticPlannerPolicy*>(make_policy(name, options_).get()) != nullptr) {
        PolicyOptions shared = options_;
        shared.plan_network = NetworkModel::one_port_nics;
        heuristics.emplace_back(name, shared);
      }
    }
    if (runs.heuristic.empty()) {
      runs.heuristic.resize(heuristics.size());
      for (const auto& [name, options] : heuristics)
        runs.heuristic_names.push_back(
            options.plan_network == NetworkModel::one_port_nics ? name + " (shared NICs)" : name);
    }
    for (std::size_t draw = 0; draw < params_.draws; ++draw) {
      scenario.simulation.seed = rng.next_u64();
      if (params_.progress) params_.progress(done_runs_++, total_runs_);
      LearnedPolicy learned(network_);
      const ScenarioOutcome outcome = run_scenario(scenario, learned);
      runs.learned.push_back(outcome.objective_seconds);
      const std::vector<double> bounds = completion_lower_bounds(scenario);
      runs.bound.push_back(std::accumulate(bounds.begin(), bounds.end(), 0.0) /
                           double(std::max<std::size_t>(bounds.size(), 1)));
      learned_tasks_ += outcome.tasks;
      learned_seconds_ += outcome.policy_seconds;
      for (std::size_t h = 0; h < heuristics.size(); ++h) {
        auto policy = make_policy(heuristics[h].first, heuristics[h].second);
        runs.heuristic[h].push_back(run_scenario(scenario, *policy).objective_seconds);
      }
    }
  }
  double decisions_per_second() const {
    return learned_seconds_ > 0 ? double(learned_tasks_) / learned_seconds_ : 0;
  }

 private:
  // The model, read once before any run: a bad file is refused before anything is run.
  static PolicyNetwork load(const std::string& model) {
    if (model.empty()) return builtin_policy_network();
    auto network = read_policy_network(model, learned_model_inputs());
    if (!network) throw InputError(network.error());
    return std::move(*network);
  }

  const LearnedBenchmarkParams& params_;
  std::size_t total_runs_ = 0, done_runs_ = 0;
  PolicyNetwork network_;
  PolicyOptions options_;
  std::size_t learned_tasks_ = 0;
  double learned_seconds_ = 0;
};

LearningScenario tiled(TiledFactorization kind, std::uint32_t tiles, std::size_t workers,
                       const std::vector<std::string>& accelerators) {
  LearningScenario s{.name = fmt::format("{} {}x{} on {} CPU workers + {}", to_string(kind), tiles,
                                         tiles, workers, fmt::join(accelerators, "+")),
                     .cluster = accelerator_node(workers, accelerators),
                     .workload = {},
                     .simulation = {}};
  s.workload.jobs.push_back(tiled_factorization_job({kind, tiles, 1024}));
  s.simulation.record_schedule = false;
  s.simulation.noise.sigma = 0.2;
  return s;
}

}  // namespace

// Each job's bound: its critical path (see the header) against its work spread over the
// devices (spread_work_bound).
std::vector<double> completion_lower_bounds(const LearningScenario& scenario) {
  const RooflineModel perf(scenario.cluster);
  const TaskGraph graph(scenario.workload);
  const DurationNoise noise(scenario.simulation.noise, scenario.simulation.seed);
  const Cluster& cluster = scenario.cluster;
  const std::size_t devices = cluster.device_count();
  std::vector<double> path(graph.task_count(), 0), bounds;
  for (JobIndex j = 0; j < graph.job_count(); ++j) {
    const NodeId data_node = graph.job(j).data_node;
    std::map<std::vector<double>, double> work_by_type;
    double longest = 0;
    for (TaskIndex t : graph.topological_order(j)) {
      const Task& task = graph.task(t);
      double ready = 0;
      for (const Dependency& p : graph.predecessors(t)) ready = std::max(ready, path[p.task]);
      std::vector<double> seconds(devices, std::numeric_limits<double>::infinity());
      path[t] = std::numeric_limits<double>::infinity();
      for (const Device& d : cluster.devices()) {
        if (!can_run(task, d)) continue;
        seconds[d.id] = perf.task_seconds(task, d, 0);
        const NodeId node = cluster.node_of(d.id);
        const double input = task.input_bytes > 0
                                 ? cluster.path_latency(data_node, node) +
                                       task.input_bytes / cluster.path_bandwidth(data_node, node)
                                 : 0.0;
        path[t] = std::min(path[t], std::max(ready, input) + seconds[d.id] * noise.factor(t));
      }
      work_by_type[seconds] += noise.factor(t);
      longest = std::max(longest, path[t]);
    }
    bounds.push_back(std::max(longest, spread_work_bound(work_by_type, devices)));
  }
  return bounds;
}

LearnedBenchmarkResult run_learned_benchmark(const LearnedBenchmarkParams& params) {
  const auto kinds = {TiledFactorization::cholesky, TiledFactorization::lu, TiledFactorization::qr};
  const std::vector<std::vector<std::string>> gpu_sets{{"A100-80GB", "V100"},
                                                       {"A100-80GB", "A100-80GB", "V100", "V100"}};
  const std::vector<std::uint32_t> sizes =
      params.quick ? std::vector<std::uint32_t>{8} : std::vector<std::uint32_t>{8, 16, 32};
  const std::size_t streams = params.streams > 0 ? params.streams : params.quick ? 2 : 4;
  Bench bench(params, kinds.size() * sizes.size() * gpu_sets.size() + 2 * streams + kinds.size());
  Rng rng(params.seed);
  LearnedBenchmarkResult result;

  SettingRuns tiled_runs{
      .name = fmt::format("tiled Cholesky/LU/QR, {} tiles, 4 CPU workers + 2-4 GPUs, sigma 0.2",
                          fmt::join(sizes, "/"))};
  for (TiledFactorization kind : kinds)
    for (std::uint32_t tiles : sizes)
      for (const auto& gpus : gpu_sets) bench.run(tiled_runs, tiled(kind, tiles, 4, gpus), rng);
  result.settings.push_back(summarize(tiled_runs));

  SettingRuns stream_runs{.name = "online stream of DAG jobs, mean job completion time, sigma 0.2"};
  DagStreamScenarioSpace stream_space;
  stream_space.jobs = params.quick ? 6 : 12;
  for (std::size_t s = 0; s < streams; ++s) {
    Rng scenario_rng = rng.split();
    bench.run(stream_runs, draw_dag_stream_scenario(stream_space, scenario_rng), rng);
  }
  result.settings.push_back(summarize(stream_runs));

  const std::uint32_t held_out_tiles = params.quick ? 12 : 24;
  SettingRuns held_out{
      .name = fmt::format("held out: {}-tile Cholesky/LU/QR on 8 CPU workers + H100 + T4",
                          held_out_tiles)};
  const std::vector<std::string> other_gpus{"H100-SXM", "T4"};
  for (TiledFactorization kind : kinds)
    bench.run(held_out, tiled(kind, held_out_tiles, 8, other_gpus), rng);
  result.settings.push_back(summarize(held_out));

  // Setting 2's streams on the default cluster, three times its devices: three times as
  // many jobs arriving three times as often (the same load per device).
  DagStreamScenarioSpace wide_space;
  wide_space.jobs = 3 * stream_space.jobs;
  wide_space.mean_interarrival_seconds = stream_space.mean_interarrival_seconds / 3;
  wide_space.cluster = default_cluster();
  SettingRuns wide_stream{
      .name = fmt::format("held out: a stream of {} DAG jobs on the default cluster ({} "
                          "devices), mean job completion time, sigma 0.2",
                          wide_space.jobs, wide_space.cluster.device_count())};
  for (std::size_t s = 0; s < streams; ++s) {
    Rng scenario_rng = rng.split();
    bench.run(wide_stream, draw_dag_stream_scenario(wide_space, scenario_rng), rng);
  }
  result.settings.push_back(summarize(wide_stream));

  result.decisions_per_second = bench.decisions_per_second();
  return result;
}

}  // namespace hetsched
