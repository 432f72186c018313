// ServiceSubmission: one accepted POST /v1/jobs as the store keeps it — the submitted
// text once, with the policy, the time and the range of job ids it was given. Its jobs
// are read from the text again after a restart (once per submission, however many
// replicas or anchors it expands to); a job's own record ("jobs/<id>") holds only what
// happened to it, and a job that has no record yet is still waiting. The record is
// removed once every job of the submission has ended and its end is stored.
//
// Stored under "submissions/<12-digit first id>" as one line of JSON, a newline, and the
// text as submitted (not escaped: its size in the store is its size on the wire).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hetsched {

struct ServiceSubmission {
  std::uint64_t first_id = 0;  // its jobs are first_id .. first_id + jobs - 1
  std::uint32_t jobs = 0;
  std::string policy;
  bool stream = false;  // a job-stream submission (gangs), else a workload of DAG jobs
  double submitted_at_unix_seconds = 0;
  std::string text;
};

inline constexpr std::string_view kServiceSubmissionPrefix = "submissions/";
// "submissions/000000000042"
std::string service_submission_key(std::uint64_t first_id);
std::string to_stored_text(const ServiceSubmission& submission);
// Throws std::runtime_error on a malformed record.
ServiceSubmission service_submission_from_stored(std::string_view stored);

}  // namespace hetsched
