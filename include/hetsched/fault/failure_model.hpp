// FailureModel: how devices and nodes fail in the simulator, and FailureProcess,
// the seeded generator of the failures themselves.
//
// Four kinds of failure, after the field studies of large GPU/HPC fleets
// (Schroeder & Gibson, DSN 2006; Jeon et al., ATC 2019):
//  - crash: a device stops (fail-stop). Time to failure is exponential (constant
//    hazard) or Weibull (shape < 1: infant mortality, the usual fit to real logs)
//    with the device's MTBF (catalog `mtbf_hours`, scaled or overridden here). The
//    device is out for `repair_seconds` (a spare swapped in); infinity = forever.
//  - transient: one task attempt fails (an ECC or driver error); the device lives.
//  - straggler: the device runs `straggler_slowdown` times slower for a while.
//  - partition: a node's network drops; its devices miss their heartbeats and
//    rejoin when the partition heals.
// Transients, stragglers and partitions arrive as Poisson processes per device
// (per node for partitions). Every target has its own random stream split from
// the run's seed, so a failure schedule is reproducible and a device's failures do
// not change when another device is added.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/rng.hpp"

namespace hetsched {

enum class FailureKind : std::uint8_t { crash, transient, straggler, partition };
std::string_view to_string(FailureKind kind);
std::optional<FailureKind> parse_failure_kind(std::string_view text);
const std::vector<std::string>& failure_kind_names();

enum class TimeToFailure : std::uint8_t { exponential, weibull };

// One failure: at `time_seconds`, `kind` strikes `target` (a DeviceId, or a NodeId
// for a partition) for `duration_seconds` (repair, slow period or partition;
// unused for transients).
struct FailureEvent {
  double time_seconds = 0;
  FailureKind kind = FailureKind::crash;
  std::uint32_t target = 0;
  double duration_seconds = 0;
  double slowdown = 1;  // stragglers: run-time multiplier
  bool operator==(const FailureEvent&) const = default;
};

struct FailureModel {
  bool crashes = true;
  TimeToFailure distribution = TimeToFailure::exponential;
  double weibull_shape = 0.7;
  double mtbf_scale = 1.0;                    // multiplies every device's catalog MTBF
  std::optional<double> mtbf_hours_override;  // one MTBF for every device
  double repair_seconds = 3600;               // infinity: a crashed device never returns
  double transients_per_device_hour = 0;
  double stragglers_per_device_hour = 0;
  double straggler_slowdown = 3;
  double straggler_seconds = 600;
  double partitions_per_node_hour = 0;
  double partition_seconds = 300;

  // The MTBF used for a device, in seconds.
  double mtbf_seconds(const DeviceSpec& spec) const;
  // Throws InputError (with `where`) on an MTBF <= 0, a negative rate or duration.
  void validate(const Cluster& cluster, const SourcePosition& where = {}) const;
};

// Seeded, lazily generated failures: ask for the next failure of a kind on a
// target after a time; the answer depends only on the seed, the target and the
// previous answers for that (kind, target).
class FailureProcess {
 public:
  FailureProcess(const Cluster& cluster, FailureModel model, std::uint64_t seed);

  // Next failure of `kind` on `target` strictly after `after_seconds`; nullopt when
  // that kind is switched off (rate 0) or the target can never fail.
  std::optional<FailureEvent> next(FailureKind kind, std::uint32_t target, double after_seconds);
  const FailureModel& model() const { return model_; }

 private:
  Rng& stream(FailureKind kind, std::uint32_t target);

  const Cluster& cluster_;
  FailureModel model_;
  std::vector<Rng> streams_;  // (kind, target) → its own stream
  std::size_t devices_ = 0;
};

// Every failure before `horizon_seconds`, in time order (ties: kind, target): the
// same failures the simulator draws lazily with the same seed.
std::vector<FailureEvent> generate_failure_schedule(const Cluster& cluster,
                                                    const FailureModel& model,
                                                    double horizon_seconds, std::uint64_t seed);

// Checks an explicit failure list against the cluster (targets in range); throws
// InputError naming the entry.
void validate_failure_list(const std::vector<FailureEvent>& failures, const Cluster& cluster);

}  // namespace hetsched
