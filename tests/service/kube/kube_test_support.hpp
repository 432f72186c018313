// Helpers for the extender tests: the recorded kube-scheduler requests in this
// folder, and a loopback cpp-httplib server run on its own thread (it plays the
// Kubernetes API server's role where a test needs one).
#pragma once

#include <httplib.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

namespace hetsched::testing {

inline std::string kube_recording(const std::string& name) {
  const std::string path = std::string(HETSCHED_SOURCE_DIR) + "/tests/service/kube/" + name;
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot read " + path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

inline nlohmann::json kube_recording_json(const std::string& name) {
  return nlohmann::json::parse(kube_recording(name));
}

// Polls `done` until it holds or the deadline passes; true when it held.
inline bool wait_until(const std::function<bool()>& done,
                       std::chrono::milliseconds deadline = std::chrono::seconds(10)) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::yield();
  }
  return true;
}

class LoopbackServer {
 public:
  LoopbackServer() = default;
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;
  ~LoopbackServer() { stop(); }

  httplib::Server& server() { return server_; }

  // Binds a free loopback port, serves on a thread, returns once it accepts.
  int start() {
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) throw std::runtime_error("cannot bind a loopback port");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    if (!wait_until([this] { return server_.is_running(); }))
      throw std::runtime_error("loopback server did not start");
    return port_;
  }
  void stop() {
    if (!thread_.joinable()) return;
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace hetsched::testing
