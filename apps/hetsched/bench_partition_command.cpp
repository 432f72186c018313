#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cloning_benchmark.hpp"
#include "commands.hpp"
#include "option_checks.hpp"
#include "partition_benchmark.hpp"

namespace hetsched::cli {
namespace {

void run_bench_partition(const std::string& format, std::uint32_t cloning_runs) {
  const PartitionBenchmarkResult r = run_partition_benchmark();
  const CloningBenchmarkResult c = run_cloning_benchmark(cloning_runs);
  if (format == "json") {
    nlohmann::ordered_json out{
        {"devices", r.devices},
        {"training_fastest_to_slowest", r.training_fastest_to_slowest},
        {"training_step_seconds", r.training_step_seconds},
        {"training_equal_step_seconds", r.training_equal_step_seconds},
        {"training_allreduce_seconds", r.training_allreduce_seconds},
        {"training_devices_used", r.training_devices_used},
        {"training_split_speedup", r.training_split_speedup},
        {"stencil_fastest_to_slowest", r.stencil_fastest_to_slowest},
        {"stencil_iteration_seconds", r.stencil_iteration_seconds},
        {"stencil_equal_iteration_seconds", r.stencil_equal_iteration_seconds},
        {"stencil_devices_used", r.stencil_devices_used},
        {"stencil_split_speedup", r.stencil_split_speedup},
        {"pipeline_bottleneck_seconds", r.pipeline_bottleneck_seconds},
        {"pipeline_equal_layers_bottleneck_seconds", r.pipeline_equal_layers_bottleneck_seconds},
        {"pipeline_speedup", r.pipeline_speedup},
        {"map_reduce_fastest_to_slowest", r.map_reduce_fastest_to_slowest},
        {"map_reduce_seconds", r.map_reduce_seconds},
        {"map_reduce_equal_seconds", r.map_reduce_equal_seconds},
        {"map_reduce_fetch_seconds", r.map_reduce_fetch_seconds},
        {"map_reduce_map_seconds", r.map_reduce_map_seconds},
        {"map_reduce_shuffle_seconds", r.map_reduce_shuffle_seconds},
        {"map_reduce_reduce_seconds", r.map_reduce_reduce_seconds},
        {"map_reduce_split_speedup", r.map_reduce_split_speedup},
        {"cloning_runs", c.runs},
        {"cloning_threshold", c.threshold},
        {"cloning_mean_makespan_without", c.mean_makespan_without},
        {"cloning_mean_makespan_with", c.mean_makespan_with},
        {"cloning_makespan_speedup", c.makespan_speedup},
        {"cloning_stragglers", c.stragglers},
        {"cloning_clones_started", c.clones_started},
        {"cloning_clones_won", c.clones_won},
        {"cloning_cancelled_device_seconds_fraction", c.cancelled_device_seconds_fraction},
        {"cloning_cancelled_joules", c.cancelled_joules}};
    std::cout << out.dump() << "\n";
    return;
  }
  std::cout << fmt::format(
      "heterogeneity-aware split vs equal split on 2 x H100, A100, V100, TPU v5e ({} devices)\n"
      "  training step (700M params, batch 512)  {:.3f} s vs {:.3f} s  speedup {:.2f}x  "
      "({} devices used, all-reduce {:.3f} s, fastest/slowest {:.1f}x)\n"
      "  stencil iteration (1024^3 fp32)         {:.4f} s vs {:.4f} s  speedup {:.2f}x  "
      "({} devices used, fastest/slowest {:.1f}x)\n"
      "  pipeline, 48 layers (DP vs 6 per device) {:.3f} s vs {:.3f} s  speedup {:.2f}x\n"
      "  map-reduce, 20 GB image inference       {:.3f} s vs {:.3f} s  speedup {:.2f}x  "
      "(fetch {:.3f} + map {:.3f} + shuffle {:.3f} + reduce {:.3f} s, fastest/slowest {:.1f}x)\n"
      "  goal: >= 1.5x on a mix whose fastest device is >= 3x the slowest: {}\n",
      r.devices, r.training_step_seconds, r.training_equal_step_seconds, r.training_split_speedup,
      r.training_devices_used, r.training_allreduce_seconds, r.training_fastest_to_slowest,
      r.stencil_iteration_seconds, r.stencil_equal_iteration_seconds, r.stencil_split_speedup,
      r.stencil_devices_used, r.stencil_fastest_to_slowest, r.pipeline_bottleneck_seconds,
      r.pipeline_equal_layers_bottleneck_seconds, r.pipeline_speedup, r.map_reduce_seconds,
      r.map_reduce_equal_seconds, r.map_reduce_split_speedup, r.map_reduce_fetch_seconds,
      r.map_reduce_map_seconds, r.map_reduce_shuffle_seconds, r.map_reduce_reduce_seconds,
      r.map_reduce_fastest_to_slowest,
      r.training_split_speedup >= 1.5 && r.stencil_split_speedup >= 1.5 ? "met" : "NOT met");
  std::cout << fmt::format(
      "task cloning against stragglers ({} tasks, {} seeds, stragglers 4x for 20 s, 36/device-h)\n"
      "  mean makespan {:.2f} s without vs {:.2f} s with clones at {:g}x predicted time: "
      "speedup {:.2f}x\n"
      "  {} stragglers, {} clones started, {} won; cancelled copies {:.1f} % of busy "
      "device-seconds, {:.0f} J\n",
      c.tasks, c.runs, c.mean_makespan_without, c.mean_makespan_with, c.threshold,
      c.makespan_speedup, c.stragglers, c.clones_started, c.clones_won,
      100 * c.cancelled_device_seconds_fraction, c.cancelled_joules);
}

}  // namespace

void add_bench_partition_command(CLI::App& bench) {
  auto format = std::make_shared<std::string>("table");
  auto cloning_runs = std::make_shared<std::uint32_t>(10);
  CLI::App* command = bench.add_subcommand(
      "partition",
      "heterogeneity-aware split against an equal split: training, stencil, pipeline, "
      "map-reduce; task cloning against stragglers");
  command->add_option("--format", *format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  command->add_option("--cloning-runs", *cloning_runs, "seeds of the task-cloning figure")
      ->capture_default_str()
      ->check(finite_range(1, 10000));
  command->callback([format, cloning_runs] { run_bench_partition(*format, *cloning_runs); });
}

}  // namespace hetsched::cli
