#include "hetsched/runtime/local_backend.hpp"

#include <fmt/format.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "hetsched/core/reserve_touched.hpp"
#include "hetsched/policy/work_stealing_rule.hpp"
#include "hetsched/workload/feasibility.hpp"
#include "spsc_ring.hpp"

namespace hetsched {

namespace {
constexpr TaskIndex kStopWorker = std::numeric_limits<TaskIndex>::max();
constexpr int kSpinsBeforeSleep = 128;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Sleeping and waking on a 32-bit atomic with the futex system call directly
// (std::atomic::wait adds its own spinning with sched_yield on top of ours).
static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected) {
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected,
            nullptr, nullptr, 0);
}
void futex_wake_one(std::atomic<std::uint32_t>& word) {
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr,
            nullptr, 0);
}

std::int64_t clock_ticks() { return std::chrono::steady_clock::now().time_since_epoch().count(); }
constexpr double kSecondsPerTick =
    double(std::chrono::steady_clock::period::num) / std::chrono::steady_clock::period::den;
}  // namespace

struct LocalBackend::Worker {
  Worker(DeviceId d, WorkerKind k, KernelDevice& kernels, int pu, std::size_t depth)
      : device(d), kind(k), kernels(kernels), pinned_pu(pu), inbox(depth), outbox(depth) {}
  DeviceId device;
  WorkerKind kind;
  KernelDevice& kernels;
  int pinned_pu;
  SpscRing<TaskIndex> inbox;
  SpscRing<Completion> outbox;
  alignas(64) std::atomic<std::uint32_t> inbox_signal{0};
  std::atomic<bool> asleep{false};
  std::uint64_t sleeps = 0;  // the worker's own count; read after join
  std::thread thread;
};

LocalBackend::LocalBackend(LocalDevices& devices, RuntimeDag& dag, const PerfModel& perf,
                           SchedulingPolicy& policy, LocalBackendOptions options)
    : devices_(devices),
      dag_(dag),
      perf_(perf),
      options_(options),
      graph_(dag.workload()),
      loop_(devices.cluster(), graph_, perf, policy, *this) {
  const std::size_t device_count = devices.cluster().device_count();
  const std::size_t tasks = graph_.task_count();
  options_.max_tasks_ahead = std::max<std::uint32_t>(1, options_.max_tasks_ahead);
  queued_.resize(device_count);
  // Each device's queue gets room for an even share of the tasks, written now, before the
  // clock: a policy that places every ready task at once (200,000 empty tasks) would
  // otherwise grow these queues, page fault by page fault, on the dispatcher's hot path.
  for (PlannedQueue& queue : queued_) queue.reserve_touched(tasks / device_count + 64);
  in_flight_.assign(device_count, 0);
  in_flight_seconds_.assign(device_count, 0);
  backlog_seconds_.assign(device_count, 0);
  predicted_sum_.assign(device_count, 0);
  measured_sum_.assign(device_count, 0);
  remaining_inputs_.resize(tasks);
  for (TaskIndex t = 0; t < tasks; ++t)
    remaining_inputs_[t] = static_cast<std::uint32_t>(graph_.predecessors(t).size());
  running_on_.assign(tasks, kUnplaced);
  predicted_.assign(tasks, 0);
  tried_devices_.assign(tasks, 0);
  errors_.resize(tasks);
  broken_kernels_.assign(device_count * kKernelIdCount, 0);
  has_successors_.resize(tasks);
  for (TaskIndex t = 0; t < tasks; ++t) has_successors_[t] = !graph_.successors(t).empty();
  signal_pending_.assign(device_count, 0);
  memo_.assign(device_count, PredictionMemo{});
  low_water_ = std::max<std::size_t>(1, options_.max_tasks_ahead / 2);
  for (DeviceId d = 0; d < device_count; ++d)
    workers_.push_back(std::make_unique<Worker>(d, devices.kind(d), devices.kernel_device(d),
                                                devices.pinned_pu(d),
                                                std::size_t(options_.max_tasks_ahead) + 1));
}

LocalBackend::~LocalBackend() { stop_workers(); }

double LocalBackend::seconds_since_start() const {
  return double(clock_ticks() - start_ticks_) * kSecondsPerTick;
}

bool LocalBackend::can_execute(TaskIndex task, DeviceId device) const {
  return !failed_before(task, device) &&
         can_run(graph_.task(task), devices_.cluster().device(device));
}

double LocalBackend::lag(DeviceId device) const {
  if (predicted_sum_[device] <= 0 || measured_sum_[device] <= 0) return 1.0;
  return std::clamp(measured_sum_[device] / predicted_sum_[device], 0.05, 20.0);
}

bool LocalBackend::failed_before(TaskIndex task, DeviceId device) const {
  if (device < 64 && ((tried_devices_[task] >> device) & 1u)) return true;
  const auto kernel = static_cast<std::size_t>(dag_.calls()[task].kernel);
  return broken_kernels_[device * kKernelIdCount + kernel] != 0;
}

double LocalBackend::predicted_seconds(TaskIndex t, DeviceId device) {
  const Task& task = graph_.task(t);
  const Device& target = devices_.cluster().device(device);
  // Consecutive tasks alike (tiles of one GEMM, empty tasks) get the previous answer; only
  // while the model cannot change under us (no online learner).
  PredictionMemo& memo = memo_[device];
  const bool memoizable = options_.learner == nullptr && task.cost_seconds.empty();
  if (memoizable && memo.valid && memo.kernel == task.kernel && memo.precision == task.precision &&
      memo.flops == task.flops && memo.bytes == task.bytes &&
      memo.memory_bytes == task.memory_bytes && memo.allowed_kinds == task.allowed_kinds)
    return memo.seconds;
  double seconds = perf_.task_seconds(task, target);
  if (!std::isfinite(seconds)) seconds = 0;
  if (memoizable)
    memo = PredictionMemo{true,       task.kernel,       task.precision,     task.flops,
                          task.bytes, task.memory_bytes, task.allowed_kinds, seconds};
  return seconds;
}

void LocalBackend::launch(const Assignment& a) {
  DeviceId device = a.device;
  // The scheduling loop has checked that the device can run the task; what it cannot know
  // is whether this device already failed it or its kernel (then the task goes elsewhere).
  if (failed_before(a.task, device)) {
    // This device already failed this kernel: send the task where it can run.
    DeviceId alternative = kUnplaced;
    for (DeviceId d = 0; d < workers_.size(); ++d)
      if (can_execute(a.task, d) &&
          (alternative == kUnplaced || backlog_seconds_[d] < backlog_seconds_[alternative]))
        alternative = d;
    if (alternative == kUnplaced) {
      abandon(a.task, "no device left that can run it");
      return;
    }
    device = alternative;
  }
  running_on_[a.task] = device;
  predicted_[a.task] = predicted_seconds(a.task, device);
  // The loop learns where the task really goes: policies see that device busy.
  if (device != a.device)
    loop_.relocate(a.task, device, now_ + backlog_seconds_[device] + predicted_[a.task]);
  backlog_seconds_[device] += predicted_[a.task];
  const double key = a.planned_start_seconds == kAppend ? now_ : a.planned_start_seconds;
  queued_[device].push(key, a.task);
}

void LocalBackend::hand_to_worker(DeviceId device, TaskIndex task) {
  Worker& worker = *workers_[device];
  // Never full: at most max_tasks_ahead are in flight and the ring holds one more.
  [[maybe_unused]] const bool pushed = worker.inbox.push(task);
  ++in_flight_[device];
  in_flight_seconds_[device] += predicted_[task];
  loop_.task_started(task, now_);  // handed over: it runs there, no longer movable
  signal_pending_[device] = 1;     // one signal per round, after all hand-overs (signal_workers)
}

void LocalBackend::signal_workers() {
  for (DeviceId d = 0; d < workers_.size(); ++d) {
    if (!signal_pending_[d]) continue;
    signal_pending_[d] = 0;
    Worker& worker = *workers_[d];
    worker.inbox_signal.fetch_add(1, std::memory_order_seq_cst);
    if (worker.asleep.load(std::memory_order_seq_cst)) futex_wake_one(worker.inbox_signal);
  }
}

void LocalBackend::dispatch() {
  // How far ahead a worker is fed, in its own measured time (predictions × its lag): up to
  // ahead_seconds, but never more than a fair share of the work placed and not done, so
  // that near the end no worker holds tasks (not stealable once handed over) while another
  // runs dry, and a worker slowed down (a busy core) holds fewer.
  double placed_seconds = 0;
  for (double b : backlog_seconds_) placed_seconds += b;
  const double fair_share = placed_seconds / (2.0 * double(workers_.size()));
  for (DeviceId d = 0; d < workers_.size(); ++d) {
    PlannedQueue& queue = queued_[d];
    const double ahead = std::min(options_.ahead_seconds, fair_share) / lag(d);
    while (in_flight_[d] < options_.max_tasks_ahead && !queue.empty() &&
           (in_flight_[d] == 0 || in_flight_seconds_[d] <= ahead)) {
      const TaskIndex t = queue.front().task;
      if (remaining_inputs_[t] != 0) break;  // the head waits for its inputs; order is kept
      queue.pop_front();
      hand_to_worker(d, t);
    }
  }
  if (options_.work_stealing)
    for (DeviceId d = 0; d < workers_.size(); ++d)
      if (in_flight_[d] == 0 && queued_[d].empty()) try_steal(d);
  signal_workers();
}

bool LocalBackend::try_steal(DeviceId thief) {
  constexpr std::size_t kScan = 64;  // the latest-planned tasks: those that would run last
  const Device& thief_device = devices_.cluster().device(thief);
  DeviceId victim = kUnplaced;
  TaskIndex victim_task = 0;
  double best_gain = 0;
  for (DeviceId v = 0; v < workers_.size(); ++v) {
    if (v == thief || queued_[v].empty()) continue;
    queued_[v].visit_latest(kScan, [&](const QueuedTask& planned) {
      const TaskIndex t = planned.task;
      if (remaining_inputs_[t] != 0 || !can_execute(t, thief)) return false;
      const Task& task = graph_.task(t);
      double run = perf_.task_seconds(task, thief_device);
      if (!std::isfinite(run)) return false;
      const double transfer =
          devices_.kind(thief) != WorkerKind::cpu
              ? perf_.host_to_device_seconds(task.bytes, thief_device.node, thief)
              : 0.0;
      const StealEstimate estimate =
          estimate_steal(now_, backlog_seconds_[v], lag(v), run, transfer, lag(thief));
      if (estimate.gain_seconds() > best_gain) {
        best_gain = estimate.gain_seconds();
        victim = v;
        victim_task = t;
      }
      return true;  // one candidate per victim: the latest ready one
    });
  }
  if (victim == kUnplaced) return false;
  const TaskIndex t = victim_task;
  queued_[victim].erase(t);
  backlog_seconds_[victim] -= predicted_[t];
  running_on_[t] = thief;
  predicted_[t] = perf_.task_seconds(graph_.task(t), thief_device);
  backlog_seconds_[thief] += predicted_[t];
  loop_.relocate(t, thief, now_ + predicted_[t] * lag(thief));
  ++result_.steals;
  hand_to_worker(thief, t);
  return true;
}

Status LocalBackend::execute(Worker& worker, TaskIndex task) {
  const KernelCall& call = dag_.calls()[task];
  // The task queued behind this one (its inputs are current on the host: it was handed
  // over ready) has its uploads overlapped with this kernel, on a device with memory of
  // its own.
  const KernelCall* next_call = nullptr;
  if (worker.kind != WorkerKind::cpu) {
    const TaskIndex* next = worker.inbox.peek();
    next_call = next && *next != kStopWorker ? &dag_.calls()[*next] : nullptr;
  }
  return worker.kernels.run(call, dag_.data(), next_call);
}

void LocalBackend::worker_main(Worker& worker) {
  // Pinned from inside, before the worker reports ready, so no task ever runs unpinned.
  if (worker.pinned_pu >= 0 && worker.pinned_pu < CPU_SETSIZE) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(worker.pinned_pu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  }
  if (worker.kind == WorkerKind::cpu) use_single_threaded_blas();
  workers_ready_.fetch_add(1, std::memory_order_release);
  // One clock read per task while tasks follow each other without a wait: the previous
  // finish is the next start (the ring hand-over between them is a few ns); a clock read
  // costs tens of ns on a virtual machine's clock, as much as a whole empty task.
  double last_finish = 0;
  bool back_to_back = false;
  for (;;) {
    TaskIndex task;
    bool got = worker.inbox.pop(task);
    if (!got) {
      back_to_back = false;
      // Hungry: completions with successors are reported at once while any worker is.
      hungry_workers_.fetch_add(1, std::memory_order_seq_cst);
      for (int spin = 0; !got && spin < kSpinsBeforeSleep; ++spin) {
        cpu_relax();
        got = worker.inbox.pop(task);
      }
      if (!got) {
        worker.asleep.store(true, std::memory_order_seq_cst);
        const std::uint32_t seen = worker.inbox_signal.load(std::memory_order_seq_cst);
        got = worker.inbox.pop(task);
        if (!got) {
          ++worker.sleeps;
          futex_wait(worker.inbox_signal, seen);
        }
        worker.asleep.store(false, std::memory_order_relaxed);
      }
      hungry_workers_.fetch_sub(1, std::memory_order_seq_cst);
      if (!got) continue;
    }
    if (task == kStopWorker) return;
    const double start = back_to_back ? last_finish : seconds_since_start();
    Status ran = execute(worker, task);
    const double finish = seconds_since_start();
    last_finish = finish;
    back_to_back = true;
    if (!ran) errors_[task] = std::move(ran.error());  // read by the dispatcher after the pop
    // Never full: the outbox holds as many as can be in flight (see hand_to_worker).
    [[maybe_unused]] const bool pushed =
        worker.outbox.push(Completion{task, ran.has_value(), start, finish});
    // Wake the dispatcher only when it has something to do now: a failure to retry,
    // successors to release while some worker is hungry for work, this worker's queue
    // crossing the low-water mark (once per refill, not at every task below it) or
    // down to its last task (refilled while that one runs), or running dry. Other
    // completions — successors included, while every worker is busy — wait in the
    // outbox for the next round: a chain of long tasks (tiled GEMM) then costs one
    // dispatcher wake-up per refill rather than one per task, and a wake-up on these
    // cores preempts a worker. Nothing waits forever: every worker signals at its last
    // task, and the dispatcher drains every outbox when it wakes.
    const std::size_t left = worker.inbox.size_for_consumer();
    const bool urgent =
        !ran || left <= 1 || left == low_water_ ||
        (has_successors_[task] && hungry_workers_.load(std::memory_order_seq_cst) != 0);
    if (!urgent) continue;
    completion_signal_.fetch_add(1, std::memory_order_seq_cst);
    if (dispatcher_asleep_.load(std::memory_order_seq_cst)) {
      futex_wake_one(completion_signal_);
      back_to_back = false;  // the system call is not the next task's time
    }
  }
}

void LocalBackend::decide() {
  // Tasks abandoned while the loop was deciding (a launch with no device left) leave it
  // now: it must not change its waiting list while a policy reads it.
  const auto cancel_abandoned = [this] {
    for (TaskIndex t : abandoned_tasks_) loop_.cancel(t);
    abandoned_tasks_.clear();
  };
  cancel_abandoned();
  loop_.decide(now_);
  cancel_abandoned();
}

void LocalBackend::abandon(TaskIndex task, const std::string& reason) {
  ++abandoned_;
  abandoned_tasks_.push_back(task);  // cancelled in the loop once it is not deciding
  result_.report.unfinished_tasks.push_back(fmt::format("{}: {}", graph_.task(task).name, reason));
}

void LocalBackend::complete(DeviceId device, const Completion& c) {
  const TaskIndex t = c.task;
  --in_flight_[device];
  in_flight_seconds_[device] =
      in_flight_[device] == 0 ? 0.0 : in_flight_seconds_[device] - predicted_[t];
  backlog_seconds_[device] = std::max(0.0, backlog_seconds_[device] - predicted_[t]);
  if (!c.ok) {
    result_.failures.push_back(TaskFailure{t, device, errors_[t]});
    if (device < 64) tried_devices_[t] |= std::uint64_t{1} << device;
    broken_kernels_[device * kKernelIdCount + static_cast<std::size_t>(dag_.calls()[t].kernel)] = 1;
    ++result_.retries;
    launch(Assignment{t, device, 0, -std::numeric_limits<double>::infinity()});
    return;
  }
  const double seconds = c.finish_seconds - c.start_seconds;
  predicted_sum_[device] += predicted_[t];
  measured_sum_[device] += seconds;
  const Device& dev = devices_.cluster().device(device);
  if (options_.learner) options_.learner->record(graph_.task(t), dev, seconds);
  if (options_.record_schedule)
    result_.report.schedule.push_back(
        TaskRecord{t, device, 0, c.start_seconds, c.finish_seconds, 0});
  DeviceResult& stats = result_.report.devices[device];
  ++stats.tasks;
  stats.busy_seconds += seconds;
  result_.report.makespan_seconds = std::max(result_.report.makespan_seconds, c.finish_seconds);
  ++finished_;
  loop_.task_finished(t, c.finish_seconds);
  for (const Dependency& s : graph_.successors(t)) --remaining_inputs_[s.task];
}

void LocalBackend::wait_for_completions(std::uint32_t seen) {
  // `seen` was read before the outboxes were last drained, so a signal sent since is
  // not missed: the value differs and the wait returns at once.
  for (int spin = 0; spin < kSpinsBeforeSleep; ++spin) {
    if (completion_signal_.load(std::memory_order_acquire) != seen) return;
    cpu_relax();
  }
  dispatcher_asleep_.store(true, std::memory_order_seq_cst);
  if (completion_signal_.load(std::memory_order_seq_cst) == seen) {
    ++result_.dispatcher_sleeps;
    futex_wait(completion_signal_, seen);
  }
  dispatcher_asleep_.store(false, std::memory_order_relaxed);
}

void LocalBackend::stop_workers() {
  for (auto& w : workers_) {
    if (!w->thread.joinable()) continue;
    while (!w->inbox.push(kStopWorker)) {
      // The ring is full only while the worker still drains it; it will make room.
      std::this_thread::yield();
    }
    w->inbox_signal.fetch_add(1, std::memory_order_seq_cst);
    futex_wake_one(w->inbox_signal);
    w->thread.join();
    result_.worker_sleeps += w->sleeps;
  }
}

LocalRunReport LocalBackend::run() {
  const std::size_t total = graph_.task_count();
  result_.report.policy = std::string(loop_.policy().name());
  result_.report.perf_model = std::string(perf_.name());
  result_.report.tasks_total = total;
  for (DeviceId d = 0; d < workers_.size(); ++d)
    result_.report.devices.push_back(DeviceResult{d, 0, 0, 0, 0});
  if (options_.record_schedule) reserve_touched(result_.report.schedule, total);
  std::vector<KernelDeviceTransfers> transfers_before;
  for (const auto& w : workers_) transfers_before.push_back(w->kernels.transfers());

  // Workers start (pinned, BLAS set up) before the clock does, as StarPU's workers exist
  // before its tasks are submitted: the run is timed from the first decision to the last
  // completion, without thread creation and joining.
  for (auto& w : workers_) {
    Worker* worker = w.get();
    worker->thread = std::thread([this, worker] { worker_main(*worker); });
  }
  while (workers_ready_.load(std::memory_order_acquire) < workers_.size())
    std::this_thread::yield();
  start_ticks_ = clock_ticks();

  for (JobIndex j = 0; j < graph_.job_count(); ++j) loop_.job_arrived(j, 0.0);
  decide();
  dispatch();
  while (finished_ + abandoned_ < total) {
    const std::uint32_t seen = completion_signal_.load(std::memory_order_seq_cst);
    bool progressed = false;
    for (auto& w : workers_) {
      Completion c;
      while (w->outbox.pop(c)) {
        complete(w->device, c);
        progressed = true;
      }
    }
    if (progressed) {
      now_ = seconds_since_start();
      decide();
      dispatch();
      if (finished_ + abandoned_ >= total) break;
    }
    std::uint32_t in_flight = 0;
    for (std::uint32_t n : in_flight_) in_flight += n;
    if (in_flight == 0) {
      if (progressed) continue;
      // Nothing running: relax the planned order once, then give up on what is left.
      bool handed = false;
      for (DeviceId d = 0; d < workers_.size() && !handed; ++d) {
        TaskIndex ready = 0;
        queued_[d].visit_all([&](const QueuedTask& planned) {
          if (remaining_inputs_[planned.task] != 0) return false;
          ready = planned.task;
          handed = true;
          return true;
        });
        if (!handed) continue;
        queued_[d].erase(ready);
        hand_to_worker(d, ready);
        signal_workers();
      }
      if (handed) continue;
      break;
    }
    wait_for_completions(seen);
  }
  result_.wall_seconds = seconds_since_start();
  stop_workers();

  RunReport& report = result_.report;
  report.tasks_completed = finished_;
  for (TaskIndex t = 0; t < total; ++t) {
    if (loop_.state(t) == TaskState::finished) continue;
    const bool listed = std::any_of(
        report.unfinished_tasks.begin(), report.unfinished_tasks.end(),
        [&](const std::string& s) { return s.rfind(graph_.task(t).name + ":", 0) == 0; });
    if (listed) continue;
    const bool blocked = remaining_inputs_[t] != 0;
    report.unfinished_tasks.push_back(
        fmt::format("{}: {}", graph_.task(t).name,
                    blocked ? "a predecessor did not finish (it failed on every device)"
                            : "never placed by the policy"));
  }
  JobResult job;
  job.name = graph_.job(0).name;
  job.first_start_seconds = report.schedule.empty() ? 0 : report.schedule.front().start_seconds;
  for (const TaskRecord& r : report.schedule)
    job.first_start_seconds = std::min(job.first_start_seconds, r.start_seconds);
  job.completion_seconds = report.makespan_seconds;
  report.jobs.push_back(job);
  for (const Device& d : devices_.cluster().devices()) {
    ++report.devices_by_kind[static_cast<std::size_t>(d.spec.kind)];
    if (report.makespan_seconds > 0)
      report.utilization_by_kind[static_cast<std::size_t>(d.spec.kind)] +=
          report.devices[d.id].busy_seconds;
  }
  for (std::size_t k = 0; k < kDeviceKindCount; ++k)
    if (report.devices_by_kind[k] > 0 && report.makespan_seconds > 0)
      report.utilization_by_kind[k] /= report.devices_by_kind[k] * report.makespan_seconds;
  std::sort(report.schedule.begin(), report.schedule.end(),
            [](const TaskRecord& a, const TaskRecord& b) {
              return a.start_seconds != b.start_seconds ? a.start_seconds < b.start_seconds
                                                        : a.task < b.task;
            });
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    const KernelDeviceTransfers now = workers_[i]->kernels.transfers();
    const KernelDeviceTransfers& before = transfers_before[i];
    result_.bytes_to_devices += now.bytes_to_device - before.bytes_to_device;
    result_.bytes_to_host += now.bytes_to_host - before.bytes_to_host;
    result_.prefetched_uploads += now.prefetched_uploads - before.prefetched_uploads;
    result_.uploads_during_kernel += now.uploads_during_kernel - before.uploads_during_kernel;
    result_.uploads_overlapped += now.uploads_overlapped - before.uploads_overlapped;
    result_.overlap_seconds += now.overlap_seconds - before.overlap_seconds;
  }
  report.transfer_bytes = double(result_.bytes_to_devices + result_.bytes_to_host);
  return std::move(result_);
}

}  // namespace hetsched
