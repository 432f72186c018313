#include "hetsched/service/service_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace hetsched {
namespace {

constexpr std::array<std::string_view, 5> kJobStates{"queued", "running", "completed", "failed",
                                                     "cancelled"};
constexpr std::array<std::string_view, 7> kTaskStates{"waiting",   "planned", "launched", "running",
                                                      "completed", "failed",  "cancelled"};

template <typename Enum, std::size_t N>
Enum parse_state(const std::string& text, const std::array<std::string_view, N>& names) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == text) return static_cast<Enum>(i);
  throw std::runtime_error("unknown state '" + text + "' in a stored job");
}

nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}
std::optional<double> optional_from(const nlohmann::json& json, const char* key) {
  if (!json.contains(key) || json.at(key).is_null()) return std::nullopt;
  return json.at(key).get<double>();
}

nlohmann::ordered_json stream_job_json(const StreamJob& job) {
  nlohmann::ordered_json out{{"user", job.user},
                             {"gang", job.gang_size},
                             {"steps", job.total_steps},
                             {"rates", job.steps_per_second},
                             {"weight", job.priority_weight},
                             {"deadline", optional_json(job.deadline_seconds)},
                             {"arrival", job.arrival_seconds},
                             {"preemptible", job.preemptible}};
  if (!job.spread_steps_per_second.empty()) out["spread_rates"] = job.spread_steps_per_second;
  if (!job.job_type.empty()) out["model"] = job.job_type;
  return out;
}

StreamJob stream_job_from_json(const nlohmann::json& json) {
  StreamJob job;
  job.user = json.at("user").get<std::string>();
  job.gang_size = json.at("gang").get<int>();
  job.total_steps = json.at("steps").get<double>();
  job.steps_per_second = json.at("rates").get<std::map<std::string, double>>();
  job.priority_weight = json.at("weight").get<double>();
  job.deadline_seconds = optional_from(json, "deadline");
  job.arrival_seconds = json.value("arrival", 0.0);
  job.preemptible = json.at("preemptible").get<bool>();
  job.job_type = json.value("model", "");
  if (json.contains("spread_rates"))
    job.spread_steps_per_second = json.at("spread_rates").get<std::map<std::string, double>>();
  return job;
}

}  // namespace

std::string_view to_string(ServiceJobState state) {
  return kJobStates[static_cast<std::size_t>(state)];
}
std::string_view to_string(ServiceTaskState state) {
  return kTaskStates[static_cast<std::size_t>(state)];
}
bool is_terminal(ServiceJobState state) {
  return state == ServiceJobState::completed || state == ServiceJobState::failed ||
         state == ServiceJobState::cancelled;
}

std::string service_job_key(std::uint64_t id) {
  return fmt::format("{}{:012}", kServiceJobPrefix, id);
}

namespace {

nlohmann::ordered_json task_json(const ServiceTask& task) {
  nlohmann::ordered_json history = nlohmann::ordered_json::array();
  for (const ServiceTaskEvent& e : task.history) {
    nlohmann::ordered_json event{{"at", e.at_unix_seconds}, {"event", e.event}};
    if (!e.device.empty()) event["device"] = e.device;
    if (!e.node.empty()) event["node"] = e.node;
    if (!e.detail.empty()) event["detail"] = e.detail;
    history.push_back(std::move(event));
  }
  nlohmann::ordered_json out{{"name", task.name},
                             {"state", to_string(task.state)},
                             {"device", task.device},
                             {"node", task.node},
                             {"planned_start_seconds", task.planned_start_seconds},
                             {"expected_seconds", task.expected_seconds},
                             {"started_at", optional_json(task.started_at_unix_seconds)},
                             {"finished_at", optional_json(task.finished_at_unix_seconds)},
                             {"started_seconds", optional_json(task.started_seconds)},
                             {"finished_seconds", optional_json(task.finished_seconds)},
                             {"attempts", task.attempts},
                             {"retries", task.retries},
                             {"launch_key", task.launch_key},
                             {"engine_id", task.engine_id},
                             {"history", std::move(history)}};
  if (!task.gang_devices.empty()) out["gang_devices"] = task.gang_devices;
  return out;
}

ServiceTask task_from_json(const nlohmann::json& t) {
  ServiceTask task;
  task.name = t.at("name").get<std::string>();
  task.state = parse_state<ServiceTaskState>(t.at("state").get<std::string>(), kTaskStates);
  task.device = t.at("device").get<std::string>();
  task.node = t.at("node").get<std::string>();
  task.planned_start_seconds = t.at("planned_start_seconds").get<double>();
  task.expected_seconds = t.at("expected_seconds").get<double>();
  task.started_at_unix_seconds = optional_from(t, "started_at");
  task.finished_at_unix_seconds = optional_from(t, "finished_at");
  task.started_seconds = optional_from(t, "started_seconds");
  task.finished_seconds = optional_from(t, "finished_seconds");
  task.attempts = t.at("attempts").get<std::uint32_t>();
  task.retries = t.at("retries").get<std::uint32_t>();
  task.launch_key = t.at("launch_key").get<std::string>();
  task.engine_id = t.at("engine_id").get<std::string>();
  if (t.contains("gang_devices"))
    task.gang_devices = t.at("gang_devices").get<std::vector<std::string>>();
  for (const auto& e : t.at("history")) {
    ServiceTaskEvent event;
    event.at_unix_seconds = e.at("at").get<double>();
    event.event = e.at("event").get<std::string>();
    event.device = e.value("device", "");
    event.node = e.value("node", "");
    event.detail = e.value("detail", "");
    task.history.push_back(std::move(event));
  }
  return task;
}

// The job without its tasks.
nlohmann::ordered_json header_json(const ServiceJob& job) {
  nlohmann::ordered_json out{{"id", job.id},
                             {"kind", job.stream ? "stream" : "dag"},
                             {"name", job.name},
                             {"policy", job.policy},
                             {"state", to_string(job.state)},
                             {"submitted_at", job.submitted_at_unix_seconds},
                             {"finished_at", optional_json(job.finished_at_unix_seconds)},
                             {"reason", job.reason}};
  if (job.stream) out["stream"] = stream_job_json(*job.stream);
  if (job.stream_steps_left) {
    out["steps_left"] = *job.stream_steps_left;
    out["round_steps"] = job.stream_round_steps;
  }
  return out;
}

}  // namespace

nlohmann::ordered_json to_json(const ServiceJob& job) {
  nlohmann::ordered_json out = header_json(job);
  nlohmann::ordered_json tasks = nlohmann::ordered_json::array();
  for (const ServiceTask& task : job.tasks) tasks.push_back(task_json(task));
  out["tasks"] = std::move(tasks);
  return out;
}

std::string service_job_tasks_key(std::uint64_t id, std::uint32_t page) {
  return fmt::format("{}{:012}/{:06}", kServiceJobTasksPrefix, id, page);
}

std::uint32_t task_pages(const ServiceJob& job) {
  return static_cast<std::uint32_t>((job.tasks.size() + kTasksPerPage - 1) / kTasksPerPage);
}

StoredRecord stored_job_header(const ServiceJob& job) {
  nlohmann::ordered_json out = header_json(job);
  out["submission"] = job.submission;
  out["source_job"] = job.source_job;
  out["task_count"] = job.tasks.size();
  return {service_job_key(job.id), out.dump()};
}

StoredRecord stored_task_page(const ServiceJob& job, std::uint32_t page) {
  nlohmann::ordered_json tasks = nlohmann::ordered_json::array();
  const std::size_t first = static_cast<std::size_t>(page) * kTasksPerPage;
  for (std::size_t t = first; t < std::min(job.tasks.size(), first + kTasksPerPage); ++t)
    tasks.push_back(task_json(job.tasks[t]));
  return {service_job_tasks_key(job.id, page), tasks.dump()};
}

std::vector<StoredRecord> stored_job_records(const ServiceJob& job) {
  std::vector<StoredRecord> records{stored_job_header(job)};
  for (std::uint32_t page = 0; page < task_pages(job); ++page)
    records.push_back(stored_task_page(job, page));
  return records;
}

ServiceJob service_job_from_json(const nlohmann::json& json) {
  ServiceJob job;
  job.id = json.at("id").get<std::uint64_t>();
  job.name = json.at("name").get<std::string>();
  job.policy = json.at("policy").get<std::string>();
  job.state = parse_state<ServiceJobState>(json.at("state").get<std::string>(), kJobStates);
  job.submitted_at_unix_seconds = json.at("submitted_at").get<double>();
  job.finished_at_unix_seconds = optional_from(json, "finished_at");
  job.reason = json.at("reason").get<std::string>();
  job.submission = json.value("submission", std::uint64_t{0});
  job.source_job = json.value("source_job", std::uint32_t{0});
  if (json.contains("tasks")) {
    for (const auto& t : json.at("tasks")) job.tasks.push_back(task_from_json(t));
  } else {
    job.tasks.resize(json.at("task_count").get<std::size_t>());
  }
  if (json.value("kind", "dag") == "stream") job.stream = stream_job_from_json(json.at("stream"));
  job.stream_steps_left = optional_from(json, "steps_left");
  job.stream_round_steps = json.value("round_steps", 0.0);
  return job;
}

void read_task_page(ServiceJob& job, std::uint32_t page, const nlohmann::json& tasks) {
  const std::size_t first = static_cast<std::size_t>(page) * kTasksPerPage;
  if (!tasks.is_array() || first >= job.tasks.size() ||
      tasks.size() != std::min<std::size_t>(kTasksPerPage, job.tasks.size() - first))
    throw std::runtime_error(fmt::format("task page {} does not fit job {}", page, job.id));
  for (std::size_t i = 0; i < tasks.size(); ++i) job.tasks[first + i] = task_from_json(tasks[i]);
}

}  // namespace hetsched
