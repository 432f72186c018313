#include "dag_benchmark.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "hetsched/core/thread_cpu_time.hpp"
#include "hetsched/policy/dag_planners.hpp"
#include "hetsched/policy/schedule_metrics.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "random_dag.hpp"

namespace hetsched {
namespace {

std::vector<DagBenchmarkInstance> random_suite(const DagBenchmarkParams& params) {
  std::vector<DagBenchmarkInstance> suite;
  for (RandomDagDraw& draw : random_dag_suite_draws(params)) {
    const RandomDagParams& p = draw.params;
    suite.push_back(DagBenchmarkInstance{
        fmt::format("v{}-ccr{}-b{}-a{}-p{}", p.tasks, p.ccr, p.heterogeneity, p.shape, p.devices),
        generate_random_dag(p, draw.rng).instance(), p.ccr});
  }
  if (params.graph_limit > 0 && suite.size() > params.graph_limit) {
    const std::size_t stride = (suite.size() + params.graph_limit - 1) / params.graph_limit;
    std::vector<DagBenchmarkInstance> kept;
    for (std::size_t i = 0; i < suite.size(); i += stride) kept.push_back(std::move(suite[i]));
    suite = std::move(kept);
  }
  return suite;
}

StaticSchedule plan_with(const std::string& name, const DagBenchmarkParams& params,
                         const DagInstance& instance) {
  return make_static_planner(name, dag_benchmark_policy_options(params))->plan(instance, {});
}

double fit_slope(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
  const double denominator = n * sxx - sx * sx;
  return denominator > 0 ? (n * sxy - sx * sy) / denominator : 0.0;
}

double time_heft(const DagInstance& instance, int repetitions) {
  double best = kCannotRun;
  for (int r = 0; r < repetitions; ++r) {
    const double start = thread_cpu_seconds();
    const StaticSchedule s = heft_plan(instance, ScheduleLimits{});
    best = std::min(best, thread_cpu_seconds() - start);
    if (s.tasks.empty()) break;
  }
  return best;
}

DagInstance speed_instance(std::size_t tasks, std::uint64_t seed) {
  RandomDagParams p;
  p.tasks = tasks;
  p.devices = 64;
  p.out_degree = 3;
  Rng rng(seed);
  return generate_random_dag(p, rng).instance();
}

}  // namespace

DagBenchmarkResult run_dag_benchmark(const DagBenchmarkParams& params) {
  std::vector<DagBenchmarkInstance> suite;
  if (!params.speed_only) {
    suite = random_suite(params);
    for (const DagBenchmarkInstance& extra : params.extra_instances) suite.push_back(extra);
  }
  const std::size_t policy_count = params.speed_only ? 0 : params.policies.size();

  DagBenchmarkResult result;
  result.graphs = suite.size();
  result.policies.resize(policy_count);
  for (std::size_t i = 0; i < policy_count; ++i) result.policies[i].name = params.policies[i];
  std::vector<double> best_count(policy_count, 0), seconds(policy_count, 0);
  // Per policy, per CCR: (sum of makespan / HEFT's, graphs).
  std::vector<std::map<double, std::pair<double, double>>> by_ccr(policy_count);

  for (std::size_t g = 0; g < suite.size(); ++g) {
    const DagInstance& instance = suite[g].instance;
    const double heft = heft_plan(instance, ScheduleLimits{}).makespan_seconds;
    std::vector<ScheduleMetrics> metrics(policy_count);
    for (std::size_t i = 0; i < policy_count; ++i) {
      const double start = thread_cpu_seconds();
      const StaticSchedule s = plan_with(params.policies[i], params, instance);
      seconds[i] += thread_cpu_seconds() - start;
      metrics[i] = schedule_metrics(instance, s);
    }
    double shortest = kCannotRun;
    for (const ScheduleMetrics& m : metrics) shortest = std::min(shortest, m.makespan_seconds);
    for (std::size_t i = 0; i < policy_count; ++i) {
      DagPolicyResult& r = result.policies[i];
      const double ratio = heft > 0 ? metrics[i].makespan_seconds / heft : 1.0;
      r.mean_slr += metrics[i].slr;
      r.mean_makespan_vs_heft += ratio;
      r.worst_makespan_vs_heft = std::max(r.worst_makespan_vs_heft, ratio);
      if (suite[g].ccr > 0) {
        auto& [sum, count] = by_ccr[i][suite[g].ccr];
        sum += ratio;
        count += 1;
      }
      if (metrics[i].makespan_seconds > heft * (1 + 1e-9)) ++r.worse_than_heft_count;
      if (metrics[i].makespan_seconds <= shortest * (1 + 1e-9)) best_count[i] += 1;
    }
    if (params.progress) params.progress(g + 1, suite.size());
  }
  const double graphs = static_cast<double>(std::max<std::size_t>(suite.size(), 1));
  for (std::size_t i = 0; i < policy_count; ++i) {
    DagPolicyResult& r = result.policies[i];
    r.mean_slr /= graphs;
    r.mean_makespan_vs_heft /= graphs;
    r.best_fraction = best_count[i] / graphs;
    r.mean_schedule_seconds = seconds[i] / graphs;
    for (const auto& [ccr, sum_count] : by_ccr[i])
      r.makespan_vs_heft_by_ccr.emplace_back(ccr, sum_count.first / sum_count.second);
  }

  if (params.exact_solver && !params.speed_only) {
    Rng rng(params.seed ^ 0x6d696c70ULL);
    std::vector<double> gap_sum(policy_count, 0);
    for (std::size_t k = 0; k < params.exact_instances; ++k) {
      RandomDagParams p;
      p.tasks = 6 + rng.below(7);
      p.devices = 2 + rng.below(2);
      p.ccr = std::array{0.1, 1.0, 5.0}[rng.below(3)];
      p.heterogeneity = std::array{0.5, 1.0, 2.0}[rng.below(3)];
      p.shape = std::array{0.5, 1.0, 2.0}[rng.below(3)];
      p.out_degree = 2;
      Rng graph_rng = rng.split();
      const DagInstance instance = generate_random_dag(p, graph_rng).instance();
      const std::optional<StaticSchedule> optimum =
          params.exact_solver(instance, params.exact_time_limit_seconds);
      if (!optimum || optimum->makespan_seconds <= 0) continue;
      ++result.exact_graphs;
      for (std::size_t i = 0; i < policy_count; ++i)
        gap_sum[i] += plan_with(params.policies[i], params, instance).makespan_seconds /
                          optimum->makespan_seconds -
                      1;
    }
    if (result.exact_graphs > 0)
      for (std::size_t i = 0; i < policy_count; ++i)
        result.policies[i].milp_gap_mean = gap_sum[i] / static_cast<double>(result.exact_graphs);
  }

  if (params.measure_speed || params.speed_only) {
    std::vector<std::size_t> sizes = params.speed_sizes;
    if (sizes.empty())
      sizes = params.quick ? std::vector<std::size_t>{1000, 3000, 10000}
                           : std::vector<std::size_t>{1000, 3000, 10000, 30000, 100000};
    std::vector<double> log_work, log_seconds;
    for (const std::size_t v : sizes) {
      const DagInstance instance = speed_instance(v, params.seed + v);
      HeftSpeedPoint point{v, instance.edges().size(), instance.device_count(),
                           time_heft(instance, 3)};
      if (v == 10000) result.heft_10k_64_seconds = point.seconds;
      log_work.push_back(std::log(static_cast<double>(point.edges * point.devices)));
      log_seconds.push_back(std::log(point.seconds));
      result.heft_speed.push_back(point);
    }
    if (std::adjacent_find(log_work.begin(), log_work.end(), std::not_equal_to<>()) !=
        log_work.end())
      result.heft_scaling_exponent = fit_slope(log_work, log_seconds);
  }
  return result;
}

PolicyOptions dag_benchmark_policy_options(const DagBenchmarkParams& params) {
  PolicyOptions options;
  options.seed = params.seed;
  options.iteration_budget = params.ils_iterations;
  options.time_budget_seconds = 0;  // the iteration budget alone: deterministic
  return options;
}

RandomDagDraw dag_report_draw(const DagBenchmarkParams& params) {
  std::vector<RandomDagDraw> draws = random_dag_suite_draws(params);
  const auto it = std::find_if(draws.begin(), draws.end(),
                               [](const RandomDagDraw& d) { return d.params.tasks >= 100; });
  if (it != draws.end()) return std::move(*it);
  return std::move(*std::max_element(draws.begin(), draws.end(), [](const auto& a, const auto& b) {
    return a.params.tasks < b.params.tasks;
  }));
}

std::vector<RandomDagDraw> random_dag_suite_draws(const DagBenchmarkParams& params) {
  const std::vector<std::size_t> sizes = params.quick
                                             ? std::vector<std::size_t>{20, 50, 100}
                                             : std::vector<std::size_t>{20, 50, 100, 300, 1000};
  const std::vector<double> ccrs =
      params.quick ? std::vector<double>{0.1, 1, 10} : std::vector<double>{0.1, 0.5, 1, 5, 10};
  const std::vector<double> betas =
      params.quick ? std::vector<double>{0.5, 2} : std::vector<double>{0.1, 0.5, 1, 2};
  const std::vector<double> alphas =
      params.quick ? std::vector<double>{0.5, 2} : std::vector<double>{0.5, 1, 2};
  const std::size_t repetitions = params.quick ? 1 : std::max<std::size_t>(params.repetitions, 1);
  const std::size_t device_counts[] = {4, 8, 16, 32, 64};
  Rng rng(params.seed);
  std::vector<RandomDagDraw> draws;
  for (const std::size_t v : sizes)
    for (const double ccr : ccrs)
      for (const double beta : betas)
        for (const double alpha : alphas)
          for (std::size_t r = 0; r < repetitions; ++r) {
            RandomDagParams p;
            p.tasks = v;
            p.ccr = ccr;
            p.heterogeneity = beta;
            p.shape = alpha;
            p.out_degree = static_cast<double>(1 + rng.below(5));
            p.devices = device_counts[rng.below(5)];
            draws.push_back({p, rng.split()});
          }
  return draws;
}

}  // namespace hetsched
