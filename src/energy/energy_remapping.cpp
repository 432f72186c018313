#include "hetsched/energy/energy_remapping.hpp"

#include <algorithm>
#include <numeric>

namespace hetsched {
namespace {

double tolerance_for(double bound) { return 1e-12 * std::max(1.0, bound); }

// Longest chain after each task (edges with their transfer times, and the next task
// on the same device) in a schedule re-timed from a fixed order: slowing task t by
// Δ ends the schedule at max(makespan, finish_t + Δ + tail_t).
std::vector<double> tails(const JobEnergyModel& model, const StaticSchedule& schedule,
                          const std::vector<std::uint32_t>& order) {
  const DagInstance& instance = model.instance();
  const std::size_t n = order.size();
  std::vector<std::int64_t> device_next(n, -1);
  std::vector<std::int64_t> last(model.device_count(), -1);
  for (std::uint32_t t : order) {
    const DeviceId d = schedule.tasks[t].device;
    if (last[d] >= 0) device_next[static_cast<std::size_t>(last[d])] = t;
    last[d] = t;
  }
  std::vector<double> tail(n, 0.0);
  for (std::size_t i = n; i-- > 0;) {
    const std::uint32_t t = order[i];
    double longest = 0;
    for (const DagNeighbor& s : instance.successors(t)) {
      const PlannedTask& next = schedule.tasks[s.task];
      longest =
          std::max(longest, instance.comm_seconds(s.edge, schedule.tasks[t].device, next.device) +
                                (next.finish_seconds - next.start_seconds) + tail[s.task]);
    }
    if (device_next[t] >= 0) {
      const auto next = static_cast<std::size_t>(device_next[t]);
      longest = std::max(longest, schedule.tasks[next].finish_seconds -
                                      schedule.tasks[next].start_seconds + tail[next]);
    }
    tail[t] = longest;
  }
  return tail;
}

std::size_t count_moved(const StaticSchedule& a, const StaticSchedule& b) {
  std::size_t moved = 0;
  for (std::size_t t = 0; t < a.tasks.size(); ++t) moved += a.tasks[t].device != b.tasks[t].device;
  return moved;
}

std::size_t count_slowed(const std::vector<std::uint8_t>& pstates) {
  return static_cast<std::size_t>(
      std::count_if(pstates.begin(), pstates.end(), [](std::uint8_t p) { return p > 0; }));
}

}  // namespace

DvfsSchedule remap_for_energy(const JobEnergyModel& model, const DvfsSchedule& start,
                              double makespan_bound_seconds, std::size_t max_passes) {
  const std::size_t n = start.schedule.tasks.size();
  const double tolerance = tolerance_for(makespan_bound_seconds);
  DvfsSchedule current = start;
  std::vector<std::uint32_t> order = start_order(current.schedule);
  current.schedule = model.retime(current.schedule, order, current.pstates);
  double current_joules = model.energy(current).total_joules();
  for (std::size_t pass = 0; pass < max_passes; ++pass) {
    // Visit tasks by the energy they cost now: the big ones first get the slack.
    std::vector<double> joules(n);
    for (std::uint32_t t = 0; t < n; ++t)
      joules[t] = model.dynamic_joules(t, current.schedule.tasks[t].device, current.pstates[t]);
    std::vector<std::uint32_t> visit(n);
    std::iota(visit.begin(), visit.end(), 0u);
    std::stable_sort(visit.begin(), visit.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return joules[a] > joules[b]; });
    bool improved = false;
    StaticSchedule trial = current.schedule;
    std::vector<std::uint8_t> trial_pstates = current.pstates;
    for (std::uint32_t t : visit) {
      const PlannedTask original = current.schedule.tasks[t];
      const std::uint8_t original_pstate = current.pstates[t];
      DeviceId best_device = original.device;
      std::uint8_t best_pstate = original_pstate;
      double best_joules = current_joules;
      StaticSchedule best_schedule;
      for (DeviceId d = 0; d < model.device_count(); ++d)
        for (std::size_t p = 0; p < model.pstate_count(d); ++p) {
          if (model.seconds(t, d, p) == kCannotRun) continue;
          if (d == original.device && p == original_pstate) continue;
          // Only moves that cost less for this task can lower the total (other tasks
          // keep their energy; the makespan, and so idle energy, can only grow or shrink
          // with the re-timing, which the full evaluation below counts).
          trial.tasks[t].device = d;
          trial_pstates[t] = static_cast<std::uint8_t>(p);
          StaticSchedule timed = model.retime(trial, order, trial_pstates);
          if (timed.makespan_seconds > makespan_bound_seconds + tolerance) continue;
          const double joules_now = model.energy(DvfsSchedule{timed, trial_pstates}).total_joules();
          if (joules_now < best_joules * (1 - 1e-12)) {
            best_joules = joules_now;
            best_device = d;
            best_pstate = static_cast<std::uint8_t>(p);
            best_schedule = std::move(timed);
          }
        }
      if (best_device == original.device && best_pstate == original_pstate) {
        trial.tasks[t].device = original.device;
        trial_pstates[t] = original_pstate;
        continue;
      }
      current.schedule = std::move(best_schedule);
      current.pstates[t] = best_pstate;
      trial = current.schedule;
      trial_pstates = current.pstates;
      current_joules = best_joules;
      improved = true;
    }
    if (!improved) break;
    order = start_order(current.schedule);
  }
  return current;
}

SlackReclamationResult reclaim_slack_stepwise(const JobEnergyModel& model,
                                              const DvfsSchedule& start,
                                              double makespan_bound_seconds) {
  SlackReclamationResult result;
  result.makespan_bound_seconds = makespan_bound_seconds;
  result.before = model.energy(start);
  const std::size_t n = start.schedule.tasks.size();
  const double tolerance = tolerance_for(makespan_bound_seconds);
  const double idle_total = model.idle_watts_total();
  const std::vector<std::uint32_t> order = start_order(start.schedule);
  std::vector<std::uint8_t> pstates = start.pstates;
  StaticSchedule current = model.retime(start.schedule, order, pstates);
  std::vector<bool> changed(n, false);
  for (;;) {
    const std::vector<double> tail = tails(model, current, order);
    std::int64_t best = -1;
    double best_ratio = 0;
    for (std::uint32_t t = 0; t < n; ++t) {
      const DeviceId d = current.tasks[t].device;
      const std::size_t p = pstates[t];
      if (p + 1 >= model.pstate_count(d)) continue;
      const double longer = model.seconds(t, d, p + 1) - model.seconds(t, d, p);
      const double end = current.tasks[t].finish_seconds + longer + tail[t];
      if (end > makespan_bound_seconds + tolerance) continue;
      const double saved =
          model.dynamic_joules(t, d, p) - model.dynamic_joules(t, d, p + 1) -
          (std::max(current.makespan_seconds, end) - current.makespan_seconds) * idle_total;
      if (saved <= 0) continue;
      // Memory-bound steps cost no time: they come first (ratio infinite).
      const double ratio = longer > 0 ? saved / longer : saved * 1e18;
      if (ratio > best_ratio) best_ratio = ratio, best = t;
    }
    if (best < 0) break;
    ++pstates[static_cast<std::size_t>(best)];
    changed[static_cast<std::size_t>(best)] = true;
    current = model.retime(current, order, pstates);
  }
  result.tasks_slowed = static_cast<std::size_t>(std::count(changed.begin(), changed.end(), true));
  result.plan = DvfsSchedule{std::move(current), std::move(pstates)};
  result.after = model.energy(result.plan);
  return result;
}

EnergyRemapResult minimise_energy_within(const JobEnergyModel& model,
                                         const StaticSchedule& schedule, double makespan_stretch) {
  EnergyRemapResult out;
  const DvfsSchedule full{schedule, std::vector<std::uint8_t>(schedule.tasks.size(), 0)};
  out.before = model.energy(full);
  out.makespan_bound_seconds = schedule.makespan_seconds * (1 + std::max(0.0, makespan_stretch));
  const double bound = out.makespan_bound_seconds;
  const double tolerance = tolerance_for(bound);
  out.plan = full;
  out.after = out.before;
  out.candidate = "full-speed";
  auto consider = [&](const DvfsSchedule& plan, const std::string& name) {
    const ScheduleEnergy e = model.energy(plan);
    if (e.makespan_seconds <= bound + tolerance && e.total_joules() < out.after.total_joules()) {
      out.plan = plan;
      out.after = e;
      out.candidate = name;
    }
  };
  consider(reclaim_slack_within(model, full, bound).plan, "slack-reclamation");
  consider(reclaim_slack_stepwise(model, full, bound).plan, "stepwise-slack-reclamation");
  const DvfsSchedule remapped = remap_for_energy(model, full, bound);
  consider(reclaim_slack_within(model, remapped, bound).plan, "remap+slack-reclamation");
  consider(reclaim_slack_stepwise(model, remapped, bound).plan, "remap+stepwise-slack-reclamation");
  // Re-mapping with P-states free from the start (moves may slow a task where it lands).
  const DvfsSchedule polished = remap_for_energy(model, out.plan, bound);
  consider(reclaim_slack_stepwise(model, polished, bound).plan, "best+remap+stepwise");
  // The searches are greedy, so a looser bound does not always find less energy: what
  // they find within the original makespan is a candidate too.
  if (makespan_stretch > 0) {
    const EnergyRemapResult tight = minimise_energy_within(model, schedule, 0.0);
    consider(tight.plan, tight.candidate + " (within the original makespan)");
  }
  out.tasks_moved = count_moved(schedule, out.plan.schedule);
  out.tasks_slowed = count_slowed(out.plan.pstates);
  return out;
}

}  // namespace hetsched
