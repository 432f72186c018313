// FaultReport: what failures did to a run — per job its attempts, failures,
// checkpoints, recovery time and, when it could not complete, the reason; and
// over the run the failures injected and detected, the device time spent on
// useful work, lost work, checkpoints and replicas (goodput), and the predictor's
// precision and recall.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hetsched {

struct FaultJobRecord {
  std::uint32_t attempts = 0;     // task attempts started, replicas excluded
  std::uint32_t failures = 0;     // attempts lost to a crash, transient or partition
  std::uint32_t checkpoints = 0;  // checkpoints written
  std::uint32_t migrations = 0;   // proactive moves on a predictor alarm
  double recovery_seconds = 0;    // summed: from each loss to the retry's start
  std::uint32_t tasks_cancelled = 0;
  std::string failure_reason;  // empty: completed
};

struct FaultReport {
  std::vector<FaultJobRecord> jobs;  // in workload order
  std::uint64_t failures_injected = 0;
  std::uint64_t crashes = 0, transients = 0, stragglers = 0, partitions = 0;
  std::uint64_t detections = 0;
  std::uint64_t retries = 0;
  std::uint64_t replicas_started = 0;
  std::uint64_t replicas_cancelled = 0;
  bool cloning = false;              // task cloning was on (the JSON then has "clones")
  std::uint64_t clones_started = 0;  // straggler clones (also counted as replicas)
  std::uint64_t clones_won = 0;      // clones that finished before the original
  std::uint64_t jobs_failed = 0;
  std::uint64_t lost_tasks = 0;  // unfinished tasks whose job has no reason: must be 0
  double useful_device_seconds = 0;
  double lost_device_seconds = 0;        // work lost since the last checkpoint
  double checkpoint_device_seconds = 0;  // writing and restoring checkpoints
  double replica_device_seconds = 0;     // losing copies
  double replica_joules = 0;
  double detection_delay_seconds = 0;  // summed over detections
  // The predictor, scored against the crashes: an alarm is true when its device
  // crashes within the telemetry's degradation lead time after it; a crash is
  // predicted when an alarm on its device came at most that long before it.
  std::uint64_t alarms = 0, true_alarms = 0, predicted_crashes = 0;
  double lead_seconds = 0;        // summed over predicted crashes: crash − first alarm
  double work_saved_seconds = 0;  // in-flight work moved off a device before it crashed

  double busy_device_seconds() const {
    return useful_device_seconds + lost_device_seconds + checkpoint_device_seconds +
           replica_device_seconds;
  }
  double goodput() const {
    const double busy = busy_device_seconds();
    return busy > 0 ? useful_device_seconds / busy : 1.0;
  }
  double precision() const { return alarms ? double(true_alarms) / alarms : 0.0; }
  double recall() const { return crashes ? double(predicted_crashes) / crashes : 0.0; }
  double mean_lead_seconds() const {
    return predicted_crashes ? lead_seconds / double(predicted_crashes) : 0.0;
  }
};

nlohmann::ordered_json fault_report_to_json(const FaultReport& report,
                                            const std::vector<std::string>& job_names);

}  // namespace hetsched
