
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "hetsched/io/cluster_file.hpp"
#include "hetsched/io/config_kind.hpp"
#include "hetsched/io/workload_file.hpp"
#include "input_options.hpp"

namespace hetsched::cli {
namespace {

struct ValidateOptions {
  InputOptions input;
  std::string file;
};

// A file with `nodes:` is a cluster, one with `jobs:` a workload (checked against
// --cluster or the built-in cluster).
void run_validate(const ValidateOptions& options) {
  if (detect_config_kind(options.file) == ConfigKind::cluster) {
    const Cluster cluster = load_cluster_file(options.file);
    std::cout << options.file << ": ok, cluster of " << cluster.node_count() << " nodes and "
              << cluster.device_count() << " devices\n";
    return;
  }
  const Cluster cluster = options.input.load_cluster();
  const Workload workload = load_workload_file(options.file, cluster);
  std::cout << options.file << ": ok, workload of " << workload.jobs.size() << " jobs and "
            << workload.task_count() << " tasks\n";
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* command = app.add_subcommand("validate", "check a cluster or workload file");
  command->add_option("FILE", options->file, "cluster or workload file")->required();
  command->add_option("--cluster", options->input.cluster_file,
                      "cluster to check a workload file against; default: built-in");
  command->callback([options] { run_validate(*options); });
}

}  // namespace hetsched::cli
