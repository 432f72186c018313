#include "hetsched/energy/power_cap_planning.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hetsched/energy/energy_aware_planner.hpp"
#include "hetsched/energy/plan_assignments.hpp"
#include "hetsched/policy/list_scheduling.hpp"

namespace hetsched {
namespace {

struct Draw {
  double start, finish, watts;  // added power above idle
  NodeId node;
};

// Added power at instant x of the draws (all, or one node's).
double added_at(const std::vector<Draw>& draws, double x, bool one_node, NodeId node) {
  double sum = 0;
  for (const Draw& d : draws)
    if (d.start <= x && x < d.finish && (!one_node || d.node == node)) sum += d.watts;
  return sum;
}

// Whether `watts` more fits over [s, s + seconds) under both headrooms.
bool fits(const std::vector<Draw>& draws, double s, double seconds, double watts, NodeId node,
          double cluster_headroom, double node_headroom) {
  std::vector<double> points{s};
  for (const Draw& d : draws)
    if (d.start > s && d.start < s + seconds) points.push_back(d.start);
  for (double x : points) {
    if (added_at(draws, x, false, 0) + watts > cluster_headroom + 1e-9) return false;
    if (added_at(draws, x, true, node) + watts > node_headroom + 1e-9) return false;
  }
  return true;
}

}  // namespace

PowerCappedPlan fit_to_power_caps(const JobEnergyModel& model, const DvfsSchedule& plan,
                                  const PowerCaps& caps,
                                  const std::vector<NodeId>& node_of_device) {
  PowerCappedPlan out;
  out.plan = plan;
  const DagInstance& instance = model.instance();
  const std::size_t devices = model.device_count();
  NodeId nodes = 0;
  for (NodeId n : node_of_device) nodes = std::max<NodeId>(nodes, n + 1);
  std::vector<double> node_idle(nodes, 0.0);
  for (DeviceId d = 0; d < devices; ++d) node_idle[node_of_device[d]] += model.idle_watts(d);
  const double inf = std::numeric_limits<double>::infinity();
  const double cluster_headroom =
      caps.cluster_watts > 0 ? caps.cluster_watts - model.idle_watts_total() : inf;
  if (cluster_headroom < 0) {
    out.feasible = false;
    out.message = fmt::format(
        "power cap of {:.6g} W is below the idle power of the devices, {:.6g} W (they stay on)",
        caps.cluster_watts, model.idle_watts_total());
    return out;
  }
  std::vector<double> node_headroom(nodes, inf);
  if (caps.node_watts > 0)
    for (NodeId n = 0; n < nodes; ++n) {
      node_headroom[n] = caps.node_watts - node_idle[n];
      if (node_headroom[n] < 0) {
        out.feasible = false;
        out.message = fmt::format(
            "node power cap of {:.6g} W is below the idle power of node {}'s devices, {:.6g} W",
            caps.node_watts, n, node_idle[n]);
        return out;
      }
    }
  const std::vector<std::uint32_t> order =
      start_order(model.instance(), plan.schedule, StartTies::finish_then_index);
  StaticSchedule& schedule = out.plan.schedule;
  std::vector<std::uint8_t>& pstates = out.plan.pstates;
  std::vector<double> device_free(devices, 0.0);
  std::vector<Draw> draws;
  schedule.makespan_seconds = 0;
  for (std::uint32_t t : order) {
    PlannedTask& task = schedule.tasks[t];
    const DeviceId d = task.device;
    const NodeId node = node_of_device[d];
    double ready = std::max(device_free[d], model.release_seconds(t, d));
    for (const DagNeighbor& q : instance.predecessors(t)) {
      const PlannedTask& producer = schedule.tasks[q.task];
      ready = std::max(ready,
                       producer.finish_seconds + instance.comm_seconds(q.edge, producer.device, d));
    }
    const std::uint8_t planned = pstates[t];
    double best_start = ready, best_finish = inf, best_joules = inf;
    std::uint8_t best_pstate = planned;
    for (std::size_t p = planned; p < model.pstate_count(d); ++p) {
      const double seconds = model.seconds(t, d, p);
      const double watts = model.watts(t, d, p) - model.idle_watts(d);
      if (watts > cluster_headroom + 1e-9 || watts > node_headroom[node] + 1e-9) continue;
      // Candidate starts: when it is ready, or when a draw ends (power frees up).
      std::vector<double> starts{ready};
      for (const Draw& draw : draws)
        if (draw.finish > ready) starts.push_back(draw.finish);
      std::sort(starts.begin(), starts.end());
      for (double s : starts) {
        if (s + seconds > best_finish + 1e-12) break;  // cannot beat or tie the best
        if (!fits(draws, s, seconds, watts, node, cluster_headroom, node_headroom[node])) continue;
        const double finish = s + seconds, joules = watts * seconds;
        if (finish < best_finish - 1e-12 || joules < best_joules)
          best_start = s, best_finish = finish, best_joules = joules,
          best_pstate = static_cast<std::uint8_t>(p);
        break;  // the earliest fitting start of this P-state
      }
    }
    if (best_finish == inf) {
      // Fits at no P-state even alone: say so, keep it at its slowest P-state.
      out.feasible = false;
      const std::size_t slowest = model.pstate_count(d) - 1;
      if (out.message.empty())
        out.message = fmt::format(
            "task {} needs {:.6g} W above idle on device {} even at its slowest P-state, more "
            "than the caps leave",
            t, model.watts(t, d, slowest) - model.idle_watts(d), d);
      best_pstate = static_cast<std::uint8_t>(slowest);
      best_start = ready;
      best_finish = ready + model.seconds(t, d, slowest);
    }
    out.tasks_slowed += best_pstate > planned;
    out.tasks_delayed += best_start > ready + 1e-12;
    pstates[t] = best_pstate;
    task.start_seconds = best_start;
    task.finish_seconds = best_finish;
    device_free[d] = best_finish;
    draws.push_back(
        {best_start, best_finish, model.watts(t, d, best_pstate) - model.idle_watts(d), node});
    schedule.makespan_seconds = std::max(schedule.makespan_seconds, best_finish);
  }
  // Planned peaks: the draw is highest at some task's start.
  out.peak_watts = model.idle_watts_total();
  for (NodeId n = 0; n < nodes; ++n)
    out.peak_node_watts = std::max(out.peak_node_watts, node_idle[n]);
  for (const Draw& draw : draws) {
    out.peak_watts =
        std::max(out.peak_watts, model.idle_watts_total() + added_at(draws, draw.start, false, 0));
    out.peak_node_watts = std::max(
        out.peak_node_watts, node_idle[draw.node] + added_at(draws, draw.start, true, draw.node));
  }
  return out;
}

namespace {

class PowerCappedEnergyAwarePolicy final : public SchedulingPolicy {
 public:
  PowerCappedEnergyAwarePolicy(const PolicyOptions& options, const PowerCaps& caps)
      : options_(options), caps_(caps) {}
  std::string_view name() const override { return "energy-aware"; }

  void on_job_arrival(const ClusterSnapshot& snapshot, JobIndex job, AssignmentSink& out) override {
    const DagInstance instance(snapshot.graph, job, snapshot.perf);
    const JobEnergyModel model = job_energy_model_now(snapshot, instance, job);
    const EnergyAwarePlan plan = plan_energy_aware(
        model, energy_planning_deadline(snapshot, job, model, options_.makespan_stretch));
    std::vector<NodeId> node_of_device;
    for (const Device& d : snapshot.perf.cluster().devices()) node_of_device.push_back(d.node);
    const PowerCappedPlan capped = fit_to_power_caps(model, plan.plan, caps_, node_of_device);
    emit_dvfs_plan(snapshot, instance, capped.plan, out);
  }

  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    place_earliest_finish(snapshot, ready, out);
  }

 private:
  PolicyOptions options_;
  PowerCaps caps_;
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_power_capped_energy_aware_policy(
    const PolicyOptions& options, const PowerCaps& caps) {
  return std::make_unique<PowerCappedEnergyAwarePolicy>(options, caps);
}

}  // namespace hetsched
