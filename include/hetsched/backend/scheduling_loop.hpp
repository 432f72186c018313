// SchedulingLoop: the brain's bookkeeping between a policy and a backend. It keeps
// the state every policy reads (what is placed where, predicted device free times,
// finish times), decides when to ask the policy (a job arrives; tasks become ready),
// checks every decision (the device can run the task, nothing placed twice) and
// hands it to the backend. Backends call job_arrived / task_started / task_finished
// and then decide() once per instant.
#pragma once

#include <stdexcept>
#include <vector>

#include "hetsched/backend/backend.hpp"
#include "hetsched/core/huge_page_allocator.hpp"

namespace hetsched {

// A policy broke its contract (placed a task twice, on a device that cannot run it).
class PolicyError : public std::logic_error {
  using std::logic_error::logic_error;
};

class SchedulingLoop final : private AssignmentSink {
 public:
  SchedulingLoop(const Cluster& cluster, const TaskGraph& graph, const PerfModel& perf,
                 SchedulingPolicy& policy, Backend& backend);

  void job_arrived(JobIndex job, double now);
  void task_started(TaskIndex task, double now);
  void task_finished(TaskIndex task, double now);
  // Offers the ready, unplaced tasks to the policy. Call once after each instant's events.
  void decide(double now);

  std::size_t waiting_count() const { return waiting_.size(); }
  std::size_t finished_count() const { return finished_count_; }
  DeviceId placement(TaskIndex t) const { return placement_[t]; }
  std::uint8_t pstate(TaskIndex t) const { return pstate_[t]; }
  TaskState state(TaskIndex t) const { return state_[t]; }
  const SchedulingPolicy& policy() const { return *policy_; }

  // Fault tolerance (fault/): the backend reports devices lost and tasks whose
  // attempt failed; the loop un-places them and offers them to the policy again.
  // A device that is down looks busy forever (predicted free time infinity), and an
  // assignment to it is refused (the task stays waiting) rather than an error.
  // Takes a device out; returns the tasks placed on it and not yet started, now
  // un-placed and offered again (re-planning) once their inputs are done.
  std::vector<TaskIndex> device_down(DeviceId device, double now);
  void device_up(DeviceId device, double now);
  bool device_is_down(DeviceId device) const { return down_[device]; }
  // The task's attempt was lost: it leaves its device and is held until offer_again.
  void unplace(TaskIndex task);
  void offer_again(TaskIndex task);
  // The task finishes on another device than planned (a replica won).
  void relocate(TaskIndex task, DeviceId device);
  // The task's job ended without it: never offered again.
  void cancel(TaskIndex task);
  bool cancelled(TaskIndex task) const { return cancelled_[task]; }
  std::size_t refused_count() const { return refused_count_; }

 private:
  void assign(const Assignment& assignment) override;
  ClusterSnapshot snapshot(double now) const;

  const Cluster& cluster_;
  const TaskGraph& graph_;
  const PerfModel& perf_;
  SchedulingPolicy* policy_;
  Backend& backend_;
  double now_ = 0;

  LargeVector<DeviceId> placement_;
  LargeVector<std::uint8_t> pstate_;
  LargeVector<TaskState> state_;
  LargeVector<double> finish_;
  LargeVector<std::uint32_t> unfinished_predecessors_;
  std::vector<double> device_available_;
  std::vector<std::uint32_t> device_outstanding_;  // placed, not yet finished
  LargeVector<TaskIndex> waiting_;                 // ready and unplaced
  std::size_t finished_count_ = 0;
  std::vector<bool> down_;       // per device
  std::vector<bool> cancelled_;  // per task
  std::size_t refused_count_ = 0;
};

}  // namespace hetsched
