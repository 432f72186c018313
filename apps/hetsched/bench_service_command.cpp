// `hetsched bench service`: REST submissions/s, decisions/s through the service,
// failover time, acknowledged jobs lost to kill -9 and GET /healthz latency under held
// connections (logic in service_benchmark).
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hetsched/core/progress.hpp"
#include "option_checks.hpp"
#include "service_benchmark.hpp"

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
  const auto held_json = [&](nlohmann::ordered_json& out, const char* kind,
                             const HealthzUnderLoadResult& h) {
    out[fmt::format("healthz_p99_under_{}_connections_ms", kind)] = h.p99_ms;
    out[fmt::format("healthz_p50_under_{}_connections_ms", kind)] = h.p50_ms;
    out[fmt::format("healthz_unanswered_under_{}_connections", kind)] = h.unanswered;
    out[fmt::format("held_{}_connections_min", kind)] = h.held_min;
    out[fmt::format("held_{}_connections_mean", kind)] = h.held_mean;
    out[fmt::format("held_{}_connections_closed_by_server", kind)] = h.reopened;
  };
  if (options.format == "json") {
    nlohmann::ordered_json out;
    if (!options.params.connections_only)
      out = {{"submissions_per_second", r.submissions_per_second},
             {"decisions_per_second", r.decisions_per_second},
             {"decisions", r.decisions},
             {"policy_decisions_per_second", r.policy_decisions_per_second},
             {"failover_seconds", r.failover_seconds},
             {"failover_mode", r.failover_mode},
             {"acked_jobs_lost", r.acked_jobs_lost},
             {"acked_jobs", r.acked_jobs},
             {"restart_seconds", r.restart_seconds},
             {"restart_tasks", r.restart_tasks},
             {"restart_store_bytes", r.restart_store_bytes},
             {"max_job_tasks_etcd", options.params.etcd_state.empty()
                                        ? nlohmann::ordered_json(nullptr)
                                        : nlohmann::ordered_json(r.max_job_tasks_etcd)},
             {"client_threads", options.params.client_threads},
             {"policy", options.params.policy},
             {"nodes", options.params.nodes}};
    held_json(out, "idle", r.healthz_under_idle);
    held_json(out, "slowloris", r.healthz_under_slowloris);
    out["held_connections"] = options.params.held_connections;
    out["healthz_probes"] = options.params.healthz_probes;
    std::cout << out.dump(2) << "\n";
    return;
  }
  for (const auto& [kind, h] :
       {std::pair<const char*, const HealthzUnderLoadResult&>{"idle", r.healthz_under_idle},
        {"slowloris", r.healthz_under_slowloris}})
    std::cout << fmt::format(
        "GET /healthz under {} {} connections: p50 {:.2f} ms, p99 {:.2f} ms ({} of {} "
        "unanswered; {:.0f} held on average, {} at least; {} closed by the server)\n",
        options.params.held_connections, kind, h.p50_ms, h.p99_ms, h.unanswered, h.probes,
        h.held_mean, h.held_min, h.reopened);
  if (options.params.connections_only) return;
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
  std::cout << fmt::format("restart after kill -9 with {} stored tasks ({:.1f} MB): {:.3f} s\n",
                           r.restart_tasks, static_cast<double>(r.restart_store_bytes) / 1e6,
                           r.restart_seconds);
  if (!options.params.etcd_state.empty())
    std::cout << fmt::format("largest job run on etcd: {} tasks\n", r.max_job_tasks_etcd);
}

}  // namespace

void add_bench_service_command(CLI::App& bench) {
  auto options = std::make_shared<BenchServiceOptions>();
  ServiceBenchmarkParams& p = options->params;
  CLI::App* command = bench.add_subcommand(
      "service",
      "hetsched serve: REST submissions/s, decisions/s, failover, jobs lost to kill -9, "
      "GET /healthz p99 under 1,000 held connections");
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
  command
      ->add_option("--restart-tasks", p.restart_tasks,
                   "stored tasks the restart after kill -9 is measured with")
      ->capture_default_str()
      ->check(finite_range(std::uint64_t{1000}, std::uint64_t{1'000'000}));
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
  command
      ->add_option("--held-connections", p.held_connections,
                   "idle (then slowloris) connections held open while GET /healthz is timed")
      ->capture_default_str()
      ->check(finite_range(std::size_t{0}, std::size_t{100'000}));
  command->add_option("--healthz-probes", p.healthz_probes, "GET /healthz probes per kind")
      ->capture_default_str()
      ->check(finite_range(std::size_t{1}, std::size_t{100'000}));
  command->add_flag("--only-connections", p.connections_only,
                    "run only the held-connections phase (GET /healthz latency)");
  command->add_option("--connections-serve", p.connections_serve_path,
                      "the hetsched binary whose serve the held-connections phase measures "
                      "(another build's, to compare; default: this one)");
  command->add_option("--format", options->format, "table or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "json"}));
  command->add_flag("--quiet,-q", options->quiet, "no progress on stderr");
  command->callback([options] { run_bench_service(*options); });
}

}  // namespace hetsched::cli
