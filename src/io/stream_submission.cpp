// A stream submission's body (format in include/hetsched/io/stream_submission.hpp): the
// document read by InputDocument, its maps by FieldReader naming field paths, and each
// job by read_stream_job, as the stream workload file's are.
#include "hetsched/io/stream_submission.hpp"

#include <fmt/format.h>

#include <string>

#include "hetsched/core/input_error.hpp"
#include "stream_job_reader.hpp"
#include "yaml_fields.hpp"

namespace hetsched {

namespace {
const std::string kBody = "body";
}  // namespace

bool is_stream_submission(std::string_view text) {
  if (text.find("stream") == std::string_view::npos) return false;
  try {
    const io_detail::InputDocument document(text, kBody);
    const io_detail::InputNode root = document.root();
    if (!root.is_defined() || !root.is_map()) return false;
    for (std::size_t i = 0; i < root.size(); ++i)
      if (root.key_at(i).is_scalar() && root.key_at(i).scalar() == "kind")
        return root.value_at(i).is_scalar() && root.value_at(i).scalar() == "stream";
    return false;
  } catch (const InputError&) {
    return false;  // not a document: the workload reader says where
  }
}

std::vector<StreamJob> parse_stream_submission(std::string_view text, std::size_t max_jobs) {
  const io_detail::InputDocument document =
      io_detail::parse_document(text, kBody, "'kind: stream' and 'jobs'");
  const io_detail::FieldReader top(
      document.root(), "the stream submission", kBody,
      {"kind", "cluster", "throughputs", "gavel_trace", "generate", "jobs"}, kBody);
  if (top.required_string("kind") != "stream")
    throw InputError(top.position_of_field("kind"), "expected 'kind: stream'");
  for (const char* server_side : {"throughputs", "gavel_trace", "generate"})
    if (top.has(server_side))
      throw InputError(
          top.position_of_field(server_side),
          fmt::format("field '{}' is not accepted by the service (it reads files on the server "
                      "or invents jobs); give each job's 'rates'",
                      server_side));
  // The cluster is the engine's: the section is checked for its shape and otherwise ignored.
  if (const io_detail::InputNode* cluster = top.find("cluster")) {
    const io_detail::FieldReader shape(*cluster, "cluster", kBody,
                                       {"devices_per_node", "nodes_per_rack", "devices"},
                                       "body.cluster");
  }
  const io_detail::InputNode& jobs = top.required("jobs");
  const std::string& jobs_name = top.name_of("jobs");
  if (!jobs.is_sequence() || jobs.size() == 0)
    throw InputError(io_detail::position_of(jobs, jobs_name),
                     fmt::format("field 'jobs' expects a non-empty list, got {}",
                                 io_detail::describe_value(jobs)));
  if (jobs.size() > max_jobs)
    throw InputError(io_detail::position_of(jobs, jobs_name),
                     fmt::format("{} jobs in one submission; at most {}", jobs.size(), max_jobs));
  const io_detail::StreamJobList list{io_detail::StreamJobSource::service_submission, nullptr};
  std::vector<StreamJob> out;
  for (std::size_t i = 0; i < jobs.size(); ++i)
    out.push_back(io_detail::read_stream_job(jobs[i], kBody, list, fmt::format("stream-{}", i),
                                             fmt::format("body.jobs[{}]", i)));
  return out;
}

}  // namespace hetsched
