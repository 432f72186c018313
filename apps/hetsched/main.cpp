// hetsched: a resource manager for heterogeneous clusters. This file only wires
// the subcommands and turns errors into one line and an exit status: 2 for bad
// input or an environment that cannot serve the request (no cluster engine reachable), 3
// for an internal error (a policy that broke its contract), 1 for any other failure.
#include <cstdio>
#include <exception>
#include <sstream>
#include <string>

#include "command_line_suggestions.hpp"
#include "commands.hpp"
#include "hetsched/backend/scheduling_loop.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/service/cluster_engine.hpp"
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
  hetsched::cli::add_run_command(app);
  hetsched::cli::add_kube_extender_command(app);
  hetsched::cli::add_serve_command(app);
  hetsched::cli::add_train_command(app);
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
  hetsched::cli::check_every_seed(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const std::string suggestion = hetsched::cli::suggestion_for_command_line(app, argc, argv);
    std::fprintf(stderr, "hetsched: error: %s\n",
                 suggestion.empty() ? e.what() : suggestion.c_str());
    return 2;
  } catch (const hetsched::InputError& e) {
    std::fprintf(stderr, "hetsched: error: %s\n", e.what());
    return 2;
  } catch (const hetsched::PolicyError& e) {
    std::fprintf(stderr, "hetsched: internal error: %s\n", e.what());
    return 3;
  } catch (const hetsched::EngineError& e) {
    // An engine's message may quote a command's stderr: its lines joined into one.
    std::string joined;
    std::istringstream lines(e.what());
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) joined += (joined.empty() ? "" : " / ") + line;
    std::fprintf(stderr, "hetsched: error: %s\n", hetsched::printable_text(joined).c_str());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "hetsched: error: out of memory\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hetsched: internal error: %s\n", e.what());
    return 1;
  } catch (...) {
    std::fprintf(stderr, "hetsched: internal error: an exception of unknown type\n");
    return 1;
  }
  return 0;
}
