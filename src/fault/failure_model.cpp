#include "hetsched/fault/failure_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

namespace hetsched {

namespace {
constexpr std::size_t kKinds = 4;
}

const std::vector<std::string>& failure_kind_names() {
  static const std::vector<std::string> names{"crash", "transient", "straggler", "partition"};
  return names;
}

std::string_view to_string(FailureKind kind) {
  return failure_kind_names()[static_cast<std::size_t>(kind)];
}

std::optional<FailureKind> parse_failure_kind(std::string_view text) {
  const auto& names = failure_kind_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == text) return static_cast<FailureKind>(i);
  return std::nullopt;
}

double FailureModel::mtbf_seconds(const DeviceSpec& spec) const {
  const double hours = mtbf_hours_override ? *mtbf_hours_override : spec.mtbf_hours;
  return hours * mtbf_scale * 3600.0;
}

void FailureModel::validate(const Cluster& cluster, const SourcePosition& where) const {
  if (mtbf_hours_override && !(*mtbf_hours_override > 0))
    throw InputError(where,
                     fmt::format("MTBF must be more than 0 hours, got {}", *mtbf_hours_override));
  if (!(mtbf_scale > 0))
    throw InputError(where, fmt::format("MTBF scale must be more than 0, got {}", mtbf_scale));
  if (crashes)
    for (const Device& d : cluster.devices())
      if (!(mtbf_seconds(d.spec) > 0))
        throw InputError(where, fmt::format("device {} has an MTBF of {} hours; it must be more "
                                            "than 0 (set an MTBF override)",
                                            d.name, d.spec.mtbf_hours));
  if (distribution == TimeToFailure::weibull && !(weibull_shape > 0))
    throw InputError(where,
                     fmt::format("Weibull shape must be more than 0, got {}", weibull_shape));
  const std::pair<const char*, double> non_negative[] = {
      {"repair time", repair_seconds},
      {"transient rate", transients_per_device_hour},
      {"straggler rate", stragglers_per_device_hour},
      {"straggler duration", straggler_seconds},
      {"partition rate", partitions_per_node_hour},
      {"partition duration", partition_seconds}};
  for (const auto& [what, value] : non_negative)
    if (!(value >= 0))
      throw InputError(where, fmt::format("{} must be 0 or more, got {}", what, value));
  if (!(straggler_slowdown >= 1))
    throw InputError(
        where, fmt::format("straggler slowdown must be 1 or more, got {}", straggler_slowdown));
}

FailureProcess::FailureProcess(const Cluster& cluster, FailureModel model, std::uint64_t seed)
    : cluster_(cluster), model_(std::move(model)), devices_(cluster.device_count()) {
  Rng root(seed ^ 0x6661756c74730000ULL);  // "faults": a stream family of its own
  const std::size_t targets = std::max(cluster.device_count(), cluster.node_count());
  streams_.reserve(kKinds * targets);
  for (std::size_t i = 0; i < kKinds * targets; ++i) streams_.push_back(root.split());
}

Rng& FailureProcess::stream(FailureKind kind, std::uint32_t target) {
  const std::size_t targets = streams_.size() / kKinds;
  return streams_[static_cast<std::size_t>(kind) * targets + target];
}

std::optional<FailureEvent> FailureProcess::next(FailureKind kind, std::uint32_t target,
                                                 double after) {
  Rng& rng = stream(kind, target);
  FailureEvent e;
  e.kind = kind;
  e.target = target;
  const auto poisson = [&](double per_hour) -> std::optional<double> {
    if (per_hour <= 0) return std::nullopt;
    return after + rng.exponential(3600.0 / per_hour);
  };
  std::optional<double> at;
  switch (kind) {
    case FailureKind::crash: {
      if (!model_.crashes || target >= devices_) return std::nullopt;
      const double mtbf = model_.mtbf_seconds(cluster_.device(target).spec);
      if (!(mtbf > 0) || std::isinf(mtbf)) return std::nullopt;
      if (model_.distribution == TimeToFailure::exponential) {
        at = after + rng.exponential(mtbf);
      } else {
        // Weibull with the same mean: scale = mean / Γ(1 + 1/shape).
        const double scale = mtbf / std::tgamma(1.0 + 1.0 / model_.weibull_shape);
        at = after + rng.weibull(scale, model_.weibull_shape);
      }
      e.duration_seconds = model_.repair_seconds;
      break;
    }
    case FailureKind::transient:
      if (target >= devices_) return std::nullopt;
      at = poisson(model_.transients_per_device_hour);
      break;
    case FailureKind::straggler:
      if (target >= devices_) return std::nullopt;
      at = poisson(model_.stragglers_per_device_hour);
      e.duration_seconds = model_.straggler_seconds;
      e.slowdown = model_.straggler_slowdown;
      break;
    case FailureKind::partition:
      if (target >= cluster_.node_count()) return std::nullopt;
      at = poisson(model_.partitions_per_node_hour);
      e.duration_seconds = model_.partition_seconds;
      break;
  }
  if (!at) return std::nullopt;
  e.time_seconds = *at;
  return e;
}

std::vector<FailureEvent> generate_failure_schedule(const Cluster& cluster,
                                                    const FailureModel& model, double horizon,
                                                    std::uint64_t seed) {
  FailureProcess process(cluster, model, seed);
  std::vector<FailureEvent> out;
  for (std::size_t k = 0; k < kKinds; ++k) {
    const auto kind = static_cast<FailureKind>(k);
    const std::size_t targets =
        kind == FailureKind::partition ? cluster.node_count() : cluster.device_count();
    for (std::uint32_t target = 0; target < targets; ++target) {
      double after = 0;
      while (auto e = process.next(kind, target, after)) {
        if (e->time_seconds >= horizon) break;
        out.push_back(*e);
        // A crashed device fails again only after its repair; others right after.
        after = e->time_seconds + (kind == FailureKind::crash ? e->duration_seconds : 0.0);
        if (std::isinf(after)) break;
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const FailureEvent& a, const FailureEvent& b) {
    return std::tie(a.time_seconds, a.kind, a.target) < std::tie(b.time_seconds, b.kind, b.target);
  });
  return out;
}

void validate_failure_list(const std::vector<FailureEvent>& failures, const Cluster& cluster) {
  for (std::size_t i = 0; i < failures.size(); ++i) {
    const FailureEvent& f = failures[i];
    const std::size_t targets =
        f.kind == FailureKind::partition ? cluster.node_count() : cluster.device_count();
    if (f.target >= targets)
      throw InputError(fmt::format("failure {}: target {} out of range (the cluster has {} {})", i,
                                   f.target, targets,
                                   f.kind == FailureKind::partition ? "nodes" : "devices"));
    if (!(f.time_seconds >= 0) || !(f.duration_seconds >= 0) || !(f.slowdown >= 1))
      throw InputError(
          fmt::format("failure {}: time and duration must be 0 or more and the "
                      "slowdown 1 or more",
                      i));
  }
}

}  // namespace hetsched
