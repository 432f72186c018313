#include "hetsched/fault/fault_options.hpp"

#include <fmt/format.h>

#include <cmath>

namespace hetsched {

double HeartbeatOptions::detection_time(double failure_seconds) const {
  const double last_heartbeat = std::floor(failure_seconds / interval_seconds) * interval_seconds;
  return std::max(failure_seconds, last_heartbeat + timeout_seconds);
}

void FaultOptions::validate(const Cluster& cluster) const {
  if (use_model) model.validate(cluster);
  validate_failure_list(explicit_failures, cluster);
  checkpoint.validate();
  if (!(heartbeat.interval_seconds > 0) ||
      !(heartbeat.timeout_seconds >= heartbeat.interval_seconds))
    throw InputError(
        fmt::format("heartbeat interval must be more than 0 and the timeout at least "
                    "the interval, got {} and {}",
                    heartbeat.interval_seconds, heartbeat.timeout_seconds));
  if (retry.max_attempts == 0) throw InputError("retry limit must be at least 1 attempt, got 0");
  if (!(retry.backoff_seconds >= 0) || !(retry.max_backoff_seconds >= 0))
    throw InputError("retry backoff must be 0 seconds or more");
  if (replicas == 0) throw InputError("replicas must be at least 1, got 0");
  if (clone.enabled && !(clone.threshold > 1))
    throw InputError(fmt::format(
        "clone threshold must be more than 1 (× the predicted time), got {}", clone.threshold));
  if (predictor.enabled) predictor.validate();
}

}  // namespace hetsched
