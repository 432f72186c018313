// Checkpoint intervals: how much work to do between two checkpoints of a long task.
//
// A checkpoint costs C seconds (the task's state bytes over the storage
// bandwidth); a failure, arriving on average every M seconds (the MTBF), loses the
// work since the last checkpoint. Young (CACM 1974) balanced the two to first
// order: τ = √(2·C·M). Daly (FGCS 2006) refined it with the restart and the
// higher-order terms: τ = √(2·C·M)·[1 + ⅓·√(C/2M) + ⅑·(C/2M)] − C for C < 2M,
// and τ = M beyond. Both return the work seconds between checkpoints.
#pragma once

#include <cstdint>
#include <optional>

namespace hetsched {

double young_interval_seconds(double checkpoint_seconds, double mtbf_seconds);
double daly_interval_seconds(double checkpoint_seconds, double mtbf_seconds);

// Wall-clock seconds for `work` seconds of work with a checkpoint every `interval`
// seconds of work (none after the last piece), each costing `checkpoint_seconds`.
double checkpointed_duration_seconds(double work, double interval, double checkpoint_seconds);

enum class CheckpointMode : std::uint8_t { none, daly, fixed };

struct CheckpointOptions {
  CheckpointMode mode = CheckpointMode::none;
  double fixed_interval_seconds = 3600;  // mode fixed: work seconds between checkpoints
  double storage_bandwidth = 2e9;        // bytes/s from a device to stable storage
  // A task's state is its memory footprint (Task::memory_bytes) unless this is set.
  std::optional<double> state_bytes;
  // Throws InputError on an interval or bandwidth of 0 or less.
  void validate() const;
};

}  // namespace hetsched
