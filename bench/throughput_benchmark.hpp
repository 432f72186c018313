// The simulator's speed benchmark: many independent tasks, each reading its input
// from a node of the cluster, on a large cluster under greedy earliest finish
// time. It reports simulated tasks and events per second of one core.
//
// DAG mode: the tasks come instead in layered scientific workflows (workflow_job: 1-3
// parents per task in earlier levels, edges carrying gigabytes) of `dag_min_tasks` to
// `dag_max_tasks` tasks each (log-uniform), so that dependency tracking and the data
// transfers between devices are measured too, under any policy (HEFT plans each job as
// it arrives).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/workload/workload.hpp"

namespace hetsched {

struct SimThroughputParams {
  std::size_t tasks = 1'000'000;
  std::size_t nodes = 64;
  std::size_t devices_per_node = 16;
  std::size_t jobs = 1024;  // tasks are spread over jobs whose inputs live on different nodes
  // The cluster to run on (a cluster file, say); none: benchmark_cluster(nodes,
  // devices_per_node), four catalog parts in turn, racks of 32 nodes.
  const Cluster* cluster = nullptr;
  bool dag = false;
  std::size_t dag_min_tasks = 1000, dag_max_tasks = 100'000;
  std::string policy = "greedy-eft";
  std::uint64_t seed = 1;
  std::function<void(std::size_t, std::size_t)> progress;
};

struct SimThroughputResult {
  std::size_t tasks = 0;
  std::size_t devices = 0;
  std::uint64_t events = 0;
  std::uint64_t transfers = 0;
  std::uint64_t edges = 0;  // DAG mode
  // Simulator construction and run; workload generation excluded. The simulator is
  // single-threaded, so its thread's processor time is its time on one core; rates use
  // it, which keeps them honest on a machine that is busy with other work.
  double wall_seconds = 0;
  double cpu_seconds = 0;
  double simulated_makespan_seconds = 0;
  double tasks_per_second = 0;
  double events_per_second = 0;
};

// The benchmark's cluster and workload: `tasks` dense kernels with inputs, in `jobs` jobs.
Cluster sim_throughput_cluster(const SimThroughputParams& params);
Workload sim_throughput_workload(const SimThroughputParams& params);

SimThroughputResult run_sim_throughput_benchmark(const SimThroughputParams& params);

}  // namespace hetsched
