#include "hetsched/backend/scheduling_loop.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "hetsched/core/reserve_touched.hpp"
#include "hetsched/workload/feasibility.hpp"

namespace hetsched {

SchedulingLoop::SchedulingLoop(const Cluster& cluster, const TaskGraph& graph,
                               const PerfModel& perf, SchedulingPolicy& policy, Backend& backend)
    : cluster_(cluster),
      graph_(graph),
      perf_(perf),
      policy_(&policy),
      backend_(backend),
      placement_(graph.task_count(), kUnplaced),
      pstate_(graph.task_count(), 0),
      state_(graph.task_count(), TaskState::pending),
      finish_(graph.task_count(), 0.0),
      unfinished_predecessors_(graph.task_count()),
      device_available_(cluster.device_count(), 0.0),
      device_outstanding_(cluster.device_count(), 0),
      down_(cluster.device_count(), false),
      cancelled_(graph.task_count(), false) {
  for (TaskIndex t = 0; t < graph.task_count(); ++t)
    unfinished_predecessors_[t] = static_cast<std::uint32_t>(graph.predecessors(t).size());
  // Room for every task to wait at once: a real-time backend (the local runtime) must
  // not pay for this list's growth while it runs.
  reserve_touched(waiting_, graph.task_count());
}

void SchedulingLoop::grow() {
  const std::size_t tasks = graph_.task_count(), known = placement_.size();
  if (tasks > known) {
    placement_.resize(tasks, kUnplaced);
    pstate_.resize(tasks, 0);
    state_.resize(tasks, TaskState::pending);
    finish_.resize(tasks, 0.0);
    unfinished_predecessors_.resize(tasks);
    cancelled_.resize(tasks, false);
    for (auto t = static_cast<TaskIndex>(known); t < tasks; ++t)
      unfinished_predecessors_[t] = static_cast<std::uint32_t>(graph_.predecessors(t).size());
  }
  const std::size_t devices = cluster_.device_count();
  if (devices > device_available_.size()) {
    device_available_.resize(devices, now_);
    device_outstanding_.resize(devices, 0);
    down_.resize(devices, false);
  }
}

ClusterSnapshot SchedulingLoop::snapshot(double now) const {
  return ClusterSnapshot{now,     cluster_, graph_,  perf_,    device_available_, placement_,
                         pstate_, state_,   finish_, lowered_, lowered_dropped_};
}

void SchedulingLoop::release(DeviceId d, double now) {
  if (--device_outstanding_[d] == 0 && !down_[d]) reset_available(d, now);
}

void SchedulingLoop::reset_available(DeviceId d, double now) {
  if (now < device_available_[d]) {
    // Indexes read the entries added since they last looked; the list is bounded, and an
    // index that finds entries it missed dropped from the front rebuilds from the values.
    if (lowered_.size() >= std::max<std::size_t>(1024, device_available_.size())) {
      lowered_dropped_ += lowered_.size();
      lowered_.clear();
    }
    lowered_.push_back(d);
  }
  device_available_[d] = now;
}

SchedulingPolicy& SchedulingLoop::policy_of(TaskIndex t) const {
  const JobIndex j = graph_.job_of(t);
  if (j >= job_policy_.size() || job_policy_[j] == nullptr) return *policy_;
  return *job_policy_[j];
}

void SchedulingLoop::job_arrived(JobIndex job, double now, SchedulingPolicy* policy) {
  now_ = now;
  grow();
  if (policy == policy_) policy = nullptr;
  if (policy != nullptr || !job_policy_.empty()) {
    job_policy_.resize(graph_.job_count(), nullptr);
    job_policy_[job] = policy;
  }
  (policy != nullptr ? *policy : *policy_).on_job_arrival(snapshot(now), job, *this);
  for (TaskIndex t = graph_.first_task(job); t < graph_.end_task(job); ++t) {
    if (unfinished_predecessors_[t] != 0) continue;
    if (state_[t] == TaskState::pending) {
      state_[t] = TaskState::ready;
      waiting_.push_back(t);
    }
  }
}

void SchedulingLoop::cluster_grew(double now) {
  now_ = now;
  grow();
}

void SchedulingLoop::task_started(TaskIndex task, double /*now*/) {
  state_[task] = TaskState::running;
}

void SchedulingLoop::decide(double now) {
  now_ = now;
  if (waiting_.empty()) return;
  // Where each waiting task's inputs are and when they were made is what a policy reads
  // of its predecessors: asked for all at once (their records were asked for when the
  // tasks became ready), rather than one cache miss after another.
  for (TaskIndex t : waiting_)
    for (const Dependency& p : graph_.predecessors(t)) {
      __builtin_prefetch(&placement_[p.task]);
      __builtin_prefetch(&finish_[p.task]);
    }
  if (job_policy_.empty()) {
    policy_->on_tasks_ready(snapshot(now), waiting_, *this);
  } else {
    // Each policy is offered its own jobs' tasks, in order of its first waiting task.
    std::vector<SchedulingPolicy*> policies;
    for (TaskIndex t : waiting_)
      if (SchedulingPolicy* p = &policy_of(t);
          std::find(policies.begin(), policies.end(), p) == policies.end())
        policies.push_back(p);
    for (SchedulingPolicy* p : policies) {
      offered_.clear();
      for (TaskIndex t : waiting_)
        if (&policy_of(t) == p && placement_[t] == kUnplaced) offered_.push_back(t);
      p->on_tasks_ready(snapshot(now), offered_, *this);
    }
  }
  std::erase_if(waiting_, [&](TaskIndex t) { return placement_[t] != kUnplaced; });
}

void SchedulingLoop::assign(const Assignment& a) {
  if (a.task >= placement_.size() || a.device >= device_available_.size())
    throw PolicyError(fmt::format("policy '{}' assigned task {} to device {}: out of range",
                                  policy_->name(), a.task, a.device));
  const std::string_view policy_name = policy_of(a.task).name();
  const Task& task = graph_.task(a.task);
  // The checks need the spec alone: its class's stand-in, whose record stays in cache.
  const DeviceSpec& spec = cluster_.spec_stand_in(a.device).spec;
  if (down_[a.device]) {  // the policy did not see the device is out: offered again later
    ++refused_count_;
    return;
  }
  if (placement_[a.task] != kUnplaced)
    throw PolicyError(fmt::format("policy '{}' placed task '{}' twice", policy_name, task.name));
  if (!can_run(task, spec) || a.pstate >= spec.pstates.size())
    throw PolicyError(fmt::format("policy '{}' placed task '{}' on {} which cannot run it",
                                  policy_name, task.name, cluster_.device(a.device).name));
  placement_[a.task] = a.device;
  pstate_[a.task] = a.pstate;
  if (state_[a.task] != TaskState::running) state_[a.task] = TaskState::placed;
  if (a.predicted_finish_seconds != kNotPredicted) {
    finish_[a.task] = a.predicted_finish_seconds;
  } else {
    const ClusterSnapshot view = snapshot(now_);
    const double run = perf_.task_seconds(task, cluster_.device(a.device), a.pstate);
    const double earliest = view.data_ready_seconds(a.task, a.device);
    const double start = a.planned_start_seconds == kAppend
                             ? std::max(device_available_[a.device], earliest)
                             : std::max(a.planned_start_seconds, earliest);
    finish_[a.task] = start + run;
  }
  device_available_[a.device] = std::max(device_available_[a.device], finish_[a.task]);
  ++device_outstanding_[a.device];
  backend_.launch(a);
}

std::vector<TaskIndex> SchedulingLoop::device_down(DeviceId device, double now) {
  now_ = now;
  std::vector<TaskIndex> unplaced;
  if (down_[device]) return unplaced;
  down_[device] = true;
  device_available_[device] = std::numeric_limits<double>::infinity();
  for (TaskIndex t = 0; t < placement_.size(); ++t) {
    if (placement_[t] != device || state_[t] != TaskState::placed) continue;
    unplace(t);
    offer_again(t);
    unplaced.push_back(t);
  }
  return unplaced;
}

void SchedulingLoop::device_up(DeviceId device, double now) {
  now_ = now;
  if (!down_[device]) return;
  down_[device] = false;
  reset_available(device, now);
}

void SchedulingLoop::unplace(TaskIndex task) {
  const DeviceId d = placement_[task];
  if (d == kUnplaced) return;
  placement_[task] = kUnplaced;
  state_[task] = TaskState::pending;
  release(d, now_);
}

void SchedulingLoop::offer_again(TaskIndex task) {
  if (cancelled_[task] || placement_[task] != kUnplaced) return;
  if (unfinished_predecessors_[task] != 0) {
    state_[task] = TaskState::pending;
    return;
  }
  if (state_[task] == TaskState::ready) return;  // already waiting
  state_[task] = TaskState::ready;
  waiting_.push_back(task);
}

void SchedulingLoop::relocate(TaskIndex task, DeviceId device, double predicted_finish) {
  const DeviceId from = placement_[task];
  if (from == device) return;
  if (from != kUnplaced) release(from, now_);
  placement_[task] = device;
  ++device_outstanding_[device];
  if (predicted_finish == kNotPredicted) return;
  finish_[task] = predicted_finish;
  device_available_[device] = std::max(device_available_[device], predicted_finish);
}

void SchedulingLoop::adopt(TaskIndex task, DeviceId device, double predicted_finish) {
  grow();
  placement_[task] = device;
  pstate_[task] = 0;
  state_[task] = TaskState::running;
  finish_[task] = predicted_finish;
  device_available_[device] = std::max(device_available_[device], predicted_finish);
  ++device_outstanding_[device];
}

void SchedulingLoop::reserve(DeviceId device, double until) {
  device_available_[device] = std::max(device_available_[device], until);
  ++device_outstanding_[device];
}

void SchedulingLoop::unreserve(DeviceId device, double now) {
  now_ = now;
  release(device, now);
}

PlacementVerdict SchedulingLoop::verdict(TaskIndex t) const {
  if (placement_[t] != kUnplaced) return {};
  const Task& task = graph_.task(t);
  bool can_run_somewhere = false;
  for (const Device& d : cluster_.devices()) {
    if (perf_.task_seconds(task, d, 0) == kCannotRun) continue;
    can_run_somewhere = true;
    if (!down_[d.id]) {
      if (unfinished_predecessors_[t] != 0)
        return {PlacementStatus::unschedulable,
                fmt::format("task '{}' waits for its inputs", task.name)};
      return {PlacementStatus::unschedulable,
              fmt::format("policy '{}' keeps task '{}' waiting for a device to free up",
                          policy_of(t).name(), task.name)};
    }
  }
  if (can_run_somewhere)
    return {PlacementStatus::unschedulable,
            fmt::format("no device that can run task '{}' is up", task.name)};
  const Status runnable = check_runnable(task, cluster_);
  const std::string why =
      runnable ? "its cost matrix gives no device of the cluster" : runnable.error();
  return {PlacementStatus::unresolvable,
          fmt::format("no device of the cluster can run task '{}': {}", task.name, why)};
}

void SchedulingLoop::cancel(TaskIndex task) {
  if (state_[task] == TaskState::finished) return;
  unplace(task);
  cancelled_[task] = true;
  state_[task] = TaskState::pending;
  std::erase(waiting_, task);
}

}  // namespace hetsched
