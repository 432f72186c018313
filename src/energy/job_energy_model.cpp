#include "hetsched/energy/job_energy_model.hpp"

#include <algorithm>
#include <numeric>

#include "hetsched/policy/list_scheduling.hpp"

namespace hetsched {

JobEnergyModel::JobEnergyModel(const DagInstance& instance, const TaskGraph& graph, JobIndex job,
                               const PerfModel& perf)
    : instance_(&instance) {
  const Cluster& cluster = perf.cluster();
  const std::size_t devices = cluster.device_count();
  idle_watts_.resize(devices);
  pstate_count_.resize(devices);
  for (const Device& d : cluster.devices()) {
    idle_watts_[d.id] = d.spec.idle_watts;
    pstate_count_[d.id] = std::min(kMaxPstates, d.spec.pstates.size());
  }
  seconds_.assign(instance.task_count() * devices * kMaxPstates, kCannotRun);
  watts_.assign(seconds_.size(), 0.0);
  const TaskIndex first = graph.first_task(job);
  const NodeId data_node = graph.job(job).data_node;
  for (std::uint32_t t = 0; t < instance.task_count(); ++t) {
    const Task& task = graph.task(first + t);
    if (task.input_bytes > 0) {
      if (release_.empty()) release_.assign(instance.task_count() * devices, 0.0);
      for (const Device& d : cluster.devices())
        release_[static_cast<std::size_t>(t) * devices + d.id] =
            perf.host_to_device_seconds(task.input_bytes, data_node, d.id);
    }
    for (const Device& d : cluster.devices())
      for (std::size_t p = 0; p < pstate_count_[d.id]; ++p) {
        at(seconds_, t, d.id, p) = perf.task_seconds(task, d, p);
        if (at(seconds_, t, d.id, p) != kCannotRun)
          at(watts_, t, d.id, p) = perf.task_watts(task, d, p);
      }
  }
}

JobEnergyModel::JobEnergyModel(const DagInstance& instance, std::vector<double> idle_watts,
                               std::vector<double> busy_watts, std::vector<PState> pstates)
    : instance_(&instance), idle_watts_(std::move(idle_watts)) {
  const std::size_t devices = instance.device_count();
  pstates.resize(std::min(pstates.size(), kMaxPstates));
  pstate_count_.assign(devices, pstates.size());
  seconds_.assign(instance.task_count() * devices * kMaxPstates, kCannotRun);
  watts_.assign(seconds_.size(), 0.0);
  for (std::uint32_t t = 0; t < instance.task_count(); ++t)
    for (DeviceId d = 0; d < devices; ++d) {
      const double base = instance.compute_seconds(t, d);
      if (base == kCannotRun) continue;
      for (std::size_t p = 0; p < pstates.size(); ++p) {
        at(seconds_, t, d, p) = base / pstates[p].speed_scale;
        at(watts_, t, d, p) =
            idle_watts_[d] + (busy_watts[d] - idle_watts_[d]) * pstates[p].power_scale;
      }
    }
}

void JobEnergyModel::set_device_free_seconds(std::span<const double> free_seconds) {
  device_free_.assign(free_seconds.begin(), free_seconds.end());
  device_free_.resize(device_count(), 0.0);
  for (double& free : device_free_) free = std::max(free, 0.0);
  if (std::all_of(device_free_.begin(), device_free_.end(), [](double f) { return f == 0; })) {
    device_free_.clear();
    return;
  }
  if (release_.empty()) release_.assign(task_count() * device_count(), 0.0);
  for (std::uint32_t t = 0; t < task_count(); ++t)
    for (DeviceId d = 0; d < device_count(); ++d) {
      double& release = release_[static_cast<std::size_t>(t) * device_count() + d];
      release = std::max(release, device_free_[d]);
    }
}

double JobEnergyModel::idle_watts_total() const {
  return std::accumulate(idle_watts_.begin(), idle_watts_.end(), 0.0);
}

JobEnergyModel JobEnergyModel::restricted_to(const std::vector<bool>& keep) const {
  JobEnergyModel out = *this;
  for (std::uint32_t t = 0; t < task_count(); ++t)
    for (DeviceId d = 0; d < device_count(); ++d)
      if (d >= keep.size() || !keep[d])
        for (std::size_t p = 0; p < kMaxPstates; ++p) out.at(out.seconds_, t, d, p) = kCannotRun;
  return out;
}

SleepState suspend_to_ram_sleep_state(double idle_watts) { return {0.1 * idle_watts, 30.0}; }

double JobEnergyModel::gap_joules(DeviceId d, double seconds) const {
  if (seconds <= 0) return 0;
  const double idle = idle_watts_[d] * seconds;
  if (sleep_.empty()) return idle;
  const SleepState& s = sleep_[d];
  const double transitions = 2 * s.transition_seconds;
  if (seconds < transitions) return idle;
  return std::min(idle, idle_watts_[d] * transitions + s.watts * (seconds - transitions));
}

std::vector<double> JobEnergyModel::idle_joules_by_device(const DvfsSchedule& plan) const {
  const double makespan = plan.schedule.makespan_seconds;
  std::vector<double> out(device_count(), 0.0);
  std::vector<double> busy(device_count(), 0.0);
  std::vector<bool> used(device_count(), false);
  for (const PlannedTask& p : plan.schedule.tasks) {
    busy[p.device] += p.finish_seconds - p.start_seconds;
    used[p.device] = true;
  }
  // A device busy with earlier work is this job's only from when it frees up.
  const auto own_seconds = [&](DeviceId d) {
    return makespan - std::min(device_free_seconds(d), makespan);
  };
  if (sleep_.empty()) {
    for (DeviceId d = 0; d < device_count(); ++d)
      if (used[d] || !release_unused_devices_)
        out[d] = idle_watts_[d] * std::max(0.0, own_seconds(d) - busy[d]);
    return out;
  }
  // Each device's tasks in time order; the gaps between them (and before the first,
  // after the last) each cost gap_joules.
  std::vector<std::vector<std::pair<double, double>>> intervals(device_count());
  for (const PlannedTask& p : plan.schedule.tasks)
    intervals[p.device].emplace_back(p.start_seconds, p.finish_seconds);
  for (DeviceId d = 0; d < device_count(); ++d) {
    if (!used[d]) {
      if (!release_unused_devices_) out[d] = gap_joules(d, own_seconds(d));
      continue;
    }
    auto& list = intervals[d];
    std::sort(list.begin(), list.end());
    double free_from = device_free_seconds(d);
    for (const auto& [start, finish] : list) {
      out[d] += gap_joules(d, start - free_from);
      free_from = std::max(free_from, finish);
    }
    out[d] += gap_joules(d, makespan - free_from);
  }
  return out;
}

ScheduleEnergy JobEnergyModel::energy(const DvfsSchedule& plan) const {
  ScheduleEnergy out;
  out.makespan_seconds = plan.schedule.makespan_seconds;
  for (std::uint32_t t = 0; t < plan.schedule.tasks.size(); ++t) {
    const PlannedTask& p = plan.schedule.tasks[t];
    out.task_joules += watts(t, p.device, plan.pstates[t]) * (p.finish_seconds - p.start_seconds);
  }
  for (double joules : idle_joules_by_device(plan)) out.idle_joules += joules;
  return out;
}

std::vector<double> JobEnergyModel::run_seconds_table(std::size_t pstate) const {
  std::vector<double> table(task_count() * device_count());
  for (std::uint32_t t = 0; t < task_count(); ++t)
    for (DeviceId d = 0; d < device_count(); ++d)
      table[static_cast<std::size_t>(t) * device_count() + d] = seconds(t, d, pstate);
  return table;
}

StaticSchedule JobEnergyModel::retime(const StaticSchedule& placement,
                                      const std::vector<std::uint32_t>& order,
                                      const std::vector<std::uint8_t>& pstates) const {
  std::vector<DeviceId> devices(placement.tasks.size());
  std::vector<double> run(placement.tasks.size());
  for (std::uint32_t t = 0; t < placement.tasks.size(); ++t) {
    devices[t] = placement.tasks[t].device;
    run[t] = seconds(t, devices[t], pstates[t]);
  }
  return schedule_in_order(*instance_, order, devices,
                           ScheduleLimits{.release_seconds = release_seconds_table()},
                           SlotRule::append, run);
}

}  // namespace hetsched
