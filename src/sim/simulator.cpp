#include "hetsched/sim/simulator.hpp"

#include <algorithm>

namespace hetsched {

Simulator::Simulator(const Cluster& cluster, const Workload& workload, const PerfModel& perf,
                     SchedulingPolicy& policy, SimulationOptions options)
    : cluster_(cluster),
      perf_(perf),
      graph_(workload),
      options_(std::move(options)),
      loop_(cluster, graph_, perf, policy, *this),
      devices_(cluster.device_count()),
      nics_(cluster.node_count()),
      unfinished_predecessors_(graph_.task_count()),
      inputs_ready_at_(graph_.task_count(), 0.0),
      wake_at_(cluster.device_count(), -1.0),
      start_(graph_.task_count(), 0.0),
      finish_(graph_.task_count(), 0.0),
      joules_(graph_.task_count(), 0.0) {
  for (TaskIndex t = 0; t < graph_.task_count(); ++t)
    unfinished_predecessors_[t] = static_cast<std::uint32_t>(graph_.predecessors(t).size());
}

void Simulator::launch(const Assignment& a) {
  const double key = a.planned_start_seconds == kAppend ? now_ : a.planned_start_seconds;
  devices_[a.device].queue.push(key, launch_sequence_++, a.task);
  const Task& task = graph_.task(a.task);
  if (task.input_bytes > 0)
    send_input(a.task, graph_.job(graph_.job_of(a.task)).data_node, kUnplaced, task.input_bytes);
  for (const Dependency& p : graph_.predecessors(a.task))
    if (loop_.state(p.task) == TaskState::finished)
      send_input(a.task, cluster_.device(loop_.placement(p.task)).node, loop_.placement(p.task),
                 p.bytes);
  try_start(a.device);
}

// Moves `bytes` to the consumer's device: nothing to do on the same device, the
// node's link inside a node, and across nodes the two NICs, each serving one
// transfer at a time per direction (latency overlaps, bandwidth does not).
void Simulator::send_input(TaskIndex consumer, NodeId from_node, DeviceId from_device,
                           double bytes) {
  const DeviceId to = loop_.placement(consumer);
  if (from_device == to || bytes <= 0) return;
  const NodeId to_node = cluster_.device(to).node;
  double start = now_, arrival;
  if (from_node == to_node) {
    arrival = now_ + cluster_.path_latency(from_node, to_node) +
              bytes / cluster_.path_bandwidth(from_node, to_node);
  } else {
    start = std::max({now_, nics_[from_node].out_free, nics_[to_node].in_free});
    const double wire = bytes / cluster_.path_bandwidth(from_node, to_node);
    nics_[from_node].out_free = nics_[to_node].in_free = start + wire;
    arrival = start + wire + cluster_.path_latency(from_node, to_node);
  }
  ++report_.transfer_count;
  report_.transfer_bytes += bytes;
  report_.transfer_seconds += arrival - now_;
  if (options_.record_schedule)
    report_.transfers.push_back(TransferRecord{consumer, from_node, to, bytes, start, arrival});
  inputs_ready_at_[consumer] = std::max(inputs_ready_at_[consumer], arrival);
}

void Simulator::try_start(DeviceId d) {
  DeviceState& device = devices_[d];
  if (device.busy || device.queue.empty()) return;
  if (fault_ && cannot_start(d)) return;
  const TaskIndex t = device.queue.top();
  if (unfinished_predecessors_[t] != 0) return;  // the head waits for its inputs; order is kept
  if (inputs_ready_at_[t] > now_) {
    // Arrival times are known when a transfer is issued, so instead of an event per
    // transfer there is one wake-up for the device when its head's inputs are all in.
    if (wake_at_[d] != inputs_ready_at_[t]) {
      wake_at_[d] = inputs_ready_at_[t];
      events_.schedule(inputs_ready_at_[t], device_wake, d);
    }
    return;
  }
  device.queue.pop();
  device.busy = true;
  const Task& task = graph_.task(t);
  const Device& dev = cluster_.device(d);
  const std::uint8_t pstate = loop_.pstate(t);
  double seconds = perf_.task_seconds(task, dev, pstate);
  if (fault_) seconds = begin_attempt(t, d, seconds);
  start_[t] = now_;
  joules_[t] = perf_.task_watts(task, dev, pstate) * seconds;
  loop_.task_started(t, now_);
  events_.schedule(now_ + seconds, task_finish, t);
}

void Simulator::finish(TaskIndex t) {
  if (fault_) attempt_completed(t);
  const DeviceId d = loop_.placement(t);
  DeviceState& device = devices_[d];
  device.busy = false;
  finish_[t] = now_;
  device.busy_seconds += now_ - start_[t];
  device.busy_joules += joules_[t];
  ++device.tasks;
  if (options_.record_schedule)
    report_.schedule.push_back(TaskRecord{t, d, loop_.pstate(t), start_[t], now_, joules_[t]});
  loop_.task_finished(t, now_);
  for (const Dependency& s : graph_.successors(t)) {
    --unfinished_predecessors_[s.task];
    const DeviceId consumer_device = loop_.placement(s.task);
    if (consumer_device == kUnplaced) continue;
    send_input(s.task, cluster_.device(d).node, d, s.bytes);
    if (consumer_device != d) try_start(consumer_device);
  }
  try_start(d);
}

SimReport Simulator::run() {
  for (JobIndex j = 0; j < graph_.job_count(); ++j)
    events_.schedule(graph_.job(j).arrival_seconds, job_arrival, j);
  events_.reserve(graph_.job_count() + 2 * cluster_.device_count());
  if (options_.record_schedule) report_.schedule.reserve(graph_.task_count());
  std::size_t next_progress = 1 << 16;
  if (options_.faults.enabled) start_faults();
  while (!events_.empty()) {
    if (fault_ && faults_settled()) break;
    now_ = events_.top().time;
    // Every event of this instant first, then one decision over what they changed.
    while (!events_.empty() && events_.top().time == now_) {
      const Event e = events_.pop();
      ++report_.events;
      if (e.kind >= kFaultEventBase) {
        handle_fault_event(e);
        continue;
      }
      switch (e.kind) {
        case job_arrival:
          loop_.job_arrived(e.subject, now_);
          break;
        case device_wake:
          try_start(e.subject);
          break;
        case task_finish:
          if (!fault_ || accept_finish(e.subject)) finish(e.subject);
          break;
      }
    }
    loop_.decide(now_);
    if (fault_) after_decide();
    if (options_.progress && loop_.finished_count() >= next_progress) {
      options_.progress(loop_.finished_count(), graph_.task_count());
      next_progress = loop_.finished_count() + (1 << 16);
    }
  }

  // Accounting over the run.
  SimReport& r = report_;
  r.policy = std::string(loop_.policy().name());
  r.perf_model = std::string(perf_.name());
  r.seed = options_.seed;
  r.tasks_total = graph_.task_count();
  r.tasks_completed = loop_.finished_count();
  double makespan = 0;
  r.jobs.resize(graph_.job_count());
  for (JobIndex j = 0; j < graph_.job_count(); ++j) {
    const Job& job = graph_.job(j);
    JobResult& out = r.jobs[j];
    out.name = job.name;
    out.arrival_seconds = job.arrival_seconds;
    out.deadline_seconds = job.deadline_seconds;
    out.first_start_seconds = job.arrival_seconds;
    out.completion_seconds = job.arrival_seconds;
    bool started = false;
    for (TaskIndex t = graph_.first_task(j); t < graph_.end_task(j); ++t) {
      if (loop_.state(t) != TaskState::finished) {
        r.unfinished_tasks.push_back(job.name + "/" + graph_.task(t).name);
        continue;
      }
      out.first_start_seconds = started ? std::min(out.first_start_seconds, start_[t]) : start_[t];
      out.completion_seconds = std::max(out.completion_seconds, finish_[t]);
      started = true;
    }
  }
  for (const JobResult& j : r.jobs) makespan = std::max(makespan, j.completion_seconds);
  r.makespan_seconds = makespan;
  std::array<double, kDeviceKindCount> busy_by_kind{};
  r.devices.resize(cluster_.device_count());
  for (DeviceId d = 0; d < cluster_.device_count(); ++d) {
    const DeviceState& state = devices_[d];
    const DeviceSpec& spec = cluster_.device(d).spec;
    DeviceResult& out = r.devices[d];
    out.device = d;
    out.tasks = state.tasks;
    out.busy_seconds = state.busy_seconds;
    out.busy_joules = state.busy_joules;
    out.idle_joules = spec.idle_watts * std::max(0.0, makespan - state.busy_seconds);
    r.energy_joules += out.busy_joules + out.idle_joules;
    r.cost_usd += spec.price_per_hour * makespan / 3600.0;
    const auto k = static_cast<std::size_t>(spec.kind);
    busy_by_kind[k] += state.busy_seconds;
    ++r.devices_by_kind[k];
  }
  for (std::size_t k = 0; k < kDeviceKindCount; ++k)
    r.utilization_by_kind[k] = r.devices_by_kind[k] && makespan > 0
                                   ? busy_by_kind[k] / (r.devices_by_kind[k] * makespan)
                                   : 0;
  if (fault_) finish_faults(r);
  return std::move(report_);
}

}  // namespace hetsched
