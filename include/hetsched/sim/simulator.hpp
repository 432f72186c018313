// Simulator: the digital twin — a deterministic discrete-event body behind the
// Backend interface. Modeled devices run one task at a time in the order the
// policy planned; a task starts once its inputs have arrived over the links; each
// node's NIC carries one transfer at a time in each direction (transfers queue
// there, which is how network contention shows); busy and idle energy and
// device-hours are accounted. Same inputs and seed give the same report, byte
// for byte.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "hetsched/backend/scheduling_loop.hpp"
#include "hetsched/fault/fault_options.hpp"
#include "hetsched/sim/device_queue.hpp"
#include "hetsched/sim/event_queue.hpp"
#include "hetsched/sim/sim_report.hpp"

namespace hetsched {

struct SimulationOptions {
  std::uint64_t seed = 1;
  bool record_schedule = true;  // keep every task and transfer for the trace
  // Called now and then with (tasks finished, tasks total), for progress display.
  std::function<void(std::size_t, std::size_t)> progress;
  // Failures, detection and recovery (fault/); off by default.
  FaultOptions faults;
};

class Simulator final : public Backend {
 public:
  Simulator(const Cluster& cluster, const Workload& workload, const PerfModel& perf,
            SchedulingPolicy& policy, SimulationOptions options = {});

  std::string_view name() const override { return "simulator"; }
  void launch(const Assignment& assignment) override;

  // Runs to completion. Throws PolicyError if the policy breaks its contract.
  SimReport run();

  const TaskGraph& graph() const { return graph_; }

  struct FaultRuntime;  // fault-tolerance state, defined in simulator_faults.cpp

 private:
  enum EventKind : std::uint32_t { job_arrival, device_wake, task_finish };
  struct DeviceState {
    DeviceQueue queue;
    bool busy = false;
    double busy_seconds = 0;
    double busy_joules = 0;
    std::uint32_t tasks = 0;
  };
  struct NicState {
    double out_free = 0;
    double in_free = 0;
  };

  void send_input(TaskIndex consumer, NodeId from_node, DeviceId from_device, double bytes);
  void try_start(DeviceId device);
  void finish(TaskIndex task);

  // Fault tolerance, in simulator_faults.cpp: failures injected as events of their
  // own kinds (from kFaultEventBase), heartbeat detection, checkpoint/restart,
  // retries, replicas and predictor alarms. All inert when faults are off.
  static constexpr std::uint32_t kFaultEventBase = 1000;
  void start_faults();
  void handle_fault_event(const Event& event);
  bool accept_finish(TaskIndex task);
  bool cannot_start(DeviceId device);  // pops stale queue entries; true when it must wait
  double begin_attempt(TaskIndex task, DeviceId device, double seconds);
  void attempt_completed(TaskIndex task);
  void after_decide();
  bool faults_settled() const;
  void finish_faults(SimReport& report);

  const Cluster& cluster_;
  const PerfModel& perf_;
  TaskGraph graph_;
  SimulationOptions options_;
  SchedulingLoop loop_;
  EventQueue events_;
  double now_ = 0;
  std::uint64_t launch_sequence_ = 0;

  std::vector<DeviceState> devices_;
  std::vector<NicState> nics_;
  std::vector<std::uint32_t> unfinished_predecessors_;  // per task
  std::vector<double> inputs_ready_at_;  // per task: arrival of the last input transfer issued
  std::vector<double> wake_at_;          // per device: the pending wake-up, if any
  std::vector<double> start_;
  std::vector<double> finish_;
  std::vector<double> joules_;
  SimReport report_;
  std::shared_ptr<FaultRuntime> fault_;  // shared_ptr: the type is complete only in its file
};

}  // namespace hetsched
