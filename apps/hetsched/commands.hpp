// The CLI's subcommands. Each file in this folder adds one subcommand to the app
// and does no more than read options, call the library and print.
#pragma once

#include <CLI/CLI.hpp>

namespace hetsched::cli {

void add_simulate_command(CLI::App& app);
void add_catalog_command(CLI::App& app);
void add_policies_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_import_command(CLI::App& app);
// `bench` groups the benchmark subcommands; each adds itself under it.
void add_bench_sim_command(CLI::App& bench);
void add_bench_dag_command(CLI::App& bench);
void add_bench_cluster_command(CLI::App& bench);
void add_devices_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_fit_predictor_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_bench_runtime_command(CLI::App& bench);
void add_pareto_command(CLI::App& app);
void add_bench_energy_command(CLI::App& bench);
void add_bench_partition_command(CLI::App& bench);
void add_bench_faults_command(CLI::App& bench);
void add_bench_scaling_command(CLI::App& bench);
void add_kube_extender_command(CLI::App& app);
void add_serve_command(CLI::App& app);
void add_bench_service_command(CLI::App& bench);
void add_bench_input_command(CLI::App& bench);
void add_bench_report_command(CLI::App& bench);
// `train` runs in a program of its own, hetsched-train beside hetsched, which links libtorch
// (whose start-up would otherwise slow every command): hetsched's `train` hands its
// arguments over to it; hetsched-train adds the real `train`.
void add_train_forwarding_command(CLI::App& app);
void add_train_command(CLI::App& app);
void add_bench_learned_command(CLI::App& bench);
void add_bench_predictor_command(CLI::App& bench);

}  // namespace hetsched::cli
