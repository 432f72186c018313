#include "device_consolidation.hpp"

#include <algorithm>
#include <numeric>

namespace hetsched {

std::optional<ConsolidationResult> consolidate_devices(const JobEnergyModel& model,
                                                       double makespan_bound_seconds) {
  const std::size_t devices = model.device_count();
  if (devices < 2) return std::nullopt;
  const std::size_t n = model.task_count();
  // Energy of the whole job on each device alone, at full speed (serial: busy time
  // is the sum of the tasks, so idle power counts in watts × seconds).
  std::vector<double> alone(devices, 0.0);
  std::vector<bool> runs_all(devices, true);
  for (DeviceId d = 0; d < devices; ++d)
    for (std::uint32_t t = 0; t < n; ++t) {
      const double seconds = model.seconds(t, d, 0);
      if (seconds == kCannotRun) {
        runs_all[d] = false;
        continue;
      }
      alone[d] += model.watts(t, d, 0) * seconds;
    }
  std::vector<DeviceId> ranked(devices);
  std::iota(ranked.begin(), ranked.end(), DeviceId{0});
  std::stable_sort(ranked.begin(), ranked.end(), [&](DeviceId a, DeviceId b) {
    if (runs_all[a] != runs_all[b]) return static_cast<bool>(runs_all[a]);
    return alone[a] < alone[b];
  });
  const double tolerance = 1e-12 * std::max(1.0, makespan_bound_seconds);
  ConsolidationResult best;
  std::optional<StaticSchedule> best_schedule;
  std::vector<bool> best_keep;
  double best_joules = 0;
  std::size_t misses_in_a_row = 0;
  for (std::size_t k = devices - 1; k >= 1 && misses_in_a_row < 2;) {
    std::vector<bool> keep(devices, false);
    for (std::size_t i = 0; i < k; ++i) keep[ranked[i]] = true;
    const JobEnergyModel subset = model.restricted_to(keep);
    const StaticSchedule schedule = insertion_eft_schedule(subset);
    ++best.subsets_tried;
    if (schedule.makespan_seconds <= makespan_bound_seconds + tolerance) {
      misses_in_a_row = 0;
      const double joules =
          model.energy(DvfsSchedule{schedule, std::vector<std::uint8_t>(n, 0)}).total_joules();
      if (!best_schedule || joules < best_joules) {
        best_joules = joules;
        best_schedule = schedule;
        best_keep = keep;
      }
    } else {
      ++misses_in_a_row;
    }
    const std::size_t next = k <= 16 ? k - 1 : std::min(k - 1, k * 9 / 10);
    if (next == 0) break;
    k = next;
  }
  if (!best_schedule) return std::nullopt;
  const JobEnergyModel subset = model.restricted_to(best_keep);
  best.remap = minimise_energy_within_bound(subset, *best_schedule, makespan_bound_seconds);
  best.remap.before = model.energy(DvfsSchedule{*best_schedule, std::vector<std::uint8_t>(n, 0)});
  best.remap.after = model.energy(best.remap.plan);
  std::vector<bool> used(devices, false);
  for (const PlannedTask& p : best.remap.plan.schedule.tasks) used[p.device] = true;
  best.devices_used = static_cast<std::size_t>(std::count(used.begin(), used.end(), true));
  return best;
}

}  // namespace hetsched
