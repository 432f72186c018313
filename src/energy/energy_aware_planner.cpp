#include "hetsched/energy/energy_aware_planner.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "device_consolidation.hpp"
#include "hetsched/energy/energy_remapping.hpp"
#include "hetsched/policy/list_scheduling.hpp"

namespace hetsched {
namespace {

double fastest_seconds(const JobEnergyModel& model, std::uint32_t t) {
  double best = kCannotRun;
  for (DeviceId d = 0; d < model.device_count(); ++d) best = std::min(best, model.seconds(t, d, 0));
  return best;
}

// Upward rank with fastest compute and no communication.
std::vector<double> fastest_ranks(const JobEnergyModel& model) {
  const DagInstance& instance = model.instance();
  std::vector<double> rank(instance.task_count(), 0.0);
  const auto& order = instance.topological_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    double tail = 0;
    for (const DagNeighbor& s : instance.successors(*it)) tail = std::max(tail, rank[s.task]);
    rank[*it] = fastest_seconds(model, *it) + tail;
  }
  return rank;
}

StaticSchedule energy_first_schedule(const JobEnergyModel& model, double deadline,
                                     std::vector<std::uint8_t>& pstates) {
  const DagInstance& instance = model.instance();
  const std::size_t n = instance.task_count();
  const std::vector<double> rank = fastest_ranks(model);
  double longest = 0;
  for (double r : rank) longest = std::max(longest, r);
  // Tasks by decreasing rank from the ready set (the ranks never increase along an
  // edge, so this is the sorted order); each on the device and P-state that uses
  // least energy while finishing within its sub-deadline (else where it finishes
  // first), in the first idle gap long enough (insertion), its external input counted.
  PartialSchedule partial(instance,
                          ScheduleLimits{.release_seconds = model.release_seconds_table()});
  pstates.assign(n, 0);
  for (std::uint32_t t : priority_order(instance, rank)) {
    // Share of the longest path that ends with this task.
    const double sub_deadline =
        longest > 0 ? deadline * (longest - rank[t] + fastest_seconds(model, t)) / longest
                    : deadline;
    struct Option {
      DeviceId device = 0;
      std::uint8_t pstate = 0;
      double start = 0, finish = kCannotRun, joules = kCannotRun;
    } best_in_time, fastest;
    for (DeviceId d = 0; d < model.device_count(); ++d) {
      if (model.seconds(t, d, 0) == kCannotRun) continue;
      const double ready = partial.data_ready_seconds(t, d);
      for (std::size_t p = 0; p < model.pstate_count(d); ++p) {
        const double run = model.seconds(t, d, p);
        const double start = partial.timeline().earliest_start(d, ready, run);
        const Option o{d, static_cast<std::uint8_t>(p), start, start + run,
                       model.dynamic_joules(t, d, p)};
        if (o.finish < fastest.finish) fastest = o;
        if (o.finish <= sub_deadline &&
            (o.joules < best_in_time.joules ||
             (o.joules == best_in_time.joules && o.finish < best_in_time.finish)))
          best_in_time = o;
      }
    }
    const Option& chosen = best_in_time.finish != kCannotRun ? best_in_time : fastest;
    // (Every task can run somewhere: plan_energy_aware checks before it calls this.)
    if (chosen.finish == kCannotRun) continue;
    partial.place(t, PlannedTask{chosen.device, chosen.start, chosen.finish});
    pstates[t] = chosen.pstate;
  }
  return std::move(partial).finish();
}

}  // namespace

double critical_path_lower_bound(const JobEnergyModel& model) {
  double longest = 0;
  for (double r : fastest_ranks(model)) longest = std::max(longest, r);
  return longest;
}

EnergyAwarePlan plan_energy_aware(const JobEnergyModel& model, double deadline_seconds) {
  return plan_energy_aware(model, deadline_seconds, insertion_eft_schedule(model));
}

EnergyAwarePlan plan_energy_aware(const JobEnergyModel& model, double deadline_seconds,
                                  const StaticSchedule& fastest,
                                  const EnergyAwareOptions& options) {
  EnergyAwarePlan out;
  out.deadline_seconds = deadline_seconds;
  if (model.device_count() == 0) {
    out.deadline_met = false;
    out.message = "the device set is empty: there is nowhere to run the job";
    return out;
  }
  for (std::uint32_t t = 0; t < model.task_count(); ++t)
    if (fastest_seconds(model, t) == kCannotRun) {
      out.deadline_met = false;
      out.message = fmt::format("task {} can run on no device of the set", t);
      return out;
    }
  out.critical_path_lower_bound_seconds = critical_path_lower_bound(model);
  out.fastest_makespan_seconds = fastest.makespan_seconds;
  const DvfsSchedule fastest_plan{fastest, std::vector<std::uint8_t>(fastest.tasks.size(), 0)};
  out.fastest_energy = model.energy(fastest_plan);
  if (fastest.makespan_seconds > deadline_seconds) {
    out.deadline_met = false;
    out.deadline_shortfall_seconds = fastest.makespan_seconds - deadline_seconds;
    if (out.critical_path_lower_bound_seconds > deadline_seconds)
      out.message = fmt::format(
          "deadline of {:.6g} s cannot be met by any schedule: the critical path alone takes "
          "{:.6g} s on the fastest devices ({:.6g} s too late); the fastest schedule found "
          "takes {:.6g} s",
          deadline_seconds, out.critical_path_lower_bound_seconds,
          out.critical_path_lower_bound_seconds - deadline_seconds, fastest.makespan_seconds);
    else
      out.message = fmt::format(
          "deadline of {:.6g} s not met: the fastest schedule found takes {:.6g} s ({:.6g} s too "
          "late; no schedule can beat the critical-path bound of {:.6g} s)",
          deadline_seconds, fastest.makespan_seconds, out.deadline_shortfall_seconds,
          out.critical_path_lower_bound_seconds);
    SlackReclamationResult r = reclaim_slack(model, fastest, 0.0);
    out.plan = std::move(r.plan);
    out.energy = r.after;
    out.candidate = "fastest";
    return out;
  }
  SlackReclamationResult reclaimed = reclaim_slack_within(model, fastest_plan, deadline_seconds);
  out.plan = std::move(reclaimed.plan);
  out.energy = reclaimed.after;
  out.candidate = "fastest+slack-reclamation";
  // (3) Re-mapping of the fastest schedule within the deadline (energy_remapping.hpp;
  // a pass costs O(tasks × (tasks + edges)), so it runs on jobs of any size).
  if (fastest.makespan_seconds > 0) {
    EnergyRemapResult remapped =
        minimise_energy_within_bound(model, fastest, deadline_seconds, options.remap_passes,
                                     options.remap_within_fastest_makespan);
    if (remapped.after.makespan_seconds <= deadline_seconds &&
        remapped.after.total_joules() < out.energy.total_joules()) {
      out.plan = std::move(remapped.plan);
      out.energy = remapped.after;
      out.candidate = "fastest+" + remapped.candidate;
    }
  }
  // (4) Fewer devices (device_consolidation.hpp), re-mapped and slowed within the deadline.
  if (std::optional<ConsolidationResult> fewer =
          options.consolidate ? consolidate_devices(model, deadline_seconds) : std::nullopt;
      fewer && fewer->remap.after.makespan_seconds <= deadline_seconds &&
      fewer->remap.after.total_joules() < out.energy.total_joules()) {
    out.plan = std::move(fewer->remap.plan);
    out.energy = fewer->remap.after;
    out.candidate = fmt::format("{} devices+{}", fewer->devices_used, fewer->remap.candidate);
  }
  std::vector<std::uint8_t> pstates;
  const StaticSchedule energy_first = energy_first_schedule(model, deadline_seconds, pstates);
  if (energy_first.makespan_seconds <= deadline_seconds) {
    SlackReclamationResult r =
        reclaim_slack_within(model, DvfsSchedule{energy_first, pstates}, deadline_seconds);
    if (r.after.makespan_seconds <= deadline_seconds &&
        r.after.total_joules() < out.energy.total_joules()) {
      out.plan = std::move(r.plan);
      out.energy = r.after;
      out.candidate = "energy-first+slack-reclamation";
    }
  }
  return out;
}

}  // namespace hetsched
