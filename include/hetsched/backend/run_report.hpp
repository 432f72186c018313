// RunReport: what a run produced — makespan, per-job and per-device figures,
// energy, cost, transfers and (optionally) the full schedule for a Gantt chart.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/fault/fault_report.hpp"
#include "hetsched/workload/task_graph.hpp"

namespace hetsched {

struct TaskRecord {
  TaskIndex task = 0;
  DeviceId device = 0;
  std::uint8_t pstate = 0;
  double start_seconds = 0;
  double finish_seconds = 0;
  double joules = 0;
};

struct TransferRecord {
  TaskIndex consumer = 0;
  NodeId from_node = 0;
  DeviceId to_device = 0;
  double bytes = 0;
  double start_seconds = 0;
  double finish_seconds = 0;
};

// Something that happened to a device at one instant, for the report's timeline: a failure
// (crash, transient or partition), a retry starting, a checkpoint written, a task moved off
// a device on a predictor alarm.
enum class TimelineMarkKind : std::uint8_t { failure, restart, checkpoint, migration };
std::string_view to_string(TimelineMarkKind kind);

struct TimelineMark {
  double seconds = 0;
  DeviceId device = 0;
  TaskIndex task = 0;  // kNoTimelineTask when none ran there
  TimelineMarkKind kind = TimelineMarkKind::failure;
};
inline constexpr TaskIndex kNoTimelineTask = static_cast<TaskIndex>(-1);

// A value that holds from `seconds` until the next sample's time.
struct PowerSample {
  double seconds = 0;
  double watts = 0;  // the whole cluster's draw
};
struct TemperatureSample {
  double seconds = 0;
  DeviceId device = 0;
  double celsius = 0;
};

struct JobResult {
  std::string name;
  double arrival_seconds = 0;
  double first_start_seconds = 0;
  double completion_seconds = 0;
  std::optional<double> deadline_seconds;
  double waiting_seconds() const { return first_start_seconds - arrival_seconds; }
  double response_seconds() const { return completion_seconds - arrival_seconds; }
  bool deadline_met() const { return !deadline_seconds || completion_seconds <= *deadline_seconds; }
};

struct DeviceResult {
  DeviceId device = 0;
  std::uint32_t tasks = 0;
  double busy_seconds = 0;
  double busy_joules = 0;
  double idle_joules = 0;
  // Thermal model (when on): hottest temperature reached and throttle steps taken.
  double peak_celsius = 0;
  std::uint32_t throttle_events = 0;
};

struct RunReport {
  std::string policy;
  std::string perf_model;
  std::uint64_t seed = 0;
  double makespan_seconds = 0;
  std::size_t tasks_total = 0;
  std::size_t tasks_completed = 0;
  std::vector<std::string> unfinished_tasks;  // names of tasks never run, with the reason
  std::vector<JobResult> jobs;
  std::vector<DeviceResult> devices;
  std::array<double, kDeviceKindCount> utilization_by_kind{};  // busy / (devices × makespan)
  std::array<std::uint32_t, kDeviceKindCount> devices_by_kind{};
  double energy_joules = 0;
  double cost_usd = 0;
  std::uint64_t transfer_count = 0;
  double transfer_bytes = 0;
  double transfer_seconds = 0;  // summed over transfers, contention included
  std::uint64_t events = 0;
  // Filled when recording is on (SimulationOptions::record_schedule): the timeline.
  std::vector<TaskRecord> schedule;
  std::vector<TransferRecord> transfers;
  std::vector<TimelineMark> marks;              // with failures simulated
  std::vector<PowerSample> power;               // every change of the cluster's draw
  std::vector<TemperatureSample> temperatures;  // with the thermal model on
  // Power cap and thermal model (energy branch); all zero/empty when both are off.
  double power_cap_watts = 0;
  double peak_power_watts = 0;                  // highest cluster draw over the run
  double node_power_cap_watts = 0;              // per node (0: none)
  double peak_node_power_watts = 0;             // highest draw of any one node
  std::uint64_t power_cap_slowdowns = 0;        // tasks started at a slower P-state to fit the cap
  std::uint64_t power_cap_waits = 0;            // times a task waited for power
  std::vector<std::string> power_cap_refusals;  // tasks that cannot fit the cap at all
  bool thermal_modeled = false;
  double thermal_limit_celsius = 0;  // where throttling starts (thermal model on)
  std::uint64_t thermal_throttle_events = 0;
  std::optional<FaultReport> faults;  // when failures were simulated

  double energy_kwh() const { return energy_joules / 3.6e6; }
  double mean_response_seconds() const;
  double mean_waiting_seconds() const;
  std::size_t deadlines_missed() const;
};

}  // namespace hetsched
