// Where the loopback testbed lives (scripts/testbed/*.sh, brought up by ctest's
// fixture tests testbed_slurm_up / testbed_etcd_up), and helpers to reach it.
#pragma once

#include <chrono>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "hetsched/service/etcd_client.hpp"
#include "hetsched/service/process_runner.hpp"
#include "service/slurm_engine.hpp"

namespace hetsched::testing {

inline std::string testbed_dir() {
  if (const char* dir = std::getenv("HETSCHED_TESTBED_DIR")) return dir;
  return HETSCHED_TESTBED_DIR;
}
inline std::string slurm_conf_path() { return testbed_dir() + "/slurm/etc/slurm.conf"; }

inline std::vector<std::string> etcd_endpoints() {
  std::ifstream file(testbed_dir() + "/etcd/endpoints");
  std::string line;
  std::getline(file, line);
  return EtcdClient::parse_endpoints(line);
}

// A unique-enough word for keys, job tags and names, so tests never see each
// other's leftovers (the testbed lives for the whole ctest run).
inline std::string unique_word(const std::string& stem) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return stem + "-" + std::to_string(::getpid()) + "-" +
         std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(now).count());
}

inline SlurmEngineOptions testbed_slurm_options(const std::string& tag) {
  SlurmEngineOptions options;
  options.slurm_conf = slurm_conf_path();
  options.job_tag = tag;
  return options;
}

// Runs a testbed script action ("stop-member", ...) and returns whether it worked.
inline ProcessResult run_testbed_script(const std::string& engine, std::vector<std::string> args) {
  ProcessRequest request;
  request.argv = {"bash", std::string(HETSCHED_SOURCE_DIR) + "/scripts/testbed/" + engine + ".sh"};
  request.argv.insert(request.argv.end(), args.begin(), args.end());
  request.timeout = std::chrono::seconds(40);
  return run_process(request);
}

// Polls condition every 50 ms until it holds or the deadline passes.
inline bool eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds deadline = std::chrono::seconds(30)) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  while (true) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace hetsched::testing
