#include "hetsched/service/stream_submission.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "hetsched/core/input_error.hpp"
#include "hetsched/core/utf8_text.hpp"
#include "hetsched/io/input_syntax.hpp"

namespace hetsched {
namespace {

SourcePosition at(const std::string& field, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return SourcePosition{field, mark.line + 1, mark.column + 1};
}

// yaml-cpp has no bound on nesting: the document reader checks the body first (a million
// `[` is a syntax error at level 257 there, in bounded memory).
YAML::Node load(std::string_view text) {
  check_input_syntax(text, "body");
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw InputError(SourcePosition{"body", e.mark.line + 1, e.mark.column + 1}, e.msg);
  }
}

void only_keys(const std::string& field, const YAML::Node& map,
               std::initializer_list<std::string_view> allowed) {
  if (!map.IsMap()) throw InputError(at(field, map), fmt::format("{}: expected a mapping", field));
  for (const auto& entry : map) {
    const std::string key = entry.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      throw InputError(
          at(field + "." + key, entry.first),
          fmt::format("unknown field '{}' (expected one of: {})", key, fmt::join(allowed, ", ")));
  }
}

double number(const std::string& field, const YAML::Node& node) {
  double value = 0;
  try {
    if (!node.IsScalar()) throw YAML::Exception(node.Mark(), "");
    value = node.as<double>();
  } catch (const YAML::Exception&) {
    throw InputError(at(field, node), fmt::format("field '{}' expects a number", field));
  }
  if (!std::isfinite(value))
    throw InputError(at(field, node), fmt::format("field '{}' expects a finite number", field));
  return value;
}

std::string text_of(const std::string& field, const YAML::Node& node) {
  if (!node.IsScalar() || node.Scalar().empty())
    throw InputError(at(field, node), fmt::format("field '{}' expects a non-empty string", field));
  if (control_character_offset(node.Scalar()) != std::string_view::npos)
    throw InputError(at(field, node),
                     fmt::format("field '{}' holds a control character; text fields must be "
                                 "printable",
                                 field));
  return node.Scalar();
}

bool flag(const std::string& field, const YAML::Node& node) {
  try {
    if (!node.IsScalar()) throw YAML::Exception(node.Mark(), "");
    return node.as<bool>();
  } catch (const YAML::Exception&) {
    throw InputError(at(field, node), fmt::format("field '{}' expects true or false", field));
  }
}

}  // namespace

bool is_stream_submission(std::string_view text) {
  if (text.find("stream") == std::string_view::npos) return false;
  try {
    check_input_syntax(text, "body");  // before yaml-cpp, which has no bound on nesting
    const YAML::Node root = YAML::Load(std::string(text));
    return root.IsMap() && root["kind"] && root["kind"].IsScalar() &&
           root["kind"].Scalar() == "stream";
  } catch (const YAML::Exception&) {
    return false;
  } catch (const InputError&) {
    return false;  // not a document: the workload reader says where
  }
}

std::vector<StreamJob> parse_stream_submission(std::string_view text, std::size_t max_jobs) {
  const YAML::Node root = load(text);
  if (!root.IsMap()) throw InputError(SourcePosition{"body", 1, 1}, "expected a mapping");
  only_keys("body", root, {"kind", "cluster", "throughputs", "gavel_trace", "generate", "jobs"});
  if (text_of("body.kind", root["kind"]) != "stream")
    throw InputError(at("body.kind", root["kind"]), "expected 'kind: stream'");
  for (const char* server_side : {"throughputs", "gavel_trace", "generate"})
    if (root[server_side])
      throw InputError(
          at(fmt::format("body.{}", server_side), root[server_side]),
          fmt::format("field '{}' is not accepted by the service (it reads files on the server "
                      "or invents jobs); give each job's 'rates'",
                      server_side));
  if (const YAML::Node cluster = root["cluster"])
    only_keys("body.cluster", cluster, {"devices_per_node", "nodes_per_rack", "devices"});
  const YAML::Node jobs = root["jobs"];
  if (!jobs) throw InputError(SourcePosition{"body.jobs", 1, 1}, "missing field 'jobs'");
  if (!jobs.IsSequence() || jobs.size() == 0)
    throw InputError(at("body.jobs", jobs), "field 'jobs' expects a non-empty list");
  if (jobs.size() > max_jobs)
    throw InputError(at("body.jobs", jobs),
                     fmt::format("{} jobs in one submission; at most {}", jobs.size(), max_jobs));

  std::vector<StreamJob> out;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const YAML::Node node = jobs[i];
    const std::string field = fmt::format("body.jobs[{}]", i);
    only_keys(field, node,
              {"name", "model", "user", "gang", "steps", "arrival", "weight", "deadline", "rates",
               "spread_rates", "preemptible"});
    StreamJob job;
    job.name = node["name"] ? text_of(field + ".name", node["name"]) : fmt::format("stream-{}", i);
    if (node["model"]) job.job_type = text_of(field + ".model", node["model"]);
    if (node["user"]) job.user = text_of(field + ".user", node["user"]);
    if (node["gang"]) {
      const double gang = number(field + ".gang", node["gang"]);
      if (gang < 1 || gang > 4096 || gang != std::floor(gang))
        throw InputError(at(field + ".gang", node["gang"]),
                         "field 'gang' expects a whole number of devices from 1 to 4096");
      job.gang_size = static_cast<int>(gang);
    }
    if (!node["steps"]) throw InputError(at(field + ".steps", node), "missing field 'steps'");
    job.total_steps = number(field + ".steps", node["steps"]);
    if (!(job.total_steps > 0))
      throw InputError(at(field + ".steps", node["steps"]), "field 'steps' must be > 0");
    if (node["arrival"]) {  // model seconds after the submission
      job.arrival_seconds = number(field + ".arrival", node["arrival"]);
      if (job.arrival_seconds < 0)
        throw InputError(at(field + ".arrival", node["arrival"]), "field 'arrival' must be >= 0");
    }
    if (node["weight"]) {
      job.priority_weight = number(field + ".weight", node["weight"]);
      if (!(job.priority_weight > 0))
        throw InputError(at(field + ".weight", node["weight"]), "field 'weight' must be > 0");
    }
    if (node["deadline"]) {
      job.deadline_seconds = number(field + ".deadline", node["deadline"]);
      if (!(*job.deadline_seconds > 0))
        throw InputError(at(field + ".deadline", node["deadline"]),
                         "field 'deadline' (seconds after submission) must be > 0");
    }
    if (node["preemptible"]) job.preemptible = flag(field + ".preemptible", node["preemptible"]);
    if (!node["rates"])
      throw InputError(at(field + ".rates", node),
                       "missing field 'rates' ({DEVICE_MODEL: steps_per_second}); the service "
                       "has no throughput table for 'model'");
    for (const char* key : {"rates", "spread_rates"}) {
      const YAML::Node rates = node[key];
      if (!rates) continue;
      const std::string rates_field = field + "." + key;
      if (!rates.IsMap() || rates.size() == 0)
        throw InputError(at(rates_field, rates),
                         fmt::format("field '{}' expects {{DEVICE_MODEL: steps_per_second}}", key));
      auto& into =
          std::string_view(key) == "rates" ? job.steps_per_second : job.spread_steps_per_second;
      for (const auto& entry : rates) {
        const std::string type = text_of(rates_field, entry.first);
        const std::string rate_field = rates_field + "." + type;
        const double rate = number(rate_field, entry.second);
        if (rate < 0)
          throw InputError(at(rate_field, entry.second), "a rate must be >= 0 steps per second");
        into[type] = rate;
      }
    }
    if (std::none_of(job.steps_per_second.begin(), job.steps_per_second.end(),
                     [](const auto& r) { return r.second > 0; }))
      throw InputError(at(field + ".rates", node["rates"]),
                       "field 'rates' gives no device type a rate > 0");
    out.push_back(std::move(job));
  }
  return out;
}

}  // namespace hetsched
