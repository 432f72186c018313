#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "fault_cli_options.hpp"
#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/progress.hpp"
#include "hetsched/energy/power_cap_planning.hpp"
#include "hetsched/io/config_kind.hpp"
#include "hetsched/io/report_folder.hpp"
#include "hetsched/io/report_writer.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulation_memory.hpp"
#include "hetsched/sim/simulator.hpp"
#include "hetsched/stream/stream_policy.hpp"
#include "hetsched/stream/stream_scheduler.hpp"
#include "input_options.hpp"
#include "option_checks.hpp"
#include "stream_simulate.hpp"

namespace hetsched::cli {
namespace {

struct SimulateOptions {
  InputOptions input;
  std::vector<std::string> policies;
  std::string out_dir;
  std::string format = "table";
  StreamSimulateOptions stream;  // used when the workload file is a job stream
  FaultCliOptions faults;
  double power_cap_watts = 0;       // cluster-wide, 0: none
  double node_power_cap_watts = 0;  // per node, 0: none
  bool thermal = false;
  DurationNoiseOptions noise;
  std::string schedule_file;  // each task's device, start and finish (.csv or .json)
  std::string plan_network = "contention-free";  // the static planners' network model
  // Which options the user gave, so that a run that cannot honour one refuses it.
  std::vector<std::string> stream_only_given;  // --backfill, --round-seconds, ...
  std::vector<std::string> task_only_given;    // --cluster, --failures, --power-cap, ...
};

// One line naming the options a run of this kind cannot honour.
void refuse_options(const std::vector<std::string>& given, const std::string& why) {
  if (given.empty()) return;
  std::string names;
  for (const std::string& name : given) names += (names.empty() ? "" : ", ") + name;
  throw InputError(fmt::format("{} cannot be used here: {}", names, why));
}

// What the power caps and the thermal model did to each run (empty when unused).
std::string power_summary(const RunReport& r, const Cluster& cluster) {
  if (r.power_cap_watts <= 0 && r.node_power_cap_watts <= 0 && !r.thermal_modeled) return "";
  std::string out = fmt::format("{}: peak power {:.0f} W", r.policy, r.peak_power_watts);
  if (r.power_cap_watts > 0) out += fmt::format(" (cap {:.0f} W)", r.power_cap_watts);
  if (r.node_power_cap_watts > 0)
    out += fmt::format(", peak node power {:.0f} W (node cap {:.0f} W)", r.peak_node_power_watts,
                       r.node_power_cap_watts);
  if (r.power_cap_watts > 0 || r.node_power_cap_watts > 0)
    out += fmt::format("; {} tasks slowed to fit, {} waits for power, {} refused",
                       r.power_cap_slowdowns, r.power_cap_waits, r.power_cap_refusals.size());
  out += "\n";
  for (const std::string& refusal : r.power_cap_refusals) out += "  refused: " + refusal + "\n";
  if (r.thermal_modeled) {
    out += fmt::format("  thermal: {} throttle events\n", r.thermal_throttle_events);
    for (const DeviceResult& d : r.devices)
      out += fmt::format("    {:<28} peak {:5.1f} C, {} throttles\n", cluster.device(d.device).name,
                         d.peak_celsius, d.throttle_events);
  }
  return out;
}

// Every task's device, P-state, start and finish under each policy: CSV when the file
// name ends in .csv, JSON otherwise.
void write_schedule(const std::string& path, const std::vector<RunReport>& reports,
                    const Cluster& cluster,
                    const std::vector<std::unique_ptr<Simulator>>& simulators) {
  const bool csv = path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
  std::string text;
  nlohmann::ordered_json json = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < reports.size(); ++i) {
    if (csv)
      text += schedule_to_csv(reports[i], cluster, simulators[i]->graph(), i == 0);
    else
      json.push_back(schedule_to_json(reports[i], cluster, simulators[i]->graph()));
  }
  write_text_file(path, csv ? text : json.dump(2) + "\n");
}

void run_simulate(const SimulateOptions& options) {
  const SchedulingInput input = options.input.load();
  if (input.workload_kind == ConfigKind::stream_workload) {
    refuse_options(options.task_only_given,
                   "the workload is a job stream (kind: stream), which the stream simulator "
                   "runs without faults, power caps, the thermal model or duration noise");
    StreamSimulateOptions stream = options.stream;
    stream.workload_file = options.input.workload_file;
    stream.cluster_file = options.input.cluster_file;
    stream.schedule_file = options.schedule_file;
    stream.out_dir = options.out_dir;
    stream.policies = options.policies;
    stream.format = options.format;
    stream.quiet = options.input.quiet;
    run_stream_simulation(stream);
    return;
  }
  refuse_options(options.stream_only_given,
                 "they are job-stream options, and the workload is not a job stream (a file "
                 "with kind: stream)");
  const Cluster& cluster = input.cluster;
  const Workload& workload = input.workload;
  const RooflineModel perf(cluster);
  const FaultOptions faults = options.faults.build(cluster);
  std::vector<std::string> policies = options.policies;
  if (policies.empty()) policies = {"round-robin", "random", "greedy-eft"};
  const std::vector<std::string> task_policies = policy_names();
  for (const std::string& name : policies)
    if (is_stream_policy(name) &&
        std::find(task_policies.begin(), task_policies.end(), name) == task_policies.end())
      throw InputError(fmt::format(
          "'{}' is a job-stream policy, for workloads of kind: stream; this workload is jobs "
          "of tasks (closest task policies: {})",
          name, fmt::join(closest_names(name, task_policies), ", ")));

  // Each policy's simulator is kept for the report: all of them must fit at once.
  check_simulation_fits(workload.task_count(), cluster.device_count(), policies.size());
  std::vector<RunReport> reports;
  std::vector<std::unique_ptr<Simulator>> simulators;
  for (const std::string& name : policies) {
    const PolicyOptions policy_options{.seed = options.input.seed,
                                       .plan_network = options.plan_network == "shared-nics"
                                                           ? NetworkModel::one_port_nics
                                                           : NetworkModel::contention_free};
    // The energy-aware policy plans within the caps the simulator enforces.
    const PowerCaps caps{options.power_cap_watts, options.node_power_cap_watts};
    const auto policy = name == "energy-aware" && caps.any()
                            ? make_power_capped_energy_aware_policy(policy_options, caps)
                            : make_policy(name, policy_options);
    Progress progress("simulate " + name, options.input.quiet);
    SimulationOptions sim_options{
        .seed = options.input.seed,
        .progress = [&](std::size_t done, std::size_t total) { progress.update(done, total); },
        .power_cap_watts = options.power_cap_watts,
        .node_power_cap_watts = options.node_power_cap_watts,
        .faults = faults};
    sim_options.thermal.enabled = options.thermal;
    sim_options.noise = options.noise;
    simulators.push_back(
        std::make_unique<Simulator>(cluster, workload, perf, *policy, sim_options));
    reports.push_back(simulators.back()->run());
  }

  if (!options.out_dir.empty()) {
    ReportFolder folder(
        options.out_dir,
        fmt::format("hetsched simulate: {} jobs, {} tasks on {} devices", workload.jobs.size(),
                    workload.task_count(), cluster.device_count()));
    for (std::size_t i = 0; i < reports.size(); ++i)
      folder.add(reports[i], cluster, simulators[i]->graph());
    folder.write_page();
  }

  if (!options.schedule_file.empty())
    write_schedule(options.schedule_file, reports, cluster, simulators);

  if (options.format == "json") {
    nlohmann::ordered_json out{{"reports", nlohmann::ordered_json::array()}};
    for (std::size_t i = 0; i < reports.size(); ++i)
      out["reports"].push_back(report_to_json(reports[i], cluster, simulators[i]->graph(), false));
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << "cluster: " << cluster.node_count() << " nodes, " << cluster.device_count()
            << " devices; workload: " << workload.jobs.size() << " jobs, " << workload.task_count()
            << " tasks; seed " << options.input.seed << "\n\n";
  std::vector<const RunReport*> columns;
  for (const RunReport& r : reports) columns.push_back(&r);
  std::cout << summary_table(columns);
  if (faults.enabled)
    for (const RunReport& r : reports) std::cout << "\n" << fault_summary(r);
  if (options.power_cap_watts > 0 || options.node_power_cap_watts > 0 || options.thermal) {
    std::cout << "\n";
    for (const RunReport& r : reports) std::cout << power_summary(r, cluster);
  }
  if (!options.out_dir.empty())
    std::cout << "\nreport.html, JSON reports and Chrome traces (open in https://ui.perfetto.dev) "
                 "written to "
              << options.out_dir << "/\n";
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  auto options = std::make_shared<SimulateOptions>();
  CLI::App* command = app.add_subcommand(
      "simulate", "run a workload on a cluster in the simulator, under one or more policies");
  options->input.add_to(*command);
  command->add_option(
      "--policy", options->policies,
      "policy to run (repeatable); default: round-robin, random and greedy-eft side by side");
  command->add_flag("--backfill", options->stream.easy_backfilling,
                    "job streams: EASY backfilling on top of a queue policy");
  command
      ->add_option("--round-seconds", options->stream.round_seconds,
                   "job streams: round length of round-based policies")
      ->capture_default_str()
      ->check(finite_range(1, 86400));
  command
      ->add_option("--migration-seconds", options->stream.migration_seconds,
                   "job streams: checkpoint/restart time when a job moves")
      ->capture_default_str()
      ->check(finite_range(0, 86400));
  command
      ->add_option("--gang-placement", options->stream.gang_placement,
                   "job streams: spread (a gang that fits no node spreads over a rack, then "
                   "anywhere) or pack (every gang on one node, as hetsched serve places them)")
      ->capture_default_str()
      ->check(CLI::IsMember({"spread", "pack"}));
  command
      ->add_option("--device-placement", options->stream.device_placement,
                   "job streams: which node and device a job gets: most-free-type (the type "
                   "with the most free devices, then the fullest node), best-fit (the node left "
                   "with the least free GPU capacity) or fragmentation-aware (FGD: the choice "
                   "that least fragments the free GPUs for the jobs' requests)")
      ->capture_default_str()
      ->check(CLI::IsMember(device_placement_names()));
  command->add_option("--out", options->out_dir,
                      "directory for report.html, the JSON reports and Chrome traces");
  command->add_option("--format", options->format, "output on stdout")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  options->faults.add_to(*command);
  command
      ->add_option("--power-cap", options->power_cap_watts,
                   "cluster-wide power cap in watts: tasks slow down or wait to stay within it")
      ->check(finite_non_negative);
  command
      ->add_option("--node-power-cap", options->node_power_cap_watts,
                   "power cap in watts for each node's devices together")
      ->check(finite_non_negative);
  command->add_flag("--thermal", options->thermal,
                    "model device temperature (RC model); hot devices throttle to a lower P-state");
  command
      ->add_option("--noise-sigma", options->noise.sigma,
                   "actual run times: the prediction times a log-normal factor of mean 1 and "
                   "this sigma, drawn per task from the seed (the same draws for every policy)")
      ->check(finite_range(0, 10));
  command
      ->add_option("--straggler-probability", options->noise.straggler_probability,
                   "actual run times: each task straggles with this probability")
      ->check(finite_range(0, 1));
  command
      ->add_option("--straggler-slowdown", options->noise.straggler_slowdown,
                   "actual run times: a straggling task runs this many times longer")
      ->capture_default_str()
      ->check(finite_range(1, 1000));
  command
      ->add_option("--plan-network", options->plan_network,
                   "static DAG planners (heft, peft, heft-ils, ...): plan transfers between "
                   "nodes contention-free (as the literature does) or on shared NICs, each "
                   "sending one transfer at a time and receiving one, as the twin's do")
      ->capture_default_str()
      ->check(CLI::IsMember({"contention-free", "shared-nics"}));
  command->add_option("--schedule", options->schedule_file,
                      "write each task's device, start and finish under each policy to this "
                      "file (CSV when it ends in .csv, else JSON)");
  command->callback([options, command] {
    options->stream_only_given.clear();
    options->task_only_given.clear();
    for (const char* name : {"--backfill", "--round-seconds", "--migration-seconds",
                             "--gang-placement", "--device-placement"})
      if (command->count(name) > 0) options->stream_only_given.push_back(name);
    for (const char* name :
         {"--failures", "--mtbf-scale", "--mtbf-hours", "--checkpoint", "--checkpoint-interval",
          "--clone-threshold", "--power-cap", "--node-power-cap", "--thermal", "--noise-sigma",
          "--straggler-probability", "--straggler-slowdown", "--plan-network"})
      if (command->count(name) > 0) options->task_only_given.push_back(name);
    run_simulate(*options);
  });
}

}  // namespace hetsched::cli
