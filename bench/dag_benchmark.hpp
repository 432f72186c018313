// The DAG-scheduling quality benchmark (`hetsched bench dag`): every static planner
// on a suite of random DAGs with the parameters of Topcuoglu et al. 2002 (v, CCR,
// β, α over the grid, out-degree 1…5, 4…64 devices), plus any extra
// instances (real workflows), reporting per policy the mean SLR, the mean makespan
// relative to HEFT, how often it is best, how often it is worse than HEFT and its
// mean scheduling time; the optional gap to the exact optimum on small DAGs; and
// HEFT's speed: seconds on 10,000 tasks × 64 devices and the exponent of its time
// against edges × devices over v = 1k…100k (or sizes of the caller's choice).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hetsched/core/rng.hpp"
#include "hetsched/perf/dag_instance.hpp"
#include "hetsched/policy/scheduling_policy.hpp"
#include "random_dag.hpp"

namespace hetsched {

struct DagBenchmarkInstance {
  std::string name;
  DagInstance instance;
  double ccr = 0;  // the generator's CCR (0: not a random DAG)
};

// An exact solver: the optimal schedule, or nothing when it gave up within the limit.
using ExactDagSolver =
    std::function<std::optional<StaticSchedule>(const DagInstance&, double time_limit_seconds)>;

struct DagBenchmarkParams {
  bool quick = false;           // a small subset: v ≤ 100, 36 graphs, scaling up to 10k
  std::size_t repetitions = 2;  // random graphs per (v, CCR, β, α) combination
  std::uint64_t seed = 1;
  std::size_t graph_limit = 0;  // > 0: only every k-th random graph, at most this many
  std::vector<std::string> policies{"olb",       "met",  "mct",  "min-min", "max-min",
                                    "sufferage", "heft", "cpop", "peft",    "heft-lookahead",
                                    "heft-ils"};
  std::uint64_t ils_iterations = 1000;  // heft-ils' iteration budget (no wall-time bound)
  // Hook: more instances for the suite (the shared real workflows on the default
  // cluster, through the workflow importers).
  std::vector<DagBenchmarkInstance> extra_instances;
  // Hook: the exact solver (the MILP). Unset: milp gaps are not measured.
  ExactDagSolver exact_solver;
  std::size_t exact_instances = 20;  // small random DAGs (6…12 tasks, 2…3 devices)
  double exact_time_limit_seconds = 20;
  bool measure_speed = true;
  // Tasks of the HEFT speed instances (64 devices, α = 1, out-degree 3); empty: 1k,
  // 3k, 10k, 30k and 100k (quick: up to 10k).
  std::vector<std::size_t> speed_sizes;
  // Only HEFT's speed: no quality suite, no extra instances, no exact solves.
  bool speed_only = false;
  // Called with (graphs done, graphs total).
  std::function<void(std::size_t, std::size_t)> progress;
};

// One graph of the random suite before it is generated: its parameters and the generator
// stream it is drawn from. The energy benchmark draws the same graphs through this.
struct RandomDagDraw {
  RandomDagParams params;
  Rng rng;
};

// The random suite's graphs in order: the grid of v × CCR × β × α × repetitions (the
// quick subset when params.quick), each with an out-degree and device count drawn from
// params.seed, before graph_limit thins it.
std::vector<RandomDagDraw> random_dag_suite_draws(const DagBenchmarkParams& params);

// The graph `bench dag --out` draws under every compared planner: the suite's first random
// graph of at least 100 tasks (the largest when none has).
RandomDagDraw dag_report_draw(const DagBenchmarkParams& params);

// The options every compared planner runs with: the seed, and heft-ils' iteration budget with
// no wall-time bound, so that its plans are deterministic.
PolicyOptions dag_benchmark_policy_options(const DagBenchmarkParams& params);

struct DagPolicyResult {
  std::string name;
  double mean_slr = 0;
  double mean_makespan_vs_heft = 0;  // mean over graphs of makespan / HEFT's makespan
  double worst_makespan_vs_heft = 0;
  double best_fraction = 0;  // graphs where it is (one of) the shortest
  std::size_t worse_than_heft_count = 0;
  double mean_schedule_seconds = 0;  // CPU seconds of the planning thread
  std::optional<double> milp_gap_mean;
  // Mean makespan / HEFT's over the random graphs of each CCR, by increasing CCR.
  std::vector<std::pair<double, double>>
      makespan_vs_heft_by_ccr;  // mean of makespan / optimum − 1 on small DAGs
};

struct HeftSpeedPoint {
  std::size_t tasks = 0, edges = 0, devices = 0;
  double seconds = 0;
};

struct DagBenchmarkResult {
  std::size_t graphs = 0;        // random graphs + extra instances
  std::size_t exact_graphs = 0;  // small DAGs the exact solver solved
  std::vector<DagPolicyResult> policies;
  // When 10,000 tasks were among the speed sizes.
  std::optional<double> heft_10k_64_seconds;
  // Least-squares slope of log(CPU seconds) against log(edges × devices), devices = 64;
  // when at least two different sizes were timed.
  std::optional<double> heft_scaling_exponent;
  std::vector<HeftSpeedPoint> heft_speed;
};

DagBenchmarkResult run_dag_benchmark(const DagBenchmarkParams& params);

}  // namespace hetsched
