#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/io/report_folder.hpp"
#include "hetsched/io/report_writer.hpp"
#include "hetsched/io/runtime_dag_file.hpp"
#include "hetsched/perf/history_regression_model.hpp"
#include "hetsched/perf/learned_runtime_model.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/runtime/local_backend.hpp"
#include "hetsched/sim/simulator.hpp"
#include "option_checks.hpp"

namespace hetsched::cli {
namespace {

struct RunOptions {
  std::string dag = "cholesky";
  std::string workload;  // a runtime DAG file instead of a built-in DAG
  std::uint32_t tiles = 8;
  std::uint32_t tile_size = 128;
  std::uint32_t tasks = 10000;
  std::uint32_t chains = 4;
  std::uint32_t size = 128;
  std::string policy = "greedy-eft";
  std::string perf_model;
  std::string predictor;     // a learned run-time predictor (hetsched fit-predictor)
  std::string measurements;  // every task's measured run appended here
  unsigned cpu_workers = 0;
  bool no_opencl = false;
  bool no_cuda = false;
  bool no_stealing = false;
  std::string out_dir;
  std::string format = "table";
  std::uint64_t seed = 1;
};

struct Problem {
  std::unique_ptr<RuntimeDag> dag;
  std::function<double()> check;  // largest relative error of the result; NaN: nothing to check
};

Problem make_problem(const RunOptions& o) {
  if (!o.workload.empty())
    return Problem{load_runtime_dag_file(o.workload, o.seed), [] { return NAN; }};
  if (o.dag == "cholesky") {
    auto cholesky =
        std::make_shared<TiledCholesky>(make_tiled_cholesky(o.tiles, o.tile_size, o.seed));
    Problem p{std::move(cholesky->dag), nullptr};
    RuntimeDag* dag = p.dag.get();
    p.check = [cholesky, dag] {
      const auto l = gather_matrix(dag->data(), cholesky->matrix);
      const std::size_t n = cholesky->matrix.side();
      double worst = 0, scale = 0;
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
          double sum = 0;
          for (std::size_t k = 0; k <= j; ++k) sum += l[i * n + k] * l[j * n + k];
          worst = std::max(worst, std::abs(sum - cholesky->original[i * n + j]));
          scale = std::max(scale, std::abs(cholesky->original[i * n + j]));
        }
      return worst / scale;
    };
    return p;
  }
  if (o.dag == "gemm") {
    auto gemm = std::make_shared<TiledGemm>(make_tiled_gemm(o.tiles, o.tile_size, o.seed));
    Problem p{std::move(gemm->dag), nullptr};
    RuntimeDag* dag = p.dag.get();
    const auto a = gather_matrix(dag->data(), gemm->a), b = gather_matrix(dag->data(), gemm->b);
    p.check = [gemm, dag, a, b] {  // spot-check 64 entries of C = A·B
      const auto c = gather_matrix(dag->data(), gemm->c);
      const std::size_t n = gemm->c.side();
      double worst = 0;
      for (std::size_t s = 0; s < 64; ++s) {
        const std::size_t i = (s * 7919) % n, j = (s * 104729) % n;
        double expected = 0;
        for (std::size_t k = 0; k < n; ++k) expected += a[i * n + k] * b[k * n + j];
        worst =
            std::max(worst, std::abs(c[i * n + j] - expected) / std::max(1.0, std::abs(expected)));
      }
      return worst;
    };
    return p;
  }
  if (o.dag == "mix") return Problem{make_mixed_dag(o.chains, o.size, o.seed), [] { return NAN; }};
  return Problem{make_empty_dag(o.tasks), [] { return NAN; }};
}

void run_run(const RunOptions& options) {
  Problem problem = make_problem(options);  // bad input fails before any device is opened
  std::optional<RuntimePredictor> predictor;
  if (!options.predictor.empty()) predictor = RuntimePredictor::load(options.predictor);
  std::vector<RuntimeMeasurement> history;  // what --measurements holds, appended to after the run
  if (!options.measurements.empty() && std::filesystem::exists(options.measurements))
    history = read_measurements(options.measurements);
  LocalDevices devices(LocalDevicesOptions{options.cpu_workers, !options.no_opencl, true,
                                           !options.no_opencl && !options.no_cuda});
  if (!devices.notice().empty()) std::cerr << "hetsched: " << devices.notice() << "\n";
  RooflineModel roofline(devices.cluster());
  std::unique_ptr<HistoryRegressionModel> learned;
  if (!options.perf_model.empty()) {
    learned = std::make_unique<HistoryRegressionModel>(devices.cluster(), roofline);
    learned->load(options.perf_model, devices.fingerprint());
  }
  std::unique_ptr<LearnedRuntimeModel> predicted_runtimes;
  if (predictor) predicted_runtimes = std::make_unique<LearnedRuntimeModel>(roofline, *predictor);
  const PerfModel& perf = predicted_runtimes ? static_cast<const PerfModel&>(*predicted_runtimes)
                          : learned          ? static_cast<const PerfModel&>(*learned)
                                             : roofline;

  // What the simulator predicts for this DAG under the same policy and model.
  auto sim_policy = make_policy(options.policy, PolicyOptions{options.seed});
  Simulator simulator(devices.cluster(), problem.dag->workload(), perf, *sim_policy,
                      SimulationOptions{options.seed, false, nullptr});
  const RunReport predicted = simulator.run();

  auto policy = make_policy(options.policy, PolicyOptions{options.seed});
  LocalBackendOptions backend_options;
  backend_options.work_stealing = !options.no_stealing;
  backend_options.learner = learned.get();
  LocalBackend backend(devices, *problem.dag, perf, *policy, backend_options);
  const LocalRunReport run = backend.run();
  const double error = problem.check();
  if (learned) learned->save(options.perf_model, devices.fingerprint());  // online update kept
  if (!options.measurements.empty()) {  // the runtime's history, for hetsched fit-predictor
    for (const TaskRecord& r : run.report.schedule)
      history.push_back(describe_execution(backend.graph().task(r.task),
                                           devices.cluster().device(r.device), roofline,
                                           r.finish_seconds - r.start_seconds));
    write_measurements(options.measurements, devices.fingerprint(), history);
  }

  if (!options.out_dir.empty()) {
    ReportFolder folder(options.out_dir,
                        fmt::format("hetsched run: {} tasks on {} devices", run.report.tasks_total,
                                    devices.cluster().device_count()));
    folder.add(run.report, devices.cluster(), backend.graph());
    folder.write_page();
  }
  if (options.format == "json") {
    nlohmann::ordered_json out;
    out["dag"] = options.workload.empty() ? options.dag : options.workload;
    out["policy"] = run.report.policy;
    out["perf_model"] = run.report.perf_model;
    out["tasks"] = run.report.tasks_total;
    out["tasks_completed"] = run.report.tasks_completed;
    out["measured_makespan_seconds"] = run.report.makespan_seconds;
    out["predicted_makespan_seconds"] = predicted.makespan_seconds;
    out["wall_seconds"] = run.wall_seconds;
    out["steals"] = run.steals;
    out["retries"] = run.retries;
    out["bytes_to_devices"] = run.bytes_to_devices;
    out["bytes_to_host"] = run.bytes_to_host;
    out["prefetched_uploads"] = run.prefetched_uploads;
    out["uploads_during_kernel"] = run.uploads_during_kernel;
    out["uploads_overlapped"] = run.uploads_overlapped;
    out["overlap_seconds"] = run.overlap_seconds;
    out["dispatcher_sleeps"] = run.dispatcher_sleeps;
    out["worker_sleeps"] = run.worker_sleeps;
    if (!std::isnan(error)) out["max_relative_error"] = error;
    out["failures"] = nlohmann::ordered_json::array();
    for (const TaskFailure& f : run.failures)
      out["failures"].push_back({{"task", backend.graph().task(f.task).name},
                                 {"device", devices.cluster().device(f.device).name},
                                 {"message", f.message}});
    out["unfinished_tasks"] = run.report.unfinished_tasks;
    out["report"] = report_to_json(run.report, devices.cluster(), backend.graph(), false);
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("{} DAG, {} tasks, on {} workers under {} with the {} model\n",
                           options.workload.empty() ? options.dag : options.workload,
                           run.report.tasks_total, devices.worker_count(), run.report.policy,
                           run.report.perf_model);
  std::cout << fmt::format("  measured makespan   {:.4f} s ({} of {} tasks)\n",
                           run.report.makespan_seconds, run.report.tasks_completed,
                           run.report.tasks_total);
  std::cout << fmt::format("  simulator predicted {:.4f} s\n", predicted.makespan_seconds);
  for (const DeviceResult& d : run.report.devices)
    std::cout << fmt::format("  {:<60} {:>6} tasks, busy {:.4f} s\n",
                             devices.cluster().device(d.device).name.substr(0, 60), d.tasks,
                             d.busy_seconds);
  std::cout << fmt::format("  steals {}, retries {}, host→device {} B, device→host {} B\n",
                           run.steals, run.retries, run.bytes_to_devices, run.bytes_to_host);
  if (run.prefetched_uploads > 0)
    std::cout << fmt::format(
        "  overlap: {} uploads prefetched, {} issued while a kernel ran, {} ran under it "
        "({:.4f} s)\n",
        run.prefetched_uploads, run.uploads_during_kernel, run.uploads_overlapped,
        run.overlap_seconds);
  if (!std::isnan(error))
    std::cout << fmt::format("  result check: max relative error {:.2e}\n", error);
  for (const TaskFailure& f : run.failures)
    std::cout << fmt::format("  failure: {} on {}: {}\n", backend.graph().task(f.task).name,
                             devices.cluster().device(f.device).name, f.message);
  for (const std::string& u : run.report.unfinished_tasks)
    std::cout << "  unfinished: " << u << "\n";
  if (!options.out_dir.empty())
    std::cout << "  report.html, JSON report and Chrome trace written to " << options.out_dir
              << "/\n";
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* command = app.add_subcommand(
      "run", "execute a DAG for real on this machine's CPU cores and OpenCL devices");
  CLI::Option* dag = command->add_option("--dag", options->dag, "cholesky, gemm, mix or empty")
                         ->check(CLI::IsMember({"cholesky", "gemm", "mix", "empty"}))
                         ->capture_default_str();
  command
      ->add_option("--workload", options->workload,
                   "a DAG file: tasks naming runtime kernels and sizes (docs/local-runtime.md)")
      ->excludes(dag);
  command->add_option("--tiles", options->tiles, "tiles per side (cholesky, gemm)")
      ->capture_default_str()
      ->check(finite_range(1, 64));
  command->add_option("--tile-size", options->tile_size, "tile side (cholesky, gemm)")
      ->capture_default_str()
      ->check(finite_range(1, 4096));
  command->add_option("--tasks", options->tasks, "tasks (empty)")
      ->capture_default_str()
      ->check(finite_range(1, 10'000'000));
  command->add_option("--chains", options->chains, "independent kernel chains (mix)")
      ->capture_default_str()
      ->check(finite_range(1, 10'000));
  command->add_option("--size", options->size, "grid side of each chain (mix)")
      ->capture_default_str()
      ->check(finite_range(16, 4096));
  command->add_option("--policy", options->policy, "scheduling policy")->capture_default_str();
  CLI::Option* perf_model =
      command->add_option("--perf-model", options->perf_model,
                          "calibration file from `hetsched calibrate` (updated with this run)");
  command
      ->add_option("--predictor", options->predictor,
                   "learned run-time predictor from `hetsched fit-predictor`")
      ->excludes(perf_model);
  command->add_option("--measurements", options->measurements,
                      "append every task's measured run to this file (for hetsched fit-predictor)");
  command->add_option("--cpu-workers", options->cpu_workers, "CPU workers (0: one per core)")
      ->capture_default_str()
      ->check(finite_range(0, 1024));
  command->add_flag("--no-opencl", options->no_opencl, "CPU workers only");
  command->add_flag("--no-cuda", options->no_cuda, "no CUDA workers");
  command->add_flag("--no-stealing", options->no_stealing,
                    "keep every task where the policy put it");
  command->add_option("--out", options->out_dir,
                      "directory for report.html, the JSON report and the Chrome trace");
  command->add_option("--seed", options->seed, "seed")->capture_default_str();
  command->add_option("--format", options->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  command->callback([options] { run_run(*options); });
}

}  // namespace hetsched::cli
