#include "stream_simulate.hpp"

#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "hetsched/core/csv_field.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/progress.hpp"
#include "hetsched/io/cluster_file.hpp"
#include "hetsched/io/report_folder.hpp"
#include "hetsched/io/report_writer.hpp"
#include "hetsched/io/stream_workload_file.hpp"
#include "hetsched/stream/stream_simulator.hpp"

namespace hetsched::cli {

namespace {

// Each job's first placement (node and device type), first start, finish and moves under
// each policy; a rejected job with its reason.
void write_stream_schedule(const std::string& path, const std::vector<StreamReport>& reports,
                           const StreamResources& resources) {
  const bool csv = path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
  std::string text = "policy,job,node,device_type,start_seconds,finish_seconds,migrations\n";
  nlohmann::ordered_json json = nlohmann::ordered_json::array();
  for (const StreamReport& report : reports) {
    nlohmann::ordered_json jobs = nlohmann::ordered_json::array();
    for (const StreamJobOutcome& job : report.jobs) {
      if (job.rejected) {
        jobs.push_back({{"job", job.name}, {"rejected", job.rejection_reason}});
        continue;
      }
      if (job.placement_nodes.empty()) continue;  // never started (the run stopped first)
      const StreamNode& node = resources.nodes[static_cast<std::size_t>(job.placement_nodes[0])];
      const std::string& type = resources.types[node.type].model;
      jobs.push_back({{"job", job.name},
                      {"node", node.name},
                      {"device_type", type},
                      {"start_seconds", job.first_start_seconds},
                      {"finish_seconds", job.finish_seconds},
                      {"migrations", job.migrations}});
      text += fmt::format("{},{},{},{},{},{},{}\n", csv_field(report.policy), csv_field(job.name),
                          csv_field(node.name), csv_field(type), job.first_start_seconds,
                          job.finish_seconds, job.migrations);
    }
    json.push_back({{"policy", report.policy}, {"jobs", std::move(jobs)}});
  }
  write_text_file(path, csv ? text : json.dump(2) + "\n");
}

}  // namespace

void run_stream_simulation(const StreamSimulateOptions& options) {
  const StreamWorkload workload = load_stream_workload(options.workload_file);
  StreamResources resources;
  if (!options.cluster_file.empty())
    resources = stream_resources(load_cluster_file(options.cluster_file));
  else if (workload.cluster.types.empty())
    throw InputError(SourcePosition{options.workload_file, 1, 1},
                     "the job stream has no 'cluster': give it one, or run it on a cluster file "
                     "with --cluster");
  else
    resources = stream_resources(workload.cluster);
  std::vector<std::string> policies = options.policies;
  if (policies.empty()) policies = {"fifo", "las", "aware-las"};
  std::vector<std::unique_ptr<StreamPolicy>> made;
  for (const auto& name : policies) made.push_back(make_stream_policy(name));  // validate first
  StreamSimOptions sim;
  sim.round_seconds = options.round_seconds;
  sim.migration_seconds = options.migration_seconds;
  sim.easy_backfilling = options.easy_backfilling;
  sim.gang_spread =
      options.gang_placement == "pack" ? GangSpread::one_node : GangSpread::racks_then_anywhere;
  sim.device_placement = *device_placement_named(options.device_placement);  // checked by CLI
  sim.record_segments = !options.out_dir.empty();  // the report's timeline
  std::vector<StreamReport> reports;
  for (std::size_t i = 0; i < policies.size(); ++i) {
    Progress progress("simulate " + policies[i], options.quiet);
    sim.progress = [&](std::size_t done, std::size_t total) { progress.update(done, total); };
    reports.push_back(simulate_stream(workload, resources, *made[i], sim, policies[i]));
  }
  nlohmann::ordered_json out{{"reports", nlohmann::ordered_json::array()}};
  for (const auto& r : reports) {
    nlohmann::ordered_json utilisation;
    for (std::size_t k = 0; k < r.type_names.size(); ++k)
      utilisation[r.type_names[k]] = r.utilisation[k];
    nlohmann::ordered_json rejected = nlohmann::ordered_json::array();
    for (const auto& job : r.jobs)
      if (job.rejected) rejected.push_back({{"job", job.name}, {"reason", job.rejection_reason}});
    out["reports"].push_back({{"policy", r.policy},
                              {"jobs", r.measured_jobs},
                              {"finished", r.finished_measured},
                              {"rejected", rejected},
                              {"avg_jct_seconds", r.average_jct_seconds},
                              {"p50_jct_seconds", r.p50_jct_seconds},
                              {"p95_jct_seconds", r.p95_jct_seconds},
                              {"p99_jct_seconds", r.p99_jct_seconds},
                              {"avg_wait_seconds", r.average_wait_seconds},
                              {"makespan_seconds", r.makespan_seconds},
                              {"utilisation", utilisation},
                              {"jain_fairness", r.jain_fairness},
                              {"ftf_rho_average", r.ftf_rho_average},
                              {"ftf_rho_max", r.ftf_rho_max},
                              {"ftf_unfair_fraction", r.ftf_unfair_fraction},
                              {"jain_fairness_ftf", r.jain_fairness_ftf},
                              {"colocated_rounds", r.colocated_rounds},
                              {"slo_violations", r.slo_violations},
                              {"cost_usd", r.cost_usd},
                              {"allocation_fallbacks", r.fallbacks},
                              {"fallback_note", r.first_fallback_note}});
  }
  if (!options.schedule_file.empty())
    write_stream_schedule(options.schedule_file, reports, resources);
  if (!options.out_dir.empty()) {
    ReportFolder folder(options.out_dir, fmt::format("hetsched simulate: a stream of {} jobs",
                                                     workload.jobs.size()));
    write_text_file(options.out_dir + "/stream.report.json", out.dump(2) + "\n");
    for (const StreamReport& r : reports) folder.add(r, workload, resources);
    folder.write_page();
  }
  if (options.format == "json") {
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << "cluster:";
  for (const auto& type : resources.types) std::cout << " " << type.count << " " << type.model;
  std::cout << "; " << workload.jobs.size() << " jobs\n";
  for (const auto& r : reports)
    for (const auto& job : r.jobs)
      if (job.rejected && &r == &reports.front())
        std::cout << "rejected at submission: " << job.name << ": " << job.rejection_reason << "\n";
  std::cout << "\n";
  std::cout << fmt::format("{:<22}", "metric");
  for (const auto& r : reports) std::cout << fmt::format(" {:>14}", r.policy);
  std::cout << "\n";
  auto row = [&](const std::string& label, auto value) {
    std::cout << fmt::format("{:<22}", label);
    for (const auto& r : reports) std::cout << fmt::format(" {:>14}", value(r));
    std::cout << "\n";
  };
  auto hours = [](double seconds) { return fmt::format("{:.2f} h", seconds / 3600.0); };
  row("finished / jobs", [](const StreamReport& r) {
    return fmt::format("{}/{}", r.finished_measured, r.measured_jobs);
  });
  row("avg JCT", [&](const StreamReport& r) { return hours(r.average_jct_seconds); });
  row("p50 JCT", [&](const StreamReport& r) { return hours(r.p50_jct_seconds); });
  row("p95 JCT", [&](const StreamReport& r) { return hours(r.p95_jct_seconds); });
  row("p99 JCT", [&](const StreamReport& r) { return hours(r.p99_jct_seconds); });
  row("avg wait", [&](const StreamReport& r) { return hours(r.average_wait_seconds); });
  row("makespan", [&](const StreamReport& r) { return hours(r.makespan_seconds); });
  for (std::size_t k = 0; k < resources.types.size(); ++k)
    row("utilisation " + resources.types[k].model,
        [&](const StreamReport& r) { return fmt::format("{:.1f}%", 100 * r.utilisation[k]); });
  row("Jain fairness",
      [](const StreamReport& r) { return fmt::format("{:.3f}", r.jain_fairness); });
  row("FTF rho avg",
      [](const StreamReport& r) { return fmt::format("{:.2f}", r.ftf_rho_average); });
  row("FTF rho max", [](const StreamReport& r) { return fmt::format("{:.2f}", r.ftf_rho_max); });
  row("FTF rho > 1",
      [](const StreamReport& r) { return fmt::format("{:.1f}%", 100 * r.ftf_unfair_fraction); });
  row("SLO violations", [](const StreamReport& r) { return fmt::format("{}", r.slo_violations); });
  row("cost", [](const StreamReport& r) { return fmt::format("${:.2f}", r.cost_usd); });
  row("rejected", [](const StreamReport& r) { return fmt::format("{}", r.rejected); });
  for (const auto& r : reports)
    if (r.fallbacks > 0)
      std::cout << r.policy << ": " << r.fallbacks
                << " allocation(s) fell back; first: " << r.first_fallback_note << "\n";
}

}  // namespace hetsched::cli
