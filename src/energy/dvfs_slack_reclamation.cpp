#include "hetsched/energy/dvfs_slack_reclamation.hpp"

#include <algorithm>
#include <numeric>

namespace hetsched {
namespace {

// Upward rank (HEFT): mean compute time plus the longest mean path to an exit.
std::vector<double> upward_ranks(const DagInstance& instance) {
  std::vector<double> rank(instance.task_count(), 0.0);
  const auto& order = instance.topological_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const std::uint32_t t = *it;
    double tail = 0;
    for (const DagNeighbor& s : instance.successors(t))
      tail = std::max(tail, instance.mean_comm_seconds(s.edge) + rank[s.task]);
    rank[t] = instance.mean_compute_seconds(t) + tail;
  }
  return rank;
}

}  // namespace

StaticSchedule insertion_eft_schedule(const JobEnergyModel& model) {
  const DagInstance& instance = model.instance();
  const std::size_t n = instance.task_count();
  const std::vector<double> rank = upward_ranks(instance);
  // Decreasing rank is a topological order when compute times are positive; ties
  // and zero-time tasks are kept topological by the position in the Kahn order.
  std::vector<std::size_t> position(n);
  for (std::size_t i = 0; i < n; ++i) position[instance.topological_order()[i]] = i;
  std::vector<std::uint32_t> order(instance.topological_order());
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return rank[a] != rank[b] ? rank[a] > rank[b] : position[a] < position[b];
  });
  // Repair: a task must come after its predecessors (rank ties with zero-cost tasks).
  {
    std::vector<bool> placed(n, false);
    std::vector<std::uint32_t> repaired;
    std::vector<std::uint32_t> pending(order.begin(), order.end());
    while (!pending.empty()) {
      std::vector<std::uint32_t> later;
      for (std::uint32_t t : pending) {
        const auto preds = instance.predecessors(t);
        if (std::all_of(preds.begin(), preds.end(),
                        [&](const DagNeighbor& q) { return placed[q.task]; })) {
          placed[t] = true;
          repaired.push_back(t);
        } else {
          later.push_back(t);
        }
      }
      pending.swap(later);
    }
    order.swap(repaired);
  }
  StaticSchedule out;
  out.tasks.resize(n);
  std::vector<std::vector<std::pair<double, double>>> busy(model.device_count());  // sorted slots
  for (std::uint32_t t : order) {
    double best_finish = kCannotRun, best_start = 0;
    DeviceId best_device = 0;
    for (DeviceId d = 0; d < model.device_count(); ++d) {
      const double run = model.seconds(t, d, 0);
      if (run == kCannotRun) continue;
      double ready = 0;
      for (const DagNeighbor& q : instance.predecessors(t)) {
        const PlannedTask& producer = out.tasks[q.task];
        ready = std::max(ready, producer.finish_seconds +
                                    instance.comm_seconds(q.edge, producer.device, d));
      }
      // Earliest idle slot on d from `ready` long enough for the task.
      double start = ready;
      for (const auto& [s, f] : busy[d]) {
        if (start + run <= s) break;
        start = std::max(start, f);
      }
      if (start + run < best_finish) best_finish = start + run, best_start = start, best_device = d;
    }
    out.tasks[t] = PlannedTask{best_device, best_start, best_finish};
    auto& slots = busy[best_device];
    slots.insert(std::upper_bound(slots.begin(), slots.end(), std::make_pair(best_start, best_finish)),
                 {best_start, best_finish});
    out.makespan_seconds = std::max(out.makespan_seconds, best_finish);
  }
  return out;
}

SlackReclamationResult reclaim_slack(const JobEnergyModel& model, const StaticSchedule& schedule,
                                     double makespan_stretch) {
  DvfsSchedule start{schedule, std::vector<std::uint8_t>(schedule.tasks.size(), 0)};
  return reclaim_slack_within(model, start,
                              schedule.makespan_seconds * (1 + std::max(0.0, makespan_stretch)));
}

SlackReclamationResult reclaim_slack_within(const JobEnergyModel& model, const DvfsSchedule& start,
                                            double makespan_bound_seconds) {
  SlackReclamationResult result;
  result.makespan_bound_seconds = makespan_bound_seconds;
  result.before = model.energy(start);
  const std::size_t n = start.schedule.tasks.size();
  const std::vector<std::uint32_t> order = start_order(start.schedule);
  std::vector<std::uint8_t> pstates = start.pstates;
  StaticSchedule current = model.retime(start.schedule, order, pstates);
  double current_energy = model.energy(DvfsSchedule{current, pstates}).total_joules();
  // Visit tasks by the dynamic energy the slowest P-state would save.
  std::vector<double> potential(n, 0.0);
  for (std::uint32_t t = 0; t < n; ++t) {
    const DeviceId d = start.schedule.tasks[t].device;
    const std::size_t slowest = model.pstate_count(d) - 1;
    potential[t] = model.dynamic_joules(t, d, pstates[t]) - model.dynamic_joules(t, d, slowest);
  }
  std::vector<std::uint32_t> visit(n);
  std::iota(visit.begin(), visit.end(), 0u);
  std::stable_sort(visit.begin(), visit.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return potential[a] > potential[b]; });
  const double tolerance = 1e-12 * std::max(1.0, makespan_bound_seconds);
  // One P-state step per task per pass, passes until nothing changes: slack is
  // shared out in small steps, which saves more per second of slack than slowing a
  // few tasks all the way (energy per unit of work falls less with each step).
  std::vector<bool> changed(n, false);
  for (bool progress = true; progress;) {
    progress = false;
    for (std::uint32_t t : visit) {
      if (potential[t] <= 0) break;
      const DeviceId d = start.schedule.tasks[t].device;
      const std::uint8_t original = pstates[t];
      // The next slower P-state that uses less dynamic energy.
      std::size_t p = original + 1;
      while (p < model.pstate_count(d) &&
             model.dynamic_joules(t, d, p) >= model.dynamic_joules(t, d, original))
        ++p;
      if (p >= model.pstate_count(d)) continue;
      pstates[t] = static_cast<std::uint8_t>(p);
      StaticSchedule trial = model.retime(start.schedule, order, pstates);
      const double trial_energy = model.energy(DvfsSchedule{trial, pstates}).total_joules();
      if (trial.makespan_seconds <= makespan_bound_seconds + tolerance &&
          trial_energy < current_energy) {
        current = std::move(trial);
        current_energy = trial_energy;
        changed[t] = true;
        progress = true;
      } else {
        pstates[t] = original;
      }
    }
  }
  result.tasks_slowed = static_cast<std::size_t>(std::count(changed.begin(), changed.end(), true));
  // The input itself, retimed, may end later than the bound (a bound below the
  // input's makespan); then nothing could be slowed and the input stands.
  result.plan = DvfsSchedule{std::move(current), std::move(pstates)};
  result.after = model.energy(result.plan);
  return result;
}

}  // namespace hetsched
