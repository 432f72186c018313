// The simulator's fault tolerance (fault/): failures, their detection, recovery.
//
// Failures come from a seeded FailureProcess (drawn lazily, one stream per device
// and kind) and from an explicit list. A crash stops a device at once: the work
// its running task did since its last checkpoint is lost, but the coordinator only
// learns of it when the heartbeats stop (HeartbeatOptions::detection_time). Then
// the device is taken out of the SchedulingLoop (it looks busy forever), the tasks
// queued on it are un-placed and offered to the policy again (re-planning), and the
// lost task is retried after an exponential backoff, from its last checkpoint,
// unless it has failed too often (the job ends: "retries exhausted") or its job's
// deadline has passed ("deadline passed"). A transient fault fails only the running
// attempt and is reported at once by the surviving worker. A partition is a crash of
// every device of a node that heals after a while; a straggler slows a device.
//
// Checkpoints (Young 1974, Daly 2006): a task checkpoints every τ seconds of work;
// each costs its state bytes over the storage bandwidth, and a restart reads it
// back for the same cost. Replication: a task of a critical job runs on up to k
// devices at once (the policy's choice plus idle devices that can run it); the
// first copy to finish wins, the others are cancelled and their time and energy
// counted as replica overhead. The predictor raises alarms ahead of crashes (and
// some false ones); an alarm drains the device: its task checkpoints and moves.
//
// Events from lost attempts and cancelled copies stay in the queue; a finish is
// recognised as stale by its task and time and dropped, and a device-queue entry
// is stale when its task no longer sits there.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "hetsched/sim/simulator.hpp"
#include "hetsched/workload/feasibility.hpp"

namespace hetsched {

namespace {
constexpr TaskIndex kNoTask = std::numeric_limits<TaskIndex>::max();
constexpr double kInfinity = std::numeric_limits<double>::infinity();

enum FaultEvent : std::uint32_t {
  failure_injected = 1000,  // subject: index into FaultRuntime::injected
  failure_detected,         // subject: device
  device_repaired,          // subject: device
  retry_ready,              // subject: task
  reoffer,                  // subject: unused
  replica_finish,           // subject: index into FaultRuntime::replicas
  predictor_alarm,          // subject: index into FaultRuntime::alarms
  alarm_cleared,            // subject: device
  clone_check,              // subject: task
};
}  // namespace

struct Simulator::FaultRuntime {
  struct Attempt {
    bool live = false;
    DeviceId device = 0;
    double start = 0;
    double work = 0;  // seconds for the whole task on this device (slowdown included)
    double restart = 0;
    double interval = kInfinity;
    double checkpoint = 0;
    double finish = 0;
  };
  struct Replica {
    TaskIndex task;
    DeviceId device;
    double start, finish, work;
    bool live;
    bool clone = false;  // started by the straggler rule (CloneOptions)
  };
  struct Alarm {
    DeviceId device;
    bool true_alarm;
  };

  std::unique_ptr<FailureProcess> process;
  Rng predictor_rng{1};
  std::vector<FailureEvent> injected;
  std::vector<Alarm> alarms;
  std::size_t failure_events_pending = 0;  // injections and alarms in the queue
  std::vector<bool> alive;                 // per device: physically up
  std::vector<TaskIndex> running;          // per device: primary attempt running there
  std::vector<std::int64_t> running_replica;
  std::vector<TaskIndex> undetected;  // per device: task lost in a crash not yet noticed
  std::vector<double> slow_until, slow_factor;
  std::vector<double> repair_at;
  std::vector<std::vector<double>> stale_finishes;
  std::vector<double> done;  // per task: fraction of its work saved by checkpoints
  std::vector<Attempt> attempt;
  std::vector<std::uint32_t> task_failures;
  std::vector<double> lost_at;
  std::vector<std::int64_t> replica_winner;
  std::vector<std::vector<std::uint32_t>> task_replicas;
  std::vector<Replica> replicas;
  std::vector<bool> critical, ended;
  std::size_t cancelled = 0;
  std::vector<TaskIndex> replica_candidates;
  std::vector<double> clone_check_at;  // per task: the pending clone check, or -1
  std::vector<double> clone_period;    // per task: a quarter of its predicted time
  std::size_t refused_seen = 0;
  std::size_t reoffers_without_start = 0;
  bool reoffer_pending = false;
  FaultReport report;
};

void Simulator::start_faults() {
  const FaultOptions& o = options_.faults;
  o.validate(cluster_);
  fault_ = std::make_shared<FaultRuntime>();
  FaultRuntime& f = *fault_;
  const std::size_t devices = cluster_.device_count(), tasks = graph_.task_count();
  f.predictor_rng = Rng(options_.seed ^ 0x7072656469637400ULL);
  f.alive.assign(devices, true);
  f.running.assign(devices, kNoTask);
  f.running_replica.assign(devices, -1);
  f.undetected.assign(devices, kNoTask);
  f.slow_until.assign(devices, 0.0);
  f.slow_factor.assign(devices, 1.0);
  f.repair_at.assign(devices, 0.0);
  f.stale_finishes.resize(tasks);
  f.done.assign(tasks, 0.0);
  f.attempt.resize(tasks);
  f.task_failures.assign(tasks, 0);
  f.lost_at.assign(tasks, -1.0);
  f.replica_winner.assign(tasks, -1);
  f.task_replicas.resize(tasks);
  f.clone_check_at.assign(tasks, -1.0);
  f.clone_period.assign(tasks, 0.0);
  f.report.cloning = o.clone.enabled;
  f.ended.assign(graph_.job_count(), false);
  f.critical.assign(graph_.job_count(), false);
  if (o.replicas > 1)
    for (JobIndex j = 0; j < graph_.job_count(); ++j)
      f.critical[j] =
          o.critical_jobs.empty() || std::find(o.critical_jobs.begin(), o.critical_jobs.end(),
                                               graph_.job(j).name) != o.critical_jobs.end();
  f.report.jobs.resize(graph_.job_count());

  const auto inject = [&](const FailureEvent& e) {
    f.injected.push_back(e);
    ++f.failure_events_pending;
    events_.schedule(e.time_seconds, failure_injected,
                     static_cast<std::uint32_t>(f.injected.size() - 1));
  };
  for (const FailureEvent& e : o.explicit_failures) inject(e);
  if (o.use_model) {
    f.process = std::make_unique<FailureProcess>(cluster_, o.model, options_.seed);
    for (std::uint32_t kind = 0; kind < 3; ++kind)
      for (DeviceId d = 0; d < cluster_.device_count(); ++d)
        if (auto e = f.process->next(static_cast<FailureKind>(kind), d, 0.0)) inject(*e);
    for (NodeId n = 0; n < cluster_.node_count(); ++n)
      if (auto e = f.process->next(FailureKind::partition, n, 0.0)) inject(*e);
  }
  if (o.predictor.enabled) {
    // True alarms for the crashes known so far; each later crash gets its own draw
    // when it is drawn. False alarms: a Poisson process per device.
    const std::size_t known = f.injected.size();
    for (std::size_t i = 0; i < known; ++i)
      if (f.injected[i].kind == FailureKind::crash &&
          f.predictor_rng.uniform() < o.predictor.recall) {
        f.alarms.push_back({f.injected[i].target, true});
        ++f.failure_events_pending;
        events_.schedule(std::max(0.0, f.injected[i].time_seconds - o.predictor.lead_seconds),
                         predictor_alarm, static_cast<std::uint32_t>(f.alarms.size() - 1));
      }
    if (o.predictor.false_alarms_per_device_hour > 0)
      for (DeviceId d = 0; d < cluster_.device_count(); ++d) {
        f.alarms.push_back({d, false});
        ++f.failure_events_pending;
        events_.schedule(
            f.predictor_rng.exponential(3600.0 / o.predictor.false_alarms_per_device_hour),
            predictor_alarm, static_cast<std::uint32_t>(f.alarms.size() - 1));
      }
  }
}

bool Simulator::accept_finish(TaskIndex task) {
  auto& stale = fault_->stale_finishes[task];
  if (auto it = std::find(stale.begin(), stale.end(), now_); it != stale.end()) {
    stale.erase(it);
    return false;
  }
  return true;
}

bool Simulator::cannot_start(DeviceId d) {
  FaultRuntime& f = *fault_;
  DeviceState& device = devices_[d];
  // An entry is stale when its task was moved off this device (re-planned, retried
  // elsewhere, cancelled) or already started from another entry on it.
  while (!device.queue.empty() && (loop_.placement(device.queue.top()) != d ||
                                   loop_.state(device.queue.top()) != TaskState::placed))
    device.queue.pop();
  return device.queue.empty() || !f.alive[d] || loop_.device_is_down(d);
}

// Forget where a task was going: its queue entry goes stale (cannot_start) and the
// inputs sent to the old device no longer count.
static void invalidate_placement(std::vector<double>& inputs_ready_at, TaskIndex t) {
  inputs_ready_at[t] = 0;  // inputs are sent again when it is placed again
}

double Simulator::begin_attempt(TaskIndex t, DeviceId d, double seconds) {
  FaultRuntime& f = *fault_;
  const FaultOptions& o = options_.faults;
  const Task& task = graph_.task(t);
  const JobIndex j = graph_.job_of(t);
  f.reoffers_without_start = 0;
  const double slow = now_ < f.slow_until[d] ? f.slow_factor[d] : 1.0;
  FaultRuntime::Attempt& a = f.attempt[t];
  a.live = true;
  a.device = d;
  a.start = now_;
  a.work = seconds * slow;
  const double state = o.checkpoint.state_bytes ? *o.checkpoint.state_bytes : task.memory_bytes;
  a.checkpoint = state / o.checkpoint.storage_bandwidth;
  a.restart = f.done[t] > 0 ? a.checkpoint : 0.0;
  a.interval = kInfinity;
  if (a.checkpoint > 0) {
    if (o.checkpoint.mode == CheckpointMode::fixed)
      a.interval = o.checkpoint.fixed_interval_seconds;
    if (o.checkpoint.mode == CheckpointMode::daly) {
      const double mtbf = o.model.mtbf_seconds(cluster_.device(d).spec);
      if (mtbf > 0 && !std::isinf(mtbf)) a.interval = daly_interval_seconds(a.checkpoint, mtbf);
    }
  }
  const double remaining = a.work * (1.0 - f.done[t]);
  const double duration =
      a.restart + checkpointed_duration_seconds(remaining, a.interval, a.checkpoint);
  a.finish = now_ + duration;
  f.running[d] = t;
  ++f.report.jobs[j].attempts;
  if (f.lost_at[t] >= 0) {
    f.report.jobs[j].recovery_seconds += now_ - f.lost_at[t];
    f.lost_at[t] = -1;
  }
  // Replicas are started after this instant's decisions (after_decide), so they
  // take only devices the policy left idle.
  if (f.critical[j] && f.task_replicas[t].empty()) f.replica_candidates.push_back(t);
  // Cloning: look again when the attempt has run `threshold` × its predicted time
  // (no check is needed if it will have ended by then).
  f.clone_check_at[t] = -1;
  if (o.clone.enabled) {
    const double predicted = a.restart + seconds * (1.0 - f.done[t]);
    const double check = now_ + o.clone.threshold * predicted;
    f.clone_period[t] = 0.25 * predicted;
    if (check < a.finish) {
      f.clone_check_at[t] = check;
      events_.schedule(check, clone_check, t);
    }
  }
  return duration;
}

namespace {
// How far an attempt got by `now`: work saved in checkpoints, time spent writing
// and reading checkpoints, checkpoints written.
struct Progress {
  double saved_work = 0, checkpoint_time = 0, elapsed_work = 0;
  std::uint32_t checkpoints = 0;
};
Progress attempt_progress(const Simulator::FaultRuntime::Attempt& a, double done, double now) {
  Progress p;
  const double elapsed = now - a.start;
  if (elapsed <= a.restart) {
    p.checkpoint_time = elapsed;
    return p;
  }
  const double after_restart = elapsed - a.restart;
  const double remaining = a.work * (1.0 - done);
  double k = 0;
  if (!std::isinf(a.interval) && a.interval < remaining) {
    const double total = std::ceil(remaining / a.interval) - 1.0;
    k = std::min(total, std::floor(after_restart / (a.interval + a.checkpoint)));
  }
  p.checkpoints = static_cast<std::uint32_t>(k);
  p.saved_work = k > 0 ? k * a.interval : 0.0;
  p.checkpoint_time = a.restart + k * a.checkpoint;
  // Time past the last completed checkpoint: work, or part of a checkpoint being written.
  const double past = k > 0 ? after_restart - k * (a.interval + a.checkpoint) : after_restart;
  p.elapsed_work = p.saved_work + std::min(past, a.interval);
  p.checkpoint_time += std::max(0.0, past - a.interval);
  return p;
}
}  // namespace

// The device is busy until `until` with the attempt (work or overhead) and then free.
static void charge_device(double& busy_seconds, double& busy_joules, double seconds, double watts) {
  busy_seconds += seconds;
  busy_joules += seconds * watts;
}

void Simulator::attempt_completed(TaskIndex t) {
  FaultRuntime& f = *fault_;
  const JobIndex j = graph_.job_of(t);
  FaultRuntime::Attempt& a = f.attempt[t];
  if (f.replica_winner[t] < 0) {
    const double remaining = a.work * (1.0 - f.done[t]);
    const double n = (!std::isinf(a.interval) && a.interval < remaining)
                         ? std::ceil(remaining / a.interval) - 1.0
                         : 0.0;
    f.report.useful_device_seconds += remaining;
    f.report.checkpoint_device_seconds += a.restart + n * a.checkpoint;
    f.report.jobs[j].checkpoints += static_cast<std::uint32_t>(n);
  } else {
    const FaultRuntime::Replica& w = f.replicas[static_cast<std::size_t>(f.replica_winner[t])];
    f.report.useful_device_seconds += w.work * (1.0 - f.done[t]);
    f.report.checkpoint_device_seconds += f.done[t] > 0 ? a.checkpoint : 0.0;
  }
  a.live = false;
  if (f.running[a.device] == t) f.running[a.device] = kNoTask;
  f.done[t] = 1.0;
  // The losing copies stop; their device time is the price of replication.
  for (std::uint32_t index : f.task_replicas[t]) {
    FaultRuntime::Replica& r = f.replicas[index];
    if (!r.live || static_cast<std::int64_t>(index) == f.replica_winner[t]) continue;
    r.live = false;
    const double watts = perf_.task_watts(graph_.task(t), cluster_.device(r.device), 0);
    charge_device(devices_[r.device].busy_seconds, devices_[r.device].busy_joules, now_ - r.start,
                  watts);
    f.report.replica_device_seconds += now_ - r.start;
    f.report.replica_joules += (now_ - r.start) * watts;
    ++f.report.replicas_cancelled;
    f.running_replica[r.device] = -1;
    devices_[r.device].busy = false;
    try_start(r.device);
  }
}

bool Simulator::faults_settled() const {
  return events_.size() == fault_->failure_events_pending ||
         loop_.finished_count() + fault_->cancelled == graph_.task_count();
}

void Simulator::after_decide() {
  FaultRuntime& f = *fault_;
  const FaultOptions& o = options_.faults;
  // Replicas: idle, live devices with nothing queued that can run the task, up to
  // k - 1 of them, for the critical tasks that started at this instant.
  for (TaskIndex t : f.replica_candidates) {
    const FaultRuntime::Attempt& a = f.attempt[t];
    if (!a.live || a.start != now_ || !f.task_replicas[t].empty()) continue;
    const Task& task = graph_.task(t);
    const DeviceId d = a.device;
    std::uint32_t copies = 1;
    for (DeviceId r = 0; r < cluster_.device_count() && copies < o.replicas; ++r) {
      if (r == d || devices_[r].busy || !f.alive[r] || loop_.device_is_down(r)) continue;
      if (cannot_start(r) == false) continue;  // it has queued work of its own
      const Device& dev = cluster_.device(r);
      if (!can_run(task, dev)) continue;
      const double run = perf_.task_seconds(task, dev, 0);
      if (run == kCannotRun) continue;
      const double slow_r = now_ < f.slow_until[r] ? f.slow_factor[r] : 1.0;
      const double work = run * slow_r;
      const double finish = now_ + a.restart + work * (1.0 - f.done[t]);
      f.replicas.push_back({t, r, now_, finish, work, true});
      const auto index = static_cast<std::uint32_t>(f.replicas.size() - 1);
      f.task_replicas[t].push_back(index);
      f.running_replica[r] = index;
      devices_[r].busy = true;
      events_.schedule(finish, replica_finish, index);
      ++f.report.replicas_started;
      ++copies;
    }
  }
  f.replica_candidates.clear();
  if (loop_.refused_count() == f.refused_seen) return;
  f.refused_seen = loop_.refused_count();
  // A policy placed work on a device that is out; ask it again a heartbeat later,
  // but not forever if nothing can ever start.
  if (f.reoffer_pending || ++f.reoffers_without_start > 4 * cluster_.device_count() + 16) return;
  f.reoffer_pending = true;
  events_.schedule(now_ + options_.faults.heartbeat.interval_seconds, reoffer, 0);
}

void Simulator::finish_faults(SimReport& r) {
  FaultRuntime& f = *fault_;
  for (JobIndex j = 0; j < graph_.job_count(); ++j) {
    FaultJobRecord& rec = f.report.jobs[j];
    if (!rec.failure_reason.empty()) continue;
    for (TaskIndex t = graph_.first_task(j); t < graph_.end_task(j); ++t) {
      if (loop_.state(t) == TaskState::finished) continue;
      // Unfinished without a reason: either nothing alive can run it (a reason), or lost.
      bool runnable = false;
      for (DeviceId d = 0; d < cluster_.device_count() && !runnable; ++d)
        runnable = f.alive[d] && !loop_.device_is_down(d) &&
                   can_run(graph_.task(t), cluster_.device(d)) &&
                   perf_.task_seconds(graph_.task(t), cluster_.device(d), 0) != kCannotRun;
      if (!runnable) {
        rec.failure_reason = fmt::format("no live device can run task '{}'", graph_.task(t).name);
        ++f.report.jobs_failed;
      } else {
        ++f.report.lost_tasks;
      }
      break;
    }
  }
  r.faults = std::move(f.report);
}

void Simulator::handle_fault_event(const Event& e) {
  FaultRuntime& f = *fault_;
  const FaultOptions& o = options_.faults;

  // Ends a job that cannot complete: its tasks are cancelled, running copies stopped.
  const auto fail_job = [&](JobIndex j, const std::string& reason) {
    if (f.ended[j]) return;
    f.ended[j] = true;
    f.report.jobs[j].failure_reason = reason;
    ++f.report.jobs_failed;
    std::vector<DeviceId> freed;
    for (TaskIndex t = graph_.first_task(j); t < graph_.end_task(j); ++t) {
      if (loop_.state(t) == TaskState::finished) continue;
      FaultRuntime::Attempt& a = f.attempt[t];
      if (a.live && f.alive[a.device]) {
        const Progress p = attempt_progress(a, f.done[t], now_);
        const double watts = perf_.task_watts(graph_.task(t), cluster_.device(a.device), 0);
        charge_device(devices_[a.device].busy_seconds, devices_[a.device].busy_joules,
                      now_ - a.start, watts);
        f.report.lost_device_seconds += now_ - a.start - p.checkpoint_time;
        f.report.checkpoint_device_seconds += p.checkpoint_time;
        f.stale_finishes[t].push_back(a.finish);
        f.running[a.device] = kNoTask;
        devices_[a.device].busy = false;
        freed.push_back(a.device);
      }
      a.live = false;
      for (std::uint32_t index : f.task_replicas[t]) {
        FaultRuntime::Replica& r = f.replicas[index];
        if (!r.live) continue;
        r.live = false;
        charge_device(devices_[r.device].busy_seconds, devices_[r.device].busy_joules,
                      now_ - r.start, 0.0);
        f.report.replica_device_seconds += now_ - r.start;
        f.running_replica[r.device] = -1;
        devices_[r.device].busy = false;
        freed.push_back(r.device);
      }
      loop_.cancel(t);
      invalidate_placement(inputs_ready_at_, t);
      ++f.cancelled;
      ++f.report.jobs[j].tasks_cancelled;
    }
    for (DeviceId d : freed) try_start(d);
  };

  // A task's attempt is known lost at `now_` (it was lost at `lost_at`): retry it
  // after a backoff, or end its job with the reason.
  const auto recover = [&](TaskIndex t, double lost_at) {
    const JobIndex j = graph_.job_of(t);
    if (f.ended[j] || loop_.state(t) == TaskState::finished) return;
    for (std::uint32_t index : f.task_replicas[t])
      if (f.replicas[index].live) return;  // a copy still runs: it carries the task
    f.task_replicas[t].clear();
    const std::uint32_t failures = ++f.task_failures[t];
    const Job& job = graph_.job(j);
    if (failures >= o.retry.max_attempts) {
      fail_job(j, fmt::format("retries exhausted: task '{}' failed {} times", graph_.task(t).name,
                              failures));
      return;
    }
    if (o.retry.give_up_after_deadline && job.deadline_seconds && now_ > *job.deadline_seconds) {
      fail_job(j, fmt::format("deadline passed: task '{}' lost at {:.1f} s, deadline {:.1f} s",
                              graph_.task(t).name, lost_at, *job.deadline_seconds));
      return;
    }
    loop_.unplace(t);
    invalidate_placement(inputs_ready_at_, t);
    f.lost_at[t] = lost_at;
    const double backoff = std::min(o.retry.max_backoff_seconds,
                                    o.retry.backoff_seconds * std::ldexp(1.0, int(failures) - 1));
    ++f.report.retries;
    events_.schedule(now_ + backoff, retry_ready, t);
  };

  // The running attempt on `d` stops at now_: count what it saved and lost.
  const auto stop_attempt = [&](DeviceId d, bool keep_all_progress) -> TaskIndex {
    const TaskIndex t = f.running[d];
    if (t == kNoTask) return kNoTask;
    FaultRuntime::Attempt& a = f.attempt[t];
    const Progress p = attempt_progress(a, f.done[t], now_);
    const double elapsed = now_ - a.start;
    const double watts = perf_.task_watts(graph_.task(t), cluster_.device(d), 0);
    charge_device(devices_[d].busy_seconds, devices_[d].busy_joules, elapsed, watts);
    const double kept = keep_all_progress ? p.elapsed_work : p.saved_work;
    f.report.useful_device_seconds += kept;
    f.report.lost_device_seconds += p.elapsed_work - kept;
    f.report.checkpoint_device_seconds += p.checkpoint_time;
    f.report.jobs[graph_.job_of(t)].checkpoints += p.checkpoints;
    f.done[t] = std::min(1.0, f.done[t] + kept / a.work);
    f.stale_finishes[t].push_back(a.finish);
    a.live = false;
    f.running[d] = kNoTask;
    return t;
  };
  // A replica on `d` is lost; if it was the task's last copy and the primary's loss
  // is already known, the task is recovered like any lost attempt.
  const auto stop_replica = [&](DeviceId d) {
    const std::int64_t index = f.running_replica[d];
    if (index < 0) return;
    FaultRuntime::Replica& r = f.replicas[static_cast<std::size_t>(index)];
    r.live = false;
    charge_device(devices_[d].busy_seconds, devices_[d].busy_joules, now_ - r.start,
                  perf_.task_watts(graph_.task(r.task), cluster_.device(d), 0));
    f.report.lost_device_seconds += now_ - r.start;
    f.running_replica[d] = -1;
    const TaskIndex t = r.task;
    const FaultRuntime::Attempt& a = f.attempt[t];
    if (a.live || f.undetected[a.device] == t) return;
    for (std::uint32_t other : f.task_replicas[t])
      if (f.replicas[other].live) return;
    recover(t, now_);
  };
  // A device goes down at now_ (crash or partition) and returns at `back`.
  const auto crash = [&](DeviceId d, double back) {
    if (!f.alive[d]) return;
    f.alive[d] = false;
    const TaskIndex t = stop_attempt(d, false);
    if (t != kNoTask) {
      ++f.report.jobs[graph_.job_of(t)].failures;
      f.undetected[d] = t;
      f.lost_at[t] = now_;
    }
    stop_replica(d);
    devices_[d].busy = false;
    const double detected = o.heartbeat.detection_time(now_);
    f.report.detection_delay_seconds += detected - now_;
    events_.schedule(detected, failure_detected, d);
    f.repair_at[d] = std::max(back, detected);
    if (!std::isinf(f.repair_at[d])) events_.schedule(f.repair_at[d], device_repaired, d);
  };

  switch (e.kind) {
    case failure_injected: {
      --f.failure_events_pending;
      const FailureEvent ev = f.injected[e.subject];
      ++f.report.failures_injected;
      // Draw the next failure of this kind on this target.
      if (f.process && e.subject >= o.explicit_failures.size()) {
        const double after = ev.kind == FailureKind::crash ? now_ + ev.duration_seconds : now_;
        if (!std::isinf(after))
          if (auto next = f.process->next(ev.kind, ev.target, after)) {
            f.injected.push_back(*next);
            ++f.failure_events_pending;
            events_.schedule(next->time_seconds, failure_injected,
                             static_cast<std::uint32_t>(f.injected.size() - 1));
            if (next->kind == FailureKind::crash && o.predictor.enabled &&
                f.predictor_rng.uniform() < o.predictor.recall) {
              f.alarms.push_back({next->target, true});
              ++f.failure_events_pending;
              events_.schedule(std::max(now_, next->time_seconds - o.predictor.lead_seconds),
                               predictor_alarm, static_cast<std::uint32_t>(f.alarms.size() - 1));
            }
          }
      }
      switch (ev.kind) {
        case FailureKind::crash:
          ++f.report.crashes;
          crash(ev.target, now_ + ev.duration_seconds);
          break;
        case FailureKind::partition:
          ++f.report.partitions;
          for (DeviceId d : cluster_.node(ev.target).devices) crash(d, now_ + ev.duration_seconds);
          break;
        case FailureKind::straggler:
          ++f.report.stragglers;
          f.slow_until[ev.target] = now_ + ev.duration_seconds;
          f.slow_factor[ev.target] = ev.slowdown;
          break;
        case FailureKind::transient: {
          ++f.report.transients;
          const DeviceId d = ev.target;
          if (!f.alive[d]) break;
          stop_replica(d);
          const TaskIndex t = stop_attempt(d, false);
          devices_[d].busy = false;
          if (t != kNoTask) {
            ++f.report.jobs[graph_.job_of(t)].failures;
            recover(t, now_);
          }
          try_start(d);
          break;
        }
      }
      break;
    }
    case failure_detected: {
      const DeviceId d = e.subject;
      ++f.report.detections;
      for (TaskIndex t : loop_.device_down(d, now_)) invalidate_placement(inputs_ready_at_, t);
      const TaskIndex t = f.undetected[d];
      f.undetected[d] = kNoTask;
      if (t != kNoTask) recover(t, f.lost_at[t]);
      break;
    }
    case device_repaired: {
      const DeviceId d = e.subject;
      if (f.alive[d] || f.repair_at[d] != now_) break;
      f.alive[d] = true;
      loop_.device_up(d, now_);
      break;
    }
    case retry_ready:
      if (!f.ended[graph_.job_of(e.subject)]) loop_.offer_again(e.subject);
      break;
    case reoffer:
      f.reoffer_pending = false;  // the decision after this instant offers waiting work
      break;
    case replica_finish: {
      FaultRuntime::Replica& r = f.replicas[e.subject];
      if (!r.live || r.finish != now_) break;
      const TaskIndex t = r.task;
      r.live = false;
      f.running_replica[r.device] = -1;
      FaultRuntime::Attempt& a = f.attempt[t];
      if (a.live) {  // the primary copy loses
        const double watts = perf_.task_watts(graph_.task(t), cluster_.device(a.device), 0);
        charge_device(devices_[a.device].busy_seconds, devices_[a.device].busy_joules,
                      now_ - a.start, watts);
        f.report.replica_device_seconds += now_ - a.start;
        f.report.replica_joules += (now_ - a.start) * watts;
        ++f.report.replicas_cancelled;
        f.stale_finishes[t].push_back(a.finish);
        f.running[a.device] = kNoTask;
        devices_[a.device].busy = false;
        const DeviceId primary = a.device;
        a.live = false;
        try_start(primary);
      }
      f.undetected[a.device] = f.undetected[a.device] == t ? kNoTask : f.undetected[a.device];
      f.replica_winner[t] = e.subject;
      if (r.clone) ++f.report.clones_won;
      start_[t] = r.start;
      joules_[t] =
          (now_ - r.start) * perf_.task_watts(graph_.task(t), cluster_.device(r.device), 0);
      if (loop_.placement(t) == kUnplaced) break;  // cannot happen: a live copy keeps it placed
      loop_.relocate(t, r.device);
      devices_[r.device].busy = true;
      finish(t);
      break;
    }
    case predictor_alarm: {
      --f.failure_events_pending;
      const FaultRuntime::Alarm alarm = f.alarms[e.subject];
      if (!alarm.true_alarm && o.predictor.false_alarms_per_device_hour > 0) {
        f.alarms.push_back({alarm.device, false});
        ++f.failure_events_pending;
        events_.schedule(
            now_ + f.predictor_rng.exponential(3600.0 / o.predictor.false_alarms_per_device_hour),
            predictor_alarm, static_cast<std::uint32_t>(f.alarms.size() - 1));
      }
      const DeviceId d = alarm.device;
      if (!f.alive[d] || loop_.device_is_down(d)) break;
      ++f.report.alarms;
      if (alarm.true_alarm) ++f.report.true_alarms, ++f.report.predicted_crashes;
      // Drain: take the device out, checkpoint the running task now and move it.
      for (TaskIndex t : loop_.device_down(d, now_)) invalidate_placement(inputs_ready_at_, t);
      stop_replica(d);
      const TaskIndex running = f.running[d];
      if (running != kNoTask) {
        const Progress before = attempt_progress(f.attempt[running], f.done[running], now_);
        stop_attempt(d, true);
        const double checkpoint = f.attempt[running].checkpoint;
        charge_device(devices_[d].busy_seconds, devices_[d].busy_joules, checkpoint, 0.0);
        f.report.checkpoint_device_seconds += checkpoint;
        if (alarm.true_alarm)
          f.report.work_saved_seconds += before.elapsed_work - before.saved_work;
        ++f.report.jobs[graph_.job_of(running)].migrations;
        loop_.unplace(running);
        invalidate_placement(inputs_ready_at_, running);
        f.lost_at[running] = now_;
        events_.schedule(now_ + checkpoint, retry_ready, running);
      }
      devices_[d].busy = false;
      if (!alarm.true_alarm)
        events_.schedule(now_ + o.predictor.inspection_seconds, alarm_cleared, d);
      break;
    }
    case clone_check: {
      const TaskIndex t = e.subject;
      if (f.clone_check_at[t] != now_) break;  // stale: the attempt ended or restarted
      f.clone_check_at[t] = -1;
      const FaultRuntime::Attempt& a = f.attempt[t];
      if (!a.live || f.ended[graph_.job_of(t)] || a.finish <= now_) break;
      bool copy_running = false;
      for (std::uint32_t index : f.task_replicas[t]) copy_running |= f.replicas[index].live;
      if (copy_running) break;
      // The idle device (nothing queued) predicted to finish a fresh copy first.
      const Task& task = graph_.task(t);
      DeviceId best = 0;
      double best_finish = kInfinity, best_work = 0;
      for (DeviceId r = 0; r < cluster_.device_count(); ++r) {
        if (r == a.device || devices_[r].busy || !f.alive[r] || loop_.device_is_down(r)) continue;
        if (!cannot_start(r)) continue;  // it has queued work of its own
        const Device& dev = cluster_.device(r);
        if (!can_run(task, dev)) continue;
        const double run = perf_.task_seconds(task, dev, 0);
        if (run == kCannotRun) continue;
        const double work = run * (now_ < f.slow_until[r] ? f.slow_factor[r] : 1.0);
        const double finish = now_ + a.restart + work * (1.0 - f.done[t]);
        if (finish < best_finish) best = r, best_finish = finish, best_work = work;
      }
      if (best_finish < a.finish) {
        f.replicas.push_back({t, best, now_, best_finish, best_work, true, true});
        const auto index = static_cast<std::uint32_t>(f.replicas.size() - 1);
        f.task_replicas[t].push_back(index);
        f.running_replica[best] = index;
        devices_[best].busy = true;
        events_.schedule(best_finish, replica_finish, index);
        ++f.report.replicas_started;
        ++f.report.clones_started;
      } else if (f.clone_period[t] > 0 && now_ + f.clone_period[t] < a.finish) {
        f.clone_check_at[t] = now_ + f.clone_period[t];  // no device helps yet: look again
        events_.schedule(f.clone_check_at[t], clone_check, t);
      }
      break;
    }
    case alarm_cleared: {
      const DeviceId d = e.subject;
      if (f.alive[d] && f.undetected[d] == kNoTask) loop_.device_up(d, now_);
      break;
    }
  }
}

}  // namespace hetsched
