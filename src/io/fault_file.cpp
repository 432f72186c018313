// Reader for fault files (format in include/hetsched/io/fault_file.hpp): the document is
// read by InputDocument and each section's map by FieldReader, one function a section,
// so every error names file:line:column and, for a wrong name, the closest valid ones.
#include "hetsched/io/fault_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/text_file.hpp"
#include "yaml_fields.hpp"

namespace hetsched {

namespace {

using io_detail::FieldReader;
using io_detail::InputNode;
using io_detail::NumberRange;

constexpr std::int64_t kLargestFaultCount = 1'000'000'000;

// A field that may be .inf (a device never repaired, a partition never healed).
std::optional<double> optional_duration(const FieldReader& map, std::string_view field) {
  if (const InputNode* value = map.find(field))
    return io_detail::number_or_infinity_value(*value, field, NumberRange::non_negative,
                                               map.file());
  return std::nullopt;
}

// One of a few names, given as `what` in the message about any other.
std::size_t fault_choice(const FieldReader& map, std::string_view field, std::string_view what,
                         const std::vector<std::string>& names) {
  const std::string name = map.required_string(field);
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end())
    throw InputError(map.position_of_field(field), unknown_name_message(what, name, names));
  return static_cast<std::size_t>(it - names.begin());
}

void read_fault_model(const InputNode& section, const std::string& file, const Cluster& cluster,
                      FaultOptions& o) {
  const FieldReader m(
      section, "model", file,
      {"mtbf_hours", "mtbf_scale", "distribution", "weibull_shape", "repair_seconds", "crashes",
       "transients_per_device_hour", "stragglers_per_device_hour", "straggler_slowdown",
       "straggler_seconds", "partitions_per_node_hour", "partition_seconds"});
  o.use_model = true;
  FailureModel& f = o.model;
  if (auto v = m.optional_number("mtbf_hours", NumberRange::positive)) f.mtbf_hours_override = *v;
  if (auto v = m.optional_number("mtbf_scale", NumberRange::positive)) f.mtbf_scale = *v;
  if (m.has("distribution"))
    f.distribution =
        fault_choice(m, "distribution", "distribution", {"exponential", "weibull"}) == 0
            ? TimeToFailure::exponential
            : TimeToFailure::weibull;
  if (auto v = m.optional_number("weibull_shape", NumberRange::positive)) f.weibull_shape = *v;
  if (auto v = m.optional_boolean("crashes")) f.crashes = *v;
  if (auto v = optional_duration(m, "repair_seconds")) f.repair_seconds = *v;
  if (auto v = m.optional_number("transients_per_device_hour", NumberRange::non_negative))
    f.transients_per_device_hour = *v;
  if (auto v = m.optional_number("stragglers_per_device_hour", NumberRange::non_negative))
    f.stragglers_per_device_hour = *v;
  if (auto v = m.optional_number("straggler_slowdown", NumberRange::any)) f.straggler_slowdown = *v;
  if (auto v = optional_duration(m, "straggler_seconds")) f.straggler_seconds = *v;
  if (auto v = m.optional_number("partitions_per_node_hour", NumberRange::non_negative))
    f.partitions_per_node_hour = *v;
  if (auto v = optional_duration(m, "partition_seconds")) f.partition_seconds = *v;
  f.validate(cluster, m.position());
}

// One entry of `failures:`: a crash, transient or straggler of a device, or a partition
// of a node.
FailureEvent read_failure(const InputNode& item, const std::string& file,
                          const std::vector<std::string>& device_names,
                          const std::vector<std::string>& node_names) {
  const FieldReader r(item, "failure", file,
                      {"time", "kind", "device", "node", "duration", "slowdown"});
  FailureEvent e;
  e.time_seconds = r.required_number("time", NumberRange::non_negative);
  const std::string kind = r.required_string("kind");
  const auto parsed = parse_failure_kind(kind);
  if (!parsed)
    throw InputError(r.position_of_field("kind"),
                     unknown_name_message("failure kind", kind, failure_kind_names()));
  e.kind = *parsed;
  if (e.kind == FailureKind::partition) {
    e.target = static_cast<std::uint32_t>(fault_choice(r, "node", "node", node_names));
    e.duration_seconds = 300;
  } else {
    e.target = static_cast<std::uint32_t>(fault_choice(r, "device", "device", device_names));
    e.duration_seconds = e.kind == FailureKind::crash ? 3600 : 600;
  }
  if (auto v = optional_duration(r, "duration")) e.duration_seconds = *v;
  if (const InputNode* slowdown = r.find("slowdown")) {
    e.slowdown = io_detail::number_value(*slowdown, "slowdown", NumberRange::any, file);
    if (!(e.slowdown >= 1))
      throw InputError(r.position_of_field("slowdown"),
                       fmt::format("field 'slowdown' expects a number >= 1, got {}",
                                   io_detail::describe_value(*slowdown)));
  } else if (e.kind == FailureKind::straggler) {
    e.slowdown = 3;
  }
  return e;
}

void read_failures(const InputNode& list, const std::string& file, const Cluster& cluster,
                   FaultOptions& o) {
  const std::size_t count = io_detail::list_length(list, "failures", file);
  std::vector<std::string> device_names, node_names;
  for (const Device& d : cluster.devices()) device_names.push_back(d.name);
  for (const Node& n : cluster.nodes()) node_names.push_back(n.name);
  for (std::size_t i = 0; i < count; ++i)
    o.explicit_failures.push_back(read_failure(list[i], file, device_names, node_names));
}

void read_heartbeat(const InputNode& section, const std::string& file, FaultOptions& o) {
  const FieldReader h(section, "heartbeat", file, {"interval_seconds", "timeout_seconds"});
  if (auto v = h.optional_number("interval_seconds", NumberRange::positive))
    o.heartbeat.interval_seconds = *v;
  if (auto v = h.optional_number("timeout_seconds", NumberRange::positive))
    o.heartbeat.timeout_seconds = *v;
  if (o.heartbeat.timeout_seconds < o.heartbeat.interval_seconds)
    throw InputError(h.position(), "heartbeat timeout must be at least the interval");
}

void read_retry(const InputNode& section, const std::string& file, FaultOptions& o) {
  const FieldReader t(
      section, "retry", file,
      {"max_attempts", "backoff_seconds", "max_backoff_seconds", "give_up_after_deadline"});
  if (auto v = t.optional_whole_number("max_attempts", 1, kLargestFaultCount))
    o.retry.max_attempts = static_cast<std::uint32_t>(*v);
  if (auto v = t.optional_number("backoff_seconds", NumberRange::non_negative))
    o.retry.backoff_seconds = *v;
  if (auto v = t.optional_number("max_backoff_seconds", NumberRange::non_negative))
    o.retry.max_backoff_seconds = *v;
  if (auto v = t.optional_boolean("give_up_after_deadline")) o.retry.give_up_after_deadline = *v;
}

void read_checkpoint(const InputNode& section, const std::string& file, FaultOptions& o) {
  const FieldReader c(section, "checkpoint", file,
                      {"mode", "interval_seconds", "storage_bandwidth", "state_bytes"});
  static const std::vector<std::string> kModes{"none", "daly", "fixed"};
  if (c.has("mode")) {
    const std::size_t mode = fault_choice(c, "mode", "checkpoint mode", kModes);
    o.checkpoint.mode = mode == 0   ? CheckpointMode::none
                        : mode == 1 ? CheckpointMode::daly
                                    : CheckpointMode::fixed;
  }
  if (auto v = c.optional_number("interval_seconds", NumberRange::positive)) {
    o.checkpoint.fixed_interval_seconds = *v;
    if (!c.has("mode")) o.checkpoint.mode = CheckpointMode::fixed;
  }
  if (auto v = c.optional_number("storage_bandwidth", NumberRange::positive))
    o.checkpoint.storage_bandwidth = *v;
  if (auto v = c.optional_number("state_bytes", NumberRange::non_negative))
    o.checkpoint.state_bytes = *v;
}

// replicas, critical_jobs, replica_domain and respawn_replicas: top-level fields.
void read_replication(const FieldReader& top, FaultOptions& o) {
  const std::string& file = top.file();
  if (auto v = top.optional_whole_number("replicas", 1, kLargestFaultCount))
    o.replicas = static_cast<std::uint32_t>(*v);
  if (const InputNode* jobs = top.find("critical_jobs")) {
    const std::size_t count = io_detail::list_length(*jobs, "critical_jobs", file);
    for (std::size_t i = 0; i < count; ++i)
      o.critical_jobs.push_back(io_detail::string_value((*jobs)[i], "critical_jobs", file));
  }
  if (top.has("replica_domain")) {
    const std::size_t domain =
        fault_choice(top, "replica_domain", "replica domain", {"any", "node", "rack"});
    o.replica_domain = domain == 0   ? ReplicaDomain::any
                       : domain == 1 ? ReplicaDomain::node
                                     : ReplicaDomain::rack;
  }
  if (auto v = top.optional_boolean("respawn_replicas")) o.respawn_replicas = *v;
}

void read_predictor(const InputNode& section, const std::string& file, FaultOptions& o) {
  const FieldReader p(section, "predictor", file,
                      {"ecc_reference_per_hour", "ecc_shift_per_hour", "ecc_cusum_threshold",
                       "temperature_ewma_weight", "temperature_residual_celsius", "require_both",
                       "inspection_seconds"});
  PredictorOptions& q = o.predictor;
  q.enabled = true;
  if (auto v = p.optional_number("ecc_reference_per_hour", NumberRange::positive))
    q.ecc_reference_per_hour = *v;
  if (auto v = p.optional_number("ecc_shift_per_hour", NumberRange::positive))
    q.ecc_shift_per_hour = *v;
  if (q.ecc_shift_per_hour <= q.ecc_reference_per_hour)
    throw InputError(p.position(),
                     fmt::format("predictor: the error rate to detect ({}) must be more than the "
                                 "healthy rate ({})",
                                 q.ecc_shift_per_hour, q.ecc_reference_per_hour));
  if (auto v = p.optional_number("ecc_cusum_threshold", NumberRange::positive))
    q.ecc_cusum_threshold = *v;
  if (auto v = p.optional_number("temperature_ewma_weight", NumberRange::fraction))
    q.temperature_ewma_weight = *v;
  if (auto v = p.optional_number("temperature_residual_celsius", NumberRange::any))
    q.temperature_residual_celsius = *v;
  if (auto v = p.optional_boolean("require_both")) q.require_both = *v;
  if (auto v = p.optional_number("inspection_seconds", NumberRange::non_negative))
    q.inspection_seconds = *v;
}

void read_telemetry(const InputNode& section, const std::string& file, FaultOptions& o) {
  const FieldReader t(
      section, "telemetry", file,
      {"sample_seconds", "noise_celsius", "ecc_per_hour", "degradation_lead_seconds",
       "precursor_fraction", "degraded_ecc_per_hour", "degraded_extra_celsius",
       "bursts_per_device_hour", "burst_seconds", "burst_ecc_per_hour", "burst_extra_celsius"});
  TelemetryOptions& m = o.predictor.telemetry;
  if (auto v = t.optional_number("sample_seconds", NumberRange::positive)) m.sample_seconds = *v;
  const auto set = [&](std::string_view field, double& value) {
    if (auto v = t.optional_number(field, NumberRange::non_negative)) value = *v;
  };
  set("noise_celsius", m.noise_celsius);
  set("ecc_per_hour", m.ecc_per_hour);
  set("degradation_lead_seconds", m.degradation_lead_seconds);
  set("precursor_fraction", m.precursor_fraction);
  if (m.precursor_fraction > 1)
    throw InputError(t.position_of_field("precursor_fraction"),
                     "precursor fraction must be at most 1");
  set("degraded_ecc_per_hour", m.degraded_ecc_per_hour);
  set("degraded_extra_celsius", m.degraded_extra_celsius);
  set("bursts_per_device_hour", m.bursts_per_device_hour);
  set("burst_seconds", m.burst_seconds);
  set("burst_ecc_per_hour", m.burst_ecc_per_hour);
  set("burst_extra_celsius", m.burst_extra_celsius);
}

}  // namespace

FaultOptions parse_fault_yaml(const std::string& source, const std::string& file,
                              const Cluster& cluster) {
  FaultOptions o;
  o.enabled = true;
  o.use_model = false;
  const io_detail::InputDocument document(source, file);
  const InputNode root = document.root();
  if (!root.is_defined() || root.is_null()) return o;  // an empty file: the defaults
  const FieldReader top(
      root, "fault file", file,
      {"model", "failures", "heartbeat", "retry", "checkpoint", "replicas", "critical_jobs",
       "replica_domain", "respawn_replicas", "predictor", "telemetry"});
  if (const InputNode* v = top.find("model")) read_fault_model(*v, file, cluster, o);
  if (const InputNode* v = top.find("failures")) read_failures(*v, file, cluster, o);
  if (const InputNode* v = top.find("heartbeat")) read_heartbeat(*v, file, o);
  if (const InputNode* v = top.find("retry")) read_retry(*v, file, o);
  if (const InputNode* v = top.find("checkpoint")) read_checkpoint(*v, file, o);
  read_replication(top, o);
  if (const InputNode* v = top.find("predictor")) read_predictor(*v, file, o);
  if (const InputNode* v = top.find("telemetry")) read_telemetry(*v, file, o);
  return o;
}

FaultOptions load_fault_file(const std::string& path, const Cluster& cluster) {
  return parse_fault_yaml(read_text_file(path, "fault file"), path, cluster);
}

}  // namespace hetsched
