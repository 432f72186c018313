// Control planes under test: a SQLite store in `db`, a SimulatedEngine over `cluster`,
// this process as sole leader. ControlPlaneFixture runs its scheduling thread with the
// twin paced at `time_scale` times real time (for what the wall clock matters to: HTTP,
// restarts); SteppedControlPlane has no thread and the test steps the twin's virtual
// clock itself, so nothing waits on the wall clock.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "hetsched/service/control_plane.hpp"
#include "service/simulated_engine.hpp"
#include "service/sqlite_state_store.hpp"

namespace hetsched::testing {

struct ControlPlaneFixture {
  // `time_scale`: the twin's pace, with the scheduling thread running; infinity: no
  // thread, and the test steps the twin's clock itself (run_until).
  ControlPlaneFixture(const std::string& db, const Cluster& cluster, double time_scale,
                      std::string policy = "heft", std::string stream_policy = "fifo")
      : ControlPlaneFixture(db, cluster, time_scale,
                            test_options(std::move(policy), std::move(stream_policy))) {}
  ControlPlaneFixture(const std::string& db, const Cluster& cluster, double time_scale,
                      const ControlPlaneOptions& options)
      : store(db), engine(cluster, time_scale), leader("http://127.0.0.1:1") {
    plane = std::make_unique<ControlPlane>(store, engine, leader, options);
    if (std::isinf(time_scale))
      plane->recover();
    else
      plane->start();
  }
  static ControlPlaneOptions test_options(std::string policy, std::string stream_policy) {
    ControlPlaneOptions options;
    options.default_policy = std::move(policy);
    options.default_stream_policy = std::move(stream_policy);
    options.policy_options.time_budget_seconds = 0.05;  // searching policies: a short search
    options.node_refresh = std::chrono::milliseconds(1);
    return options;
  }
  // One scheduling step with the twin's clock allowed up to `seconds` (the default: until
  // nothing is left to do). Only without the thread.
  void run_until(double seconds = std::numeric_limits<double>::infinity()) {
    engine.limit_clock(seconds);
    plane->step();
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

struct SteppedControlPlane : ControlPlaneFixture {
  SteppedControlPlane(const std::string& db, const Cluster& cluster, std::string policy = "heft",
                      std::string stream_policy = "fifo")
      : ControlPlaneFixture(db, cluster, std::numeric_limits<double>::infinity(), std::move(policy),
                            std::move(stream_policy)) {}
  SteppedControlPlane(const std::string& db, const Cluster& cluster,
                      const ControlPlaneOptions& options)
      : ControlPlaneFixture(db, cluster, std::numeric_limits<double>::infinity(), options) {}
};

// Whether the task's history has `event` (on `node`, when one is named).
inline bool has_event(const ServiceTask& task, const std::string& event,
                      const std::string& node = {}) {
  return std::any_of(task.history.begin(), task.history.end(), [&](const ServiceTaskEvent& e) {
    return e.event == event && (node.empty() || e.node == node);
  });
}

}  // namespace hetsched::testing
