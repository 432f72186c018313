// A control plane under test: a SQLite store in `db`, a SimulatedEngine over `cluster`
// running `time_scale` times faster than real time, and this process as sole leader.
#pragma once

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include "hetsched/service/control_plane.hpp"
#include "hetsched/service/simulated_engine.hpp"
#include "hetsched/service/sqlite_state_store.hpp"

namespace hetsched::testing {

struct ControlPlaneFixture {
  ControlPlaneFixture(const std::string& db, const Cluster& cluster, double time_scale,
                      std::string policy = "heft", std::string stream_policy = "fifo")
      : store(db), engine(cluster, time_scale), leader("http://127.0.0.1:1") {
    ControlPlaneOptions options;
    options.default_policy = std::move(policy);
    options.default_stream_policy = std::move(stream_policy);
    options.time_scale = time_scale;
    options.node_refresh = std::chrono::milliseconds(1);
    plane = std::make_unique<ControlPlane>(store, engine, leader, options);
    plane->start();
  }
  ServiceJob job(std::uint64_t id) const { return *plane->job(id); }
  bool in_state(std::uint64_t id, ServiceJobState state) const {
    const auto j = plane->job(id);
    return j && j->state == state;
  }
  SqliteStateStore store;
  SimulatedEngine engine;
  SoleLeader leader;
  std::unique_ptr<ControlPlane> plane;
};

// Whether the task's history has `event` (on `node`, when one is named).
inline bool has_event(const ServiceTask& task, const std::string& event,
                      const std::string& node = {}) {
  return std::any_of(task.history.begin(), task.history.end(), [&](const ServiceTaskEvent& e) {
    return e.event == event && (node.empty() || e.node == node);
  });
}

}  // namespace hetsched::testing
