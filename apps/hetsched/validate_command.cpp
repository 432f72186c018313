// `hetsched validate FILE`: reads any file hetsched takes, told by its content, and says
// what it holds or, on bad input, one line with the position and exit status 2.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hetsched/io/cluster_file.hpp"
#include "hetsched/io/config_kind.hpp"
#include "hetsched/io/fault_file.hpp"
#include "hetsched/io/stream_workload_file.hpp"
#include "input_options.hpp"

namespace hetsched::cli {
namespace {

struct ValidateOptions {
  InputOptions input;
  std::string file;
  std::string format = "table";
};

void run_validate(const ValidateOptions& options) {
  const ConfigKind kind = detect_config_kind(options.file);
  nlohmann::ordered_json out{{"file", options.file}, {"kind", config_kind_name(kind)}};
  std::string summary;
  switch (kind) {
    case ConfigKind::cluster: {
      const Cluster cluster = load_cluster_file(options.file);
      out["nodes"] = cluster.node_count();
      out["devices"] = cluster.device_count();
      summary = fmt::format("cluster of {} nodes and {} devices", cluster.node_count(),
                            cluster.device_count());
      break;
    }
    case ConfigKind::stream_workload: {
      const StreamWorkload stream = load_stream_workload(options.file);
      const int devices = stream.cluster.total_devices();
      out["jobs"] = stream.jobs.size();
      out["devices"] = devices;
      summary =
          fmt::format("stream workload of {} jobs on {} devices", stream.jobs.size(), devices);
      break;
    }
    case ConfigKind::fault: {
      const SchedulingInput cluster_only = load_scheduling_input(options.input.cluster_file, "", 0);
      (void)load_fault_file(options.file, cluster_only.cluster);
      out["cluster"] = cluster_only.cluster_source;
      summary = fmt::format("fault file, checked against {}", cluster_only.cluster_source);
      break;
    }
    default: {  // every workload format, and unknown (which names what was expected)
      InputOptions input = options.input;
      input.workload_file = options.file;
      const SchedulingInput loaded = input.load();
      out["jobs"] = loaded.workload.jobs.size();
      out["tasks"] = loaded.workload.task_count();
      out["cluster"] = loaded.cluster_source;
      summary = fmt::format("{} of {} jobs and {} tasks, checked against {}",
                            config_kind_name(kind), loaded.workload.jobs.size(),
                            loaded.workload.task_count(), loaded.cluster_source);
      break;
    }
  }
  if (options.format == "json") {
    out["ok"] = true;
    std::cout << out.dump() << "\n";
  } else {
    std::cout << options.file << ": ok, " << summary << "\n";
  }
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* command = app.add_subcommand(
      "validate",
      "check any input file: cluster, workload, job stream, fault file, WfCommons or Pegasus "
      "DAX workflow, cost matrix (told by content)");
  command->add_option("FILE", options->file, "the file")->required();
  command->add_option("--cluster", options->input.cluster_file,
                      "cluster to check a workload or fault file against; default: the "
                      "workload's own `cluster` field, else built-in");
  command->add_option("--format", options->format, "table or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "json"}));
  command->callback([options] { run_validate(*options); });
}

}  // namespace hetsched::cli
