#include "cloning_benchmark.hpp"

#include <string>

#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"
#include "partition_benchmark.hpp"

namespace hetsched {
namespace {

Workload bag_of_matmuls() {
  Workload workload;
  for (int j = 0; j < 4; ++j) {
    Job job;
    job.name = "bag" + std::to_string(j);
    job.arrival_seconds = 2.0 * j;
    for (int t = 0; t < 32; ++t) {
      Task task;
      task.name = "mm" + std::to_string(t);
      task.kernel = KernelClass::dense_matmul;
      task.precision = Precision::fp16;
      task.flops = 7.5e14;  // ~1 s on an H100 at 75 % of peak
      task.memory_bytes = 4e9;
      job.tasks.push_back(std::move(task));
    }
    workload.jobs.push_back(std::move(job));
  }
  return workload;
}

}  // namespace

CloningBenchmarkResult run_cloning_benchmark(std::uint32_t runs, double threshold) {
  CloningBenchmarkResult out;
  out.runs = runs;
  out.threshold = threshold;
  const Cluster cluster = partition_benchmark_cluster();
  const RooflineModel perf(cluster);
  const Workload workload = bag_of_matmuls();
  out.tasks = static_cast<std::uint32_t>(workload.task_count());
  double busy = 0, cancelled = 0;
  for (std::uint32_t seed = 1; seed <= runs; ++seed)
    for (bool clone : {false, true}) {
      FaultOptions faults;
      faults.enabled = true;
      faults.model.crashes = false;
      faults.model.stragglers_per_device_hour = 36;
      faults.model.straggler_slowdown = 4;
      faults.model.straggler_seconds = 20;
      faults.clone.enabled = clone;
      faults.clone.threshold = threshold;
      auto policy = make_policy("greedy-eft", PolicyOptions{seed});
      Simulator sim(cluster, workload, perf, *policy,
                    SimulationOptions{.seed = seed, .record_schedule = false, .faults = faults});
      const RunReport r = sim.run();
      (clone ? out.mean_makespan_with : out.mean_makespan_without) += r.makespan_seconds;
      if (!clone || !r.faults) continue;
      out.stragglers += r.faults->stragglers;
      out.clones_started += r.faults->clones_started;
      out.clones_won += r.faults->clones_won;
      busy += r.faults->busy_device_seconds();
      cancelled += r.faults->replica_device_seconds;
      out.cancelled_joules += r.faults->replica_joules;
    }
  if (runs) {
    out.mean_makespan_with /= runs;
    out.mean_makespan_without /= runs;
  }
  out.makespan_speedup =
      out.mean_makespan_with > 0 ? out.mean_makespan_without / out.mean_makespan_with : 0;
  out.cancelled_device_seconds_fraction = busy > 0 ? cancelled / busy : 0;
  return out;
}

}  // namespace hetsched
