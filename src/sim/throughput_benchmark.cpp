#include "hetsched/sim/throughput_benchmark.hpp"

#include <algorithm>
#include <chrono>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/core/thread_cpu_time.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/policy/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"

namespace hetsched {

Cluster sim_throughput_cluster(const SimThroughputParams& params) {
  return params.cluster ? *params.cluster
                        : benchmark_cluster(params.nodes, params.devices_per_node);
}

Workload sim_throughput_workload(const SimThroughputParams& params) {
  const std::size_t nodes = params.cluster ? params.cluster->node_count() : params.nodes;
  Rng rng(params.seed);
  Workload workload;
  const std::size_t jobs = std::max<std::size_t>(1, std::min(params.jobs, params.tasks));
  workload.jobs.resize(jobs);
  for (std::size_t j = 0; j < jobs; ++j) {
    Job& job = workload.jobs[j];
    job.name = "batch" + std::to_string(j);
    job.data_node = static_cast<NodeId>(j % nodes);
    const std::size_t begin = params.tasks * j / jobs, end = params.tasks * (j + 1) / jobs;
    job.tasks.resize(end - begin);
    for (Task& task : job.tasks) {
      task.kernel = KernelClass::dense_matmul;
      task.precision = Precision::fp32;
      task.flops = rng.uniform(1e11, 1e13);
      task.bytes = rng.uniform(1e8, 1e9);
      task.memory_bytes = 1e9;
      task.input_bytes = rng.uniform(1e6, 1e8);
    }
  }
  return workload;
}

SimThroughputResult run_sim_throughput_benchmark(const SimThroughputParams& params) {
  const Cluster cluster = sim_throughput_cluster(params);
  const Workload workload = sim_throughput_workload(params);
  const RooflineModel perf(cluster);
  const auto policy = make_policy("greedy-eft", PolicyOptions{params.seed});
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = thread_cpu_seconds();
  Simulator simulator(cluster, workload, perf, *policy,
                      SimulationOptions{params.seed, false, params.progress});
  const SimReport report = simulator.run();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu = thread_cpu_seconds() - cpu_start;

  SimThroughputResult result;
  result.tasks = report.tasks_completed;
  result.devices = cluster.device_count();
  result.events = report.events;
  result.transfers = report.transfer_count;
  result.wall_seconds = wall;
  result.cpu_seconds = cpu;
  result.simulated_makespan_seconds = report.makespan_seconds;
  result.tasks_per_second = static_cast<double>(report.tasks_completed) / cpu;
  result.events_per_second = static_cast<double>(report.events) / cpu;
  return result;
}

}  // namespace hetsched
