// hetsched: a resource manager for heterogeneous clusters. This file only wires the
// subcommands; run_command_line (command_line.hpp) turns errors into one line and an exit
// status.
#include <cstdio>

#include "command_line.hpp"
#include "commands.hpp"
#include "option_checks.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "hetsched: place, order and run work on heterogeneous clusters of CPUs, GPUs and TPUs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "hetsched " HETSCHED_VERSION);
  CLI::App* help = app.add_subcommand("help", "print this help");
  help->callback([&app] {
    std::fputs(app.get_formatter()->make_help(&app, "hetsched", CLI::AppFormatMode::Normal).c_str(),
               stdout);
  });
  hetsched::cli::add_simulate_command(app);
  hetsched::cli::add_catalog_command(app);
  hetsched::cli::add_policies_command(app);
  hetsched::cli::add_validate_command(app);
  hetsched::cli::add_report_command(app);
  hetsched::cli::add_import_command(app);
  hetsched::cli::add_pareto_command(app);
  hetsched::cli::add_devices_command(app);
  hetsched::cli::add_calibrate_command(app);
  hetsched::cli::add_fit_predictor_command(app);
  hetsched::cli::add_run_command(app);
  hetsched::cli::add_kube_extender_command(app);
  hetsched::cli::add_serve_command(app);
  hetsched::cli::add_train_forwarding_command(app);
  CLI::App* bench = app.add_subcommand("bench", "benchmarks that print figures");
  bench->require_subcommand(1);
  hetsched::cli::add_bench_sim_command(*bench);
  hetsched::cli::add_bench_dag_command(*bench);
  hetsched::cli::add_bench_cluster_command(*bench);
  hetsched::cli::add_bench_energy_command(*bench);
  hetsched::cli::add_bench_partition_command(*bench);
  hetsched::cli::add_bench_faults_command(*bench);
  hetsched::cli::add_bench_scaling_command(*bench);
  hetsched::cli::add_bench_runtime_command(*bench);
  hetsched::cli::add_bench_service_command(*bench);
  hetsched::cli::add_bench_input_command(*bench);
  hetsched::cli::add_bench_report_command(*bench);
  hetsched::cli::add_bench_learned_command(*bench);
  hetsched::cli::add_bench_predictor_command(*bench);
  hetsched::cli::check_every_seed(app);
  return hetsched::cli::run_command_line(app, argc, argv);
}
