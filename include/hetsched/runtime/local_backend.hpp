// LocalBackend: the first real body behind the Backend interface. It executes a
// RuntimeDag on this machine's workers — one thread per device (CPU workers pinned
// to their core, one per OpenCL device) — fed by any registered policy through the
// same SchedulingLoop the simulator uses.
//
// The calling thread is the dispatcher: it owns the SchedulingLoop, keeps each
// device's queue of placed tasks in planned order and hands ready tasks to a
// worker through a bounded single-producer/single-consumer ring (a few tasks ahead,
// sized by predicted time, so a worker rarely waits). Workers answer through their own ring of
// completions. Rings and queue room are written before the clock: no allocation, lock or fault.
// Wake-ups are batched: the dispatcher signals a worker once per round, however many tasks it
// handed over, and a worker signals the dispatcher only when it matters — a failure, a task
// whose successors another, hungry worker could take, or its own queue crossing half full or
// down to its last task — so a stream of tiny independent tasks costs one wake-up per half ring
// and a chain of long ones one per refill, rather than one per task. Threads
// spin briefly, then block on an atomic wait (futex), and are woken only when actually asleep.
//
// Balancing: when a worker has nothing queued, the dispatcher may move a ready task
// still waiting for another device to it, using the work-stealing rule (gain over
// transfer cost, each device's measured lag over its predictions).
//
// Faults: a task that fails on a device (an OpenCL program that does not build, a
// device error) is retried on another device that can run it; the failure is
// reported. A task that fails everywhere is reported as unfinished, with its
// successors. Nothing hangs: the run ends when no work is left in flight.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hetsched/backend/planned_queue.hpp"
#include "hetsched/backend/run_report.hpp"
#include "hetsched/backend/scheduling_loop.hpp"
#include "hetsched/perf/history_regression_model.hpp"
#include "hetsched/runtime/local_machine.hpp"
#include "hetsched/runtime/runtime_dag.hpp"

namespace hetsched {

struct LocalBackendOptions {
  bool work_stealing = true;
  // A worker is handed tasks ahead until their predicted time reaches ahead_seconds
  // (enough to cover the dispatcher's reaction time) or max_tasks_ahead are in flight:
  // many tiny tasks travel in batches, long ones one or two at a time (the rest stay
  // stealable). Batches of thousands matter on a shared machine: every time a worker runs
  // dry it sleeps, and a sleeping thread gives its core to another process for a time
  // slice (200,000 empty tasks: ~1,450 sleeps with 256 ahead, ~80 with 4096).
  std::uint32_t max_tasks_ahead = 4096;
  double ahead_seconds = 2e-3;
  bool record_schedule = true;
  // Measurements go here as they come (online update of the learned model); may be null.
  HistoryRegressionModel* learner = nullptr;
};

struct TaskFailure {
  TaskIndex task = 0;
  DeviceId device = 0;
  std::string message;
};

struct LocalRunReport {
  RunReport report;  // measured: start/finish of every task, per-device busy time
  std::vector<TaskFailure> failures;
  std::uint64_t steals = 0;
  std::uint64_t retries = 0;
  std::uint64_t bytes_to_devices = 0;  // host → OpenCL device buffers
  std::uint64_t bytes_to_host = 0;
  // Transfers overlapped with compute (OpenCL devices): uploads issued for the next task
  // while the current kernel ran, how many of them ran (partly) under that kernel by the
  // device's own timestamps, and the seconds they spent there.
  std::uint64_t prefetched_uploads = 0;
  std::uint64_t uploads_during_kernel = 0;
  std::uint64_t uploads_overlapped = 0;
  double overlap_seconds = 0;
  double wall_seconds = 0;  // first decision to last completion (workers already started)
  // Wake-ups (futex waits entered): how often the dispatcher and the workers slept.
  std::uint64_t dispatcher_sleeps = 0;
  std::uint64_t worker_sleeps = 0;
};

class LocalBackend final : public Backend {
 public:
  LocalBackend(LocalDevices& devices, RuntimeDag& dag, const PerfModel& perf,
               SchedulingPolicy& policy, LocalBackendOptions options = {});
  ~LocalBackend() override;
  LocalBackend(const LocalBackend&) = delete;
  LocalBackend& operator=(const LocalBackend&) = delete;

  std::string_view name() const override { return "local"; }
  void launch(const Assignment& assignment) override;

  // Runs the DAG to completion (or until nothing more can run). Call once.
  LocalRunReport run();

  const TaskGraph& graph() const { return graph_; }
  // The brain's view of the run: where each task was placed, moved, stolen or retried to.
  const SchedulingLoop& loop() const { return loop_; }

 private:
  struct Worker;
  struct Completion {
    TaskIndex task;
    bool ok;
    double start_seconds;
    double finish_seconds;
  };

  void worker_main(Worker& worker);
  Status execute(Worker& worker, TaskIndex task);
  void dispatch();
  bool try_steal(DeviceId thief);
  void complete(DeviceId device, const Completion& completion);
  void hand_to_worker(DeviceId device, TaskIndex task);
  bool can_execute(TaskIndex task, DeviceId device) const;
  bool failed_before(TaskIndex task, DeviceId device) const;
  double predicted_seconds(TaskIndex task, DeviceId device);
  double seconds_since_start() const;
  void abandon(TaskIndex task, const std::string& reason);
  void decide();  // the loop decides at now_; abandoned tasks are cancelled in it
  void signal_workers();
  void wait_for_completions(std::uint32_t seen);
  double lag(DeviceId device) const;
  void stop_workers();

  LocalDevices& devices_;
  RuntimeDag& dag_;
  const PerfModel& perf_;
  LocalBackendOptions options_;
  TaskGraph graph_;
  SchedulingLoop loop_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::int64_t start_ticks_ = 0;
  double now_ = 0;

  // Dispatcher state (calling thread only).
  std::vector<PlannedQueue> queued_;       // per device: placed, not handed over
  std::vector<std::uint32_t> in_flight_;   // per device: handed over, not completed
  std::vector<double> in_flight_seconds_;  // per device: their predicted seconds
  std::vector<double> backlog_seconds_;    // per device: predicted seconds queued + in flight
  std::vector<double> predicted_sum_, measured_sum_;  // per device, for its lag
  std::vector<std::uint32_t> remaining_inputs_;       // per task
  std::vector<DeviceId> running_on_;                  // per task: where it actually runs
  std::vector<double> predicted_;                     // per task: predicted seconds there
  std::vector<std::uint64_t> tried_devices_;          // per task: bitmask of devices that failed it
  std::vector<std::string> errors_;                   // per task: the last failure's message
  std::vector<std::uint8_t> broken_kernels_;          // per device × kernel: failed before
  std::vector<std::uint8_t> has_successors_;          // per task (read by workers too)
  std::vector<std::uint8_t> signal_pending_;          // per device: handed tasks, not signalled
  struct PredictionMemo {  // per device: the last prediction and what it depended on
    bool valid = false;
    KernelClass kernel = KernelClass::elementwise;
    Precision precision = Precision::fp32;
    double flops = 0, bytes = 0, memory_bytes = 0;
    DeviceKindSet allowed_kinds = DeviceKindSet::none();
    double seconds = 0;
  };
  std::vector<PredictionMemo> memo_;
  std::size_t low_water_ = 1;  // a worker whose queue drops to this many wakes the dispatcher
  alignas(64) std::atomic<std::uint32_t> completion_signal_{0};
  std::atomic<bool> dispatcher_asleep_{false};
  alignas(64) std::atomic<std::uint32_t> hungry_workers_{0};  // workers with an empty inbox
  std::atomic<std::uint32_t> workers_ready_{0};               // started, pinned, set up
  std::size_t finished_ = 0;
  std::size_t abandoned_ = 0;
  std::vector<TaskIndex> abandoned_tasks_;  // not yet cancelled in the loop
  LocalRunReport result_;
};

}  // namespace hetsched
