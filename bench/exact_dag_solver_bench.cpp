// Google Benchmark program for the exact DAG solver (MILP through COIN-OR CBC): the
// Topcuoglu et al. 2002 graph (10 tasks, 3 processors, optimum 73) and random
// instances at the solver's size limit (12 tasks on 3 devices, integer costs 1..20,
// edge probability 0.25, communication 0..15). Counters: the optimum, the list
// plan's makespan and the branch-and-bound nodes.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "hetsched/core/rng.hpp"
#include "hetsched/io/cost_matrix_file.hpp"
#include "hetsched/policy/exact_dag_solver.hpp"

namespace {

using namespace hetsched;

void report(benchmark::State& state, const ExactSolveResult& r) {
  state.counters["optimal"] = r.status == ExactSolveStatus::optimal ? 1 : 0;
  state.counters["makespan"] = r.schedule ? r.schedule->makespan_seconds : -1;
  state.counters["list_makespan"] = r.heuristic_makespan_seconds;
  state.counters["nodes"] = static_cast<double>(r.branch_and_bound_nodes);
}

void BM_ExactTopcuoglu(benchmark::State& state) {
  // The example file next to this program's source (bench/ → examples/).
  const std::filesystem::path example =
      std::filesystem::path(__FILE__).parent_path().parent_path() / "examples" / "topcuoglu.yaml";
  const DagInstance instance = cost_matrix_instance(load_cost_matrix_file(example.string()));
  ExactSolveResult result;
  for (auto _ : state) result = solve_exact_schedule_with_status(instance, {60, 0, {}});
  report(state, result);
}
BENCHMARK(BM_ExactTopcuoglu)->Unit(benchmark::kMillisecond);

void BM_ExactRandom12Tasks3Devices(benchmark::State& state) {
  Rng rng(static_cast<std::uint64_t>(state.range(0)));
  std::vector<std::vector<double>> compute(12);
  std::vector<DagEdge> edges;
  for (std::uint32_t t = 0; t < 12; ++t) {
    for (int d = 0; d < 3; ++d) compute[t].push_back(static_cast<double>(1 + rng.below(20)));
    for (std::uint32_t p = 0; p < t; ++p)
      if (rng.uniform() < 0.25) edges.push_back({p, t, static_cast<double>(rng.below(16))});
  }
  const DagInstance instance(compute, edges);
  ExactSolveResult result;
  for (auto _ : state) result = solve_exact_schedule_with_status(instance, {60, 0, {}});
  report(state, result);
}
BENCHMARK(BM_ExactRandom12Tasks3Devices)->DenseRange(1, 6)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
