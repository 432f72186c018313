// ServiceJob: what the control plane knows and keeps about one submitted job — the
// submission it came from (whose text is stored once: ServiceSubmission), its state, and
// per task where it was placed, when it started and finished and every event of its
// history (planned on a device, launched, started, finished, failed, re-planned,
// cancelled). It is stored as JSON (a header and pages of tasks, below) once something
// has happened to it, and with its submission is the whole truth about it after a restart.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/service/state_store.hpp"
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
  std::uint64_t submission = 0;  // the submission's first job id (ServiceSubmission)
  std::uint32_t source_job = 0;  // index of this job among the submission's jobs
  std::vector<ServiceTask> tasks;
  // Set for a stream job (a gang of devices of one type; its one task is the gang):
  // the job as submitted, its deadline in seconds after submission.
  std::optional<StreamJob> stream;
  // A stream job under a round-mode policy: the steps it has left once the round it runs
  // in now ends (each round ends in a checkpoint), and the steps that round does (0 once
  // it ended), so that a restart resumes from the last checkpoint reached.
  std::optional<double> stream_steps_left;
  double stream_round_steps = 0;
};

// "jobs/000000000042"
std::string service_job_key(std::uint64_t id);
inline constexpr std::string_view kServiceJobPrefix = "jobs/";

// The job whole, as the API shows it.
nlohmann::ordered_json to_json(const ServiceJob& job);

// As the store keeps it: a header under service_job_key (the job without its tasks) and
// its tasks in pages of kTasksPerPage under "job-tasks/<12-digit id>/<6-digit page>", so
// that a step writes the pages whose tasks changed, not the whole job.
inline constexpr std::string_view kServiceJobTasksPrefix = "job-tasks/";
inline constexpr std::uint32_t kTasksPerPage = 64;
std::string service_job_tasks_key(std::uint64_t id, std::uint32_t page);
std::uint32_t task_pages(const ServiceJob& job);
StoredRecord stored_job_header(const ServiceJob& job);
StoredRecord stored_task_page(const ServiceJob& job, std::uint32_t page);
std::vector<StoredRecord> stored_job_records(const ServiceJob& job);  // header and every page

// A job from its API form, or from a stored header (its tasks then blank until each page
// is read with read_task_page). Throws std::runtime_error (nlohmann's) on a malformed record.
ServiceJob service_job_from_json(const nlohmann::json& json);
void read_task_page(ServiceJob& job, std::uint32_t page, const nlohmann::json& tasks);

}  // namespace hetsched
