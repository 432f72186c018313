// Google Benchmark programs for the simulator core: the event agenda, and whole
// simulations of independent tasks with input transfers under greedy-eft. The
// headline figure (1,000,000 tasks on 1,024 devices) is `hetsched bench sim`.
#include <benchmark/benchmark.h>

#include "hetsched/core/rng.hpp"
#include "hetsched/sim/event_queue.hpp"
#include "throughput_benchmark.hpp"

namespace {

void BM_EventQueuePushPop(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  hetsched::Rng rng(1);
  std::vector<double> times(n);
  for (double& t : times) t = rng.uniform(0, 1000);
  for (auto _ : state) {
    hetsched::EventQueue queue;
    for (std::size_t i = 0; i < n; ++i) queue.schedule(times[i], 0, static_cast<std::uint32_t>(i));
    double last = 0;
    while (!queue.empty()) last = queue.pop().time;
    benchmark::DoNotOptimize(last);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}
BENCHMARK(BM_EventQueuePushPop)->Arg(1 << 10)->Arg(1 << 16)->Arg(1 << 20);

void BM_SimulateIndependentTasks(benchmark::State& state) {
  hetsched::SimThroughputParams params;
  params.tasks = static_cast<std::size_t>(state.range(0));
  params.nodes = static_cast<std::size_t>(state.range(1));
  params.devices_per_node = 16;
  params.jobs = std::min<std::size_t>(params.tasks, 1024);
  double simulated = 0;
  for (auto _ : state) {
    const auto result = hetsched::run_sim_throughput_benchmark(params);
    simulated += static_cast<double>(result.tasks);
    state.counters["events"] = static_cast<double>(result.events);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(simulated));
}
BENCHMARK(BM_SimulateIndependentTasks)
    ->Args({10'000, 4})
    ->Args({100'000, 16})
    ->Args({100'000, 64})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
