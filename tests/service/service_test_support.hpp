// Helpers shared by the service tests: a fresh temporary directory, a bounded wait for
// a condition (never a sleep that assumes timing), and small workloads and clusters.
#pragma once

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

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
