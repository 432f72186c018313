#include "hetsched/io/fault_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <limits>
#include <sstream>

#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/text_file.hpp"
#include "yaml_cpp_error.hpp"

namespace hetsched {

namespace {

struct Reader {
  const std::string& file;
  SourcePosition at(const YAML::Node& node) const {
    const YAML::Mark m = node.Mark();
    return SourcePosition{file, m.line + 1, m.column + 1};
  }
  [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const {
    throw InputError(at(node), message);
  }
  void expect_map(const YAML::Node& node, const char* what) const {
    if (!node.IsMap()) fail(node, fmt::format("{}: expected a mapping", what));
  }
  void check_keys(const YAML::Node& map, const std::vector<std::string>& valid,
                  const char* what) const {
    for (const auto& kv : map) {
      // YAML allows a list or a map as a key; it names nothing here.
      if (!kv.first.IsScalar() && !kv.first.IsNull())
        fail(kv.first, fmt::format("{}: a key must be a name, not a list or a map", what));
      const std::string key = kv.first.as<std::string>();
      if (std::find(valid.begin(), valid.end(), key) == valid.end())
        fail(kv.first, unknown_name_message(std::string(what) + " key", key, valid));
    }
  }
  double number(const YAML::Node& node, const char* what) const {
    if (!node.IsScalar()) fail(node, fmt::format("{}: expected a number", what));
    const std::string text = node.Scalar();
    if (text == ".inf" || text == "inf") return std::numeric_limits<double>::infinity();
    try {
      std::size_t used = 0;
      const double value = std::stod(text, &used);
      if (used != text.size()) throw std::invalid_argument(text);
      return value;
    } catch (const std::exception&) {
      fail(node, fmt::format("{}: expected a number, got '{}'", what, text));
    }
  }
  double positive(const YAML::Node& node, const char* what) const {
    const double v = number(node, what);
    if (!(v > 0)) fail(node, fmt::format("{} must be more than 0, got {}", what, v));
    return v;
  }
  double non_negative(const YAML::Node& node, const char* what) const {
    const double v = number(node, what);
    if (!(v >= 0)) fail(node, fmt::format("{} must be 0 or more, got {}", what, v));
    return v;
  }
  std::uint32_t count(const YAML::Node& node, const char* what) const {
    const double v = number(node, what);
    if (!(v >= 1) || v != std::floor(v) || v > 1e9)
      fail(node, fmt::format("{} must be a whole number of at least 1, got {}", what, v));
    return static_cast<std::uint32_t>(v);
  }
  // true or false in any of YAML's spellings (yes, on, True, ...).
  bool yaml_boolean(const YAML::Node& node, const char* what) const {
    try {
      return node.as<bool>();
    } catch (const YAML::Exception&) {
      fail(node, fmt::format("{}: expected true or false", what));
    }
  }
  bool boolean(const YAML::Node& node, const char* what) const {
    if (node.IsScalar()) {
      const std::string v = node.Scalar();
      if (v == "true") return true;
      if (v == "false") return false;
    }
    fail(node, fmt::format("{}: expected true or false", what));
  }
  std::string text(const YAML::Node& node, const char* what) const {
    if (!node.IsScalar()) fail(node, fmt::format("{}: expected a name", what));
    return node.Scalar();
  }
};

}  // namespace

FaultOptions parse_fault_yaml(const std::string& source, const std::string& file,
                              const Cluster& cluster) {
  YAML::Node root;
  try {
    root = YAML::Load(source);
  } catch (const YAML::Exception& e) {
    throw InputError(SourcePosition{file, e.mark.line + 1, e.mark.column + 1},
                     io_detail::yaml_cpp_error_message(e));
  }
  const Reader r{file};
  FaultOptions o;
  o.enabled = true;
  o.use_model = false;
  if (root.IsNull()) return o;
  r.expect_map(root, "fault file");
  r.check_keys(root,
               {"model", "failures", "heartbeat", "retry", "checkpoint", "replicas",
                "critical_jobs", "replica_domain", "respawn_replicas", "predictor", "telemetry"},
               "fault file");

  if (const YAML::Node m = root["model"]) {
    r.expect_map(m, "model");
    r.check_keys(
        m,
        {"mtbf_hours", "mtbf_scale", "distribution", "weibull_shape", "repair_seconds", "crashes",
         "transients_per_device_hour", "stragglers_per_device_hour", "straggler_slowdown",
         "straggler_seconds", "partitions_per_node_hour", "partition_seconds"},
        "model");
    o.use_model = true;
    FailureModel& f = o.model;
    if (m["mtbf_hours"]) f.mtbf_hours_override = r.positive(m["mtbf_hours"], "MTBF (hours)");
    if (m["mtbf_scale"]) f.mtbf_scale = r.positive(m["mtbf_scale"], "MTBF scale");
    if (m["distribution"]) {
      const std::string d = r.text(m["distribution"], "distribution");
      if (d == "exponential")
        f.distribution = TimeToFailure::exponential;
      else if (d == "weibull")
        f.distribution = TimeToFailure::weibull;
      else
        r.fail(m["distribution"],
               unknown_name_message("distribution", d, {"exponential", "weibull"}));
    }
    if (m["weibull_shape"]) f.weibull_shape = r.positive(m["weibull_shape"], "Weibull shape");
    if (m["crashes"]) f.crashes = r.yaml_boolean(m["crashes"], "crashes");
    if (m["repair_seconds"]) f.repair_seconds = r.non_negative(m["repair_seconds"], "repair time");
    if (m["transients_per_device_hour"])
      f.transients_per_device_hour =
          r.non_negative(m["transients_per_device_hour"], "transient rate");
    if (m["stragglers_per_device_hour"])
      f.stragglers_per_device_hour =
          r.non_negative(m["stragglers_per_device_hour"], "straggler rate");
    if (m["straggler_slowdown"])
      f.straggler_slowdown = r.number(m["straggler_slowdown"], "slowdown");
    if (m["straggler_seconds"])
      f.straggler_seconds = r.non_negative(m["straggler_seconds"], "straggler duration");
    if (m["partitions_per_node_hour"])
      f.partitions_per_node_hour = r.non_negative(m["partitions_per_node_hour"], "partition rate");
    if (m["partition_seconds"])
      f.partition_seconds = r.non_negative(m["partition_seconds"], "partition duration");
    try {
      f.validate(cluster, r.at(m));
    } catch (const InputError&) {
      throw;
    }
  }

  if (const YAML::Node list = root["failures"]) {
    if (!list.IsSequence()) r.fail(list, "failures: expected a list");
    std::vector<std::string> device_names, node_names;
    for (const Device& d : cluster.devices()) device_names.push_back(d.name);
    for (const Node& n : cluster.nodes()) node_names.push_back(n.name);
    for (const YAML::Node& item : list) {
      r.expect_map(item, "failure");
      r.check_keys(item, {"time", "kind", "device", "node", "duration", "slowdown"}, "failure");
      FailureEvent e;
      if (!item["time"]) r.fail(item, "failure: missing 'time' (seconds)");
      e.time_seconds = r.non_negative(item["time"], "failure time");
      if (!item["kind"]) r.fail(item, "failure: missing 'kind'");
      const std::string kind = r.text(item["kind"], "kind");
      const auto parsed = parse_failure_kind(kind);
      if (!parsed)
        r.fail(item["kind"], unknown_name_message("failure kind", kind, failure_kind_names()));
      e.kind = *parsed;
      if (e.kind == FailureKind::partition) {
        if (!item["node"]) r.fail(item, "partition: missing 'node'");
        const std::string name = r.text(item["node"], "node");
        const auto it = std::find(node_names.begin(), node_names.end(), name);
        if (it == node_names.end())
          r.fail(item["node"], unknown_name_message("node", name, node_names));
        e.target = static_cast<std::uint32_t>(it - node_names.begin());
        e.duration_seconds = 300;
      } else {
        if (!item["device"]) r.fail(item, fmt::format("{}: missing 'device'", kind));
        const std::string name = r.text(item["device"], "device");
        const auto it = std::find(device_names.begin(), device_names.end(), name);
        if (it == device_names.end())
          r.fail(item["device"], unknown_name_message("device", name, device_names));
        e.target = static_cast<std::uint32_t>(it - device_names.begin());
        e.duration_seconds = e.kind == FailureKind::crash ? 3600 : 600;
      }
      if (item["duration"]) e.duration_seconds = r.non_negative(item["duration"], "duration");
      if (item["slowdown"]) {
        e.slowdown = r.number(item["slowdown"], "slowdown");
        if (!(e.slowdown >= 1)) r.fail(item["slowdown"], "slowdown must be 1 or more");
      } else if (e.kind == FailureKind::straggler) {
        e.slowdown = 3;
      }
      o.explicit_failures.push_back(e);
    }
  }

  if (const YAML::Node h = root["heartbeat"]) {
    r.expect_map(h, "heartbeat");
    r.check_keys(h, {"interval_seconds", "timeout_seconds"}, "heartbeat");
    if (h["interval_seconds"])
      o.heartbeat.interval_seconds = r.positive(h["interval_seconds"], "heartbeat interval");
    if (h["timeout_seconds"])
      o.heartbeat.timeout_seconds = r.positive(h["timeout_seconds"], "heartbeat timeout");
    if (o.heartbeat.timeout_seconds < o.heartbeat.interval_seconds)
      r.fail(h, "heartbeat timeout must be at least the interval");
  }
  if (const YAML::Node t = root["retry"]) {
    r.expect_map(t, "retry");
    r.check_keys(
        t, {"max_attempts", "backoff_seconds", "max_backoff_seconds", "give_up_after_deadline"},
        "retry");
    if (t["max_attempts"]) o.retry.max_attempts = r.count(t["max_attempts"], "retry limit");
    if (t["backoff_seconds"])
      o.retry.backoff_seconds = r.non_negative(t["backoff_seconds"], "backoff");
    if (t["max_backoff_seconds"])
      o.retry.max_backoff_seconds = r.non_negative(t["max_backoff_seconds"], "maximum backoff");
    if (t["give_up_after_deadline"])
      o.retry.give_up_after_deadline =
          r.yaml_boolean(t["give_up_after_deadline"], "give_up_after_deadline");
  }
  if (const YAML::Node c = root["checkpoint"]) {
    r.expect_map(c, "checkpoint");
    r.check_keys(c, {"mode", "interval_seconds", "storage_bandwidth", "state_bytes"}, "checkpoint");
    if (c["mode"]) {
      const std::string mode = r.text(c["mode"], "checkpoint mode");
      if (mode == "none")
        o.checkpoint.mode = CheckpointMode::none;
      else if (mode == "daly")
        o.checkpoint.mode = CheckpointMode::daly;
      else if (mode == "fixed")
        o.checkpoint.mode = CheckpointMode::fixed;
      else
        r.fail(c["mode"], unknown_name_message("checkpoint mode", mode, {"none", "daly", "fixed"}));
    }
    if (c["interval_seconds"]) {
      o.checkpoint.fixed_interval_seconds =
          r.positive(c["interval_seconds"], "checkpoint interval");
      if (!c["mode"]) o.checkpoint.mode = CheckpointMode::fixed;
    }
    if (c["storage_bandwidth"])
      o.checkpoint.storage_bandwidth = r.positive(c["storage_bandwidth"], "storage bandwidth");
    if (c["state_bytes"])
      o.checkpoint.state_bytes = r.non_negative(c["state_bytes"], "state bytes");
  }
  if (const YAML::Node n = root["replicas"]) o.replicas = r.count(n, "replicas");
  if (const YAML::Node jobs = root["critical_jobs"]) {
    if (!jobs.IsSequence()) r.fail(jobs, "critical_jobs: expected a list of job names");
    for (const YAML::Node& j : jobs) o.critical_jobs.push_back(r.text(j, "job name"));
  }
  if (const YAML::Node d = root["replica_domain"]) {
    const std::string domain = r.text(d, "replica domain");
    if (domain == "any")
      o.replica_domain = ReplicaDomain::any;
    else if (domain == "node")
      o.replica_domain = ReplicaDomain::node;
    else if (domain == "rack")
      o.replica_domain = ReplicaDomain::rack;
    else
      r.fail(d, unknown_name_message("replica domain", domain, {"any", "node", "rack"}));
  }
  if (const YAML::Node n = root["respawn_replicas"])
    o.respawn_replicas = r.boolean(n, "respawn_replicas");
  if (const YAML::Node p = root["predictor"]) {
    r.expect_map(p, "predictor");
    r.check_keys(p,
                 {"ecc_reference_per_hour", "ecc_shift_per_hour", "ecc_cusum_threshold",
                  "temperature_ewma_weight", "temperature_residual_celsius", "require_both",
                  "inspection_seconds"},
                 "predictor");
    PredictorOptions& q = o.predictor;
    q.enabled = true;
    if (p["ecc_reference_per_hour"])
      q.ecc_reference_per_hour = r.positive(p["ecc_reference_per_hour"], "healthy error rate");
    if (p["ecc_shift_per_hour"])
      q.ecc_shift_per_hour = r.positive(p["ecc_shift_per_hour"], "error rate to detect");
    if (q.ecc_shift_per_hour <= q.ecc_reference_per_hour)
      r.fail(p, fmt::format("predictor: the error rate to detect ({}) must be more than the "
                            "healthy rate ({})",
                            q.ecc_shift_per_hour, q.ecc_reference_per_hour));
    if (p["ecc_cusum_threshold"])
      q.ecc_cusum_threshold = r.positive(p["ecc_cusum_threshold"], "CUSUM threshold");
    if (p["temperature_ewma_weight"]) {
      q.temperature_ewma_weight = r.positive(p["temperature_ewma_weight"], "EWMA weight");
      if (q.temperature_ewma_weight > 1)
        r.fail(p["temperature_ewma_weight"], "EWMA weight must be at most 1");
    }
    if (p["temperature_residual_celsius"])
      q.temperature_residual_celsius =
          r.number(p["temperature_residual_celsius"], "temperature residual threshold");
    if (p["require_both"]) q.require_both = r.boolean(p["require_both"], "require_both");
    if (p["inspection_seconds"])
      q.inspection_seconds = r.non_negative(p["inspection_seconds"], "inspection time");
  }
  if (const YAML::Node t = root["telemetry"]) {
    r.expect_map(t, "telemetry");
    r.check_keys(
        t,
        {"sample_seconds", "noise_celsius", "ecc_per_hour", "degradation_lead_seconds",
         "precursor_fraction", "degraded_ecc_per_hour", "degraded_extra_celsius",
         "bursts_per_device_hour", "burst_seconds", "burst_ecc_per_hour", "burst_extra_celsius"},
        "telemetry");
    TelemetryOptions& m = o.predictor.telemetry;
    if (t["sample_seconds"]) m.sample_seconds = r.positive(t["sample_seconds"], "sample period");
    const auto set = [&](const char* key, double& field) {
      if (t[key]) field = r.non_negative(t[key], key);
    };
    set("noise_celsius", m.noise_celsius);
    set("ecc_per_hour", m.ecc_per_hour);
    set("degradation_lead_seconds", m.degradation_lead_seconds);
    set("precursor_fraction", m.precursor_fraction);
    if (m.precursor_fraction > 1)
      r.fail(t["precursor_fraction"], "precursor fraction must be at most 1");
    set("degraded_ecc_per_hour", m.degraded_ecc_per_hour);
    set("degraded_extra_celsius", m.degraded_extra_celsius);
    set("bursts_per_device_hour", m.bursts_per_device_hour);
    set("burst_seconds", m.burst_seconds);
    set("burst_ecc_per_hour", m.burst_ecc_per_hour);
    set("burst_extra_celsius", m.burst_extra_celsius);
  }
  return o;
}

FaultOptions load_fault_file(const std::string& path, const Cluster& cluster) {
  return parse_fault_yaml(read_text_file(path, "fault file"), path, cluster);
}

}  // namespace hetsched
