#include "hetsched/energy/energy_remapping.hpp"

#include <algorithm>
#include <numeric>
#include <optional>

#include "hetsched/policy/list_scheduling.hpp"

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
  const DagInstance& instance = model.instance();
  const std::size_t n = start.schedule.tasks.size();
  const std::size_t devices = model.device_count();
  const double tolerance = tolerance_for(makespan_bound_seconds);
  // Exact re-timings tried per task and pass, cheapest estimated energy first: this
  // bounds a pass at O(tasks × (edges + tasks)) however many devices and P-states.
  constexpr std::size_t kVerifiedMovesPerTask = 4;
  DvfsSchedule current = start;
  std::vector<std::uint32_t> order =
      start_order(model.instance(), current.schedule, StartTies::finish_then_index);
  current.schedule = model.retime(current.schedule, order, current.pstates);
  ScheduleEnergy current_energy = model.energy(current);
  for (std::size_t pass = 0; pass < max_passes; ++pass) {
    std::vector<std::size_t> position(n);
    for (std::size_t i = 0; i < n; ++i) position[order[i]] = i;
    // Each device's tasks by order position, kept up to date as tasks move.
    std::vector<std::vector<std::uint32_t>> on_device(devices);
    for (std::uint32_t t : order) on_device[current.schedule.tasks[t].device].push_back(t);
    const auto by_position = [&](std::uint32_t a, std::uint32_t b) {
      return position[a] < position[b];
    };
    // Visit tasks by the energy they cost now: the big ones first get the slack.
    std::vector<double> joules(n);
    for (std::uint32_t t = 0; t < n; ++t)
      joules[t] = model.dynamic_joules(t, current.schedule.tasks[t].device, current.pstates[t]);
    std::vector<std::uint32_t> visit(n);
    std::iota(visit.begin(), visit.end(), 0u);
    std::stable_sort(visit.begin(), visit.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return joules[a] > joules[b]; });
    bool improved = false;
    std::vector<double> tail = tails(model, current.schedule, order);
    struct Candidate {
      double estimated_change;
      DeviceId device;
      std::uint8_t pstate;
    };
    std::vector<Candidate> candidates;
    for (std::uint32_t t : visit) {
      const PlannedTask original = current.schedule.tasks[t];
      const std::uint8_t original_pstate = current.pstates[t];
      const double makespan = current.schedule.makespan_seconds;
      const double original_dynamic = model.dynamic_joules(t, original.device, original_pstate);
      double idle_total = 0;
      for (DeviceId d = 0; d < devices; ++d)
        if (!model.release_unused_devices() || !on_device[d].empty())
          idle_total += model.idle_watts(d);
      candidates.clear();
      for (DeviceId d = 0; d < devices; ++d) {
        if (model.seconds(t, d, 0) == kCannotRun) continue;
        // When t could start on d: its inputs, and the task before it on d in the order
        // (everything before t in the order keeps its times when t moves).
        double ready = model.release_seconds(t, d);
        for (const DagNeighbor& q : instance.predecessors(t)) {
          const PlannedTask& producer = current.schedule.tasks[q.task];
          ready = std::max(
              ready, producer.finish_seconds + instance.comm_seconds(q.edge, producer.device, d));
        }
        const auto& sequence = on_device[d];
        auto after = std::upper_bound(sequence.begin(), sequence.end(), t, by_position);
        auto before = after;
        if (before != sequence.begin() && *(before - 1) == t) --before;  // t itself
        if (before != sequence.begin())
          ready = std::max(ready, current.schedule.tasks[*(before - 1)].finish_seconds);
        // The chains after t: its successors (from d) and the next task on d.
        double chain_after = 0;
        for (const DagNeighbor& s : instance.successors(t)) {
          const PlannedTask& next = current.schedule.tasks[s.task];
          chain_after =
              std::max(chain_after, instance.comm_seconds(s.edge, d, next.device) +
                                        (next.finish_seconds - next.start_seconds) + tail[s.task]);
        }
        if (after != sequence.end()) {
          const PlannedTask& next = current.schedule.tasks[*after];
          chain_after =
              std::max(chain_after, next.finish_seconds - next.start_seconds + tail[*after]);
        }
        const bool newly_used =
            model.release_unused_devices() && d != original.device && sequence.empty();
        const bool frees_original = model.release_unused_devices() && d != original.device &&
                                    on_device[original.device].size() == 1;
        for (std::size_t p = 0; p < model.pstate_count(d); ++p) {
          if (d == original.device && p == original_pstate) continue;
          const double end = ready + model.seconds(t, d, p) + chain_after;
          if (end > makespan_bound_seconds + tolerance) continue;
          // Estimated change of total energy: the task's own dynamic energy, idle power
          // of a longer schedule, devices taken into or out of use.
          double change = model.dynamic_joules(t, d, p) - original_dynamic +
                          std::max(0.0, end - makespan) * idle_total;
          if (newly_used) change += model.idle_watts(d) * std::max(makespan, end);
          if (frees_original) change -= model.idle_watts(original.device) * makespan;
          if (change < 0) candidates.push_back({change, d, static_cast<std::uint8_t>(p)});
        }
      }
      if (candidates.empty()) continue;
      std::stable_sort(candidates.begin(), candidates.end(),
                       [](const Candidate& a, const Candidate& b) {
                         return a.estimated_change < b.estimated_change;
                       });
      // Exact check of the most promising moves: re-timed in the same order.
      StaticSchedule trial = current.schedule;
      std::vector<std::uint8_t> trial_pstates = current.pstates;
      double best_joules = current_energy.total_joules() * (1 - 1e-12);
      std::optional<DvfsSchedule> best;
      for (std::size_t c = 0; c < std::min(candidates.size(), kVerifiedMovesPerTask); ++c) {
        trial.tasks[t].device = candidates[c].device;
        trial_pstates[t] = candidates[c].pstate;
        DvfsSchedule timed{model.retime(trial, order, trial_pstates), trial_pstates};
        if (timed.schedule.makespan_seconds > makespan_bound_seconds + tolerance) continue;
        const double joules_now = model.energy(timed).total_joules();
        if (joules_now < best_joules) best_joules = joules_now, best = std::move(timed);
      }
      if (!best) continue;
      const DeviceId moved_to = best->schedule.tasks[t].device;
      if (moved_to != original.device) {
        auto& from = on_device[original.device];
        from.erase(std::find(from.begin(), from.end(), t));
        auto& to = on_device[moved_to];
        to.insert(std::upper_bound(to.begin(), to.end(), t, by_position), t);
      }
      current = std::move(*best);
      current_energy = model.energy(current);
      tail = tails(model, current.schedule, order);
      improved = true;
    }
    if (!improved) break;
    order = start_order(model.instance(), current.schedule, StartTies::finish_then_index);
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
  const std::vector<std::uint32_t> order =
      start_order(model.instance(), start.schedule, StartTies::finish_then_index);
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
  return minimise_energy_within_bound(
      model, schedule, schedule.makespan_seconds * (1 + std::max(0.0, makespan_stretch)));
}

EnergyRemapResult minimise_energy_within_bound(const JobEnergyModel& model,
                                               const StaticSchedule& schedule,
                                               double makespan_bound_seconds,
                                               std::size_t remap_passes,
                                               const EnergyRemapResult* within_own_makespan) {
  const double bound = std::max(makespan_bound_seconds, schedule.makespan_seconds);
  const double tolerance = tolerance_for(bound);
  const bool looser = bound > schedule.makespan_seconds + tolerance;
  if (within_own_makespan && bound == schedule.makespan_seconds) return *within_own_makespan;
  EnergyRemapResult out;
  const DvfsSchedule full{schedule, std::vector<std::uint8_t>(schedule.tasks.size(), 0)};
  out.before = model.energy(full);
  out.makespan_bound_seconds = bound;
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
  const DvfsSchedule remapped = remap_for_energy(model, full, bound, remap_passes);
  consider(reclaim_slack_within(model, remapped, bound).plan, "remap+slack-reclamation");
  consider(reclaim_slack_stepwise(model, remapped, bound).plan, "remap+stepwise-slack-reclamation");
  // Re-mapping with P-states free from the start (moves may slow a task where it lands).
  const DvfsSchedule polished = remap_for_energy(model, out.plan, bound, remap_passes);
  consider(reclaim_slack_stepwise(model, polished, bound).plan, "best+remap+stepwise");
  // The searches are greedy, so a looser bound does not always find less energy: what
  // they find within the original makespan is a candidate too.
  if (looser) {
    const EnergyRemapResult tight =
        within_own_makespan ? *within_own_makespan
                            : minimise_energy_within_bound(model, schedule,
                                                           schedule.makespan_seconds, remap_passes);
    consider(tight.plan, tight.candidate + " (within the original makespan)");
  }
  out.tasks_moved = count_moved(schedule, out.plan.schedule);
  out.tasks_slowed = count_slowed(out.plan.pstates);
  return out;
}

}  // namespace hetsched
