#include "hetsched/energy/energy_benchmark.hpp"

#include <algorithm>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/rng.hpp"
#include "hetsched/core/units.hpp"
#include "hetsched/energy/energy_aware_planner.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/workload/generators.hpp"

namespace hetsched {

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
  for (std::uint32_t i = 0; i < params.dags; ++i) {
    Workload workload;
    workload.jobs.push_back(
        workflow_job({"dag" + std::to_string(i), params.tasks_per_dag, params.width, 0.0}, rng));
    const TaskGraph graph(workload);
    out.tasks += static_cast<std::uint32_t>(graph.task_count());
    const DagInstance instance(graph, 0, perf);
    const JobEnergyModel model(instance, graph, 0, perf);
    const StaticSchedule baseline = insertion_eft_schedule(model);
    const SlackReclamationResult none = reclaim_slack(model, baseline, 0.0);
    const SlackReclamationResult some = reclaim_slack(model, baseline, params.stretch);
    const EnergyAwarePlan aware =
        plan_energy_aware(model, baseline.makespan_seconds * (1 + params.stretch));
    out.baseline_joules += none.before.total_joules();
    out.baseline_idle_joules += none.before.idle_joules;
    no_stretch_joules += none.after.total_joules();
    stretch_joules += some.after.total_joules();
    aware_joules += aware.energy.total_joules();
    per_dag_sum += some.energy_saved_fraction();
    out.tasks_slowed_no_stretch += none.tasks_slowed;
    out.tasks_slowed_stretch += some.tasks_slowed;
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
  }
  out.mean_energy_saved_per_dag_stretch = params.dags ? per_dag_sum / params.dags : 0;
  return out;
}

}  // namespace hetsched
