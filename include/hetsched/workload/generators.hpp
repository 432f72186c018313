// Workload generators for the four application families hetsched serves: ML
// training and inference, big data (map → shuffle → reduce), cloud services (many
// short independent requests) and scientific computing (stencil iterations and
// workflow DAGs). Sizes follow the usual first-order cost formulas (6·params·tokens
// FLOPs for a training step, 2·params·tokens for inference, ...); every random
// choice comes from the Rng passed in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hetsched/core/rng.hpp"
#include "hetsched/workload/workload.hpp"

namespace hetsched {

struct TrainingJobParams {
  std::string name = "train";
  double parameters = 1.3e9;     // model size
  double tokens_per_step = 5e5;  // global batch, in tokens
  std::uint32_t steps = 10;
  std::uint32_t micro_batches = 4;  // data-parallel shards per step
  double arrival_seconds = 0;
};
// Each step: micro-batch forward+backward tasks in parallel, a gradient all-reduce,
// an optimizer update; the next step's micro-batches wait for the update.
Job training_job(const TrainingJobParams& params, Rng& rng);

struct InferenceJobParams {
  std::string name = "infer";
  double parameters = 7e9;
  std::uint32_t requests = 32;
  double tokens_per_request = 512;
  double arrival_seconds = 0;
  double deadline_after_seconds = 30;
};
// Independent requests (prefill as attention work) sharing one deadline.
Job inference_job(const InferenceJobParams& params, Rng& rng);

struct MapReduceJobParams {
  std::string name = "mapreduce";
  std::uint32_t maps = 16;
  std::uint32_t reduces = 4;
  double split_bytes = 256e6;     // input per map, read from the data node
  double shuffle_fraction = 0.3;  // map output / map input
  double arrival_seconds = 0;
  std::uint32_t data_node = 0;
};
// Maps parse their split (control-heavy), every map feeds every reduce (the
// shuffle, an all-to-all of edges), reduces sort and aggregate.
Job map_reduce_job(const MapReduceJobParams& params, Rng& rng);

struct ServiceRequestsParams {
  std::string name = "svc";
  std::uint32_t requests = 100;
  double rate_per_second = 20;  // Poisson arrivals
  double start_seconds = 0;
  double deadline_after_seconds = 0.5;
};
// One single-task job per request (a short control-heavy handler), arriving as a
// Poisson process.
std::vector<Job> service_requests(const ServiceRequestsParams& params, Rng& rng);

struct StencilJobParams {
  std::string name = "stencil";
  std::uint32_t blocks = 8;  // 1-D decomposition of the domain
  std::uint32_t iterations = 10;
  double cells_per_block = 5e8;  // fp64 cells
  double arrival_seconds = 0;
};
// Each iteration updates every block (fp64, memory-bound); a block depends on
// itself and its two neighbours from the previous iteration (halo exchange).
Job stencil_job(const StencilJobParams& params, Rng& rng);

struct WorkflowJobParams {
  std::string name = "workflow";
  std::uint32_t tasks = 40;
  std::uint32_t width = 6;  // tasks per level, on average
  double arrival_seconds = 0;
};
// A layered scientific workflow: each task has a random kernel class (dense and
// sparse fp64 solvers, elementwise, reductions, I/O) and 1-3 parents in earlier levels.
Job workflow_job(const WorkflowJobParams& params, Rng& rng);

// The built-in mixed workload of the demo: all four families, arriving over the
// first minute.
Workload default_workload(std::uint64_t seed);
// The same mix for a cluster of `node_count` nodes: a job whose input lives on a node the
// cluster lacks reads it from node (its node modulo node_count) instead.
Workload default_workload(std::uint64_t seed, std::size_t node_count);

}  // namespace hetsched
