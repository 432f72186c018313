// SimulationKernel: what a simulator extension (SimulationExtension) may see and do of
// the kernel it hooks into — the extension's whole view of the Simulator, as SimGrid's
// plugins see the engine through its public API only. It reads the run (clock, cluster,
// graph, models, options, the scheduling loop, the report), schedules the extension's own
// events, and changes the kernel's state through named operations that keep its
// accounting whole: a device held busy by work outside the loop's plan (a replica), the
// busy time and energy such work used, a stopped device back at idle power, a running
// task's P-state, a task whose inputs must be sent again, a task finished by a copy on
// another device.
//
// A small handle: copy it freely; it must not outlive its Simulator.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hetsched/workload/task_graph.hpp"

namespace hetsched {

class Cluster;
class PerfModel;
class SchedulingLoop;
class Simulator;
struct RunReport;
struct SimulationOptions;

class SimulationKernel {
 public:
  explicit SimulationKernel(Simulator& simulator) : sim_(&simulator) {}

  // The run.
  double now() const;
  const Cluster& cluster() const;
  const TaskGraph& graph() const;
  const PerfModel& perf() const;
  const SimulationOptions& options() const;
  // The brain's loop, told of what the extension changed (a device down or up, a task
  // un-placed, cancelled, offered again or moved).
  SchedulingLoop& loop() const;
  // The report, filled as the run goes (marks on the timeline, counts).
  RunReport& report() const;

  // Events: `kind` is one of the extension's own (its event_base and up).
  void schedule(double time, std::uint32_t kind, std::uint32_t subject) const;
  // Events pending in the queue, the kernel's and every extension's.
  std::size_t pending_events() const;

  // Devices.
  bool busy(DeviceId device) const;
  // Whether any device is busy (a scan: for rare decisions only).
  bool any_busy() const;
  // The device's draw now; its node's; the cluster's.
  double watts(DeviceId device) const;
  double node_watts(NodeId node) const;
  double cluster_watts() const;
  // The running task's P-state and the time it is expected to end (the device is busy).
  std::uint8_t running_pstate(DeviceId device) const;
  double expected_finish(DeviceId device) const;
  // Whether the device has tasks queued that are still placed on it (drops the others).
  bool has_queued_work(DeviceId device) const;
  // Marks the device busy or idle for work outside the loop's plan (a replica, a
  // lost attempt); the kernel's own tasks are started and ended by the kernel.
  void set_busy(DeviceId device, bool busy) const;
  // Adds `seconds` of busy time at `watts` to the device's account (work the kernel did
  // not start or end itself: a replica, a lost or cancelled attempt, a checkpoint).
  void charge(DeviceId device, double seconds, double watts) const;
  // The device draws its idle power from now on (its work stopped); its node's and the
  // cluster's draw follow.
  void set_idle(DeviceId device) const;
  // The running task goes on at another P-state from now; the work done stays done.
  void change_running_pstate(DeviceId device, std::uint8_t pstate) const;
  // Starts the head of the device's queue if it can start now.
  void try_start(DeviceId device) const;
  // How long the task really runs on the device at the P-state (kCannotRun: it cannot).
  double actual_seconds(TaskIndex task, DeviceId device, std::uint8_t pstate) const;
  // What the task draws on the device at the P-state.
  double watts(TaskIndex task, DeviceId device, std::uint8_t pstate) const;

  // Tasks.
  // The task was taken off its device (un-placed, cancelled, moved): its inputs are sent
  // again when it is placed again.
  void forget_inputs(TaskIndex task) const;
  // A copy of the task on `device`, started at `start` and having used `joules`, finished
  // it now: the kernel finishes the task there (the loop has been told it runs there).
  void finish_copy(TaskIndex task, DeviceId device, double start, double joules) const;

 private:
  Simulator* sim_;
};

}  // namespace hetsched
