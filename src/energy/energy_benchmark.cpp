#include "hetsched/energy/energy_benchmark.hpp"

#include <algorithm>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/rng.hpp"
#include "hetsched/core/units.hpp"
#include "hetsched/energy/energy_aware_planner.hpp"
#include "hetsched/energy/energy_remapping.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/policy/dag_planners.hpp"
#include "hetsched/policy/list_scheduling.hpp"
#include "hetsched/workload/generators.hpp"

namespace hetsched {
namespace {

void add_breakdown(const JobEnergyModel& model, const Cluster& cluster, const DvfsSchedule& plan,
                   std::vector<DeviceEnergyBreakdown>& out) {
  if (out.empty())
    for (const Device& d : cluster.devices()) {
      DeviceEnergyBreakdown b;
      b.device = d.spec.model + "#" + std::to_string(d.id);
      out.push_back(std::move(b));
    }
  for (std::uint32_t t = 0; t < plan.schedule.tasks.size(); ++t) {
    const PlannedTask& p = plan.schedule.tasks[t];
    const double seconds = p.finish_seconds - p.start_seconds;
    DeviceEnergyBreakdown& b = out[p.device];
    b.busy_seconds += seconds;
    b.dynamic_joules +=
        (model.watts(t, p.device, plan.pstates[t]) - model.idle_watts(p.device)) * seconds;
    b.busy_floor_joules += model.idle_watts(p.device) * seconds;
    ++b.tasks;
    b.tasks_below_full_speed += plan.pstates[t] > 0;
  }
  std::vector<double> busy(model.device_count(), 0.0);
  for (const PlannedTask& p : plan.schedule.tasks)
    busy[p.device] += p.finish_seconds - p.start_seconds;
  for (DeviceId d = 0; d < model.device_count(); ++d)
    out[d].idle_joules +=
        model.idle_watts(d) * std::max(0.0, plan.schedule.makespan_seconds - busy[d]);
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

EnergyBenchmarkResult run_energy_benchmark(const EnergyBenchmarkParams& params) {
  EnergyBenchmarkResult out;
  out.dags = params.dags;
  out.stretch = params.stretch;
  const Cluster cluster = energy_benchmark_cluster();
  out.devices = static_cast<std::uint32_t>(cluster.device_count());
  const RooflineModel perf(cluster);
  Rng rng(params.seed);
  double no_stretch_joules = 0, stretch_joules = 0, aware_joules = 0, per_dag_sum = 0;
  double reclaim_no_stretch_joules = 0, reclaim_stretch_joules = 0, ceiling_joules = 0;
  std::vector<std::uint64_t> kernel_memory_bound(kKernelClassCount, 0);
  out.baseline_kernels.resize(kKernelClassCount);
  for (std::size_t k = 0; k < kKernelClassCount; ++k)
    out.baseline_kernels[k].kernel = std::string(to_string(static_cast<KernelClass>(k)));
  for (std::uint32_t i = 0; i < params.dags; ++i) {
    Workload workload;
    workload.jobs.push_back(
        workflow_job({"dag" + std::to_string(i), params.tasks_per_dag, params.width, 0.0}, rng));
    const TaskGraph graph(workload);
    out.tasks += static_cast<std::uint32_t>(graph.task_count());
    const DagInstance instance(graph, 0, perf);
    const JobEnergyModel model(instance, graph, 0, perf);
    const StaticSchedule baseline = insertion_eft_schedule(model);
    const SlackReclamationResult reclaim_none = reclaim_slack(model, baseline, 0.0);
    const SlackReclamationResult reclaim_some = reclaim_slack(model, baseline, params.stretch);
    const EnergyRemapResult none = minimise_energy_within(model, baseline, 0.0);
    const EnergyRemapResult some = minimise_energy_within(model, baseline, params.stretch);
    const EnergyAwarePlan aware =
        plan_energy_aware(model, baseline.makespan_seconds * (1 + params.stretch));
    out.baseline_joules += none.before.total_joules();
    out.baseline_idle_joules += none.before.idle_joules;
    no_stretch_joules += none.after.total_joules();
    stretch_joules += some.after.total_joules();
    reclaim_no_stretch_joules += reclaim_none.after.total_joules();
    reclaim_stretch_joules += reclaim_some.after.total_joules();
    aware_joules += aware.energy.total_joules();
    per_dag_sum += some.energy_saved_fraction();
    out.tasks_slowed_no_stretch += none.tasks_slowed;
    out.tasks_slowed_stretch += some.tasks_slowed;
    out.tasks_moved_no_stretch += none.tasks_moved;
    out.tasks_moved_stretch += some.tasks_moved;
    // HEFT at full speed, re-timed on the energy model (external inputs included).
    const StaticSchedule heft_placed = heft_plan(instance, {});
    const StaticSchedule heft =
        model.retime(heft_placed, start_order(heft_placed),
                     std::vector<std::uint8_t>(heft_placed.tasks.size(), 0));
    out.heft_joules +=
        model.energy(DvfsSchedule{heft, std::vector<std::uint8_t>(heft.tasks.size(), 0)})
            .total_joules();
    out.max_makespan_vs_heft_no_stretch =
        std::max(out.max_makespan_vs_heft_no_stretch,
                 none.after.makespan_seconds / heft.makespan_seconds - 1);
    out.max_makespan_vs_heft_stretch = std::max(
        out.max_makespan_vs_heft_stretch, some.after.makespan_seconds / heft.makespan_seconds - 1);
    // DVFS ceiling: every task at its slowest P-state where the baseline put it.
    {
      DvfsSchedule slowest{baseline, std::vector<std::uint8_t>(baseline.tasks.size(), 0)};
      for (std::uint32_t t = 0; t < baseline.tasks.size(); ++t)
        slowest.pstates[t] =
            static_cast<std::uint8_t>(model.pstate_count(baseline.tasks[t].device) - 1);
      slowest.schedule = model.retime(baseline, start_order(baseline), slowest.pstates);
      ceiling_joules += model.energy(slowest).total_joules();
    }
    const DvfsSchedule full{baseline, std::vector<std::uint8_t>(baseline.tasks.size(), 0)};
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
    const double base = baseline.makespan_seconds;
    out.max_makespan_increase_no_stretch =
        std::max(out.max_makespan_increase_no_stretch, none.after.makespan_seconds / base - 1);
    out.max_makespan_increase_stretch =
        std::max(out.max_makespan_increase_stretch, some.after.makespan_seconds / base - 1);
    out.max_makespan_increase_energy_aware =
        std::max(out.max_makespan_increase_energy_aware, aware.energy.makespan_seconds / base - 1);
    if (params.progress) params.progress(i + 1, params.dags);
  }
  if (out.baseline_joules > 0) {
    out.energy_saved_no_stretch = 1 - no_stretch_joules / out.baseline_joules;
    out.energy_saved_stretch = 1 - stretch_joules / out.baseline_joules;
    out.energy_aware_saved_stretch = 1 - aware_joules / out.baseline_joules;
    out.slack_reclamation_saved_no_stretch = 1 - reclaim_no_stretch_joules / out.baseline_joules;
    out.slack_reclamation_saved_stretch = 1 - reclaim_stretch_joules / out.baseline_joules;
    out.dvfs_ceiling_saved = 1 - ceiling_joules / out.baseline_joules;
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
  out.mean_energy_saved_per_dag_stretch = params.dags ? per_dag_sum / params.dags : 0;
  return out;
}

}  // namespace hetsched
