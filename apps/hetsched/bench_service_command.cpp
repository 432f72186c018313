// `hetsched bench service`: REST submissions/s, decisions/s through the service,
// failover time and acknowledged jobs lost to kill -9 (logic in service_benchmark).
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hetsched/core/progress.hpp"
#include "hetsched/service/service_benchmark.hpp"
#include "option_checks.hpp"

namespace hetsched::cli {
namespace {

struct BenchServiceOptions {
  ServiceBenchmarkParams params;
  std::string format = "table";
  bool quiet = false;
};

std::string own_executable() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string("hetsched") : path.string();
}

void run_bench_service(BenchServiceOptions options) {
  options.params.cli_path = own_executable();
  Progress progress("bench service", options.quiet);
  options.params.progress = [&](std::size_t done, std::size_t total) {
    progress.update(done, total);
  };
  const ServiceBenchmarkResult r = run_service_benchmark(options.params);
  if (options.format == "json") {
    nlohmann::ordered_json out{{"submissions_per_second", r.submissions_per_second},
                               {"decisions_per_second", r.decisions_per_second},
                               {"decisions", r.decisions},
                               {"policy_decisions_per_second", r.policy_decisions_per_second},
                               {"failover_seconds", r.failover_seconds},
                               {"failover_mode", r.failover_mode},
                               {"acked_jobs_lost", r.acked_jobs_lost},
                               {"acked_jobs", r.acked_jobs},
                               {"client_threads", options.params.client_threads},
                               {"policy", options.params.policy},
                               {"nodes", options.params.nodes}};
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("REST submissions/s ({} client threads): {:.1f}\n",
                           options.params.client_threads, r.submissions_per_second);
  std::cout << fmt::format(
      "scheduling decisions/s through the service ({}, {} nodes): {:.1f} ({} decisions)\n",
      options.params.policy, options.params.nodes, r.decisions_per_second, r.decisions);
  std::cout << fmt::format("  of which inside the policy: {:.1f} decisions/s\n",
                           r.policy_decisions_per_second);
  std::cout << fmt::format("failover ({}): {:.3f} s\n", r.failover_mode, r.failover_seconds);
  std::cout << fmt::format("acknowledged jobs lost to kill -9: {} of {}\n", r.acked_jobs_lost,
                           r.acked_jobs);
}

}  // namespace

void add_bench_service_command(CLI::App& bench) {
  auto options = std::make_shared<BenchServiceOptions>();
  ServiceBenchmarkParams& p = options->params;
  CLI::App* command = bench.add_subcommand(
      "service", "hetsched serve: REST submissions/s, decisions/s, failover, jobs lost to kill -9");
  command->add_option("--clients", p.client_threads, "client threads")
      ->capture_default_str()
      ->check(finite_range(std::size_t{1}, std::size_t{64}));
  command->add_option("--submissions", p.submissions, "one-task jobs submitted for the rate")
      ->capture_default_str()
      ->check(finite_range(std::uint64_t{1}, std::uint64_t{1'000'000}));
  command
      ->add_option("--kill-submissions", p.kill_submissions,
                   "submissions during which the server is killed")
      ->capture_default_str()
      ->check(finite_range(std::uint64_t{10}, std::uint64_t{1'000'000}));
  command->add_option("--dag-jobs", p.decision_jobs, "DAG jobs for the decision rate")
      ->capture_default_str()
      ->check(finite_range(std::uint64_t{1}, std::uint64_t{100'000}));
  command->add_option("--tasks-per-job", p.tasks_per_job, "tasks per DAG job")
      ->capture_default_str()
      ->check(finite_range(std::size_t{1}, std::size_t{10'000}));
  command->add_option("--policy", p.policy, "policy of the DAG jobs")->capture_default_str();
  command
      ->add_option("--nodes", p.nodes,
                   "nodes of the twin the service runs on (4 GPUs and a CPU each; 0: the "
                   "built-in cluster)")
      ->capture_default_str()
      ->check(finite_range(std::size_t{0}, std::size_t{100'000}));
  command->add_option("--work-dir", p.work_dir, "where the state files go (kept when given)");
  command->add_option(
      "--etcd", p.etcd_state,
      "etcd://HOST:PORT,...: measure failover and kill -9 on replicas sharing this etcd");
  command->add_option("--replicas", p.replicas, "replicas on etcd")
      ->capture_default_str()
      ->check(finite_range(std::size_t{2}, std::size_t{9}));
  command->add_option("--seed", p.seed, "seed of the job generator and the kill point")
      ->capture_default_str();
  command->add_option("--format", options->format, "table or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "json"}));
  command->add_flag("--quiet,-q", options->quiet, "no progress on stderr");
  command->callback([options] { run_bench_service(*options); });
}

}  // namespace hetsched::cli
