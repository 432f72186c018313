// ServiceJob: what the control plane knows and keeps about one submitted job — the
// workload text it came from, its state, and per task where it was placed, when it
// started and finished and every event of its history (planned on a device,
// launched, started, finished, failed, re-planned, cancelled). It is stored as JSON
// under "jobs/<12-digit id>" and is the whole truth about the job after a restart.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/stream/stream_job.hpp"

namespace hetsched {

enum class ServiceJobState { queued, running, completed, failed, cancelled };
enum class ServiceTaskState { waiting, planned, launched, running, completed, failed, cancelled };

std::string_view to_string(ServiceJobState state);
std::string_view to_string(ServiceTaskState state);
bool is_terminal(ServiceJobState state);

struct ServiceTaskEvent {
  double at_unix_seconds = 0;
  std::string event;  // planned, launched, started, finished, failed, replanned, cancelled
  std::string device;
  std::string node;
  std::string detail;
};

struct ServiceTask {
  std::string name;
  ServiceTaskState state = ServiceTaskState::waiting;
  std::string device;  // device name "<node>/<model>#<i>" of the current placement
  std::string node;
  double planned_start_seconds = 0;  // in the control plane's model time; orders the device
  double expected_seconds = 0;       // the perf model's prediction on `device`
  std::optional<double> started_at_unix_seconds;
  std::optional<double> finished_at_unix_seconds;
  // The same moments on the control plane's model clock (the twin's virtual seconds).
  std::optional<double> started_seconds;
  std::optional<double> finished_seconds;
  std::uint32_t attempts = 0;  // launches so far
  std::uint32_t retries = 0;   // failures and moves off a lost node, against the retry limit
  std::string launch_key;      // the key of the current attempt on the engine
  std::string engine_id;
  // A stream job's gang: every device it holds (`device` is the first of them), all of
  // one model on `node`. Empty for a DAG task, which holds `device` alone.
  std::vector<std::string> gang_devices;
  std::vector<ServiceTaskEvent> history;
};

struct ServiceJob {
  std::uint64_t id = 0;
  std::string name;
  std::string policy;
  ServiceJobState state = ServiceJobState::queued;
  double submitted_at_unix_seconds = 0;
  std::optional<double> finished_at_unix_seconds;
  std::string reason;            // why it failed or was cancelled
  std::string source_text;       // the submitted workload text
  std::uint32_t source_job = 0;  // index of this job among the text's jobs
  std::vector<ServiceTask> tasks;
  // Set for a stream job (a gang of devices of one type; its one task is the gang):
  // the job as submitted, its deadline in seconds after submission.
  std::optional<StreamJob> stream;
};

// "jobs/000000000042"
std::string service_job_key(std::uint64_t id);
inline constexpr std::string_view kServiceJobPrefix = "jobs/";

nlohmann::ordered_json to_json(const ServiceJob& job, bool with_source = true);
// Throws std::runtime_error (nlohmann's) on a malformed record.
ServiceJob service_job_from_json(const nlohmann::json& json);

}  // namespace hetsched
