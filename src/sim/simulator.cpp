#include "hetsched/sim/simulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "fault_tolerance.hpp"
#include "hetsched/core/input_error.hpp"
#include "power_capping.hpp"
#include "simulation_kernel.hpp"
#include "thermal_throttling.hpp"

namespace hetsched {

template <typename Extension>
void Simulator::add_extension() {
  const auto event_base = static_cast<std::uint32_t>((extensions_.size() + 1) *
                                                     SimulationExtension::kEventKindsPerExtension);
  extensions_.push_back(std::make_unique<Extension>(SimulationKernel(*this), event_base));
}

Simulator::Simulator(const Cluster& cluster, const Workload& workload, const PerfModel& perf,
                     SchedulingPolicy& policy, SimulationOptions options)
    : cluster_(cluster),
      perf_(perf),
      own_graph_(std::make_unique<TaskGraph>(workload)),
      graph_(*own_graph_),
      options_(std::move(options)),
      own_loop_(std::make_unique<SchedulingLoop>(cluster, graph_, perf, policy, *this)),
      loop_(*own_loop_),
      noise_(options_.noise, options_.seed),
      model_predicts_by_spec_(perf.predicts_by_spec()) {
  if (auto ok = check_duration_noise(options_.noise); !ok) throw InputError(ok.error());
  if (options_.thermal.enabled) add_extension<ThermalThrottling>();
  if (options_.power_capped()) add_extension<PowerCapping>();
  cluster_grew();
  graph_grew();
}

Simulator::Simulator(const Cluster& cluster, TaskGraph& graph, const PerfModel& perf,
                     SchedulingLoop& loop, SimulationObserver& observer, SimulationOptions options)
    : cluster_(cluster),
      perf_(perf),
      graph_(graph),
      options_(std::move(options)),
      loop_(loop),
      observer_(&observer),
      noise_(options_.noise, options_.seed),
      model_predicts_by_spec_(perf.predicts_by_spec()) {
  if (auto ok = check_duration_noise(options_.noise); !ok) throw InputError(ok.error());
  if (options_.faults.enabled)
    throw InputError("the open-world simulator (the service's twin) does not inject faults");
  if (options_.power_capped())
    throw InputError("the open-world simulator (the service's twin) has no power cap");
  options_.record_schedule = false;  // the owner keeps its own records
  if (options_.thermal.enabled) add_extension<ThermalThrottling>();
  cluster_grew();
  graph_grew();
}

void Simulator::cluster_grew() {
  const std::size_t first = devices_.size();
  devices_.reserve(cluster_.device_count());
  nics_.resize(cluster_.node_count());
  node_watts_.resize(cluster_.node_count(), 0.0);
  for (DeviceId d = static_cast<DeviceId>(first); d < cluster_.device_count(); ++d) {
    const DeviceSpec& spec = cluster_.device(d).spec;
    DeviceState& device = devices_.emplace_back();
    device.watts = spec.idle_watts;
    cluster_watts_ += spec.idle_watts;
    node_watts_[cluster_.node_of(d)] += spec.idle_watts;
  }
  for (const auto& extension : extensions_) extension->devices_added(static_cast<DeviceId>(first));
  report_.peak_power_watts = std::max(report_.peak_power_watts, cluster_watts_);
  for (double w : node_watts_)
    report_.peak_node_power_watts = std::max(report_.peak_node_power_watts, w);
}

void Simulator::graph_grew() {
  runs_.resize(graph_.task_count());
  job_spans_.resize(graph_.job_count());
}

void Simulator::launch(const Assignment& a) {
  if (!defer_launches_) {
    launch_now(a);
    return;
  }
  prefetch_device_state(a.device);
  deferred_launch(asked_++) = a;
  // Halfway, the device's record is in: the back of its queue can be asked for.
  if (asked_ - launched_ > kLaunchesInFlight / 2)
    devices_[deferred_launch(asked_ - 1 - kLaunchesInFlight / 2).device].queue.prefetch_back();
  if (asked_ - launched_ > kLaunchesInFlight) launch_now(deferred_launch(launched_++));
}

void Simulator::decide_and_launch() {
  defer_launches_ = extensions_.empty() && observer_ == nullptr;
  loop_.decide(now_);
  defer_launches_ = false;
  while (launched_ < asked_) launch_now(deferred_launch(launched_++));
}

void Simulator::launch_now(const Assignment& a) {
  const double key = a.planned_start_seconds == kAppend ? now_ : a.planned_start_seconds;
  const bool at_front = devices_[a.device].queue.push(key, a.task);
  const Task& task = graph_.task(a.task);
  TaskRun& run = runs_[a.task];
  run.seconds = actual_seconds(a.task, a.device, a.pstate);
  run.watts = watts(a.task, a.device, a.pstate);
  if (task.input_bytes > 0)
    send_input(a.task, graph_.job(graph_.job_of(a.task)).data_node, kUnplaced, task.input_bytes);
  for (const Dependency& p : graph_.predecessors(a.task))
    if (loop_.state(p.task) == TaskState::finished)
      send_input(a.task, cluster_.node_of(loop_.placement(p.task)), loop_.placement(p.task),
                 p.bytes);
  // Behind other tasks it changes nothing the device's head waits for, and the kernel
  // alone (no extension, no owner moving tasks) has nothing new to start.
  if (at_front || !extensions_.empty() || observer_ != nullptr) try_start(a.device);
}

// Moves `bytes` to the consumer's device: nothing to do on the same device, the
// node's link inside a node, and across nodes the two NICs, each serving one
// transfer at a time per direction (latency overlaps, bandwidth does not).
void Simulator::send_input(TaskIndex consumer, NodeId from_node, DeviceId from_device,
                           double bytes) {
  const DeviceId to = loop_.placement(consumer);
  if (from_device == to || bytes <= 0) return;
  const NodeId to_node = cluster_.node_of(to);
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
  double& ready = runs_[consumer].inputs_ready_at;
  ready = std::max(ready, arrival);
}

void Simulator::try_start(DeviceId d) {
  DeviceState& device = devices_[d];
  if (device.queue.empty() || (device.busy && extensions_.empty())) return;
  // An extension may hold the device back, or free it (a replica giving way to queued work).
  for (const auto& extension : extensions_)
    if (extension->holds_device(d)) return;
  // In an open world the owner moves and cancels tasks.
  if (observer_ != nullptr) {
    pop_stale_heads(d);
    if (device.queue.empty()) return;
  }
  if (device.busy) return;
  const TaskIndex t = device.queue.front().task;
  // The head waits for its inputs; order is kept.
  if (loop_.unfinished_predecessors(t) != 0) return;
  const TaskRun& run = runs_[t];
  if (run.inputs_ready_at > now_) {
    // Arrival times are known when a transfer is issued, so instead of an event per
    // transfer there is one wake-up for the device when its head's inputs are all in.
    if (device.wake_at != run.inputs_ready_at) {
      device.wake_at = run.inputs_ready_at;
      events_.schedule(run.inputs_ready_at, device_wake, d, 0, t);
    }
    return;
  }
  const std::uint8_t planned_pstate = loop_.pstate(t);
  std::uint8_t pstate = planned_pstate;
  for (const auto& extension : extensions_) {
    switch (extension->start_pstate(t, d, pstate)) {
      case SimulationExtension::Start::go:
        continue;
      case SimulationExtension::Start::wait:
        return;
      case SimulationExtension::Start::drop:
        device.queue.pop_front();
        try_start(d);
        return;
    }
  }
  device.queue.pop_front();
  device.busy = true;
  // The values worked out at launch, unless an extension changed the P-state.
  const bool as_planned = pstate == planned_pstate;
  double seconds = as_planned ? run.seconds : actual_seconds(t, d, pstate);
  for (const auto& extension : extensions_) seconds = extension->task_starting(t, d, seconds);
  const double draw = as_planned ? run.watts : watts(t, d, pstate);
  device.running_start = now_;
  device.running_joules = draw * seconds;
  device.running = t;
  device.running_pstate = pstate;
  device.segment_start = now_;
  device.segment_seconds = seconds;
  device.done_fraction = 0;
  set_device_watts(d, draw);
  loop_.task_started(t, now_);
  if (observer_ != nullptr) observer_->task_started(t, d, now_);
  device.expected_finish = now_ + seconds;
  // The task the device should start next, read for its finish.
  const TaskIndex next = device.queue.empty() ? Event::kNoHint : device.queue.front().task;
  events_.schedule(now_ + seconds, task_finish, t, d, next);
  for (const auto& extension : extensions_) extension->task_started(t, d);
}

DeviceId Simulator::device_of(const Event& event) {
  return event.kind == task_finish   ? event.detail
         : event.kind == device_wake ? event.subject
                                     : kUnplaced;
}

void Simulator::prefetch_ahead() const {
  const Event next = events_.top();
  Event after;
  prefetch_records(events_.after_top(after) ? after : next);
  // The next event's device record was asked for an event ago: the head of its queue,
  // kept apart, can be asked for now.
  if (const DeviceId d = device_of(next); d != kUnplaced) devices_[d].queue.prefetch_front();
}

void Simulator::prefetch_records(const Event& event) const {
  const DeviceId d = device_of(event);
  if (d == kUnplaced) return;
  prefetch_device_state(d);
  loop_.prefetch_device(d);
  if (event.kind == task_finish) {
    loop_.prefetch_task(event.subject);
    graph_.prefetch_task(event.subject);
  }
  // The device's next task, as it was when the event was scheduled: what try_start reads.
  if (event.hint != Event::kNoHint) {
    __builtin_prefetch(&runs_[event.hint]);
    loop_.prefetch_start(event.hint);
  }
}

void Simulator::prefetch_device_state(DeviceId d) const {
  const auto* state = reinterpret_cast<const char*>(&devices_[d]);
  for (std::size_t offset = 0; offset < sizeof(DeviceState); offset += 64)
    __builtin_prefetch(state + offset);
  __builtin_prefetch(state + sizeof(DeviceState) - 1);
}

void Simulator::set_device_watts(DeviceId d, double watts) {
  DeviceState& device = devices_[d];
  for (const auto& extension : extensions_) extension->device_power_changing(d);
  cluster_watts_ += watts - device.watts;
  double& node = node_watts_[cluster_.node_of(d)];
  node += watts - device.watts;
  device.watts = watts;
  report_.peak_power_watts = std::max(report_.peak_power_watts, cluster_watts_);
  report_.peak_node_power_watts = std::max(report_.peak_node_power_watts, node);
  if (options_.record_schedule) {  // one sample per instant: its last value holds
    if (!report_.power.empty() && report_.power.back().seconds == now_)
      report_.power.back().watts = cluster_watts_;
    else
      report_.power.push_back(PowerSample{now_, cluster_watts_});
  }
}

void Simulator::set_device_idle(DeviceId d) {
  set_device_watts(d, cluster_.spec_stand_in(d).spec.idle_watts);
}

void Simulator::charge_busy(DeviceId d, double seconds, double watts) {
  DeviceState& device = devices_[d];
  device.busy_seconds += seconds;
  device.busy_joules += seconds * watts;
}

void Simulator::change_running_pstate(DeviceId d, std::uint8_t pstate) {
  DeviceState& device = devices_[d];
  const TaskIndex t = device.running;
  device.done_fraction += (now_ - device.segment_start) / device.segment_seconds;
  device.running_joules -= device.watts * (device.expected_finish - now_);
  device.running_pstate = pstate;
  device.segment_start = now_;
  device.segment_seconds = actual_seconds(t, d, pstate);
  const double remaining = std::max(0.0, 1 - device.done_fraction) * device.segment_seconds;
  const double draw = watts(t, d, pstate);
  device.running_joules += draw * remaining;
  set_device_watts(d, draw);
  device.expected_finish = now_ + remaining;
  events_.schedule(device.expected_finish, task_finish, t, d);
}

double Simulator::actual_seconds(TaskIndex t, DeviceId d, std::uint8_t pstate) const {
  const Task& task = graph_.task(t);
  return perf_.task_seconds(task, model_device(task, d), pstate) * noise_.factor(t);
}

double Simulator::watts(TaskIndex t, DeviceId d, std::uint8_t pstate) const {
  const Task& task = graph_.task(t);
  return perf_.task_watts(task, model_device(task, d), pstate);
}

const Device& Simulator::model_device(const Task& task, DeviceId d) const {
  return model_predicts_by_spec_ && task.cost_seconds.empty() ? cluster_.spec_stand_in(d)
                                                              : cluster_.device(d);
}

void Simulator::finish(TaskIndex t) {
  for (const auto& extension : extensions_) extension->task_finishing(t);
  const DeviceId d = loop_.placement(t);
  DeviceState& device = devices_[d];
  device.busy = false;
  set_device_idle(d);
  JobSpan& span = job_spans_[graph_.job_of(t)];
  span.first_start = std::min(span.first_start, device.running_start);
  span.completion = std::max(span.completion, now_);
  device.busy_seconds += now_ - device.running_start;
  device.busy_joules += device.running_joules;
  ++device.tasks;
  if (options_.record_schedule)
    report_.schedule.push_back(
        TaskRecord{t, d, device.running_pstate, device.running_start, now_, device.running_joules});
  if (observer_ != nullptr) observer_->task_finished(t, d, now_, device.running_joules);
  // Each placed consumer gets its input and is tried as the loop counts it down.
  loop_.task_finished(t, now_, [&](const Dependency& s) {
    const DeviceId consumer_device = loop_.placement(s.task);
    if (consumer_device == kUnplaced) return;
    send_input(s.task, cluster_.node_of(d), d, s.bytes);
    if (consumer_device != d) try_start(consumer_device);
  });
  try_start(d);
  for (const auto& extension : extensions_) extension->task_finished(t, d);
}

double Simulator::next_instant() const {
  return events_.empty() ? std::numeric_limits<double>::infinity() : events_.top().time;
}

void Simulator::advance_clock(double time) {
  if (time > now_ && time <= next_instant()) now_ = time;
}

// Every event of the next instant; the loop decides once over what they changed.
void Simulator::run_instant() {
  if (events_.empty()) return;
  now_ = events_.top().time;
  while (!events_.empty() && events_.top().time == now_) {
    const Event e = events_.pop();
    ++report_.events;
    if (!events_.empty()) prefetch_ahead();
    if (e.kind >= SimulationExtension::kEventKindsPerExtension) {
      extensions_[e.kind / SimulationExtension::kEventKindsPerExtension - 1]->event(e);
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
        // A finish is stale when a change of P-state moved it, a failure ended the
        // attempt or the owner stopped the task.
        if (finish_is_due(e) &&
            std::all_of(extensions_.begin(), extensions_.end(), [&](const auto& extension) {
              return extension->finish_is_current(e.subject);
            }))
          finish(e.subject);
        break;
    }
  }
}

bool Simulator::finish_is_due(const Event& e) const {
  const DeviceId d = loop_.placement(e.subject);
  if (d == kUnplaced) return false;
  const DeviceState& device = devices_[d];
  return device.busy && device.running == e.subject && device.expected_finish == e.time;
}

std::optional<TaskIndex> Simulator::stop(DeviceId d) {
  DeviceState& device = devices_[d];
  if (!device.busy) return std::nullopt;
  const TaskIndex t = device.running;
  device.busy = false;
  charge_busy(d, now_ - device.running_start, device.watts);
  set_device_idle(d);
  try_start(d);
  return t;
}

void Simulator::pop_stale_heads(DeviceId d) {
  PlannedQueue& queue = devices_[d].queue;
  while (!queue.empty() && (loop_.placement(queue.front().task) != d ||
                            loop_.state(queue.front().task) != TaskState::placed))
    queue.pop_front();
}

RunReport Simulator::run() {
  for (JobIndex j = 0; j < graph_.job_count(); ++j)
    events_.schedule(graph_.job(j).arrival_seconds, job_arrival, j);
  if (options_.record_schedule) {
    report_.schedule.reserve(graph_.task_count());
    report_.power.push_back(PowerSample{0.0, cluster_watts_});
  }
  std::size_t next_progress = 1 << 16;
  if (options_.faults.enabled) add_extension<FaultTolerance>();
  for (const auto& extension : extensions_) extension->run_starting();
  const auto settled = [&] {
    return std::any_of(extensions_.begin(), extensions_.end(),
                       [](const auto& extension) { return extension->run_settled(); });
  };
  while (!events_.empty()) {
    if (settled()) break;
    run_instant();
    decide_and_launch();
    for (const auto& extension : extensions_) extension->loop_decided();
    if (options_.progress && loop_.finished_count() >= next_progress) {
      options_.progress(loop_.finished_count(), graph_.task_count());
      next_progress = loop_.finished_count() + (1 << 16);
    }
  }

  // Accounting over the run.
  RunReport& r = report_;
  // Checkpoints are known when their attempt ends, after later events were marked.
  std::stable_sort(
      r.marks.begin(), r.marks.end(),
      [](const TimelineMark& a, const TimelineMark& b) { return a.seconds < b.seconds; });
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
    const JobSpan& span = job_spans_[j];
    const bool started = span.completion >= span.first_start;  // a task of it finished
    out.first_start_seconds = started ? span.first_start : job.arrival_seconds;
    out.completion_seconds = std::max(job.arrival_seconds, span.completion);
    for (TaskIndex t = graph_.first_task(j); t < graph_.end_task(j); ++t)
      if (loop_.state(t) != TaskState::finished)
        r.unfinished_tasks.push_back(job.name + "/" + graph_.task(t).name);
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
  for (const auto& extension : extensions_) extension->complete_report(r);
  return std::move(report_);
}

}  // namespace hetsched
