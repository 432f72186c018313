#include "throughput_benchmark.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/core/thread_cpu_time.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"
#include "hetsched/workload/generators.hpp"

namespace hetsched {

Cluster sim_throughput_cluster(const SimThroughputParams& params) {
  return params.cluster ? *params.cluster
                        : benchmark_cluster(params.nodes, params.devices_per_node);
}

namespace {

// Workflows of dag_min_tasks..dag_max_tasks tasks (log-uniform) until `tasks` are made, the
// inputs of each on a node in turn.
Workload dag_workload(const SimThroughputParams& params, std::size_t nodes) {
  Rng rng(params.seed);
  Workload workload;
  const double low = std::log(static_cast<double>(params.dag_min_tasks));
  const double high = std::log(static_cast<double>(params.dag_max_tasks));
  for (std::size_t made = 0; made < params.tasks;) {
    const auto size = static_cast<std::size_t>(std::exp(rng.uniform(low, high)));
    const auto tasks =
        static_cast<std::uint32_t>(std::clamp<std::size_t>(size, 1, params.tasks - made));
    const std::size_t j = workload.jobs.size();
    // About as wide as deep, as the WfCommons recipes' big instances are.
    const auto width = static_cast<std::uint32_t>(std::max(1.0, std::sqrt(double(tasks))));
    Job job = workflow_job({"workflow" + std::to_string(j), tasks, width, 0.0}, rng);
    job.data_node = static_cast<NodeId>(j % nodes);
    made += job.tasks.size();
    workload.jobs.push_back(std::move(job));
  }
  return workload;
}

}  // namespace

Workload sim_throughput_workload(const SimThroughputParams& params) {
  const std::size_t nodes = params.cluster ? params.cluster->node_count() : params.nodes;
  if (params.dag) return dag_workload(params, nodes);
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
  const auto policy = make_policy(params.policy, PolicyOptions{params.seed});
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = thread_cpu_seconds();
  Simulator simulator(cluster, workload, perf, *policy,
                      SimulationOptions{params.seed, false, params.progress});
  const RunReport report = simulator.run();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu = thread_cpu_seconds() - cpu_start;

  SimThroughputResult result;
  result.tasks = report.tasks_completed;
  result.devices = cluster.device_count();
  result.events = report.events;
  result.transfers = report.transfer_count;
  for (const Job& job : workload.jobs) result.edges += job.edges.size();
  result.wall_seconds = wall;
  result.cpu_seconds = cpu;
  result.simulated_makespan_seconds = report.makespan_seconds;
  result.tasks_per_second = static_cast<double>(report.tasks_completed) / cpu;
  result.events_per_second = static_cast<double>(report.events) / cpu;
  return result;
}

}  // namespace hetsched
