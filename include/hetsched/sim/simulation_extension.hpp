// SimulationExtension: a feature of the simulator outside its kernel. The kernel (Simulator)
// owns the clock, the event queue, each device's planned queue, input transfers, the
// start and finish of tasks, a running task's change of P-state, and the power and energy
// accounting; a feature (failures and recovery, thermal throttling, power caps) hooks into
// those steps and schedules events of its own, and the kernel calls it at fixed points, so
// the kernel has no branch per feature. Extensions are called in the order they were
// added; every hook has a default that leaves the kernel's behaviour as it is. An
// extension reads and changes the kernel only through the SimulationKernel it is
// constructed with (src/sim/simulation_kernel.hpp).
//
// Each extension's events are kinds [event_base, event_base + kEventKindsPerExtension):
// the kernel hands them, and only them, to event().
#pragma once

#include <cstdint>

#include "hetsched/backend/run_report.hpp"
#include "hetsched/sim/event_queue.hpp"
#include "hetsched/workload/task_graph.hpp"

namespace hetsched {

class SimulationExtension {
 public:
  static constexpr std::uint32_t kEventKindsPerExtension = 1000;

  // What a task about to start may do (start_pstate()).
  enum class Start : std::uint8_t {
    go,    // start now, at the P-state the extension left
    wait,  // stay at the head of its queue; the extension retries the device later
    drop,  // it can never start: the kernel takes it off the queue (the extension said why)
  };

  virtual ~SimulationExtension() = default;

  // Devices [first, the cluster's count) joined (all of them when the run is set up).
  virtual void devices_added(DeviceId /*first*/) {}
  // Before the first event is carried out (the jobs' arrivals are already scheduled).
  virtual void run_starting() {}
  // One of this extension's own events, at its time.
  virtual void event(const Event& event) = 0;
  // Before `device` starts the head of its queue, busy or not: true holds it back (it
  // waits). An extension may also free a busy device here (a replica giving way).
  virtual bool holds_device(DeviceId /*device*/) { return false; }
  // `task`, its inputs in, is about to start on `device` at `pstate` (the policy's):
  // the extension may lower the P-state (a higher index), hold the task or drop it.
  virtual Start start_pstate(TaskIndex /*task*/, DeviceId /*device*/, std::uint8_t& /*pstate*/) {
    return Start::go;
  }
  // `task` starts on `device` now and would run `seconds`: how long it will run.
  virtual double task_starting(TaskIndex /*task*/, DeviceId /*device*/, double seconds) {
    return seconds;
  }
  // `task` started on `device` (its finish event is scheduled).
  virtual void task_started(TaskIndex /*task*/, DeviceId /*device*/) {}
  // `device`'s draw is about to change (a start, a finish, a change of P-state, a stop).
  virtual void device_power_changing(DeviceId /*device*/) {}
  // A finish event of `task` is due now: false when it belongs to an attempt that ended.
  virtual bool finish_is_current(TaskIndex /*task*/) { return true; }
  // `task` finishes now, before the kernel records it and sends its outputs.
  virtual void task_finishing(TaskIndex /*task*/) {}
  // After `task` finished on `device`, its outputs were sent and the device's next task
  // had its chance to start.
  virtual void task_finished(TaskIndex /*task*/, DeviceId /*device*/) {}
  // After the scheduling loop decided over an instant's events.
  virtual void loop_decided() {}
  // True when the run cannot progress further (only this extension's own events remain).
  virtual bool run_settled() const { return false; }
  // After the kernel's own accounting: the extension's part of the report.
  virtual void complete_report(RunReport& /*report*/) {}
};

}  // namespace hetsched
