#include "hetsched/fault/checkpoint_interval.hpp"

#include <fmt/format.h>

#include <cmath>

#include "hetsched/core/input_error.hpp"

namespace hetsched {

double young_interval_seconds(double checkpoint_seconds, double mtbf_seconds) {
  return std::sqrt(2.0 * checkpoint_seconds * mtbf_seconds);
}

double daly_interval_seconds(double c, double m) {
  if (c >= 2.0 * m) return m;
  const double x = c / (2.0 * m);
  return std::sqrt(2.0 * c * m) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - c;
}

double checkpointed_duration_seconds(double work, double interval, double checkpoint_seconds) {
  if (!(interval > 0) || std::isinf(interval) || interval >= work) return work;
  const double checkpoints = std::ceil(work / interval) - 1.0;
  return work + checkpoints * checkpoint_seconds;
}

void CheckpointOptions::validate() const {
  if (mode == CheckpointMode::fixed && !(fixed_interval_seconds > 0))
    throw InputError(fmt::format("checkpoint interval must be more than 0 seconds, got {}",
                                 fixed_interval_seconds));
  if (!(storage_bandwidth > 0))
    throw InputError(fmt::format("checkpoint storage bandwidth must be more than 0 bytes/s, got {}",
                                 storage_bandwidth));
  if (state_bytes && !(*state_bytes >= 0))
    throw InputError(fmt::format("checkpoint state must be 0 bytes or more, got {}", *state_bytes));
}

}  // namespace hetsched
