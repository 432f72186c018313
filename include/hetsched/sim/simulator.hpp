// Simulator: the digital twin — a deterministic discrete-event body behind the
// Backend interface. Modeled devices run one task at a time in the order the
// policy planned; a task starts once its inputs have arrived over the links; each
// node's NIC carries one transfer at a time in each direction (transfers queue
// there, which is how network contention shows); busy and idle energy and
// device-hours are accounted. Same inputs and seed give the same report, byte
// for byte.
//
// It runs either a closed world (run(): the workload's jobs arrive at their arrival
// times, the simulator's own loop decides after each instant) or an open one, as the
// service's twin: the loop and the graph belong to the caller, jobs join the graph as
// they are submitted, and the caller steps the virtual clock an instant at a time and
// lets its loop decide in between — the same events in the same order, so the same
// schedule.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "hetsched/backend/planned_queue.hpp"
#include "hetsched/backend/run_report.hpp"
#include "hetsched/backend/scheduling_loop.hpp"
#include "hetsched/core/expected.hpp"
#include "hetsched/core/huge_page_allocator.hpp"
#include "hetsched/energy/thermal_model.hpp"
#include "hetsched/fault/fault_options.hpp"
#include "hetsched/sim/duration_noise.hpp"
#include "hetsched/sim/event_queue.hpp"
#include "hetsched/sim/simulation_extension.hpp"
#include "hetsched/sim/simulation_observer.hpp"

namespace hetsched {

struct SimulationOptions {
  std::uint64_t seed = 1;
  bool record_schedule = true;  // keep every task and transfer for the trace
  // Called now and then with (tasks finished, tasks total), for progress display.
  std::function<void(std::size_t, std::size_t)> progress;
  // Cluster-wide power cap in watts (0: none): a task starts at its planned P-state, else
  // at the fastest slower one that keeps the cluster's draw within the cap, else it waits
  // (the PowerCapping extension, src/sim/power_capping.hpp). A cap below the cluster's idle
  // power is bad input (InputError).
  double power_cap_watts = 0;
  // Per-node power cap in watts, the same for every node (0: none), enforced alike.
  double node_power_cap_watts = 0;
  // First-order RC thermal model per device; above the limit a device throttles
  // its running task one P-state lower, as real GPUs do (ThermalThrottling; off by default).
  ThermalOptions thermal;
  // Any cap asked for (a negative or non-finite one is then refused as bad input).
  bool power_capped() const { return power_cap_watts != 0 || node_power_cap_watts != 0; }
  // Failures, detection and recovery (fault/); off by default.
  FaultOptions faults;
  // Actual run times drawn around the model's predictions (off by default).
  DurationNoiseOptions noise;
};

// Fails with why a power cap cannot work on the cluster: not a finite number, negative, or
// below the idle power of its devices, which stay on.
Status check_power_cap(const Cluster& cluster, double power_cap_watts);
// The same for a per-node cap: the first node whose devices idle above it.
Status check_node_power_cap(const Cluster& cluster, double node_power_cap_watts);

class Simulator final : public Backend {
 public:
  // Closed world: the workload's jobs, decided by `policy`.
  Simulator(const Cluster& cluster, const Workload& workload, const PerfModel& perf,
            SchedulingPolicy& policy, SimulationOptions options = {});
  // Open world: `loop` decides over `graph`; its backend hands every assignment on to
  // launch(). Starts and finishes go to the loop and then to `observer`. Faults and
  // power caps are not modeled in this mode (InputError when asked for).
  Simulator(const Cluster& cluster, TaskGraph& graph, const PerfModel& perf, SchedulingLoop& loop,
            SimulationObserver& observer, SimulationOptions options = {});

  std::string_view name() const override { return "simulator"; }
  void launch(const Assignment& assignment) override;

  // Runs to completion. Throws PolicyError if the policy breaks its contract.
  RunReport run();

  const TaskGraph& graph() const { return graph_; }

  // Open world. Jobs were appended to the graph / nodes to the cluster: call before the
  // loop hears of them.
  void graph_grew();
  void cluster_grew();
  double now() const { return now_; }
  // When the next event is due (infinity when none is pending).
  double next_instant() const;
  // Carries out every event of the next instant; the caller's loop decides after it.
  void run_instant();
  // Moves the clock on to `time` (no event is due before it).
  void advance_clock(double time);
  // Ends the task running on the device without finishing it (cancelled, or its node
  // went down) and starts the device's next one; returns the task, or nullopt when idle.
  std::optional<TaskIndex> stop(DeviceId device);
  // The task running on the device, or nullopt when it is idle.
  std::optional<TaskIndex> running_on(DeviceId device) const {
    if (!devices_[device].busy) return std::nullopt;
    return devices_[device].running;
  }

 private:
  // Subjects: a job, a device, a task (whose device is the event's detail).
  enum EventKind : std::uint32_t { job_arrival, device_wake, task_finish };
  struct DeviceState {
    PlannedQueue queue;
    bool busy = false;
    double busy_seconds = 0;
    double busy_joules = 0;
    std::uint32_t tasks = 0;
    // The running task and its P-state: it may change while the task runs.
    TaskIndex running = 0;
    std::uint8_t running_pstate = 0;
    double running_start = 0;    // when the running task started
    double running_joules = 0;   // the energy it will have used by its expected finish
    double expected_finish = 0;  // stale finish events (after a throttle, a stop) are skipped
    double segment_start = 0;    // when the running task's current P-state began
    double segment_seconds = 0;  // the task's full run time at that P-state
    double done_fraction = 0;    // work done before the current segment
    double watts = 0;            // current draw
    double wake_at = -1;         // the pending wake-up, if any
  };
  // What the simulator keeps per task, together (24 bytes): when its inputs are in, and
  // what it will run at. The run time and draw are worked out when the task is launched,
  // while the policy's reads have its record in cache, so that starting it (a device's
  // next task, long after) does not read the task's record and ask the model again. Its
  // unfinished predecessors and planned P-state are the loop's. What only a running task
  // has (its start, energy, expected finish) is kept per device, and what the report needs
  // of finished tasks per job.
  struct TaskRun {
    double inputs_ready_at = 0;  // arrival of the last input transfer issued
    double seconds = 0;          // actual run time on its device at its planned P-state
    double watts = 0;            // the draw it runs at there
  };
  // The first start and the last finish of a job's finished tasks.
  struct JobSpan {
    double first_start = std::numeric_limits<double>::infinity();  // none yet
    double completion = -std::numeric_limits<double>::infinity();
  };
  struct NicState {
    double out_free = 0;
    double in_free = 0;
  };

  // Asks the processor for the records the coming events read while this one is carried
  // out: on a large cluster they are out of cache by then, and one event's work is
  // shorter than the wait. What is known from the event (its task's records, its
  // device's, the task the device should start next) is asked for two events ahead, and
  // the head of the device's queue, found through the device's record, one event ahead.
  void prefetch_ahead() const;
  // What is known from the event itself.
  void prefetch_records(const Event& event) const;
  // Every cache line of the device's record (it need not start on one).
  void prefetch_device_state(DeviceId d) const;
  // The device a kernel event is about (kUnplaced for a job's arrival and extensions'
  // events).
  static DeviceId device_of(const Event& event);
  void send_input(TaskIndex consumer, NodeId from_node, DeviceId from_device, double bytes);
  // Carries out an assignment: queues the task, sends its inputs, starts it if it is next.
  void launch_now(const Assignment& assignment);
  // The loop decides, then every launch it asked for is carried out. Without extensions
  // or an owner (nothing else reads what a launch changes before the decision ends), a
  // launch is carried out a few launches after it is asked for, its device's record asked
  // of the processor when it arrives and the back of its queue halfway: on a large
  // cluster both are out of cache, and the policy's next decisions overlap the waits.
  void decide_and_launch();
  // The deferred launch `i` of the ring (asked for as the i-th).
  Assignment& deferred_launch(std::size_t i) {
    return deferred_launches_[i % deferred_launches_.size()];
  }
  void try_start(DeviceId device);
  void finish(TaskIndex task);
  // A finish event is stale when its task no longer runs (stopped, failed) or a change of
  // P-state moved its finish: it is due only when the task still runs and ends now.
  bool finish_is_due(const Event& event) const;
  // The device's draw from now on; the cluster's and its node's follow.
  void set_device_watts(DeviceId device, double watts);
  // The device draws its idle power from now on.
  void set_device_idle(DeviceId device);
  // Adds `seconds` of busy time at `watts` to the device's account.
  void charge_busy(DeviceId device, double seconds, double watts);
  // The task running on the device goes on at another P-state from now (DVFS while it
  // runs): the work done so far stays done, the rest takes that P-state's time and power.
  void change_running_pstate(DeviceId device, std::uint8_t pstate);
  // How long the task really runs on the device at the P-state: the model's prediction
  // times the task's noise factor.
  double actual_seconds(TaskIndex task, DeviceId device, std::uint8_t pstate) const;
  // What the task draws on the device at the P-state.
  double watts(TaskIndex task, DeviceId device, std::uint8_t pstate) const;
  // The device the perf model is asked about for the task on `device`: its class's
  // stand-in where the model predicts by spec alone (the same answer, from a record that
  // stays in cache on a cluster of thousands of devices), else the device itself.
  const Device& model_device(const Task& task, DeviceId device) const;

  // Adds a feature outside the kernel; its events get the next range of kinds.
  template <typename Extension>
  void add_extension();
  // Pops entries whose task was moved off the device (re-planned, retried elsewhere,
  // cancelled) or already started from another entry on it.
  void pop_stale_heads(DeviceId device);

  const Cluster& cluster_;
  const PerfModel& perf_;
  std::unique_ptr<TaskGraph> own_graph_;  // closed world only
  TaskGraph& graph_;
  SimulationOptions options_;
  std::unique_ptr<SchedulingLoop> own_loop_;  // closed world only
  SchedulingLoop& loop_;
  SimulationObserver* observer_ = nullptr;  // open world only
  EventQueue events_;
  double now_ = 0;

  std::vector<DeviceState> devices_;
  std::vector<NicState> nics_;
  LargeVector<TaskRun> runs_;  // per task
  std::vector<JobSpan> job_spans_;
  // Launches asked for during a decision and not carried out yet: [launched_, asked_) of a
  // ring (decide_and_launch).
  static constexpr std::size_t kLaunchesInFlight = 8;
  bool defer_launches_ = false;
  std::array<Assignment, kLaunchesInFlight + 1> deferred_launches_{};
  std::size_t asked_ = 0, launched_ = 0;
  double cluster_watts_ = 0;
  std::vector<double> node_watts_;  // per node: its devices' current draw
  RunReport report_;
  DurationNoise noise_;
  bool model_predicts_by_spec_;
  // Features outside the kernel (thermal throttling, power caps, faults and recovery),
  // called at its fixed points. They see the kernel only through a SimulationKernel
  // (src/sim/simulation_kernel.hpp), its named operations.
  std::vector<std::unique_ptr<SimulationExtension>> extensions_;
  friend class SimulationKernel;
};

}  // namespace hetsched
