// JobEnergyModel: the power model of one DAG job on a cluster — for every task,
// device and P-state, how long the task runs and how many watts the device draws
// meanwhile, plus each device's idle power. Energy of a schedule = the energy of
// its tasks (watts × seconds at each task's P-state) plus the idle energy of every
// device over the schedule's idle time (idle watts × (makespan − busy time)); both
// are reported. Dynamic power follows the catalog's P-states (power ∝ f·V²), scaled
// by how busy the task keeps the device (the performance model's activity factor),
// and only compute time stretches with the clock: memory-bound work runs as fast at
// a lower clock, which is where DVFS saves the most (as Zeus and DEWTS observe).
//
// Devices the job does not use: by default every device of the cluster counts its
// idle power over the whole schedule (the job holds the whole cluster). With
// `set_release_unused_devices(true)` a device that runs none of the job's tasks is
// not charged at all — it is released to other work or powered down for the job's
// duration, as a cluster manager does with nodes a job does not ask for (Slurm's
// power saving suspends idle nodes). The rule is part of the model, so a baseline
// and an optimised plan evaluated on the same model are charged alike.
//
// Devices busy with earlier work: a plan is timed from the moment it is made (0), and a
// device still running other jobs' work then (`set_device_free_seconds`) takes no task
// of this job before it frees up — the release time of every task there, as its
// external input's arrival is — and is charged idle power only from then on.
//
// Idle power management (off unless `set_sleep_states` is called): a device may
// spend an idle gap — before its first task, between two tasks, after its last task
// up to the makespan — in a sleep state (suspend-to-RAM of its node, as Slurm's power
// saving does) drawing `watts`, at the price of going down and coming back up, each
// taking `transition_seconds` at idle power. A gap sleeps only if it holds both
// transitions and sleeping costs less than staying idle; in a static plan the device
// starts waking `transition_seconds` before its next task, so no task starts later.
// All gaps are charged this way, including the first and the last (both transitions
// counted: conservative on both sides of a comparison).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hetsched/perf/dag_instance.hpp"

namespace hetsched {

struct SleepState {
  double watts = 0;               // drawn while asleep
  double transition_seconds = 0;  // to go to sleep, and again to wake up, at idle power
};

// The sleep state assumed for a catalog part: suspend-to-RAM, 10 % of its idle power
// (memory in self-refresh, fans and BMC on), 30 s to suspend and 30 s to resume.
SleepState suspend_to_ram_sleep_state(double idle_watts);

struct ScheduleEnergy {
  double task_joules = 0;  // Σ over tasks of watts × seconds at their P-state
  double idle_joules = 0;  // Σ over devices of idle watts × (makespan − busy seconds)
  double makespan_seconds = 0;
  double total_joules() const { return task_joules + idle_joules; }
};

// A static schedule with a P-state per task.
struct DvfsSchedule {
  StaticSchedule schedule;
  std::vector<std::uint8_t> pstates;  // per task of the instance
};

class JobEnergyModel {
 public:
  // From a job of a workload: seconds and watts from the performance model.
  JobEnergyModel(const DagInstance& instance, const TaskGraph& graph, JobIndex job,
                 const PerfModel& perf);
  // From matrices (tests, published examples): every device has the same P-states;
  // a task's seconds at P-state p are compute_seconds / speed_scale, its watts
  // idle + (busy − idle) × power_scale.
  JobEnergyModel(const DagInstance& instance, std::vector<double> idle_watts,
                 std::vector<double> busy_watts, std::vector<PState> pstates);

  const DagInstance& instance() const { return *instance_; }
  std::size_t task_count() const { return instance_->task_count(); }
  std::size_t device_count() const { return idle_watts_.size(); }
  std::size_t pstate_count(DeviceId d) const { return pstate_count_[d]; }
  double seconds(std::uint32_t t, DeviceId d, std::size_t p) const { return at(seconds_, t, d, p); }
  double watts(std::uint32_t t, DeviceId d, std::size_t p) const { return at(watts_, t, d, p); }
  double idle_watts(DeviceId d) const { return idle_watts_[d]; }
  // Seconds before task t can start on device d whatever its DAG inputs: its external
  // input moved from the job's data node, the device busy with earlier work; 0 for
  // matrix instances with every device free.
  double release_seconds(std::uint32_t t, DeviceId d) const {
    return release_.empty() ? 0.0 : release_[static_cast<std::size_t>(t) * device_count() + d];
  }
  // The same for every task and device, row-major [t * devices + d]; empty when every
  // release is 0 (ScheduleLimits::release_seconds).
  std::span<const double> release_seconds_table() const { return release_; }
  // Per device, when it frees up from earlier work (seconds from the plan's start; 0:
  // free now, infinity: out of service). Call before planning.
  void set_device_free_seconds(std::span<const double> free_seconds);
  // When the device frees up (0 unless set).
  double device_free_seconds(DeviceId d) const {
    return device_free_.empty() ? 0.0 : device_free_[d];
  }
  // Run seconds of every task on every device at one P-state, row-major
  // (ScheduleLimits::run_seconds).
  std::vector<double> run_seconds_table(std::size_t pstate) const;
  // Joules above idle that the task adds on the device at the P-state.
  double dynamic_joules(std::uint32_t t, DeviceId d, std::size_t p) const {
    return (watts(t, d, p) - idle_watts_[d]) * seconds(t, d, p);
  }
  double idle_watts_total() const;
  // Devices that run none of the job's tasks are charged nothing (see the header).
  void set_release_unused_devices(bool release) { release_unused_devices_ = release; }
  bool release_unused_devices() const { return release_unused_devices_; }
  // Idle gaps may be spent asleep (see the header); one state per device, or empty (off).
  void set_sleep_states(std::vector<SleepState> states) { sleep_ = std::move(states); }
  bool sleeps() const { return !sleep_.empty(); }
  // Joules device d draws over one idle gap of `seconds` (idle, or asleep if cheaper).
  double gap_joules(DeviceId d, double seconds) const;
  // Idle energy per device (not running tasks, up to the makespan), by the rules above.
  std::vector<double> idle_joules_by_device(const DvfsSchedule& plan) const;
  // The same model where only the devices with keep[d] may run tasks.
  JobEnergyModel restricted_to(const std::vector<bool>& keep) const;

  ScheduleEnergy energy(const DvfsSchedule& plan) const;

  // Start and finish times for a fixed placement and per-device order (the order of
  // `order`, a topological order consistent with each device's sequence, as
  // start_order(instance, schedule, StartTies::finish_then_index) gives) and the
  // given P-states: every task as early as its device, inputs and external input
  // allow (policy/list_scheduling.hpp's schedule_in_order, appending).
  StaticSchedule retime(const StaticSchedule& placement, const std::vector<std::uint32_t>& order,
                        const std::vector<std::uint8_t>& pstates) const;

 private:
  static constexpr std::size_t kMaxPstates = 8;
  double at(const std::vector<double>& table, std::uint32_t t, DeviceId d, std::size_t p) const {
    return table[(static_cast<std::size_t>(t) * device_count() + d) * kMaxPstates + p];
  }
  double& at(std::vector<double>& table, std::uint32_t t, DeviceId d, std::size_t p) {
    return table[(static_cast<std::size_t>(t) * device_count() + d) * kMaxPstates + p];
  }

  const DagInstance* instance_;
  std::vector<double> idle_watts_;
  std::vector<std::size_t> pstate_count_;
  std::vector<double> seconds_, watts_;
  std::vector<double> release_;      // per (task, device); empty when every release is 0
  std::vector<double> device_free_;  // per device; empty when every device is free at 0
  bool release_unused_devices_ = false;
  std::vector<SleepState> sleep_;
};

}  // namespace hetsched
