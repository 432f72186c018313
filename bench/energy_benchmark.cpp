#include "energy_benchmark.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "dag_benchmark.hpp"
#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/rng.hpp"
#include "hetsched/core/units.hpp"
#include "hetsched/energy/energy_aware_planner.hpp"
#include "hetsched/energy/energy_remapping.hpp"
#include "hetsched/energy/plan_assignments.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/policy/dag_planners.hpp"
#include "hetsched/policy/list_scheduling.hpp"
#include "hetsched/sim/simulator.hpp"
#include "hetsched/workload/generators.hpp"
#include "random_dag.hpp"

namespace hetsched {
namespace {

constexpr const char* kRandomDagParts[] = {"H100-SXM", "A100-80GB", "V100", "EPYC-9654"};

// One DAG of a suite: a one-job workload and the cluster it runs on.
struct SuiteDag {
  Workload workload;
  Cluster cluster;
};

// The DAG benchmark's random suite (full grid, two repetitions; the same draws from the
// same seed), every stride-th graph kept.
std::vector<SuiteDag> random_dag_suite(std::uint32_t wanted, std::uint64_t seed,
                                       std::uint32_t max_tasks, bool mixed_devices) {
  DagBenchmarkParams grid;
  grid.seed = seed;
  grid.repetitions = 2;
  std::vector<RandomDagDraw> draws = random_dag_suite_draws(grid);
  const std::size_t stride =
      std::max<std::size_t>(1, (draws.size() + wanted - 1) / std::max(wanted, 1u));
  std::vector<SuiteDag> suite;
  for (std::size_t index = 0; index < draws.size(); index += stride) {
    if (suite.size() >= wanted) break;
    RandomDagDraw& draw = draws[index];
    if (max_tasks > 0 && draw.params.tasks > max_tasks) continue;
    SuiteDag dag;
    dag.workload.jobs.push_back(
        generate_random_dag(draw.params, draw.rng).as_job("dag" + std::to_string(suite.size())));
    dag.cluster = mixed_devices ? random_dag_energy_cluster(draw.params.devices)
                                : uniform_cost_cluster(draw.params.devices);
    suite.push_back(std::move(dag));
  }
  return suite;
}

std::vector<SuiteDag> workflow_suite(const EnergyBenchmarkParams& params, std::uint32_t count) {
  Rng rng(params.seed);
  std::vector<SuiteDag> suite;
  for (std::uint32_t i = 0; i < count; ++i) {
    SuiteDag dag;
    dag.workload.jobs.push_back(
        workflow_job({"dag" + std::to_string(i), params.tasks_per_dag, params.width, 0.0}, rng));
    dag.cluster = energy_benchmark_cluster();
    suite.push_back(std::move(dag));
  }
  return suite;
}

// Plays a fixed plan: every task to its planned device, P-state and place in the order.
class PlanReplay final : public SchedulingPolicy {
 public:
  PlanReplay(const DagInstance& instance, const DvfsSchedule& plan)
      : instance_(instance), plan_(plan) {}
  std::string_view name() const override { return "plan-replay"; }
  void on_job_arrival(const ClusterSnapshot& snapshot, JobIndex, AssignmentSink& out) override {
    emit_dvfs_plan(snapshot, instance_, plan_, out);
  }
  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    place_earliest_finish(snapshot, ready, out);
  }

 private:
  const DagInstance& instance_;
  const DvfsSchedule& plan_;
};

// The plan run in the simulator, its recorded schedule evaluated on the power model.
// With a sink, the run is handed to it under `label`.
ScheduleEnergy simulate(const SuiteDag& dag, const PerfModel& perf, const DagInstance& instance,
                        const JobEnergyModel& model, const DvfsSchedule& plan,
                        const SimRunSink* sink = nullptr, const std::string& label = "") {
  PlanReplay policy(instance, plan);
  Simulator sim(dag.cluster, dag.workload, perf, policy, SimulationOptions{.seed = 1});
  const RunReport report = sim.run();
  if (sink) (*sink)(label, report, dag.cluster, sim.graph());
  DvfsSchedule ran = plan;
  ran.schedule.makespan_seconds = report.makespan_seconds;
  for (const TaskRecord& r : report.schedule) {
    ran.schedule.tasks[r.task] = PlannedTask{r.device, r.start_seconds, r.finish_seconds};
    ran.pstates[r.task] = r.pstate;
  }
  ScheduleEnergy out = model.energy(ran);
  if (report.schedule.size() != plan.schedule.tasks.size())
    out.makespan_seconds = kCannotRun;  // a task did not run: never hidden
  return out;
}

void add_breakdown(const JobEnergyModel& model, const Cluster& cluster, const DvfsSchedule& plan,
                   std::vector<DeviceEnergyBreakdown>& out) {
  auto kind_of = [&](DeviceId d) -> DeviceEnergyBreakdown& {
    const std::string& name = cluster.device(d).spec.model;
    for (DeviceEnergyBreakdown& b : out)
      if (b.device == name) return b;
    out.push_back(DeviceEnergyBreakdown{.device = name});
    return out.back();
  };
  std::vector<bool> used(model.device_count(), !model.release_unused_devices());
  for (std::uint32_t t = 0; t < plan.schedule.tasks.size(); ++t) {
    const PlannedTask& p = plan.schedule.tasks[t];
    const double seconds = p.finish_seconds - p.start_seconds;
    DeviceEnergyBreakdown& b = kind_of(p.device);
    b.busy_seconds += seconds;
    b.dynamic_joules +=
        (model.watts(t, p.device, plan.pstates[t]) - model.idle_watts(p.device)) * seconds;
    b.busy_floor_joules += model.idle_watts(p.device) * seconds;
    ++b.tasks;
    b.tasks_below_full_speed += plan.pstates[t] > 0;
    used[p.device] = true;
  }
  const std::vector<double> idle = model.idle_joules_by_device(plan);
  for (DeviceId d = 0; d < model.device_count(); ++d) {
    if (!used[d]) continue;
    DeviceEnergyBreakdown& b = kind_of(d);
    ++b.devices_used;
    b.held_seconds += plan.schedule.makespan_seconds;
    b.idle_joules += idle[d];
  }
}

std::size_t devices_used(const StaticSchedule& schedule) {
  std::vector<DeviceId> devices;
  for (const PlannedTask& p : schedule.tasks) devices.push_back(p.device);
  std::sort(devices.begin(), devices.end());
  return static_cast<std::size_t>(std::unique(devices.begin(), devices.end()) - devices.begin());
}

}  // namespace

Cluster energy_benchmark_cluster() {
  Cluster cluster;
  auto node = [](std::string name, IntraNodeLink link) {
    Node n;
    n.name = std::move(name);
    n.link = std::move(link);
    n.host_memory_bytes = 1024 * units::gigabyte;
    n.nic_bandwidth = 100 * units::gigabit_per_second;
    return n;
  };
  const auto part = [](const char* model) { return *find_catalog_part(model); };
  cluster.add_node(node("h100", {"nvlink4", 450e9, 2e-6}), {part("H100-SXM"), part("H100-SXM")});
  cluster.add_node(node("a100", {"nvlink3", 300e9, 2e-6}), {part("A100-80GB"), part("A100-80GB")});
  cluster.add_node(node("v100", {"nvlink2", 150e9, 2e-6}), {part("V100"), part("V100")});
  cluster.add_node(node("cpu", {"pcie5", 64e9, 2e-6}), {part("EPYC-9654")});
  return cluster;
}

Cluster random_dag_energy_cluster(std::size_t devices) {
  Cluster cluster;
  Node node;
  node.name = "random-dag";
  node.link.kind = "uniform";
  node.link.bandwidth = 1.0;
  node.link.latency_seconds = 0.0;
  std::vector<DeviceSpec> specs;
  for (std::size_t j = 0; j < devices; ++j)
    specs.push_back(*find_catalog_part(kRandomDagParts[j % std::size(kRandomDagParts)]));
  cluster.add_node(node, specs);
  return cluster;
}

EnergyBenchmarkResult run_energy_benchmark(const EnergyBenchmarkParams& params) {
  EnergyBenchmarkResult out;
  const bool random = params.suite == EnergySuite::random_dag;
  out.suite = random ? "random-dag" : "workflow";
  const std::uint32_t count = params.dags ? params.dags : (random ? 100u : 20u);
  out.stretch = params.stretch;
  out.release_unused_devices = params.release_unused_devices;
  out.mixed_devices = random && params.mixed_devices;
  out.sleep_idle_gaps = params.sleep_idle_gaps;
  out.simulated = params.simulate;
  const std::vector<SuiteDag> suite =
      random ? random_dag_suite(count, params.seed, params.max_graph_tasks, params.mixed_devices)
             : workflow_suite(params, count);
  out.dags = static_cast<std::uint32_t>(suite.size());
  double no_stretch_joules = 0, stretch_joules = 0, per_dag_sum = 0;
  double remap_no_stretch_joules = 0, remap_stretch_joules = 0;
  double reclaim_no_stretch_joules = 0, reclaim_stretch_joules = 0, ceiling_joules = 0;
  double simulated_baseline_joules = 0, simulated_no_stretch_joules = 0,
         simulated_stretch_joules = 0;
  std::vector<std::uint64_t> kernel_memory_bound(kKernelClassCount, 0);
  out.baseline_kernels.resize(kKernelClassCount);
  for (std::size_t k = 0; k < kKernelClassCount; ++k)
    out.baseline_kernels[k].kernel = std::string(to_string(static_cast<KernelClass>(k)));
  const std::string stretched_label =
      fmt::format("energy-aware-plus-{:g}pct", 100 * params.stretch);  // a run handed over
  for (std::size_t i = 0; i < suite.size(); ++i) {
    const SuiteDag& dag = suite[i];
    const Cluster& cluster = dag.cluster;
    out.devices = std::max(out.devices, static_cast<std::uint32_t>(cluster.device_count()));
    const RooflineModel perf(cluster);
    const TaskGraph graph(dag.workload);
    out.tasks += static_cast<std::uint32_t>(graph.task_count());
    const DagInstance instance(graph, 0, perf);
    JobEnergyModel model(instance, graph, 0, perf);
    model.set_release_unused_devices(params.release_unused_devices);
    if (params.sleep_idle_gaps) {
      std::vector<SleepState> sleep;
      for (const Device& d : cluster.devices())
        sleep.push_back(suspend_to_ram_sleep_state(d.spec.idle_watts));
      model.set_sleep_states(std::move(sleep));
    }
    const StaticSchedule baseline = insertion_eft_schedule(model);
    const DvfsSchedule full{baseline, std::vector<std::uint8_t>(baseline.tasks.size(), 0)};
    const double base = baseline.makespan_seconds;
    const double bound = base * (1 + params.stretch);
    const EnergyAwarePlan none = plan_energy_aware(model, base, baseline);
    const EnergyAwarePlan some = plan_energy_aware(model, bound, baseline);
    const EnergyRemapResult remap_none = minimise_energy_within(model, baseline, 0.0);
    const EnergyRemapResult remap_some = minimise_energy_within(model, baseline, params.stretch);
    const SlackReclamationResult reclaim_none = reclaim_slack(model, baseline, 0.0);
    const SlackReclamationResult reclaim_some = reclaim_slack(model, baseline, params.stretch);
    const ScheduleEnergy before = model.energy(full);
    out.baseline_joules += before.total_joules();
    out.baseline_idle_joules += before.idle_joules;
    no_stretch_joules += none.energy.total_joules();
    stretch_joules += some.energy.total_joules();
    remap_no_stretch_joules += remap_none.after.total_joules();
    remap_stretch_joules += remap_some.after.total_joules();
    reclaim_no_stretch_joules += reclaim_none.after.total_joules();
    reclaim_stretch_joules += reclaim_some.after.total_joules();
    per_dag_sum += 1 - some.energy.total_joules() / before.total_joules();
    for (std::size_t t = 0; t < baseline.tasks.size(); ++t) {
      out.tasks_slowed_no_stretch += none.plan.pstates[t] > 0;
      out.tasks_slowed_stretch += some.plan.pstates[t] > 0;
      out.tasks_moved_stretch += some.plan.schedule.tasks[t].device != baseline.tasks[t].device;
    }
    out.dags_consolidated_stretch +=
        devices_used(some.plan.schedule) < devices_used(baseline) ? 1 : 0;
    out.max_makespan_increase_no_stretch =
        std::max(out.max_makespan_increase_no_stretch, none.energy.makespan_seconds / base - 1);
    out.max_makespan_increase_stretch =
        std::max(out.max_makespan_increase_stretch, some.energy.makespan_seconds / base - 1);
    if (params.simulate) {
      // The first DAG's three runs are the ones a caller may draw.
      const SimRunSink* sink = i == 0 && params.report_runs ? &params.report_runs : nullptr;
      const ScheduleEnergy sim_base =
          simulate(dag, perf, instance, model, full, sink, "insertion-eft-full-speed");
      const ScheduleEnergy sim_none =
          simulate(dag, perf, instance, model, none.plan, sink, "energy-aware");
      const ScheduleEnergy sim_some =
          simulate(dag, perf, instance, model, some.plan, sink, stretched_label);
      simulated_baseline_joules += sim_base.total_joules();
      simulated_no_stretch_joules += sim_none.total_joules();
      simulated_stretch_joules += sim_some.total_joules();
      out.max_simulated_makespan_increase_no_stretch =
          std::max(out.max_simulated_makespan_increase_no_stretch,
                   sim_none.makespan_seconds / sim_base.makespan_seconds - 1);
      out.max_simulated_makespan_increase_stretch =
          std::max(out.max_simulated_makespan_increase_stretch,
                   sim_some.makespan_seconds / sim_base.makespan_seconds - 1);
      for (const auto& [simulated, planned] :
           {std::pair{sim_base.makespan_seconds, base},
            std::pair{sim_none.makespan_seconds, none.energy.makespan_seconds},
            std::pair{sim_some.makespan_seconds, some.energy.makespan_seconds}})
        out.max_simulation_vs_plan_gap =
            std::max(out.max_simulation_vs_plan_gap, std::abs(simulated / planned - 1));
    }
    // HEFT at full speed, re-timed on the energy model (external inputs included).
    const StaticSchedule heft_placed = heft_plan(instance, ScheduleLimits{});
    const StaticSchedule heft =
        model.retime(heft_placed, start_order(instance, heft_placed, StartTies::finish_then_index),
                     std::vector<std::uint8_t>(heft_placed.tasks.size(), 0));
    out.heft_joules +=
        model.energy(DvfsSchedule{heft, std::vector<std::uint8_t>(heft.tasks.size(), 0)})
            .total_joules();
    out.max_makespan_vs_heft_no_stretch =
        std::max(out.max_makespan_vs_heft_no_stretch,
                 none.energy.makespan_seconds / heft.makespan_seconds - 1);
    out.max_makespan_vs_heft_stretch = std::max(
        out.max_makespan_vs_heft_stretch, some.energy.makespan_seconds / heft.makespan_seconds - 1);
    // DVFS ceiling: every task at its slowest P-state where the baseline put it.
    {
      DvfsSchedule slowest = full;
      for (std::uint32_t t = 0; t < baseline.tasks.size(); ++t)
        slowest.pstates[t] =
            static_cast<std::uint8_t>(model.pstate_count(baseline.tasks[t].device) - 1);
      slowest.schedule = model.retime(
          baseline, start_order(instance, baseline, StartTies::finish_then_index), slowest.pstates);
      ceiling_joules += model.energy(slowest).total_joules();
    }
    add_breakdown(model, cluster, full, out.baseline_devices);
    add_breakdown(model, cluster, some.plan, out.stretch_devices);
    for (std::uint32_t t = 0; t < baseline.tasks.size(); ++t) {
      const auto k = static_cast<std::size_t>(graph.task(graph.first_task(0) + t).kernel);
      const DeviceId d = baseline.tasks[t].device;
      ++out.baseline_kernels[k].tasks;
      out.baseline_kernels[k].dynamic_joules += model.dynamic_joules(t, d, 0);
      kernel_memory_bound[k] +=
          model.seconds(t, d, model.pstate_count(d) - 1) <= model.seconds(t, d, 0) * (1 + 1e-9);
    }
    if (params.progress) params.progress(i + 1, suite.size());
  }
  if (out.baseline_joules > 0) {
    out.energy_saved_no_stretch = 1 - no_stretch_joules / out.baseline_joules;
    out.energy_saved_stretch = 1 - stretch_joules / out.baseline_joules;
    out.remap_saved_no_stretch = 1 - remap_no_stretch_joules / out.baseline_joules;
    out.remap_saved_stretch = 1 - remap_stretch_joules / out.baseline_joules;
    out.slack_reclamation_saved_no_stretch = 1 - reclaim_no_stretch_joules / out.baseline_joules;
    out.slack_reclamation_saved_stretch = 1 - reclaim_stretch_joules / out.baseline_joules;
    out.dvfs_ceiling_saved = 1 - ceiling_joules / out.baseline_joules;
  }
  if (simulated_baseline_joules > 0) {
    out.simulated_energy_saved_no_stretch =
        1 - simulated_no_stretch_joules / simulated_baseline_joules;
    out.simulated_energy_saved_stretch = 1 - simulated_stretch_joules / simulated_baseline_joules;
  }
  if (out.heft_joules > 0) {
    out.energy_saved_vs_heft_no_stretch = 1 - no_stretch_joules / out.heft_joules;
    out.energy_saved_vs_heft_stretch = 1 - stretch_joules / out.heft_joules;
  }
  for (std::size_t k = 0; k < kKernelClassCount; ++k)
    if (out.baseline_kernels[k].tasks)
      out.baseline_kernels[k].memory_bound_fraction =
          static_cast<double>(kernel_memory_bound[k]) / out.baseline_kernels[k].tasks;
  std::erase_if(out.baseline_kernels, [](const KernelEnergyBreakdown& k) { return k.tasks == 0; });
  out.mean_energy_saved_per_dag_stretch = out.dags ? per_dag_sum / out.dags : 0;
  return out;
}

}  // namespace hetsched
