// FaultOptions: everything the simulator needs to inject failures and recover
// from them — the failure model (or an explicit list), heartbeat detection, the
// retry rules, checkpointing, replication of critical jobs and the failure
// predictor. The default is "no faults": the simulator behaves exactly as without.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hetsched/fault/checkpoint_interval.hpp"
#include "hetsched/fault/failure_model.hpp"
#include "hetsched/fault/failure_predictor.hpp"

namespace hetsched {

// Heartbeats: every device reports every `interval_seconds`; the coordinator
// declares it dead when no heartbeat came for `timeout_seconds`. A crash at time x
// is noticed at (last heartbeat before x) + timeout.
struct HeartbeatOptions {
  double interval_seconds = 5;
  double timeout_seconds = 15;
  double detection_time(double failure_seconds) const;
};

struct RetryOptions {
  std::uint32_t max_attempts = 5;  // per task, first run included
  double backoff_seconds = 1;      // before retry n: backoff · 2^(n-1), capped
  double max_backoff_seconds = 60;
  bool give_up_after_deadline = true;  // a job past its deadline is not retried
};

// Where replicas of a task may not share a failure domain with its other copies
// (preferred, not required: when no such device is free, any free device serves).
enum class ReplicaDomain : std::uint8_t { any, node, rack };

// Task cloning against stragglers (speculative execution as in MapReduce's backup
// tasks, LATE of Zaharia et al. 2008 and Mantri of Ananthanarayanan et al. 2010):
// when an attempt is still running `threshold` × its predicted time after it began
// (the performance model's time on its device, from its last checkpoint), a clone
// starts on the idle device predicted to finish it first — only if that finish is
// before the running attempt's, whose progress so far predicts its own end (LATE's
// rule). With no idle device the check repeats every quarter of the predicted time.
// The first copy to finish wins and the other is cancelled; the loser's device
// time and energy are counted (FaultReport::replica_device_seconds, replica_joules).
struct CloneOptions {
  bool enabled = false;
  double threshold = 1.5;  // × predicted duration; more than 1
};

struct FaultOptions {
  bool enabled = false;
  FailureModel model;     // used when `use_model`
  bool use_model = true;  // false: only the explicit list
  std::vector<FailureEvent> explicit_failures;
  HeartbeatOptions heartbeat;
  RetryOptions retry;
  CheckpointOptions checkpoint;
  std::uint32_t replicas = 1;              // copies of each task of a critical job
  std::vector<std::string> critical_jobs;  // job names; empty with replicas > 1: every job
  // Replicas go to devices outside the failure domains of the task's other copies
  // when any is free (node, then rack); a copy lost while another lives is
  // restarted elsewhere from the newest checkpoint of any copy.
  ReplicaDomain replica_domain = ReplicaDomain::node;
  bool respawn_replicas = true;
  // Failure prediction over modelled telemetry (failure_predictor.hpp): an alarm
  // drains the device — its running task checkpoints now and moves — and keeps it
  // out until `inspection_seconds` after its last alarming sample.
  PredictorOptions predictor;
  CloneOptions clone;

  // Throws InputError on bad values (MTBF, intervals, targets, replicas 0, ...).
  void validate(const Cluster& cluster) const;
};

}  // namespace hetsched
