#include "hetsched/workload/generators.hpp"

#include <algorithm>
#include <cmath>

namespace hetsched {
namespace {

Task make_task(std::string name, KernelClass kernel, Precision precision, double flops,
               double bytes, double memory_bytes) {
  Task task;
  task.name = std::move(name);
  task.kernel = kernel;
  task.precision = precision;
  task.flops = flops;
  task.bytes = bytes;
  task.memory_bytes = memory_bytes;
  return task;
}

std::uint32_t add(Job& job, Task task) {
  job.tasks.push_back(std::move(task));
  return static_cast<std::uint32_t>(job.tasks.size() - 1);
}

// A size jittered by ±`spread` (uniform), so generated jobs are not all alike.
double jitter(Rng& rng, double value, double spread = 0.2) {
  return value * rng.uniform(1.0 - spread, 1.0 + spread);
}

}  // namespace

Job training_job(const TrainingJobParams& p, Rng& rng) {
  Job job;
  job.name = p.name;
  job.family = "ml-training";
  job.arrival_seconds = p.arrival_seconds;
  const double params = jitter(rng, p.parameters, 0.1);
  const double weights_bytes = 2 * params;          // bf16 weights
  const double gradient_bytes = 2 * params;         // bf16 gradients
  const double training_state_bytes = 16 * params;  // weights, gradients, Adam moments
  const double tokens = p.tokens_per_step / p.micro_batches;
  std::uint32_t previous_update = 0;
  for (std::uint32_t s = 0; s < p.steps; ++s) {
    std::vector<std::uint32_t> shards;
    for (std::uint32_t m = 0; m < p.micro_batches; ++m) {
      Task t = make_task("step" + std::to_string(s) + "/fwd-bwd" + std::to_string(m),
                         KernelClass::dense_matmul, Precision::fp16, 6 * params * tokens,
                         3 * weights_bytes + 2 * tokens * 4096 * 2, training_state_bytes);
      t.input_bytes = tokens * 4;  // token ids
      const std::uint32_t id = add(job, std::move(t));
      if (s > 0) job.edges.push_back(Edge{previous_update, id, weights_bytes});
      shards.push_back(id);
    }
    const std::uint32_t reduce =
        add(job, make_task("step" + std::to_string(s) + "/all-reduce", KernelClass::reduction,
                           Precision::fp32, params * p.micro_batches,
                           gradient_bytes * p.micro_batches, gradient_bytes * p.micro_batches));
    for (std::uint32_t id : shards) job.edges.push_back(Edge{id, reduce, gradient_bytes});
    previous_update = add(
        job, make_task("step" + std::to_string(s) + "/adam", KernelClass::elementwise,
                       Precision::fp32, 12 * params, training_state_bytes, training_state_bytes));
    job.edges.push_back(Edge{reduce, previous_update, gradient_bytes});
  }
  return job;
}

Job inference_job(const InferenceJobParams& p, Rng& rng) {
  Job job;
  job.name = p.name;
  job.family = "ml-inference";
  job.arrival_seconds = p.arrival_seconds;
  job.deadline_seconds = p.arrival_seconds + p.deadline_after_seconds;
  for (std::uint32_t r = 0; r < p.requests; ++r) {
    const double tokens = jitter(rng, p.tokens_per_request, 0.5);
    Task t = make_task("request" + std::to_string(r), KernelClass::attention, Precision::fp16,
                       2 * p.parameters * tokens, 2 * p.parameters, 2 * p.parameters * 1.2);
    t.input_bytes = tokens * 4;
    add(job, std::move(t));
  }
  return job;
}

Job map_reduce_job(const MapReduceJobParams& p, Rng& rng) {
  Job job;
  job.name = p.name;
  job.family = "bigdata";
  job.arrival_seconds = p.arrival_seconds;
  job.data_node = p.data_node;
  std::vector<std::uint32_t> maps;
  for (std::uint32_t m = 0; m < p.maps; ++m) {
    const double split = jitter(rng, p.split_bytes);
    Task t = make_task("map" + std::to_string(m), KernelClass::branchy, Precision::fp32, 40 * split,
                       3 * split, 2 * split);
    t.input_bytes = split;
    maps.push_back(add(job, std::move(t)));
  }
  const double shuffle_per_pair = p.split_bytes * p.shuffle_fraction / p.reduces;
  for (std::uint32_t r = 0; r < p.reduces; ++r) {
    const double in = shuffle_per_pair * p.maps;
    const std::uint32_t id =
        add(job, make_task("reduce" + std::to_string(r), KernelClass::branchy, Precision::fp32,
                           30 * in * std::log2(std::max(2.0, in / 100)), 4 * in, 2 * in));
    for (std::uint32_t m : maps) job.edges.push_back(Edge{m, id, shuffle_per_pair});
  }
  return job;
}

std::vector<Job> service_requests(const ServiceRequestsParams& p, Rng& rng) {
  std::vector<Job> jobs;
  double t = p.start_seconds;
  for (std::uint32_t r = 0; r < p.requests; ++r) {
    t += rng.exponential(1.0 / p.rate_per_second);
    Job job;
    job.name = p.name + "-" + std::to_string(r);
    job.family = "cloud";
    job.arrival_seconds = t;
    job.deadline_seconds = t + p.deadline_after_seconds;
    Task handler = make_task("handle", KernelClass::branchy, Precision::fp32, jitter(rng, 2e9, 0.5),
                             jitter(rng, 5e7, 0.5), 2e8);
    handler.input_bytes = jitter(rng, 64e3, 0.5);
    job.tasks.push_back(std::move(handler));
    jobs.push_back(std::move(job));
  }
  return jobs;
}

Job stencil_job(const StencilJobParams& p, Rng& rng) {
  Job job;
  job.name = p.name;
  job.family = "scientific";
  job.arrival_seconds = p.arrival_seconds;
  const double cells = jitter(rng, p.cells_per_block, 0.05);
  const double halo_bytes = 8 * std::sqrt(cells) * 2;  // two ghost rows of a square block
  std::vector<std::uint32_t> previous;
  for (std::uint32_t it = 0; it < p.iterations; ++it) {
    std::vector<std::uint32_t> current;
    for (std::uint32_t b = 0; b < p.blocks; ++b) {
      // A 5-point Jacobi update: 6 flops and ~3 doubles of traffic per cell.
      Task t =
          make_task("it" + std::to_string(it) + "/block" + std::to_string(b),
                    KernelClass::elementwise, Precision::fp64, 6 * cells, 24 * cells, 16 * cells);
      if (it == 0) t.input_bytes = 8 * cells;
      const std::uint32_t id = add(job, std::move(t));
      if (it > 0) {
        job.edges.push_back(Edge{previous[b], id, 8 * cells});
        if (b > 0) job.edges.push_back(Edge{previous[b - 1], id, halo_bytes});
        if (b + 1 < p.blocks) job.edges.push_back(Edge{previous[b + 1], id, halo_bytes});
      }
      current.push_back(id);
    }
    previous = std::move(current);
  }
  return job;
}

Job workflow_job(const WorkflowJobParams& p, Rng& rng) {
  Job job;
  job.name = p.name;
  job.family = "scientific";
  job.arrival_seconds = p.arrival_seconds;
  struct Kind {
    KernelClass kernel;
    Precision precision;
    double flops, bytes;
  };
  static const Kind kinds[] = {
      {KernelClass::dense_matmul, Precision::fp64, 2e13, 2e10},
      {KernelClass::sparse, Precision::fp64, 2e11, 4e10},
      {KernelClass::elementwise, Precision::fp32, 5e10, 5e10},
      {KernelClass::reduction, Precision::fp32, 2e10, 2e10},
      {KernelClass::io, Precision::fp32, 1e9, 2e10},
      {KernelClass::branchy, Precision::fp32, 1e11, 5e9},
  };
  std::vector<std::vector<std::uint32_t>> levels;
  std::uint32_t made = 0;
  while (made < p.tasks) {
    const std::uint32_t width = std::min<std::uint32_t>(
        p.tasks - made, 1 + static_cast<std::uint32_t>(rng.below(2 * p.width)));
    std::vector<std::uint32_t> level;
    for (std::uint32_t i = 0; i < width; ++i, ++made) {
      const Kind& k = kinds[rng.below(std::size(kinds))];
      Task t = make_task("t" + std::to_string(made) + "/" + std::string(to_string(k.kernel)),
                         k.kernel, k.precision, jitter(rng, k.flops, 0.5),
                         jitter(rng, k.bytes, 0.5), jitter(rng, 4e9, 0.5));
      if (levels.empty()) t.input_bytes = jitter(rng, 1e9, 0.5);
      const std::uint32_t id = add(job, std::move(t));
      if (!levels.empty()) {
        const std::uint32_t parents = 1 + static_cast<std::uint32_t>(rng.below(3));
        const std::size_t first_edge = job.edges.size();  // edges into `id` start here
        for (std::uint32_t q = 0; q < parents; ++q) {
          const auto& source = levels[rng.below(levels.size())];
          const std::uint32_t parent = source[rng.below(source.size())];
          const bool duplicate =
              std::any_of(job.edges.begin() + static_cast<std::ptrdiff_t>(first_edge),
                          job.edges.end(), [&](const Edge& e) { return e.from == parent; });
          if (!duplicate) job.edges.push_back(Edge{parent, id, jitter(rng, 2e9, 0.5)});
        }
      }
      level.push_back(id);
    }
    levels.push_back(std::move(level));
  }
  return job;
}

Workload default_workload(std::uint64_t seed) {
  Rng rng(seed);
  Workload w;
  w.jobs.push_back(training_job({"train-llm-1.3b", 1.3e9, 4e6, 20, 8, 0.0}, rng));
  w.jobs.push_back(training_job({"train-llm-350m", 3.5e8, 1e6, 20, 4, 5.0}, rng));
  w.jobs.push_back(inference_job({"infer-7b", 7e9, 48, 512, 5.0, 30.0}, rng));
  w.jobs.push_back(map_reduce_job({"logs-etl", 32, 8, 256e6, 0.3, 0.0, 3}, rng));
  w.jobs.push_back(map_reduce_job({"clickstream", 16, 4, 512e6, 0.2, 20.0, 4}, rng));
  for (Job& j : service_requests({"api", 200, 5.0, 0.0, 0.5}, rng)) w.jobs.push_back(std::move(j));
  w.jobs.push_back(stencil_job({"heat-2d", 8, 20, 5e8, 10.0}, rng));
  w.jobs.push_back(workflow_job({"genomics-wf", 40, 6, 30.0}, rng));
  return w;
}

Workload default_workload(std::uint64_t seed, std::size_t node_count) {
  Workload w = default_workload(seed);
  if (node_count > 0)
    for (Job& job : w.jobs) job.data_node = static_cast<NodeId>(job.data_node % node_count);
  return w;
}

}  // namespace hetsched
