// Helpers shared by the service tests: a fresh temporary directory, a bounded wait for
// a condition (never a sleep that assumes timing), and small workloads and clusters.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <thread>

#include "hetsched/core/text_file.hpp"
#include "hetsched/service/service_job.hpp"
#include "hetsched/service/service_submission.hpp"
#include "hetsched/service/state_store.hpp"
#include "support/service_deployment.hpp"

namespace hetsched::testing {

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("hetsched_service_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Polls `condition` until it holds or `limit` passes; returns whether it held.
inline bool eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return condition();
}

// examples/workload.yaml without its `cluster:` line (the cluster is given apart), for
// submitting to a service on examples/cluster.yaml: its jobs arrive their arrival_seconds
// after the submission, on the twin's clock, as in the simulator.
inline std::string example_workload_without_cluster() {
  const std::string text =
      read_text_file(std::string(HETSCHED_SOURCE_DIR) + "/examples/workload.yaml", "workload");
  return std::regex_replace(text, std::regex("\ncluster: [^\n]*"), "");
}

// A policy name as a gtest parameter name ("greedy-eft" -> "greedy_eft").
// Each job of `ids` as `GET /v1/jobs/{id}` shows it once it has ended (failing the test
// when one has not ended in time).
inline std::vector<nlohmann::json> ended_jobs(const std::string& address, const std::string& token,
                                              const std::vector<std::uint64_t>& ids) {
  std::vector<nlohmann::json> jobs;
  for (std::uint64_t id : ids) {
    nlohmann::json job;
    const bool ended = eventually([&] {
      const HttpAnswer answer = http_call(address, "GET", "/v1/jobs/" + std::to_string(id), token);
      if (answer.status != 200) return false;
      job = nlohmann::json::parse(answer.body);
      return job.at("state") != "queued" && job.at("state") != "running";
    });
    EXPECT_TRUE(ended) << "job " << id << " has not ended: " << job.dump(2);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

template <typename ParamInfo>
std::string policy_test_name(const ParamInfo& info) {
  std::string name = info.param;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

// The ids of every job the store holds: those with a record of their own and those only
// their submission's record names (accepted, nothing has happened to them yet).
inline std::set<std::uint64_t> stored_job_ids(StateStore& store) {
  std::set<std::uint64_t> ids;
  for (const StoredRecord& r : store.list(kServiceJobPrefix))
    ids.insert(nlohmann::json::parse(r.value).at("id").get<std::uint64_t>());
  for (const StoredRecord& r : store.list(kServiceSubmissionPrefix)) {
    const ServiceSubmission submission = service_submission_from_stored(r.value);
    for (std::uint32_t j = 0; j < submission.jobs; ++j) ids.insert(submission.first_id + j);
  }
  return ids;
}

// Two nodes with one H100 each and one CPU node: small enough to reason about placements.
inline const char* kTwoGpuNodes = R"(
nodes:
  - name: gpu-a
    devices: [{model: H100-SXM, count: 1}]
  - name: gpu-b
    devices: [{model: H100-SXM, count: 1}]
  - name: cpu
    devices: [{model: EPYC-9654, count: 1}]
)";

}  // namespace hetsched::testing
