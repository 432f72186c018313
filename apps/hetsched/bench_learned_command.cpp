#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hetsched/core/progress.hpp"
#include "learned_benchmark.hpp"

namespace hetsched::cli {
namespace {

struct BenchLearnedOptions {
  LearnedBenchmarkParams params;
  std::string format = "table";
  bool quiet = false;
};

void run_bench_learned(BenchLearnedOptions& options) {
  Progress progress("bench learned", options.quiet);
  options.params.progress = [&](std::size_t done, std::size_t total) {
    progress.update(done, total);
  };
  const LearnedBenchmarkResult r = run_learned_benchmark(options.params);
  if (options.format == "json") {
    nlohmann::ordered_json out{{"settings", nlohmann::ordered_json::array()}};
    for (const LearnedSettingResult& s : r.settings) {
      nlohmann::ordered_json means = nlohmann::ordered_json::object();
      for (const auto& [name, mean] : s.heuristic_means) means[name] = mean;
      out["settings"].push_back({{"name", s.name},
                                 {"runs", s.runs},
                                 {"learned_vs_best_heuristic", s.learned_vs_best_heuristic},
                                 {"best_heuristic", s.best_heuristic},
                                 {"worse_fraction", s.worse_fraction},
                                 {"learned_mean_seconds", s.learned_mean_seconds},
                                 {"lower_bound_mean_seconds", s.lower_bound_mean_seconds},
                                 {"heuristic_mean_seconds", means}});
    }
    out["decisions_per_second"] = r.decisions_per_second;
    std::cout << out.dump(2) << "\n";
    return;
  }
  for (const LearnedSettingResult& s : r.settings) {
    std::cout << fmt::format(
        "{} ({} runs)\n  learned {:.4g} s; best heuristic {} {:.4g} s; "
        "learned / best = {:.3f}, worse on {:.0f} % of runs\n",
        s.name, s.runs, s.learned_mean_seconds, s.best_heuristic, s.best_heuristic_mean_seconds,
        s.learned_vs_best_heuristic, 100 * s.worse_fraction);
    for (const auto& [name, mean] : s.heuristic_means)
      std::cout << fmt::format("    {:<22} {:.4g} s\n", name, mean);
    if (s.lower_bound_mean_seconds > 0)
      std::cout << fmt::format("    {:<22} {:.4g} s (no policy can beat it)\n", "lower bound",
                               s.lower_bound_mean_seconds);
  }
  std::cout << fmt::format("learned policy: {:.0f} decisions per second\n", r.decisions_per_second);
}

}  // namespace

void add_bench_learned_command(CLI::App& bench) {
  auto options = std::make_shared<BenchLearnedOptions>();
  CLI::App* command = bench.add_subcommand(
      "learned", "the learned policy against the best heuristics under noisy run times");
  command->add_flag("--quick", options->params.quick, "a small subset (under two minutes)");
  command->add_option("--seed", options->params.seed, "seed of the duration draws")
      ->capture_default_str();
  command->add_option("--model", options->params.model,
                      "the learned policy's model file (default: the shipped one)");
  command->add_option("--draws", options->params.draws, "duration draws per scenario")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  command
      ->add_option("--streams", options->params.streams,
                   "stream scenarios of setting 2 (default 4, 2 with --quick)")
      ->check(CLI::Range(1, 1000));
  command->add_option("--format", options->format, "output on stdout")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  command->add_flag("--quiet", options->quiet, "no progress on stderr");
  command->callback([options] { run_bench_learned(*options); });
}

}  // namespace hetsched::cli
