#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/progress.hpp"
#include "hetsched/runtime/kernel_library.hpp"
#include "option_checks.hpp"
#include "runtime_benchmark.hpp"

namespace hetsched::cli {
namespace {

struct BenchRuntimeOptions {
  RuntimeBenchmarkOptions params;
  std::string starpu_script = "bench/starpu/run_starpu_bench.sh";
  bool no_starpu = false;
  std::string format = "table";
  bool quiet = false;
};

nlohmann::ordered_json optional_number(const std::optional<double>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

void run_bench_runtime(BenchRuntimeOptions options) {
  if (!options.no_starpu) {
    if (!std::filesystem::exists(options.starpu_script))
      throw InputError(SourcePosition{options.starpu_script},
                       "StarPU peer script not found (run from the repository root, pass "
                       "--starpu-script, or --no-starpu)");
    options.params.starpu_script = options.starpu_script;
  }
  Progress progress("bench runtime", options.quiet);
  options.params.progress = [&](std::size_t done, std::size_t total) {
    progress.update(done, total);
  };
  const RuntimeBenchmarkResult r = run_runtime_benchmark(options.params);
  const std::string core = openblas_core_name();
  if (options.format == "json") {
    nlohmann::ordered_json out{
        {"overhead_us_per_task", r.overhead_us_per_task},
        {"overhead_us_per_task_runs", r.overhead_us_per_task_runs},
        {"starpu_overhead_us_per_task", optional_number(r.starpu_overhead_us_per_task)},
        {"gemm_gflops", r.gemm_gflops},
        {"starpu_gemm_gflops", optional_number(r.starpu_gemm_gflops)},
        {"gemm_gflops_runs", r.gemm_gflops_runs},
        {"mix_makespan_seconds", r.mix_makespan_seconds},
        {"starpu_mix_makespan_seconds", optional_number(r.starpu_mix_makespan_seconds)},
        {"empty_tasks", options.params.empty_tasks},
        {"cpu_workers", options.params.cpu_workers},
        {"gemm_side", options.params.gemm_side},
        {"gemm_tile", options.params.gemm_tile},
        {"mix_devices", r.mix_devices},
        {"policy", options.params.policy},
        {"openblas_core", core},
        {"starpu_openblas_core", r.starpu_openblas_core},
        {"overhead_sleeps", r.overhead_sleeps},
        {"mix_uploads_during_kernel", r.mix_uploads_during_kernel},
        {"mix_uploads_overlapped", r.mix_uploads_overlapped},
        {"mix_overlap_seconds", r.mix_overlap_seconds},
        {"mix_bytes_to_devices", r.mix_bytes_to_devices},
        {"load_average_before", r.load_before},
        {"load_average_after", r.load_after}};
    for (const auto& [key, value] : r.starpu_details) out["starpu_details"][key] = value;
    if (!r.starpu_error.empty()) out["starpu_error"] = r.starpu_error;
    if (!r.notice.empty()) out["notice"] = r.notice;
    if (core == "Prescott")
      out["openblas_notice"] =
          "OpenBLAS fell back to generic Prescott kernels: rerun with OPENBLAS_CORETYPE=Haswell "
          "(or SkylakeX) exported, which applies to both sides";
    std::cout << out.dump() << "\n";
    return;
  }
  auto ratio = [](double ours, const std::optional<double>& theirs) {
    return theirs && ours > 0 ? fmt::format("{:.2f}", *theirs / ours) : std::string("-");
  };
  auto show = [](const std::optional<double>& v, const char* spec) {
    return v ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
  };
  std::cout << fmt::format("local runtime vs StarPU, same machine, same run (OpenBLAS core {})\n",
                           core);
  std::cout << fmt::format("  {:<44} {:>10} {:>10} {:>12}\n", "", "hetsched", "StarPU",
                           "StarPU/ours");
  std::cout << fmt::format("  {:<44} {:>10.3f} {:>10} {:>12}\n",
                           fmt::format("overhead, {} empty tasks, {} CPU (µs/task)",
                                       options.params.empty_tasks, options.params.cpu_workers),
                           r.overhead_us_per_task, show(r.starpu_overhead_us_per_task, "{:.3f}"),
                           ratio(r.overhead_us_per_task, r.starpu_overhead_us_per_task));
  std::cout << fmt::format(
      "  {:<44} {:>10.1f} {:>10} {:>12}\n",
      fmt::format("DGEMM {}² / {}² tiles (GFLOP/s)", options.params.gemm_side,
                  options.params.gemm_tile),
      r.gemm_gflops, show(r.starpu_gemm_gflops, "{:.1f}"),
      r.starpu_gemm_gflops ? fmt::format("{:.2f}", *r.starpu_gemm_gflops / r.gemm_gflops) : "-");
  std::cout << fmt::format("  {:<44} {:>10.3f} {:>10} {:>12}\n", "CPU + OpenCL mix makespan (s)",
                           r.mix_makespan_seconds, show(r.starpu_mix_makespan_seconds, "{:.3f}"),
                           ratio(r.mix_makespan_seconds, r.starpu_mix_makespan_seconds));
  std::cout << fmt::format("  overhead_us_per_task_runs = {:.3f}\n",
                           fmt::join(r.overhead_us_per_task_runs, ", "));
  std::cout << fmt::format("  gemm_gflops_runs = {:.2f}\n", fmt::join(r.gemm_gflops_runs, ", "));
  if (!r.starpu_openblas_core.empty())
    std::cout << fmt::format("  StarPU's OpenBLAS core: {}\n", r.starpu_openblas_core);
  for (const auto& [key, value] : r.starpu_details)
    std::cout << fmt::format("  {} = {}\n", key, value);
  if (!r.starpu_error.empty()) std::cout << "  StarPU: " << r.starpu_error << "\n";
  if (!r.notice.empty()) std::cout << "  " << r.notice << "\n";
  std::cout << fmt::format(
      "  overhead run: {} futex sleeps; mix: {} uploads issued under a running kernel, {} "
      "overlapped it ({:.4f} s)\n  load average (1 min) {:.2f} before, {:.2f} after our runs\n",
      r.overhead_sleeps, r.mix_uploads_during_kernel, r.mix_uploads_overlapped,
      r.mix_overlap_seconds, r.load_before, r.load_after);
  if (core == "Prescott")
    std::cout << "  OpenBLAS fell back to Prescott: export OPENBLAS_CORETYPE=Haswell and rerun\n";
}

}  // namespace

void add_bench_runtime_command(CLI::App& bench) {
  auto options = std::make_shared<BenchRuntimeOptions>();
  CLI::App* command = bench.add_subcommand(
      "runtime", "local runtime against StarPU: task overhead, tiled DGEMM, CPU+OpenCL mix");
  command->add_option("--tasks", options->params.empty_tasks, "empty tasks for the overhead")
      ->capture_default_str()
      ->check(finite_range(1, 100'000'000));
  command
      ->add_option("--overhead-repetitions", options->params.overhead_repetitions,
                   "overhead runs per side and StarPU scheduler (the best is the figure)")
      ->capture_default_str()
      ->check(finite_range(1, 100));
  command->add_option("--gemm-side", options->params.gemm_side, "DGEMM matrix side")
      ->capture_default_str()
      ->check(finite_range(16, 65536));
  command->add_option("--gemm-tile", options->params.gemm_tile, "DGEMM tile side")
      ->capture_default_str()
      ->check(finite_range(16, 8192));
  command
      ->add_option("--gemm-repetitions", options->params.gemm_repetitions,
                   "timed DGEMM runs per side (the best is the figure; all are printed)")
      ->capture_default_str()
      ->check(finite_range(1, 100));
  command->add_option("--cpu-workers", options->params.cpu_workers, "CPU workers")
      ->capture_default_str()
      ->check(finite_range(1, 1024));
  command->add_option("--mix-chains", options->params.mix_chains, "chains in the mix")
      ->capture_default_str()
      ->check(finite_range(1, 10'000));
  command->add_option("--mix-size", options->params.mix_size, "grid side in the mix")
      ->capture_default_str()
      ->check(finite_range(16, 4096));
  command->add_option("--policy", options->params.policy, "policy for our runs")
      ->capture_default_str();
  command->add_option("--starpu-script", options->starpu_script, "the StarPU peer script")
      ->capture_default_str();
  command->add_flag("--no-starpu", options->no_starpu, "our figures only");
  command->add_option("--format", options->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  command->add_flag("--quiet,-q", options->quiet, "no progress on stderr");
  command->callback([options] { run_bench_runtime(*options); });
}

}  // namespace hetsched::cli
