#include "fault_benchmark.hpp"

#include <algorithm>
#include <limits>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"
#include "hetsched/workload/generators.hpp"

namespace hetsched {

namespace {

// Part 1: a harsh mix of every failure kind on the default cluster.
FaultOptions chaos_options() {
  FaultOptions o;
  o.enabled = true;
  o.model.mtbf_hours_override = 0.01;  // 36 s per device
  o.model.repair_seconds = 10;
  o.model.transients_per_device_hour = 600;
  o.model.stragglers_per_device_hour = 200;
  o.model.straggler_slowdown = 3;
  o.model.straggler_seconds = 5;
  o.model.partitions_per_node_hour = 20;
  o.model.partition_seconds = 5;
  o.heartbeat = {0.5, 1.5};
  o.retry.max_attempts = 3;
  o.retry.backoff_seconds = 0.25;
  o.checkpoint.mode = CheckpointMode::daly;
  o.checkpoint.storage_bandwidth = 20e9;
  // The telemetry and predictor of the prediction part, sped up 450 times (a
  // 4-second lead instead of 30 minutes) to match crashes every 36 s.
  o.predictor.enabled = true;
  o.predictor.inspection_seconds = 5;
  o.predictor.ecc_reference_per_hour = 450;
  o.predictor.ecc_shift_per_hour = 9000;
  TelemetryOptions& t = o.predictor.telemetry;
  t.sample_seconds = 0.5;
  t.degradation_lead_seconds = 4;
  t.ecc_per_hour = 450;
  t.degraded_ecc_per_hour = 27000;
  t.bursts_per_device_hour = 20;
  t.burst_seconds = 2;
  t.burst_ecc_per_hour = 18000;
  return o;
}

Cluster long_task_cluster() {
  Cluster cluster;
  Node node;
  node.name = "gpu0";
  node.link = IntraNodeLink{"nvlink4", 450e9, 2e-6};
  cluster.add_node(node, std::vector<DeviceSpec>(8, *find_catalog_part("H100-SXM")));
  return cluster;
}

Workload long_task_workload(const FaultBenchmarkParams& p, std::size_t devices) {
  Workload w;
  for (std::size_t i = 0; i < p.long_tasks; ++i) {
    Job job;
    job.name = "train" + std::to_string(i);
    Task task;
    task.name = "run";
    task.kernel = KernelClass::dense_matmul;
    task.memory_bytes = p.state_bytes;
    task.cost_seconds.assign(devices, p.task_hours * 3600.0);
    job.tasks.push_back(task);
    w.jobs.push_back(std::move(job));
  }
  return w;
}

struct CellResult {
  double goodput = 0, makespan = 0, completed = 0;
  double lost_seconds = 0;  // summed over the seeds
  FaultReport totals;       // predictor counts summed over the seeds
};

// With a sink, the first seed's run is recorded with its schedule and handed to it.
CellResult run_long_tasks(const FaultBenchmarkParams& p, const Cluster& cluster,
                          const Workload& workload, FaultOptions o,
                          const SimRunSink* sink = nullptr, const std::string& label = "") {
  const RooflineModel perf(cluster);
  CellResult cell;
  double useful = 0, busy = 0;
  std::size_t complete_runs = 0;
  for (std::size_t s = 0; s < p.seeds_per_cell; ++s) {
    const std::uint64_t seed = p.seed * 1000 + s;
    const auto policy = make_policy("greedy-eft", PolicyOptions{seed});
    const bool handed = sink && s == 0;
    SimulationOptions sim{.seed = seed, .record_schedule = handed, .faults = o};
    Simulator simulator(cluster, workload, perf, *policy, sim);
    const RunReport r = simulator.run();
    if (handed) (*sink)(label, r, cluster, simulator.graph());
    useful += r.faults->useful_device_seconds;
    busy += r.faults->busy_device_seconds();
    cell.lost_seconds += r.faults->lost_device_seconds;
    cell.totals.crashes += r.faults->crashes;
    cell.totals.alarms += r.faults->alarms;
    cell.totals.true_alarms += r.faults->true_alarms;
    cell.totals.predicted_crashes += r.faults->predicted_crashes;
    cell.totals.lead_seconds += r.faults->lead_seconds;
    cell.totals.work_saved_seconds += r.faults->work_saved_seconds;
    const std::size_t done = workload.jobs.size() - r.faults->jobs_failed;
    cell.completed += double(done) / double(workload.jobs.size());
    if (done == workload.jobs.size()) {
      cell.makespan += r.makespan_seconds;
      ++complete_runs;
    }
  }
  cell.goodput = busy > 0 ? useful / busy : 0;
  cell.completed /= double(p.seeds_per_cell);
  cell.makespan = complete_runs ? cell.makespan / double(complete_runs) : 0;
  return cell;
}

FaultOptions long_task_options(const FaultBenchmarkParams& p, double mtbf_hours) {
  FaultOptions o;
  o.enabled = true;
  o.model.mtbf_hours_override = mtbf_hours;
  o.model.repair_seconds = 600;
  o.heartbeat = {5.0, 15.0};
  o.retry.max_attempts = 100000;
  o.retry.backoff_seconds = 1;
  o.checkpoint.storage_bandwidth = p.storage_bandwidth;
  return o;
}

}  // namespace

double report_mtbf_hours(const FaultBenchmarkParams& p) {
  const bool sweep_listed =
      std::find(p.mtbf_hours.begin(), p.mtbf_hours.end(), p.sweep_mtbf_hours) != p.mtbf_hours.end();
  return sweep_listed || p.mtbf_hours.empty() ? p.sweep_mtbf_hours : p.mtbf_hours.front();
}

FaultBenchmarkResult run_fault_benchmark(const FaultBenchmarkParams& p) {
  FaultBenchmarkResult result;
  const std::size_t cells = p.mtbf_hours.size() * 4 + 10 + 4;
  const std::size_t total = p.runs + cells;
  std::size_t step = 0;
  const auto tick = [&] {
    if (p.progress) p.progress(++step, total);
  };

  // 1. Many seeded runs with random failures of every kind.
  const Cluster cluster = default_cluster();
  const RooflineModel perf(cluster);
  for (std::size_t run = 0; run < p.runs; ++run) {
    const std::uint64_t seed = p.seed + run;
    const Workload workload = default_workload(seed);
    const auto policy = make_policy("greedy-eft", PolicyOptions{seed});
    SimulationOptions sim{.seed = seed, .record_schedule = false, .faults = chaos_options()};
    Simulator simulator(cluster, workload, perf, *policy, sim);
    const RunReport r = simulator.run();
    ++result.runs;
    result.tasks += r.tasks_total;
    result.jobs += r.jobs.size();
    result.lost_tasks += r.faults->lost_tasks;
    result.jobs_failed_with_reason += r.faults->jobs_failed;
    result.failures_injected += r.faults->failures_injected;
    result.retries += r.faults->retries;
    tick();
  }

  // 2. Goodput and makespan against MTBF.
  const Cluster gpus = long_task_cluster();
  const Workload long_tasks = long_task_workload(p, gpus.device_count());
  const double checkpoint_seconds = p.state_bytes / p.storage_bandwidth;
  const double drawn_mtbf = report_mtbf_hours(p);
  for (double mtbf : p.mtbf_hours) {
    const SimRunSink* sink = mtbf == drawn_mtbf && p.report_runs ? &p.report_runs : nullptr;
    for (int mode = 0; mode < 4; ++mode) {
      FaultOptions o = long_task_options(p, mtbf);
      GoodputRow row;
      row.mtbf_hours = mtbf;
      if (mode == 0) row.mode = "none";
      if (mode == 1) {
        row.mode = "daly";
        o.checkpoint.mode = CheckpointMode::daly;
        row.interval_seconds = daly_interval_seconds(checkpoint_seconds, mtbf * 3600.0);
      }
      if (mode == 2) {
        row.mode = "replication-2";
        o.replicas = 2;
      }
      if (mode == 3) {  // replicas that checkpoint, in other domains, restarted when lost
        row.mode = "replication-2+daly";
        o.replicas = 2;
        o.checkpoint.mode = CheckpointMode::daly;
        row.interval_seconds = daly_interval_seconds(checkpoint_seconds, mtbf * 3600.0);
      }
      const CellResult cell = run_long_tasks(p, gpus, long_tasks, o, sink, row.mode);
      row.goodput = cell.goodput;
      row.makespan_hours = cell.makespan / 3600.0;
      row.completed_fraction = cell.completed;
      result.goodput.push_back(row);
      tick();
    }
  }

  // 3. Daly against a sweep of fixed intervals, on the same seeded failures.
  FaultOptions daly = long_task_options(p, p.sweep_mtbf_hours);
  daly.checkpoint.mode = CheckpointMode::daly;
  result.daly_interval_seconds =
      daly_interval_seconds(checkpoint_seconds, p.sweep_mtbf_hours * 3600.0);
  result.daly_goodput = run_long_tasks(p, gpus, long_tasks, daly).goodput;
  tick();
  result.best_goodput = result.daly_goodput;
  result.best_interval_seconds = result.daly_interval_seconds;
  for (double factor : {0.25, 0.4, 0.6, 0.8, 0.9, 1.1, 1.25, 1.6, 2.5}) {
    FaultOptions o = long_task_options(p, p.sweep_mtbf_hours);
    o.checkpoint.mode = CheckpointMode::fixed;
    o.checkpoint.fixed_interval_seconds = factor * result.daly_interval_seconds;
    const double g = run_long_tasks(p, gpus, long_tasks, o).goodput;
    result.sweep.push_back({o.checkpoint.fixed_interval_seconds, g});
    if (g > result.best_goodput) {
      result.best_goodput = g;
      result.best_interval_seconds = o.checkpoint.fixed_interval_seconds;
    }
    tick();
  }
  result.daly_interval_vs_best =
      result.best_goodput > 0 ? result.daly_goodput / result.best_goodput : 0;

  // 4. Failure prediction from telemetry against none, on the same seeded failures.
  for (int mode = 0; mode < 2; ++mode) {
    FaultOptions without = long_task_options(p, p.sweep_mtbf_hours);
    if (mode == 1) without.checkpoint.mode = CheckpointMode::daly;
    FaultOptions with = without;
    with.predictor = p.predictor;
    with.predictor.enabled = true;
    const CellResult a = run_long_tasks(p, gpus, long_tasks, without);
    tick();
    const CellResult b = run_long_tasks(p, gpus, long_tasks, with);
    tick();
    PredictionRow row;
    row.checkpoint = mode == 0 ? "none" : "daly";
    row.alarms = b.totals.alarms;
    row.true_alarms = b.totals.true_alarms;
    row.crashes = b.totals.crashes;
    row.predicted_crashes = b.totals.predicted_crashes;
    row.precision = b.totals.precision();
    row.recall = b.totals.recall();
    row.mean_lead_seconds = b.totals.mean_lead_seconds();
    const double seeds = double(p.seeds_per_cell);
    row.lost_hours_without = a.lost_seconds / seeds / 3600.0;
    row.lost_hours_with = b.lost_seconds / seeds / 3600.0;
    row.work_saved_hours = row.lost_hours_without - row.lost_hours_with;
    row.in_flight_saved_hours = b.totals.work_saved_seconds / seeds / 3600.0;
    row.goodput_without = a.goodput;
    row.goodput_with = b.goodput;
    row.makespan_hours_without = a.makespan / 3600.0;
    row.makespan_hours_with = b.makespan / 3600.0;
    result.prediction.push_back(row);
  }
  return result;
}

}  // namespace hetsched
