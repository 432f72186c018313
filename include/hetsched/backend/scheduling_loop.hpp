// SchedulingLoop: the brain's bookkeeping between a policy and a backend. It keeps
// the state every policy reads (what is placed where, predicted device free times,
// finish times), decides when to ask the policy (a job arrives; tasks become ready),
// checks every decision (the device can run the task, nothing placed twice) and
// hands it to the backend. Backends call job_arrived / task_started / task_finished
// and then decide() once per instant, with the time of their own clock (simulated
// or real): the loop never reads one.
//
// The world is open-ended: the graph may grow (TaskGraph::append_job) and the
// cluster gain nodes (cluster_grew) while the loop runs, and each job may name its
// own policy (a service runs every job with the policy it was submitted with).
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "hetsched/backend/backend.hpp"
#include "hetsched/core/huge_page_allocator.hpp"

namespace hetsched {

// A policy broke its contract (placed a task twice, on a device that cannot run it).
class PolicyError : public std::logic_error {
  using std::logic_error::logic_error;
};

// Why a task that is ready is not placed, as Kubernetes separates it: unschedulable
// (not now: the devices that can run it are out, or the policy is waiting for one to
// free up) from unresolvable (never: no device of the cluster can run it).
enum class PlacementStatus { placed, unschedulable, unresolvable };
struct PlacementVerdict {
  PlacementStatus status = PlacementStatus::placed;
  std::string reason;  // empty when placed
};

class SchedulingLoop final : private AssignmentSink {
 public:
  // `policy` decides for every job that arrives without its own.
  SchedulingLoop(const Cluster& cluster, const TaskGraph& graph, const PerfModel& perf,
                 SchedulingPolicy& policy, Backend& backend);

  // The job's tasks are in the graph: a static planner places them now, and those
  // without predecessors wait for the next decide(). `policy` (null: the loop's own)
  // decides for this job from now on; it must outlive the loop.
  void job_arrived(JobIndex job, double now, SchedulingPolicy* policy = nullptr);
  // Nodes were added to the cluster; their devices are free from now.
  void cluster_grew(double now);
  void task_started(TaskIndex task, double now);
  void task_finished(TaskIndex task, double now) {
    task_finished(task, now, [](const Dependency&) {});
  }
  // The same, calling `each_successor(edge)` for each of the task's out-edges right after
  // the edge's consumer counted it down: a backend that starts placed tasks (the
  // simulator) sends each consumer its input and tries it then, when the consumers after
  // it in the list still wait for this task, as they do until their input is sent.
  template <class EachSuccessor>
  void task_finished(TaskIndex task, double now, EachSuccessor&& each_successor);
  // Offers the ready, unplaced tasks to the policy. Call once after each instant's events.
  void decide(double now);

  std::size_t waiting_count() const { return waiting_.size(); }
  std::size_t finished_count() const { return finished_count_; }
  DeviceId placement(TaskIndex t) const { return placement_[t]; }
  std::uint8_t pstate(TaskIndex t) const { return pstate_[t]; }
  TaskState state(TaskIndex t) const { return state_[t]; }
  // Predecessors of the task not finished yet.
  std::uint32_t unfinished_predecessors(TaskIndex t) const { return unfinished_predecessors_[t]; }
  const SchedulingPolicy& policy() const { return *policy_; }
  std::span<const TaskIndex> waiting() const { return waiting_; }
  double predicted_finish(TaskIndex t) const { return finish_[t]; }
  // Ask the processor to fetch what task_finished reads of a task (its placement, state,
  // finish) or of its device (free time, outstanding work): a simulator knows its next
  // event before it carries out the current one.
  void prefetch_task(TaskIndex t) const {
    __builtin_prefetch(&placement_[t]);
    __builtin_prefetch(&state_[t]);
    __builtin_prefetch(&finish_[t]);
  }
  // ... and what a backend reads of a placed task it is about to start.
  void prefetch_start(TaskIndex t) const {
    __builtin_prefetch(&unfinished_predecessors_[t]);
    __builtin_prefetch(&pstate_[t]);
    __builtin_prefetch(&state_[t]);
  }
  void prefetch_device(DeviceId d) const {
    __builtin_prefetch(&device_available_[d]);
    __builtin_prefetch(&device_outstanding_[d]);
  }
  // Placed tasks not yet finished, plus reservations.
  bool device_idle(DeviceId d) const { return device_outstanding_[d] == 0; }
  // Why a waiting task is not placed (unschedulable or unresolvable), or placed.
  PlacementVerdict verdict(TaskIndex task) const;

  // Work the loop does not place (a service's gang of devices) holds the device until
  // about `until`: policies see it busy until then, and it counts as outstanding.
  void reserve(DeviceId device, double until);
  void unreserve(DeviceId device, double now);

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
  // The task runs on another device than planned (a replica won, the backend sent it
  // elsewhere after a failure, an idle worker stole it). With a predicted finish, that
  // device is busy until then in the policies' view.
  void relocate(TaskIndex task, DeviceId device, double predicted_finish = kNotPredicted);
  // A task already running on `device` when the loop learns of it (a service's
  // restart finds it on the engine): placed and running, nothing is launched.
  void adopt(TaskIndex task, DeviceId device, double predicted_finish);
  // The task's job ended without it: never offered again.
  void cancel(TaskIndex task);
  bool cancelled(TaskIndex task) const { return cancelled_[task]; }
  std::size_t refused_count() const { return refused_count_; }

 private:
  void assign(const Assignment& assignment) override;
  ClusterSnapshot snapshot(double now) const;
  void grow();  // to the graph's tasks and the cluster's devices
  SchedulingPolicy& policy_of(TaskIndex t) const;
  // One task or reservation fewer on the device. Predictions drift from reality; once a
  // device has nothing left (and is up), reality wins: it is free from `now`.
  void release(DeviceId d, double now);
  // The device is free from `now`. One whose predicted free time goes down is listed for
  // the policies' indexes (ClusterSnapshot::availability_lowered).
  void reset_available(DeviceId d, double now);

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
  std::vector<DeviceId> lowered_;      // devices whose predicted free time went down, in order
  std::uint64_t lowered_dropped_ = 0;  // entries cleared from the front of lowered_
  LargeVector<TaskIndex> waiting_;     // ready and unplaced
  std::size_t finished_count_ = 0;
  std::vector<bool> down_;       // per device
  std::vector<bool> cancelled_;  // per task
  std::size_t refused_count_ = 0;
  // Per job, when some job has its own policy (null: the loop's).
  std::vector<SchedulingPolicy*> job_policy_;
  std::vector<TaskIndex> offered_;  // scratch: one policy's share of the waiting tasks
};

template <class EachSuccessor>
void SchedulingLoop::task_finished(TaskIndex task, double now, EachSuccessor&& each_successor) {
  now_ = now;
  state_[task] = TaskState::finished;
  finish_[task] = now;
  ++finished_count_;
  release(placement_[task], now);
  for (const Dependency& s : graph_.successors(task)) {
    if (--unfinished_predecessors_[s.task] == 0 && state_[s.task] == TaskState::pending &&
        !cancelled_[s.task]) {
      state_[s.task] = TaskState::ready;
      waiting_.push_back(s.task);
      graph_.prefetch_ready_task(s.task);
    }
    each_successor(s);
  }
}

}  // namespace hetsched
