#include "hetsched/service/service_submission.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace hetsched {

std::string service_submission_key(std::uint64_t first_id) {
  return fmt::format("{}{:012}", kServiceSubmissionPrefix, first_id);
}

std::string to_stored_text(const ServiceSubmission& submission) {
  const nlohmann::ordered_json header{{"first_id", submission.first_id},
                                      {"jobs", submission.jobs},
                                      {"policy", submission.policy},
                                      {"kind", submission.stream ? "stream" : "dag"},
                                      {"submitted_at", submission.submitted_at_unix_seconds}};
  return header.dump() + "\n" + submission.text;
}

ServiceSubmission service_submission_from_stored(std::string_view stored) {
  const std::size_t newline = stored.find('\n');
  if (newline == std::string_view::npos)
    throw std::runtime_error("a submission record without its header line");
  const nlohmann::json header = nlohmann::json::parse(stored.substr(0, newline));
  ServiceSubmission submission;
  submission.first_id = header.at("first_id").get<std::uint64_t>();
  submission.jobs = header.at("jobs").get<std::uint32_t>();
  submission.policy = header.at("policy").get<std::string>();
  submission.stream = header.at("kind").get<std::string>() == "stream";
  submission.submitted_at_unix_seconds = header.at("submitted_at").get<double>();
  submission.text = std::string(stored.substr(newline + 1));
  return submission;
}

}  // namespace hetsched
