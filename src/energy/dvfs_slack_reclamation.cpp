#include "hetsched/energy/dvfs_slack_reclamation.hpp"

#include <algorithm>
#include <numeric>

#include "hetsched/policy/list_scheduling.hpp"

namespace hetsched {

StaticSchedule insertion_eft_schedule(const JobEnergyModel& model) {
  const std::vector<double> runs = model.run_seconds_table(0);
  StaticSchedule out = upward_rank_schedule(
      model.instance(),
      ScheduleLimits{.release_seconds = model.release_seconds_table(), .run_seconds = runs});
  // The energy code charges every task to a device: one that can run nowhere stays on
  // device 0 with an infinite finish, and so does the makespan.
  for (PlannedTask& p : out.tasks)
    if (p.device == kNoDevice) p = PlannedTask{0, 0, kCannotRun}, out.makespan_seconds = kCannotRun;
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
  const DagInstance& instance = model.instance();
  const std::size_t n = start.schedule.tasks.size();
  const std::vector<std::uint32_t> order =
      start_order(instance, start.schedule, StartTies::finish_then_index);
  std::vector<std::uint8_t> pstates = start.pstates;
  // The next task on the same device, which with the DAG's edges makes the fixed
  // order an activity network: slowing task t by Δ moves the end of the schedule to
  // max(makespan, finish_t + Δ + tail_t), tail_t being the longest chain after t.
  std::vector<std::int64_t> device_next(n, -1);
  {
    std::vector<std::int64_t> last(model.device_count(), -1);
    for (std::uint32_t t : order) {
      const DeviceId d = start.schedule.tasks[t].device;
      if (last[d] >= 0) device_next[static_cast<std::size_t>(last[d])] = t;
      last[d] = t;
    }
  }
  // Placement is fixed, so each edge's transfer time is too.
  std::vector<double> edge_comm(instance.edges().size());
  for (std::uint32_t e = 0; e < edge_comm.size(); ++e) {
    const DagEdge& edge = instance.edges()[e];
    edge_comm[e] = instance.comm_seconds(e, start.schedule.tasks[edge.from].device,
                                         start.schedule.tasks[edge.to].device);
  }
  std::vector<std::size_t> position(n);
  for (std::size_t i = 0; i < n; ++i) position[order[i]] = i;
  std::vector<std::int64_t> device_previous(n, -1);
  for (std::uint32_t t = 0; t < n; ++t)
    if (device_next[t] >= 0) device_previous[static_cast<std::size_t>(device_next[t])] = t;
  StaticSchedule current = model.retime(start.schedule, order, pstates);
  // Earliest times from order position `from` on: tasks before it cannot change.
  auto retime_from = [&](std::size_t from) {
    for (std::size_t i = from; i < n; ++i) {
      const std::uint32_t t = order[i];
      PlannedTask& p = current.tasks[t];
      double begin =
          device_previous[t] >= 0
              ? current.tasks[static_cast<std::size_t>(device_previous[t])].finish_seconds
              : 0.0;
      begin = std::max(begin, model.release_seconds(t, p.device));
      for (const DagNeighbor& q : instance.predecessors(t))
        begin = std::max(begin, current.tasks[q.task].finish_seconds + edge_comm[q.edge]);
      p.start_seconds = begin;
      p.finish_seconds = begin + model.seconds(t, p.device, pstates[t]);
    }
    current.makespan_seconds = 0;
    for (const PlannedTask& p : current.tasks)
      current.makespan_seconds = std::max(current.makespan_seconds, p.finish_seconds);
  };
  std::vector<double> tail(n, 0.0);
  // Longest chains after each task, for positions `to` down to 0: tasks after it
  // keep theirs (their durations and successors did not change).
  auto compute_tails_to = [&](std::size_t to) {
    for (std::size_t i = to + 1; i-- > 0;) {
      const std::uint32_t t = order[i];
      double longest = 0;
      for (const DagNeighbor& s : instance.successors(t)) {
        const PlannedTask& next = current.tasks[s.task];
        longest = std::max(
            longest, edge_comm[s.edge] + (next.finish_seconds - next.start_seconds) + tail[s.task]);
      }
      if (device_next[t] >= 0) {
        const auto next = static_cast<std::size_t>(device_next[t]);
        longest = std::max(longest, current.tasks[next].finish_seconds -
                                        current.tasks[next].start_seconds + tail[next]);
      }
      tail[t] = longest;
    }
  };
  auto compute_tails = [&] {
    if (n) compute_tails_to(n - 1);
  };
  compute_tails();
  const double idle_total = model.idle_watts_total();
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
  // Passes over the tasks until nothing changes; each visit moves the task to the
  // slower P-state that saves the most within the bound.
  std::vector<bool> changed(n, false);
  for (bool progress = true; progress;) {
    progress = false;
    for (std::uint32_t t : visit) {
      if (potential[t] <= 0) break;
      const DeviceId d = start.schedule.tasks[t].device;
      const std::uint8_t original = pstates[t];
      // The slower P-state that saves the most energy (dynamic energy less any
      // idle energy of a longer schedule) within the bound.
      std::size_t p = original;
      double best_saved = 0;
      for (std::size_t q = original + 1; q < model.pstate_count(d); ++q) {
        const double longer = model.seconds(t, d, q) - model.seconds(t, d, original);
        const double end = current.tasks[t].finish_seconds + longer + tail[t];
        if (end > makespan_bound_seconds + tolerance) break;  // slower ones end later still
        const double new_makespan = std::max(current.makespan_seconds, end);
        const double saved = model.dynamic_joules(t, d, original) - model.dynamic_joules(t, d, q) -
                             (new_makespan - current.makespan_seconds) * idle_total;
        if (saved > best_saved) best_saved = saved, p = q;
      }
      if (p == original) continue;
      pstates[t] = static_cast<std::uint8_t>(p);
      retime_from(position[t]);
      compute_tails_to(position[t]);
      changed[t] = true;
      progress = true;
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
