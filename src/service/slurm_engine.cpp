// SlurmEngine: the brain's placements carried out by a real slurmctld through its
// command-line tools. Every tool runs as an argv with a deadline (run_process); its
// JSON (Slurm's openapi/v0.0.38 data parser, the same shape slurmrestd serves) is
// read with nlohmann::json. Slurm job states map onto EngineTaskState: PENDING and
// the like → pending, RUNNING and COMPLETING → running, COMPLETED → completed,
// CANCELLED → cancelled, every other end (FAILED, NODE_FAIL, TIMEOUT, OUT_OF_MEMORY,
// BOOT_FAIL, DEADLINE, PREEMPTED) → failed with Slurm's reason and exit status.
#include "slurm_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <utility>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/service/process_runner.hpp"

namespace hetsched {
namespace {

using nlohmann::json;

std::string lowercase(std::string_view text) {
  std::string result(text);
  std::transform(result.begin(), result.end(), result.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return result;
}

std::string trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  return std::string(text);
}

// Splits on commas outside parentheses ("gpu:h100:4(S:0-1),tpu:4").
std::vector<std::string_view> split_gres_list(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      if (i > start) parts.push_back(text.substr(start, i - start));
      start = i + 1;
    } else if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')') {
      depth = std::max(0, depth - 1);
    }
  }
  return parts;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const auto at = text.find(separator, start);
    parts.push_back(text.substr(start, at == std::string_view::npos ? at : at - start));
    if (at == std::string_view::npos) break;
    start = at + 1;
  }
  return parts;
}

std::optional<std::uint32_t> parse_count(std::string_view text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  std::uint32_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::uint32_t>(c - '0');
  }
  return value;
}

std::string json_string(const json& object, const char* field) {
  const auto it = object.find(field);
  if (it == object.end() || !it->is_string()) return {};
  return it->get<std::string>();
}

std::string json_id(const json& object, const char* field) {
  const auto it = object.find(field);
  if (it == object.end()) return {};
  if (it->is_number_unsigned() || it->is_number_integer())
    return std::to_string(it->get<long long>());
  if (it->is_string()) return it->get<std::string>();
  return {};
}

EngineTaskState state_of_slurm_job(std::string_view job_state) {
  if (job_state == "PENDING" || job_state == "CONFIGURING" || job_state == "REQUEUED" ||
      job_state == "REQUEUE_HOLD" || job_state == "REQUEUE_FED" || job_state == "RESIZING" ||
      job_state == "SUSPENDED" || job_state == "STOPPED" || job_state == "SIGNALING") {
    return EngineTaskState::pending;
  }
  if (job_state == "RUNNING" || job_state == "COMPLETING" || job_state == "STAGE_OUT") {
    return EngineTaskState::running;
  }
  if (job_state == "COMPLETED") return EngineTaskState::completed;
  if (job_state == "CANCELLED") return EngineTaskState::cancelled;
  return EngineTaskState::failed;
}

bool has_ended(EngineTaskState state) {
  return state == EngineTaskState::completed || state == EngineTaskState::failed ||
         state == EngineTaskState::cancelled;
}

// Slurm's words for why a job ended as it did: its state reason (or the state
// itself when the reason is "None") and the batch script's exit status or signal.
std::string reason_of_slurm_job(const json& job, EngineTaskState state) {
  const std::string job_state = json_string(job, "job_state");
  std::string reason = json_string(job, "state_reason");
  if (state == EngineTaskState::failed || state == EngineTaskState::cancelled) {
    if (reason.empty() || reason == "None") reason = job_state;
    const auto exit_it = job.find("exit_code");
    if (exit_it != job.end() && exit_it->is_number_integer()) {
      const int status = exit_it->get<int>();  // a wait(2) status
      if ((status & 0x7f) != 0) {
        reason += fmt::format(" (signal {})", status & 0x7f);
      } else if ((status >> 8) != 0) {
        reason += fmt::format(" (exit code {})", (status >> 8) & 0xff);
      }
    }
    return reason;
  }
  if (state == EngineTaskState::pending && reason != "None") return reason;
  return {};
}

}  // namespace

std::string catalog_model_for_gres(DeviceKind kind, std::string_view gres_type) {
  if (gres_type.empty()) return {};
  const std::string word = lowercase(gres_type);
  static const std::vector<std::pair<std::string_view, std::string_view>> aliases = {
      {"h100", "H100-SXM"},   {"h100-sxm", "H100-SXM"},   {"h100_sxm", "H100-SXM"},
      {"a100", "A100-80GB"},  {"a100-80gb", "A100-80GB"}, {"a100_80gb", "A100-80GB"},
      {"h200", "H200"},       {"v4", "TPU-v4"},           {"v5e", "TPU-v5e"},
      {"v5p", "TPU-v5p"},     {"tpu-v4", "TPU-v4"},       {"tpu-v5e", "TPU-v5e"},
      {"tpu-v5p", "TPU-v5p"},
  };
  for (const auto& [alias, model] : aliases) {
    const DeviceSpec* part = find_catalog_part(model);
    if (word == alias && part && part->kind == kind) return part->model;
  }
  if (const DeviceSpec* part = find_catalog_part(word); part && part->kind == kind) {
    return part->model;
  }
  return std::string(gres_type);
}

namespace {

struct GresEntry {
  EngineDeviceGroup group;
  std::string type_word;  // Slurm's type ("h100"); empty when untyped
};

std::vector<GresEntry> parse_gres_entries(std::string_view gres) {
  std::vector<GresEntry> entries;
  for (std::string_view entry : split_gres_list(gres)) {
    if (const auto paren = entry.find('('); paren != std::string_view::npos) {
      entry = entry.substr(0, paren);
    }
    const auto fields = split(entry, ':');
    DeviceKind kind;
    if (fields[0] == "gpu") {
      kind = DeviceKind::gpu;
    } else if (fields[0] == "tpu") {
      kind = DeviceKind::tpu;
    } else {
      continue;  // (null), mps, shard, licences and other non-device GRES
    }
    std::string type;
    std::uint32_t count = 1;
    if (fields.size() == 2) {
      if (auto parsed = parse_count(fields[1])) {
        count = *parsed;
      } else {
        type = std::string(fields[1]);
      }
    } else if (fields.size() >= 3) {
      type = std::string(fields[1]);
      count = parse_count(fields[2]).value_or(0);
    }
    if (count == 0) continue;
    GresEntry parsed;
    parsed.group.kind = kind;
    parsed.group.model = type.empty() ? std::string(fields[0]) : catalog_model_for_gres(kind, type);
    parsed.group.count = count;
    parsed.type_word = type;
    entries.push_back(std::move(parsed));
  }
  return entries;
}

}  // namespace

std::vector<EngineDeviceGroup> parse_slurm_gres(std::string_view gres) {
  std::vector<EngineDeviceGroup> groups;
  for (auto& entry : parse_gres_entries(gres)) groups.push_back(std::move(entry.group));
  return groups;
}

SlurmEngine::SlurmEngine(SlurmEngineOptions options) : options_(std::move(options)) {}

std::string SlurmEngine::run_tool(std::vector<std::string> argv) {
  ProcessRequest request;
  request.argv = std::move(argv);
  request.timeout = options_.command_timeout;
  if (!options_.slurm_conf.empty())
    request.environment.emplace_back("SLURM_CONF", options_.slurm_conf);
  const ProcessResult result = run_process(request);
  if (!result.succeeded()) {
    std::string why;
    if (!result.started) {
      why = "could not run it";
    } else if (result.timed_out) {
      why = fmt::format("no answer within {} ms", options_.command_timeout.count());
    } else if (result.signal != 0) {
      why = fmt::format("killed by signal {}", result.signal);
    } else {
      why = fmt::format("exit status {}", result.exit_code);
    }
    const std::string detail = trimmed(result.standard_error);
    throw EngineError(fmt::format("slurm: `{}` failed: {}{}{}", describe_command(request.argv), why,
                                  detail.empty() ? "" : ": ", detail));
  }
  return result.standard_output;
}

std::vector<EngineNode> SlurmEngine::nodes() {
  const std::string text = run_tool({"sinfo", "--json"});
  const json document = json::parse(text, nullptr, false);
  if (document.is_discarded() || !document.contains("nodes") || !document["nodes"].is_array()) {
    throw EngineError("slurm: `sinfo --json` printed no node list");
  }
  std::vector<EngineNode> result;
  for (const json& entry : document["nodes"]) {
    if (!options_.partition.empty()) {
      const auto partitions = entry.value("partitions", json::array());
      if (std::find(partitions.begin(), partitions.end(), options_.partition) == partitions.end()) {
        continue;
      }
    }
    EngineNode node;
    node.name = json_string(entry, "name");
    const std::string state = lowercase(json_string(entry, "state"));
    const auto flags = entry.value("state_flags", json::array());
    const auto flagged = [&](std::string_view flag) {
      return std::any_of(flags.begin(), flags.end(), [&](const json& f) {
        return f.is_string() && f.get<std::string>() == flag;
      });
    };
    if (state == "down" || state == "future" || state == "unknown") {
      node.state = EngineNodeState::down;
    } else if (flagged("DRAIN") || flagged("FAIL") || state == "drained" || state == "draining") {
      node.state = EngineNodeState::draining;
    } else {
      node.state = EngineNodeState::up;
    }
    node.cpus = entry.value("cpus", 0u);
    node.memory_bytes = entry.value("real_memory", 0.0) * 1024.0 * 1024.0;
    auto& words = gres_words_[node.name];
    words.clear();
    for (auto& gres : parse_gres_entries(json_string(entry, "gres"))) {
      words[gres.group.model] = gres.type_word;
      node.devices.push_back(std::move(gres.group));
    }
    if (node.cpus > 0 && cpu_core_spec(options_.cpu_model))
      node.devices.push_back({DeviceKind::cpu, cpu_core_model_name(options_.cpu_model), node.cpus});
    result.push_back(std::move(node));
  }
  return result;
}

std::optional<DeviceSpec> cpu_core_spec(std::string_view catalog_cpu) {
  const DeviceSpec* part = find_catalog_part(catalog_cpu);
  if (part == nullptr || part->kind != DeviceKind::cpu || part->compute_units < 1)
    return std::nullopt;
  DeviceSpec core = *part;
  const double cores = part->compute_units;
  core.model = cpu_core_model_name(part->model);
  for (double& rate : core.matrix_flops) rate /= cores;
  for (double& rate : core.vector_flops) rate /= cores;
  core.compute_units = 1;
  core.memory_bytes /= cores;
  core.memory_bandwidth /= cores;
  core.idle_watts /= cores;
  core.peak_watts /= cores;
  core.price_per_hour /= cores;
  return core;
}

std::string cpu_core_model_name(std::string_view catalog_cpu) {
  return fmt::format("{} core", catalog_cpu);
}

std::optional<DeviceSpec> SlurmEngine::device_spec(DeviceKind kind, std::string_view model) const {
  if (kind != DeviceKind::cpu || model != cpu_core_model_name(options_.cpu_model))
    return std::nullopt;
  return cpu_core_spec(options_.cpu_model);
}

std::optional<std::string> SlurmEngine::gres_word_for(const EngineLaunch& launch) const {
  const auto node = gres_words_.find(launch.node);
  if (node == gres_words_.end()) return std::nullopt;
  const auto word = node->second.find(launch.device_model);
  if (word == node->second.end()) return std::nullopt;
  return word->second;
}

std::vector<std::string> SlurmEngine::sbatch_arguments(const EngineLaunch& launch) const {
  std::vector<std::string> argv = {"sbatch",
                                   "--parsable",
                                   "--job-name=" + launch.task_key,
                                   "--comment=" + options_.job_tag,
                                   "--nodelist=" + launch.node,
                                   "--nodes=1",
                                   "--ntasks=1",
                                   "--no-requeue"};
  if (!options_.partition.empty()) argv.push_back("--partition=" + options_.partition);
  argv.push_back(options_.output_directory.empty()
                     ? std::string("--output=/dev/null")
                     : "--output=" + options_.output_directory + "/%j.out");
  const std::uint32_t count = std::max<std::uint32_t>(1, launch.device_count);
  if (launch.kind == DeviceKind::cpu) {
    argv.push_back(fmt::format("--cpus-per-task={}", count));
  } else {
    const std::string gres_name = launch.kind == DeviceKind::gpu ? "gpu" : "tpu";
    const auto word = gres_word_for(launch);
    argv.push_back(word && !word->empty() ? fmt::format("--gres={}:{}:{}", gres_name, *word, count)
                                          : fmt::format("--gres={}:{}", gres_name, count));
  }
  if (!launch.command.empty()) {
    argv.push_back("--wrap=" + launch.command);
  } else {
    const double seconds =
        std::max(options_.minimum_sleep_seconds,
                 launch.expected_seconds * options_.sleep_seconds_per_predicted_second);
    argv.push_back(fmt::format("--wrap=exec sleep {:.3f}", std::max(0.0, seconds)));
  }
  return argv;
}

std::string SlurmEngine::launch(const EngineLaunch& launch) {
  if (!adopted_) adopt_existing_jobs();
  if (const auto it = jobs_by_key_.find(launch.task_key); it != jobs_by_key_.end()) {
    return it->second.job_id;  // already in Slurm (e.g. launched before a restart)
  }
  if (launch.kind != DeviceKind::cpu && !gres_words_.contains(launch.node)) nodes();
  const std::string output = run_tool(sbatch_arguments(launch));
  // --parsable prints "<jobid>" or "<jobid>;<cluster>".
  std::string job_id = trimmed(output.substr(0, output.find(';')));
  if (!parse_count(job_id)) {
    throw EngineError(fmt::format("slurm: sbatch printed no job id: {}", trimmed(output)));
  }
  jobs_by_key_[launch.task_key] = TrackedJob{launch.task_key, job_id};
  return job_id;
}

void SlurmEngine::cancel(std::string_view task_key) {
  if (!adopted_) adopt_existing_jobs();
  const auto it = jobs_by_key_.find(task_key);
  if (it == jobs_by_key_.end()) return;
  run_tool({"scancel", it->second.job_id});
}

void SlurmEngine::adopt_existing_jobs() {
  adopted_ = true;
  const json document = json::parse(run_tool({"squeue", "--json"}), nullptr, false);
  if (document.is_discarded() || !document.contains("jobs")) {
    throw EngineError("slurm: `squeue --json` printed no job list");
  }
  for (const json& job : document["jobs"]) {
    if (json_string(job, "comment") != options_.job_tag) continue;
    const std::string key = json_string(job, "name");
    const std::string id = json_id(job, "job_id");
    if (key.empty() || id.empty()) continue;
    auto& tracked = jobs_by_key_[key];
    // The latest attempt of a task wins (job ids increase).
    if (tracked.job_id.empty() || std::stoull(id) > std::stoull(tracked.job_id)) {
      tracked = TrackedJob{key, id};
    }
  }
}

std::vector<EngineTaskStatus> SlurmEngine::poll() {
  if (!adopted_) adopt_existing_jobs();
  std::vector<EngineTaskStatus> statuses;
  const auto now = std::chrono::steady_clock::now();
  if (polled_ && now - last_poll_ < options_.poll_interval) return statuses;
  polled_ = true;
  last_poll_ = now;
  if (jobs_by_key_.empty()) return statuses;
  const json document = json::parse(run_tool({"squeue", "--json"}), nullptr, false);
  if (document.is_discarded() || !document.contains("jobs")) {
    throw EngineError("slurm: `squeue --json` printed no job list");
  }
  std::map<std::string, const json*, std::less<>> jobs_by_id;
  for (const json& job : document["jobs"]) jobs_by_id[json_id(job, "job_id")] = &job;

  for (auto it = jobs_by_key_.begin(); it != jobs_by_key_.end();) {
    TrackedJob& tracked = it->second;
    EngineTaskStatus status;
    status.task_key = tracked.task_key;
    status.engine_id = tracked.job_id;
    const auto found = jobs_by_id.find(tracked.job_id);
    if (found == jobs_by_id.end()) {
      status.state = EngineTaskState::failed;
      status.reason = fmt::format("Slurm no longer knows job {}", tracked.job_id);
    } else {
      const json& job = *found->second;
      status.state = state_of_slurm_job(json_string(job, "job_state"));
      status.node = json_string(job, "nodes");
      if (status.node.empty()) status.node = json_string(job, "required_nodes");
      status.reason = reason_of_slurm_job(job, status.state);
      // Pinned to a node that is drained or down, a pending job would wait forever:
      // cancel it and report it failed, so the service places the task elsewhere.
      if (status.state == EngineTaskState::pending &&
          status.reason.rfind("ReqNodeNotAvail", 0) == 0) {
        run_tool({"scancel", tracked.job_id});
        status.state = EngineTaskState::failed;
        status.reason += "; cancelled before it started, to be placed elsewhere";
      }
    }
    const bool ended = has_ended(status.state);
    statuses.push_back(std::move(status));
    if (ended) {
      it = jobs_by_key_.erase(it);
    } else {
      ++it;
    }
  }
  return statuses;
}

void SlurmEngine::drain_node(std::string_view node, std::string_view reason) {
  run_tool({"scontrol", "update", "NodeName=" + std::string(node), "State=DRAIN",
            "Reason=" + std::string(reason.empty() ? "hetsched" : reason)});
}

void SlurmEngine::down_node(std::string_view node, std::string_view reason) {
  run_tool({"scontrol", "update", "NodeName=" + std::string(node), "State=DOWN",
            "Reason=" + std::string(reason.empty() ? "hetsched" : reason)});
}

void SlurmEngine::resume_node(std::string_view node) {
  try {
    run_tool({"scontrol", "update", "NodeName=" + std::string(node), "State=RESUME"});
  } catch (const EngineError&) {
    // Slurm refuses to resume a node that is already up (it may have returned to
    // service by itself); only a node that is still not up is a failure.
    for (const auto& known : nodes()) {
      if (known.name == node && known.state == EngineNodeState::up) return;
    }
    throw;
  }
}

}  // namespace hetsched
