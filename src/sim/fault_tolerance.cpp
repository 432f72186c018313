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
// devices at once (the policy's choice plus idle devices that can run it, outside
// the failure domains — node, rack — of its other copies when one is free); every
// copy checkpoints to shared storage, a copy lost while another lives is restarted
// elsewhere from the newest checkpoint of any copy, and the first copy to finish
// wins; the others are cancelled and their time and energy counted as replica
// overhead. Failure prediction: every device reports telemetry (TelemetryModel:
// temperature and correctable errors, degrading before a crash, with healthy
// bursts); the FailurePredictor reads only those samples, and its alarm drains the
// device: its task checkpoints and moves, and the device stays out while it alarms.
// Alarms are scored afterwards against the crashes that followed.
// Cloning (CloneOptions, LATE-style speculative execution): a primary attempt still
// running `threshold` × its predicted time after it began gets one more copy, a
// replica marked `clone`, on the idle device predicted to finish first from the
// newest checkpoint — only when that beats the straggler's own finish; it is then
// raced and accounted like any replica.
//
// Accounting: f.done[t] is the newest checkpointed fraction of task t over all its
// copies. When a copy stops, the part of its saved work beyond f.done[t] is useful,
// the saved part already done by another copy is replica overhead, the unsaved part
// is lost; the winner's work beyond f.done[t] is useful. So useful + lost +
// checkpoint + replica seconds is the device time the task's copies really used.
//
// Events from lost attempts and cancelled copies stay in the queue; a finish is
// recognised as stale by its task and time and dropped, and a device-queue entry
// is stale when its task no longer sits there.
#include "fault_tolerance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "hetsched/sim/simulator.hpp"
#include "hetsched/workload/feasibility.hpp"

namespace hetsched {

namespace {
constexpr TaskIndex kNoTask = std::numeric_limits<TaskIndex>::max();
// A mark of a device with nothing running there names no task.
static_assert(kNoTask == kNoTimelineTask);
constexpr double kInfinity = std::numeric_limits<double>::infinity();

enum FaultEvent : std::uint32_t {
  failure_injected,  // subject: index into FaultRuntime::injected
  failure_detected,  // subject: device
  device_repaired,   // subject: device
  retry_ready,       // subject: task
  reoffer,           // subject: unused
  replica_finish,    // subject: index into FaultRuntime::replicas
  telemetry_tick,    // subject: unused; samples every device
  clone_check,       // subject: task
};
}  // namespace

struct FaultRuntime {
  struct Attempt {
    bool live = false;
    DeviceId device = 0;
    double start = 0;
    double work = 0;  // seconds for the whole task on this device (slowdown included)
    double restart = 0;
    double interval = kInfinity;
    double checkpoint = 0;
    double finish = 0;
    double from = 0;  // fraction of the task saved when this attempt started
  };
  struct Replica {
    TaskIndex task;
    DeviceId device;
    Attempt run;
    bool live;
    bool clone = false;  // started by the straggler rule (CloneOptions)
  };

  std::unique_ptr<FailureProcess> process;
  std::unique_ptr<TelemetryModel> telemetry;
  std::unique_ptr<FailurePredictor> predictor;
  std::vector<ThermalModel> health_thermal;          // per device: what the predictor expects
  std::vector<std::vector<double>> pending_crashes;  // per device: crash times to come
  std::vector<double> quarantine_until;              // per device: < 0 when not drained
  std::vector<double> episode_start;                 // per device: first alarm of its episode
  std::vector<FailureEvent> injected;
  std::size_t failure_events_pending = 0;  // injections and telemetry ticks in the queue
  std::vector<bool> alive;                 // per device: physically up
  std::vector<TaskIndex> running;          // per device: primary attempt running there
  std::vector<std::int64_t> running_replica;
  std::vector<TaskIndex> undetected;  // per device: task lost in a crash not yet noticed
  std::vector<double> slow_until, slow_factor;
  std::vector<double> repair_at;
  std::vector<std::vector<double>> stale_finishes;
  std::vector<double> done;  // per task: newest checkpointed fraction over its copies
  std::vector<Attempt> attempt;
  std::vector<std::uint32_t> task_failures;
  std::vector<double> lost_at;
  std::vector<std::int64_t> replica_winner;
  std::vector<std::vector<std::uint32_t>> task_replicas;  // live and stopped copies
  std::vector<Replica> replicas;
  std::vector<bool> critical, ended;
  std::size_t cancelled = 0;
  std::vector<TaskIndex> replica_candidates;  // critical tasks that may need more copies
  std::vector<TaskIndex> replica_waiting;     // scratch: those still short of copies
  std::vector<double> clone_check_at;         // per task: the pending clone check, or -1
  std::vector<double> clone_period;           // per task: a quarter of its predicted time
  std::size_t refused_seen = 0;
  std::size_t reoffers_without_start = 0;
  bool reoffer_pending = false;
  FaultReport report;
  std::vector<TimelineMark>* marks = nullptr;  // the report's timeline, when it is recorded

  void mark(double seconds, DeviceId device, TaskIndex task, TimelineMarkKind kind) {
    if (marks != nullptr) marks->push_back(TimelineMark{seconds, device, task, kind});
  }
};

void FaultTolerance::run_starting() {
  const FaultOptions& o = kernel_.options().faults;
  o.validate(kernel_.cluster());
  runtime_ = std::make_unique<FaultRuntime>();
  FaultRuntime& f = *runtime_;
  if (kernel_.options().record_schedule) f.marks = &kernel_.report().marks;
  const std::size_t devices = kernel_.cluster().device_count(),
                    tasks = kernel_.graph().task_count();
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
  f.ended.assign(kernel_.graph().job_count(), false);
  f.critical.assign(kernel_.graph().job_count(), false);
  if (o.replicas > 1)
    for (JobIndex j = 0; j < kernel_.graph().job_count(); ++j)
      f.critical[j] = o.critical_jobs.empty() ||
                      std::find(o.critical_jobs.begin(), o.critical_jobs.end(),
                                kernel_.graph().job(j).name) != o.critical_jobs.end();
  f.report.jobs.resize(kernel_.graph().job_count());

  f.pending_crashes.resize(devices);
  const auto inject = [&](const FailureEvent& e) {
    if (e.kind == FailureKind::crash) f.pending_crashes[e.target].push_back(e.time_seconds);
    f.injected.push_back(e);
    ++f.failure_events_pending;
    schedule(e.time_seconds, failure_injected, static_cast<std::uint32_t>(f.injected.size() - 1));
  };
  for (const FailureEvent& e : o.explicit_failures) inject(e);
  if (o.use_model) {
    f.process =
        std::make_unique<FailureProcess>(kernel_.cluster(), o.model, kernel_.options().seed);
    for (std::uint32_t kind = 0; kind < 3; ++kind)
      for (DeviceId d = 0; d < kernel_.cluster().device_count(); ++d)
        if (auto e = f.process->next(static_cast<FailureKind>(kind), d, 0.0)) inject(*e);
    for (NodeId n = 0; n < kernel_.cluster().node_count(); ++n)
      if (auto e = f.process->next(FailureKind::partition, n, 0.0)) inject(*e);
  }
  if (o.predictor.enabled) {
    f.telemetry =
        std::make_unique<TelemetryModel>(devices, o.predictor.telemetry, kernel_.options().seed);
    f.predictor = std::make_unique<FailurePredictor>(devices, o.predictor);
    for (const Device& d : kernel_.cluster().devices())
      f.health_thermal.emplace_back(d.spec, ThermalOptions{});
    f.quarantine_until.assign(devices, -1.0);
    f.episode_start.assign(devices, -kInfinity);
    ++f.failure_events_pending;
    schedule(o.predictor.telemetry.sample_seconds, telemetry_tick, 0);
  }
}

bool FaultTolerance::finish_is_current(TaskIndex task) {
  auto& stale = runtime_->stale_finishes[task];
  if (auto it = std::find(stale.begin(), stale.end(), kernel_.now()); it != stale.end()) {
    stale.erase(it);
    return false;
  }
  return true;
}

// Forget where a task was going: its queue entry goes stale (cannot_start) and the
// inputs sent to the old device no longer count.
// How a copy of a task ends.
enum class CopyEnd : std::uint8_t {
  won,        // it finished the task
  lost,       // a crash, transient or partition: work since its last checkpoint is lost
  drained,    // moved on an alarm: it checkpoints now and keeps all its work
  cancelled,  // another copy won: its time is replication's cost
  abandoned,  // its job ended without completing: all its work is lost
};

namespace {
using Attempt = FaultRuntime::Attempt;

// A copy of a task that does `work` seconds for the whole task on a device of
// `spec`, starting at `now` from the saved fraction `from`: its restart, checkpoint
// cost and interval, and when it finishes if nothing fails.
Attempt plan_run(const FaultOptions& o, const Task& task, const DeviceSpec& spec, double now,
                 double work, double from) {
  Attempt a;
  a.live = true;
  a.start = now;
  a.work = work;
  a.from = from;
  const double state = o.checkpoint.state_bytes ? *o.checkpoint.state_bytes : task.memory_bytes;
  a.checkpoint = state / o.checkpoint.storage_bandwidth;
  a.restart = from > 0 ? a.checkpoint : 0.0;
  a.interval = kInfinity;
  if (a.checkpoint > 0) {
    if (o.checkpoint.mode == CheckpointMode::fixed)
      a.interval = o.checkpoint.fixed_interval_seconds;
    if (o.checkpoint.mode == CheckpointMode::daly) {
      const double mtbf = o.model.mtbf_seconds(spec);
      if (mtbf > 0 && !std::isinf(mtbf)) a.interval = daly_interval_seconds(a.checkpoint, mtbf);
    }
  }
  const double remaining = work * (1.0 - from);
  a.finish = now + a.restart + checkpointed_duration_seconds(remaining, a.interval, a.checkpoint);
  return a;
}

// How far an attempt got by `now`: work saved in checkpoints, time spent writing
// and reading checkpoints, checkpoints written.
struct Progress {
  double saved_work = 0, checkpoint_time = 0, elapsed_work = 0;
  std::uint32_t checkpoints = 0;
};
Progress attempt_progress(const Attempt& a, double now) {
  Progress p;
  const double elapsed = now - a.start;
  if (elapsed <= a.restart) {
    p.checkpoint_time = elapsed;
    return p;
  }
  const double after_restart = elapsed - a.restart;
  const double remaining = a.work * (1.0 - a.from);
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

// The fraction of the task saved in the checkpoints a live attempt has written by `now`.
double saved_fraction(const Attempt& a, double now) {
  return std::min(1.0, a.from + attempt_progress(a, now).saved_work / a.work);
}

// Accounts the device time of a copy of task `t` that ends at `now` (see the file's
// account of the accounting) and raises the task's saved fraction.
void settle_copy(FaultRuntime& f, FaultJobRecord& job, TaskIndex t, const Attempt& a, double now,
                 CopyEnd end, double watts) {
  FaultReport& r = f.report;
  const double remaining = a.work * (1.0 - a.from);
  double kept = 0, elapsed_work = 0, checkpoint_time = 0;
  std::uint32_t checkpoints = 0;
  if (end == CopyEnd::won) {
    const double n = (!std::isinf(a.interval) && a.interval < remaining)
                         ? std::ceil(remaining / a.interval) - 1.0
                         : 0.0;
    kept = elapsed_work = remaining;
    checkpoint_time = a.restart + n * a.checkpoint;
    checkpoints = static_cast<std::uint32_t>(n);
  } else {
    const Progress p = attempt_progress(a, now);
    kept = end == CopyEnd::drained     ? p.elapsed_work
           : end == CopyEnd::abandoned ? 0.0
                                       : p.saved_work;
    elapsed_work = p.elapsed_work;
    checkpoint_time = p.checkpoint_time;
    checkpoints = p.checkpoints;
  }
  const double reached =
      end == CopyEnd::abandoned ? f.done[t] : std::min(1.0, a.from + kept / a.work);
  const double newly = std::max(0.0, reached - f.done[t]) * a.work;
  f.done[t] = std::max(f.done[t], reached);
  const double duplicate = std::max(0.0, kept - newly);
  const double unsaved = std::max(0.0, elapsed_work - kept);
  r.useful_device_seconds += newly;
  r.replica_device_seconds += duplicate;
  r.replica_joules += duplicate * watts;
  if (end == CopyEnd::cancelled) {
    r.replica_device_seconds += unsaved;
    r.replica_joules += unsaved * watts;
  } else {
    r.lost_device_seconds += unsaved;
  }
  r.checkpoint_device_seconds += checkpoint_time;
  job.checkpoints += checkpoints;
  for (std::uint32_t k = 1; k <= checkpoints; ++k)  // the k-th is written after k intervals
    f.mark(a.start + a.restart + k * (a.interval + a.checkpoint), a.device, t,
           TimelineMarkKind::checkpoint);
}
}  // namespace

bool FaultTolerance::holds_device(DeviceId d) {
  FaultRuntime& f = *runtime_;
  if (!kernel_.has_queued_work(d) || !f.alive[d] || kernel_.loop().device_is_down(d)) return true;
  // A replica here gives way to the work the policy queued, when another copy of
  // its task lives (replicas only use idle capacity). Its checkpoints stay on
  // shared storage; its time is replication's cost; another idle device may take
  // its place.
  const std::int64_t index = f.running_replica[d];
  if (kernel_.busy(d) && index >= 0) {
    FaultRuntime::Replica& r = f.replicas[static_cast<std::size_t>(index)];
    const TaskIndex t = r.task;
    bool others = f.attempt[t].live;
    for (std::uint32_t other : f.task_replicas[t])
      others = others || (other != index && f.replicas[other].live);
    if (!others) return true;  // it carries the task: the queued work waits
    r.live = false;
    const double watts = watts_of(t, d);
    kernel_.charge(d, kernel_.now() - r.run.start, watts);
    settle_copy(f, f.report.jobs[kernel_.graph().job_of(t)], t, r.run, kernel_.now(),
                CopyEnd::cancelled, watts);
    ++f.report.replicas_cancelled;
    f.running_replica[d] = -1;
    kernel_.set_busy(d, false);
    f.replica_candidates.push_back(t);
  }
  return kernel_.busy(d);
}

double FaultTolerance::task_starting(TaskIndex t, DeviceId d, double seconds) {
  FaultRuntime& f = *runtime_;
  const JobIndex j = kernel_.graph().job_of(t);
  f.reoffers_without_start = 0;
  const double slow = kernel_.now() < f.slow_until[d] ? f.slow_factor[d] : 1.0;
  FaultRuntime::Attempt& a = f.attempt[t];
  a = plan_run(kernel_.options().faults, kernel_.graph().task(t), kernel_.cluster().device(d).spec,
               kernel_.now(), seconds * slow, f.done[t]);
  a.device = d;
  f.running[d] = t;
  ++f.report.jobs[j].attempts;
  if (f.lost_at[t] >= 0) {
    f.mark(kernel_.now(), d, t, TimelineMarkKind::restart);
    f.report.jobs[j].recovery_seconds += kernel_.now() - f.lost_at[t];
    f.lost_at[t] = -1;
  }
  // Replicas are started after this instant's decisions (after_decide), so they
  // take only devices the policy left idle.
  if (f.critical[j]) f.replica_candidates.push_back(t);
  // The simulator schedules the finish at now + duration: keep a.finish equal to it
  // bit for bit, so a stale finish is recognised.
  const double duration = a.finish - kernel_.now();
  a.finish = kernel_.now() + duration;
  // Cloning: look again when the attempt has run `threshold` × its predicted time
  // (no check is needed if it will have ended by then).
  const FaultOptions& o = kernel_.options().faults;
  f.clone_check_at[t] = -1;
  if (o.clone.enabled) {
    const double predicted = a.restart + seconds * (1.0 - a.from);
    const double check = kernel_.now() + o.clone.threshold * predicted;
    f.clone_period[t] = 0.25 * predicted;
    if (check < a.finish) {
      f.clone_check_at[t] = check;
      schedule(check, clone_check, t);
    }
  }
  return duration;
}

void FaultTolerance::task_finishing(TaskIndex t) {
  FaultRuntime& f = *runtime_;
  FaultJobRecord& job = f.report.jobs[kernel_.graph().job_of(t)];
  FaultRuntime::Attempt& a = f.attempt[t];
  // The losing copies stop first; their device time is the price of replication.
  for (std::uint32_t index : f.task_replicas[t]) {
    FaultRuntime::Replica& r = f.replicas[index];
    if (!r.live || static_cast<std::int64_t>(index) == f.replica_winner[t]) continue;
    r.live = false;
    const double watts = watts_of(t, r.device);
    kernel_.charge(r.device, kernel_.now() - r.run.start, watts);
    settle_copy(f, job, t, r.run, kernel_.now(), CopyEnd::cancelled, watts);
    ++f.report.replicas_cancelled;
    f.running_replica[r.device] = -1;
    kernel_.set_busy(r.device, false);
    kernel_.try_start(r.device);
  }
  if (f.replica_winner[t] < 0) {
    settle_copy(f, job, t, a, kernel_.now(), CopyEnd::won, watts_of(t, a.device));
  } else {
    const FaultRuntime::Replica& w = f.replicas[static_cast<std::size_t>(f.replica_winner[t])];
    settle_copy(f, job, t, w.run, kernel_.now(), CopyEnd::won, watts_of(t, w.device));
  }
  a.live = false;
  if (f.running[a.device] == t) f.running[a.device] = kNoTask;
  f.done[t] = 1.0;
}

bool FaultTolerance::run_settled() const {
  return kernel_.pending_events() == runtime_->failure_events_pending ||
         kernel_.loop().finished_count() + runtime_->cancelled == kernel_.graph().task_count();
}

void FaultTolerance::loop_decided() {
  FaultRuntime& f = *runtime_;
  const FaultOptions& o = kernel_.options().faults;
  // Replicas: idle, live devices with nothing queued that can run the task, for the
  // critical tasks that started at this instant or lost a copy, up to k copies;
  // devices outside the failure domains of the task's live copies first.
  const auto same_domain = [&](DeviceId a, DeviceId b) {
    const NodeId na = kernel_.cluster().device(a).node, nb = kernel_.cluster().device(b).node;
    switch (o.replica_domain) {
      case ReplicaDomain::any:
        return false;
      case ReplicaDomain::node:
        return na == nb;
      case ReplicaDomain::rack:
        return kernel_.cluster().node(na).rack == kernel_.cluster().node(nb).rack;
    }
    return false;
  };
  for (TaskIndex t : f.replica_candidates) {
    if (f.ended[kernel_.graph().job_of(t)] || kernel_.loop().state(t) == TaskState::finished)
      continue;
    const FaultRuntime::Attempt& a = f.attempt[t];
    std::vector<DeviceId> copies;
    double from = f.done[t];  // the newest checkpoint of any copy
    if (a.live) {
      copies.push_back(a.device);
      from = std::max(from, saved_fraction(a, kernel_.now()));
    }
    for (std::uint32_t index : f.task_replicas[t])
      if (f.replicas[index].live) {
        copies.push_back(f.replicas[index].device);
        from = std::max(from, saved_fraction(f.replicas[index].run, kernel_.now()));
      }
    if (copies.empty() || copies.size() >= o.replicas) continue;
    if (std::find(f.replica_waiting.begin(), f.replica_waiting.end(), t) != f.replica_waiting.end())
      continue;  // already handled at this instant
    const Task& task = kernel_.graph().task(t);
    for (int pass = 0; pass < 2 && copies.size() < o.replicas; ++pass)
      for (DeviceId r = 0; r < kernel_.cluster().device_count() && copies.size() < o.replicas;
           ++r) {
        if (std::find(copies.begin(), copies.end(), r) != copies.end()) continue;
        if (kernel_.busy(r) || !f.alive[r] || kernel_.loop().device_is_down(r)) continue;
        if (holds_device(r) == false) continue;  // it has queued work of its own
        if (pass == 0 && std::any_of(copies.begin(), copies.end(),
                                     [&](DeviceId c) { return same_domain(r, c); }))
          continue;
        const Device& dev = kernel_.cluster().device(r);
        if (!can_run(task, dev)) continue;
        const double run = kernel_.actual_seconds(t, r, 0);  // kCannotRun stays kCannotRun
        if (run == kCannotRun) continue;
        const double slow_r = kernel_.now() < f.slow_until[r] ? f.slow_factor[r] : 1.0;
        FaultRuntime::Attempt copy = plan_run(o, task, dev.spec, kernel_.now(), run * slow_r, from);
        copy.device = r;
        f.replicas.push_back({t, r, copy, true});
        const auto index = static_cast<std::uint32_t>(f.replicas.size() - 1);
        f.task_replicas[t].push_back(index);
        f.running_replica[r] = index;
        kernel_.set_busy(r, true);
        schedule(copy.finish, replica_finish, index);
        ++f.report.replicas_started;
        copies.push_back(r);
      }
    if (copies.size() < o.replicas && o.respawn_replicas) f.replica_waiting.push_back(t);
  }
  // Tasks still short of copies wait for a device to become idle.
  f.replica_candidates.swap(f.replica_waiting);
  f.replica_waiting.clear();
  if (kernel_.loop().refused_count() == f.refused_seen) return;
  f.refused_seen = kernel_.loop().refused_count();
  // A policy placed work on a device that is out; ask it again a heartbeat later,
  // but not forever if nothing can ever start.
  if (f.reoffer_pending || ++f.reoffers_without_start > 4 * kernel_.cluster().device_count() + 16)
    return;
  f.reoffer_pending = true;
  schedule(kernel_.now() + kernel_.options().faults.heartbeat.interval_seconds, reoffer, 0);
}

void FaultTolerance::complete_report(RunReport& r) {
  FaultRuntime& f = *runtime_;
  for (JobIndex j = 0; j < kernel_.graph().job_count(); ++j) {
    FaultJobRecord& rec = f.report.jobs[j];
    if (!rec.failure_reason.empty()) continue;
    for (TaskIndex t = kernel_.graph().first_task(j); t < kernel_.graph().end_task(j); ++t) {
      if (kernel_.loop().state(t) == TaskState::finished) continue;
      // Unfinished without a reason: either nothing alive can run it (a reason), or lost.
      bool runnable = false;
      for (DeviceId d = 0; d < kernel_.cluster().device_count() && !runnable; ++d)
        runnable = f.alive[d] && !kernel_.loop().device_is_down(d) &&
                   can_run(kernel_.graph().task(t), kernel_.cluster().device(d)) &&
                   kernel_.perf().task_seconds(kernel_.graph().task(t), kernel_.cluster().device(d),
                                               0) != kCannotRun;
      if (!runnable) {
        rec.failure_reason =
            fmt::format("no live device can run task '{}'", kernel_.graph().task(t).name);
        ++f.report.jobs_failed;
      } else {
        ++f.report.lost_tasks;
      }
      break;
    }
  }
  r.faults = std::move(f.report);
}

double FaultTolerance::watts_of(TaskIndex t, DeviceId d) const { return kernel_.watts(t, d, 0); }

// A critical task lost a copy while another lives: start a new one after the
// decisions of this instant, from the newest checkpoint.
void FaultTolerance::respawn(TaskIndex t) {
  FaultRuntime& f = *runtime_;
  const FaultOptions& o = kernel_.options().faults;
  if (o.respawn_replicas && f.critical[kernel_.graph().job_of(t)])
    f.replica_candidates.push_back(t);
}

// Ends a job that cannot complete: its tasks are cancelled, running copies stopped.
void FaultTolerance::fail_job(JobIndex j, const std::string& reason) {
  FaultRuntime& f = *runtime_;
  if (f.ended[j]) return;
  f.ended[j] = true;
  FaultJobRecord& job = f.report.jobs[j];
  job.failure_reason = reason;
  ++f.report.jobs_failed;
  std::vector<DeviceId> freed;
  for (TaskIndex t = kernel_.graph().first_task(j); t < kernel_.graph().end_task(j); ++t) {
    if (kernel_.loop().state(t) == TaskState::finished) continue;
    FaultRuntime::Attempt& a = f.attempt[t];
    if (a.live && f.alive[a.device]) {
      const double watts = watts_of(t, a.device);
      kernel_.charge(a.device, kernel_.now() - a.start, watts);
      settle_copy(f, job, t, a, kernel_.now(), CopyEnd::abandoned, watts);
      f.stale_finishes[t].push_back(a.finish);
      f.running[a.device] = kNoTask;
      kernel_.set_busy(a.device, false);
      freed.push_back(a.device);
    }
    a.live = false;
    for (std::uint32_t index : f.task_replicas[t]) {
      FaultRuntime::Replica& r = f.replicas[index];
      if (!r.live) continue;
      r.live = false;
      const double watts = watts_of(t, r.device);
      kernel_.charge(r.device, kernel_.now() - r.run.start, watts);
      settle_copy(f, job, t, r.run, kernel_.now(), CopyEnd::abandoned, watts);
      f.running_replica[r.device] = -1;
      kernel_.set_busy(r.device, false);
      freed.push_back(r.device);
    }
    kernel_.loop().cancel(t);
    kernel_.forget_inputs(t);
    ++f.cancelled;
    ++job.tasks_cancelled;
  }
  for (DeviceId d : freed) kernel_.try_start(d);
}

// A task's attempt is known lost now (it was lost at `lost_at`): retry it
// after a backoff, or end its job with the reason.
void FaultTolerance::recover(TaskIndex t, double lost_at) {
  FaultRuntime& f = *runtime_;
  const FaultOptions& o = kernel_.options().faults;
  const JobIndex j = kernel_.graph().job_of(t);
  if (f.ended[j] || kernel_.loop().state(t) == TaskState::finished) return;
  for (std::uint32_t index : f.task_replicas[t])
    if (f.replicas[index].live) return;  // a copy still runs: it carries the task
  f.task_replicas[t].clear();
  const std::uint32_t failures = ++f.task_failures[t];
  const Job& job = kernel_.graph().job(j);
  if (failures >= o.retry.max_attempts) {
    fail_job(j, fmt::format("retries exhausted: task '{}' failed {} times",
                            kernel_.graph().task(t).name, failures));
    return;
  }
  if (o.retry.give_up_after_deadline && job.deadline_seconds &&
      kernel_.now() > *job.deadline_seconds) {
    fail_job(j, fmt::format("deadline passed: task '{}' lost at {:.1f} s, deadline {:.1f} s",
                            kernel_.graph().task(t).name, lost_at, *job.deadline_seconds));
    return;
  }
  kernel_.loop().unplace(t);
  kernel_.forget_inputs(t);
  f.lost_at[t] = lost_at;
  const double backoff = std::min(o.retry.max_backoff_seconds,
                                  o.retry.backoff_seconds * std::ldexp(1.0, int(failures) - 1));
  ++f.report.retries;
  schedule(kernel_.now() + backoff, retry_ready, t);
}

// The running attempt on `d` stops now: count what it saved and lost.
TaskIndex FaultTolerance::stop_attempt(DeviceId d, CopyEnd end) {
  FaultRuntime& f = *runtime_;
  const TaskIndex t = f.running[d];
  if (t == kNoTask) return kNoTask;
  FaultRuntime::Attempt& a = f.attempt[t];
  const double watts = watts_of(t, d);
  kernel_.charge(d, kernel_.now() - a.start, watts);
  settle_copy(f, f.report.jobs[kernel_.graph().job_of(t)], t, a, kernel_.now(), end, watts);
  f.stale_finishes[t].push_back(a.finish);
  a.live = false;
  f.running[d] = kNoTask;
  kernel_.set_idle(d);
  return t;
}

// A replica on `d` stops; if it was the task's last copy and the primary's loss
// is already known, the task is recovered like any lost attempt, else a new copy
// takes its place.
void FaultTolerance::stop_replica(DeviceId d, CopyEnd end) {
  FaultRuntime& f = *runtime_;
  const std::int64_t index = f.running_replica[d];
  if (index < 0) return;
  FaultRuntime::Replica& r = f.replicas[static_cast<std::size_t>(index)];
  r.live = false;
  const TaskIndex t = r.task;
  const double watts = watts_of(t, d);
  kernel_.charge(d, kernel_.now() - r.run.start, watts);
  settle_copy(f, f.report.jobs[kernel_.graph().job_of(t)], t, r.run, kernel_.now(), end, watts);
  f.running_replica[d] = -1;
  const FaultRuntime::Attempt& a = f.attempt[t];
  bool others = a.live;
  for (std::uint32_t other : f.task_replicas[t]) others = others || f.replicas[other].live;
  if (others) {
    respawn(t);
    return;
  }
  if (f.undetected[a.device] == t) return;  // the primary's loss is noticed later
  recover(t, kernel_.now());
}

// A device goes down now (crash or partition) and returns at `back`.
void FaultTolerance::crash(DeviceId d, double back) {
  FaultRuntime& f = *runtime_;
  const FaultOptions& o = kernel_.options().faults;
  if (!f.alive[d]) return;
  f.alive[d] = false;
  const TaskIndex t = stop_attempt(d, CopyEnd::lost);
  f.mark(kernel_.now(), d, t, TimelineMarkKind::failure);
  if (t != kNoTask) {
    ++f.report.jobs[kernel_.graph().job_of(t)].failures;
    f.undetected[d] = t;
    f.lost_at[t] = kernel_.now();
    respawn(t);  // if replicas carry it, one more copy replaces this one
  }
  stop_replica(d, CopyEnd::lost);
  kernel_.set_busy(d, false);
  const double detected = o.heartbeat.detection_time(kernel_.now());
  f.report.detection_delay_seconds += detected - kernel_.now();
  schedule(detected, failure_detected, d);
  f.repair_at[d] = std::max(back, detected);
  if (!std::isinf(f.repair_at[d])) schedule(f.repair_at[d], device_repaired, d);
}

// The predictor alarmed on `d`: take it out, checkpoint its running task now and
// move it. Returns the in-flight work it kept (since the last periodic checkpoint).
double FaultTolerance::drain(DeviceId d) {
  FaultRuntime& f = *runtime_;
  for (TaskIndex t : kernel_.loop().device_down(d, kernel_.now())) kernel_.forget_inputs(t);
  stop_replica(d, CopyEnd::drained);
  const TaskIndex running = f.running[d];
  double kept = 0;
  if (running != kNoTask) {
    f.mark(kernel_.now(), d, running, TimelineMarkKind::migration);
    const Progress before = attempt_progress(f.attempt[running], kernel_.now());
    kept = before.elapsed_work - before.saved_work;
    stop_attempt(d, CopyEnd::drained);
    const double checkpoint = f.attempt[running].checkpoint;
    kernel_.charge(d, checkpoint, 0.0);
    f.report.checkpoint_device_seconds += checkpoint;
    ++f.report.jobs[kernel_.graph().job_of(running)].migrations;
    bool others = false;
    for (std::uint32_t index : f.task_replicas[running]) others = others || f.replicas[index].live;
    if (others) {
      respawn(running);
    } else {
      kernel_.loop().unplace(running);
      kernel_.forget_inputs(running);
      f.lost_at[running] = kernel_.now();
      schedule(kernel_.now() + checkpoint, retry_ready, running);
    }
  }
  kernel_.set_busy(d, false);
  return kept;
}

void FaultTolerance::inject_failure(std::uint32_t index) {
  FaultRuntime& f = *runtime_;
  const FaultOptions& o = kernel_.options().faults;
  --f.failure_events_pending;
  const FailureEvent ev = f.injected[index];
  ++f.report.failures_injected;
  // Draw the next failure of this kind on this target.
  if (f.process && index >= o.explicit_failures.size()) {
    const double after =
        ev.kind == FailureKind::crash ? kernel_.now() + ev.duration_seconds : kernel_.now();
    if (!std::isinf(after))
      if (auto next = f.process->next(ev.kind, ev.target, after)) {
        if (next->kind == FailureKind::crash)
          f.pending_crashes[next->target].push_back(next->time_seconds);
        f.injected.push_back(*next);
        ++f.failure_events_pending;
        schedule(next->time_seconds, failure_injected,
                 static_cast<std::uint32_t>(f.injected.size() - 1));
      }
  }
  switch (ev.kind) {
    case FailureKind::crash: {
      ++f.report.crashes;
      auto& pending = f.pending_crashes[ev.target];
      if (auto it = std::find(pending.begin(), pending.end(), ev.time_seconds); it != pending.end())
        pending.erase(it);
      // Scored afterwards: was this crash foreseen by an alarm in its lead window?
      if (f.predictor && f.alive[ev.target] &&
          f.episode_start[ev.target] >=
              kernel_.now() - o.predictor.telemetry.degradation_lead_seconds) {
        ++f.report.predicted_crashes;
        f.report.lead_seconds += kernel_.now() - f.episode_start[ev.target];
      }
      crash(ev.target, kernel_.now() + ev.duration_seconds);
      break;
    }
    case FailureKind::partition:
      ++f.report.partitions;
      for (DeviceId d : kernel_.cluster().node(ev.target).devices)
        crash(d, kernel_.now() + ev.duration_seconds);
      break;
    case FailureKind::straggler:
      ++f.report.stragglers;
      f.slow_until[ev.target] = kernel_.now() + ev.duration_seconds;
      f.slow_factor[ev.target] = ev.slowdown;
      break;
    case FailureKind::transient: {
      ++f.report.transients;
      const DeviceId d = ev.target;
      if (!f.alive[d]) break;
      stop_replica(d, CopyEnd::lost);
      const TaskIndex t = stop_attempt(d, CopyEnd::lost);
      f.mark(kernel_.now(), d, t, TimelineMarkKind::failure);
      kernel_.set_busy(d, false);
      if (t != kNoTask) {
        ++f.report.jobs[kernel_.graph().job_of(t)].failures;
        respawn(t);
        recover(t, kernel_.now());
      }
      kernel_.try_start(d);
      break;
    }
  }
}

void FaultTolerance::detect_failure(DeviceId d) {
  FaultRuntime& f = *runtime_;
  ++f.report.detections;
  for (TaskIndex t : kernel_.loop().device_down(d, kernel_.now())) kernel_.forget_inputs(t);
  const TaskIndex t = f.undetected[d];
  f.undetected[d] = kNoTask;
  if (t != kNoTask) recover(t, f.lost_at[t]);
}

void FaultTolerance::repair(DeviceId d) {
  FaultRuntime& f = *runtime_;
  if (f.alive[d] || f.repair_at[d] != kernel_.now()) return;
  f.alive[d] = true;
  if (f.predictor) {  // a replaced device starts with a clean history
    f.predictor->reset(d);
    f.quarantine_until[d] = -1;
    f.episode_start[d] = -kInfinity;
  }
  kernel_.loop().device_up(d, kernel_.now());
}

void FaultTolerance::finish_replica(std::uint32_t index) {
  FaultRuntime& f = *runtime_;
  FaultRuntime::Replica& r = f.replicas[index];
  if (!r.live || r.run.finish != kernel_.now()) return;
  const TaskIndex t = r.task;
  r.live = false;
  f.running_replica[r.device] = -1;
  FaultRuntime::Attempt& a = f.attempt[t];
  if (a.live) {  // the primary copy loses
    const double watts = watts_of(t, a.device);
    kernel_.charge(a.device, kernel_.now() - a.start, watts);
    settle_copy(f, f.report.jobs[kernel_.graph().job_of(t)], t, a, kernel_.now(),
                CopyEnd::cancelled, watts);
    ++f.report.replicas_cancelled;
    f.stale_finishes[t].push_back(a.finish);
    f.running[a.device] = kNoTask;
    kernel_.set_busy(a.device, false);
    kernel_.set_idle(a.device);
    const DeviceId primary = a.device;
    a.live = false;
    kernel_.try_start(primary);
  }
  f.undetected[a.device] = f.undetected[a.device] == t ? kNoTask : f.undetected[a.device];
  f.replica_winner[t] = index;
  if (r.clone) ++f.report.clones_won;
  if (kernel_.loop().placement(t) == kUnplaced)
    return;  // cannot happen: a live copy keeps it placed
  kernel_.loop().relocate(t, r.device);
  kernel_.finish_copy(t, r.device, r.run.start,
                      (kernel_.now() - r.run.start) * watts_of(t, r.device));
}

void FaultTolerance::sample_telemetry() {
  FaultRuntime& f = *runtime_;
  const FaultOptions& o = kernel_.options().faults;
  // Every live device reports; the predictor reads the samples, nothing else.
  const PredictorOptions& p = o.predictor;
  for (DeviceId d = 0; d < kernel_.cluster().device_count(); ++d) {
    if (!f.alive[d]) continue;
    const double idle = kernel_.cluster().device(d).spec.idle_watts;
    const double watts = f.running[d] != kNoTask ? kernel_.watts(d)
                         : f.running_replica[d] >= 0
                             ? watts_of(f.replicas[std::size_t(f.running_replica[d])].task, d)
                             : idle;
    const double healthy = f.health_thermal[d].steady_celsius(watts);
    const auto& pending = f.pending_crashes[d];
    const double next_crash =
        pending.empty() ? kInfinity : *std::min_element(pending.begin(), pending.end());
    const TelemetrySample sample =
        f.telemetry->sample(d, kernel_.now(), watts, healthy, next_crash);
    const bool alarm = f.predictor->observe(d, sample, healthy);
    if (alarm && f.quarantine_until[d] >= 0) {
      f.quarantine_until[d] = kernel_.now() + p.inspection_seconds;  // still failing: stays out
    } else if (alarm) {
      ++f.report.alarms;
      f.episode_start[d] = kernel_.now();
      const bool true_alarm = next_crash - kernel_.now() <= p.telemetry.degradation_lead_seconds;
      if (true_alarm) ++f.report.true_alarms;
      const double kept = drain(d);
      if (true_alarm) f.report.work_saved_seconds += kept;
      f.quarantine_until[d] = kernel_.now() + p.inspection_seconds;
    } else if (f.quarantine_until[d] >= 0 && kernel_.now() >= f.quarantine_until[d]) {
      f.quarantine_until[d] = -1;
      if (f.undetected[d] == kNoTask) kernel_.loop().device_up(d, kernel_.now());
    }
  }
  schedule(kernel_.now() + p.telemetry.sample_seconds, telemetry_tick, 0);
}

void FaultTolerance::check_clone(TaskIndex t) {
  FaultRuntime& f = *runtime_;
  const FaultOptions& o = kernel_.options().faults;
  if (f.clone_check_at[t] != kernel_.now()) return;  // stale: the attempt ended or restarted
  f.clone_check_at[t] = -1;
  const FaultRuntime::Attempt& a = f.attempt[t];
  if (!a.live || f.ended[kernel_.graph().job_of(t)] || a.finish <= kernel_.now()) return;
  bool copy_running = false;
  for (std::uint32_t index : f.task_replicas[t]) copy_running |= f.replicas[index].live;
  if (copy_running) return;
  // A clone starts from the newest checkpoint, like any replica (shared storage).
  const double from = std::max(f.done[t], saved_fraction(a, kernel_.now()));
  // The idle device (nothing queued) predicted to finish a fresh copy first.
  const Task& task = kernel_.graph().task(t);
  FaultRuntime::Attempt best;
  best.finish = kInfinity;
  for (DeviceId r = 0; r < kernel_.cluster().device_count(); ++r) {
    if (r == a.device || kernel_.busy(r) || !f.alive[r] || kernel_.loop().device_is_down(r))
      continue;
    if (!holds_device(r)) continue;  // it has queued work of its own
    const Device& dev = kernel_.cluster().device(r);
    if (!can_run(task, dev)) continue;
    const double run = kernel_.actual_seconds(t, r, 0);  // kCannotRun stays kCannotRun
    if (run == kCannotRun) continue;
    const double slow_r = kernel_.now() < f.slow_until[r] ? f.slow_factor[r] : 1.0;
    FaultRuntime::Attempt copy = plan_run(o, task, dev.spec, kernel_.now(), run * slow_r, from);
    copy.device = r;
    if (copy.finish < best.finish) best = copy;
  }
  if (best.finish < a.finish) {
    f.replicas.push_back({t, best.device, best, true, true});
    const auto index = static_cast<std::uint32_t>(f.replicas.size() - 1);
    f.task_replicas[t].push_back(index);
    f.running_replica[best.device] = index;
    kernel_.set_busy(best.device, true);
    schedule(best.finish, replica_finish, index);
    ++f.report.replicas_started;
    ++f.report.clones_started;
  } else if (f.clone_period[t] > 0 && kernel_.now() + f.clone_period[t] < a.finish) {
    f.clone_check_at[t] = kernel_.now() + f.clone_period[t];  // no device helps yet: look again
    schedule(f.clone_check_at[t], clone_check, t);
  }
}

void FaultTolerance::event(const Event& e) {
  switch (e.kind - event_base_) {
    case failure_injected:
      inject_failure(e.subject);
      break;
    case failure_detected:
      detect_failure(e.subject);
      break;
    case device_repaired:
      repair(e.subject);
      break;
    case retry_ready:
      if (!runtime_->ended[kernel_.graph().job_of(e.subject)])
        kernel_.loop().offer_again(e.subject);
      break;
    case reoffer:
      runtime_->reoffer_pending = false;  // the decision after this instant offers waiting work
      break;
    case replica_finish:
      finish_replica(e.subject);
      break;
    case telemetry_tick:
      sample_telemetry();
      break;
    case clone_check:
      check_clone(e.subject);
      break;
  }
}

}  // namespace hetsched

namespace hetsched {

FaultTolerance::FaultTolerance(SimulationKernel kernel, std::uint32_t event_base)
    : kernel_(kernel), event_base_(event_base) {}

FaultTolerance::~FaultTolerance() = default;

void FaultTolerance::schedule(double time, std::uint32_t kind, std::uint32_t subject) {
  kernel_.schedule(time, event_base_ + kind, subject);
}

}  // namespace hetsched
