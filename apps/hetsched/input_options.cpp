#include "input_options.hpp"

#include "hetsched/core/progress.hpp"
#include "hetsched/io/input_progress.hpp"

namespace hetsched::cli {

void InputOptions::add_to(CLI::App& command) {
  command.add_option("--cluster", cluster_file, "cluster file (YAML or JSON); default: built-in");
  command.add_option("--workload", workload_file,
                     "workload: a workload file, a job stream, a WfCommons or Pegasus DAX "
                     "workflow or a cost matrix (told by content); default: built-in mix");
  command.add_option("--seed", seed, "seed of every random choice")->capture_default_str();
  command.add_flag("--quiet,-q", quiet, "no progress on stderr");
}

SchedulingInput InputOptions::load() const {
  Progress progress("reading input", quiet);
  const InputProgressScope scope(
      [&](std::size_t done, std::size_t total) { progress.update(done, total); });
  return load_scheduling_input(cluster_file, workload_file, seed);
}

}  // namespace hetsched::cli
