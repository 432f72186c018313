// ClusterEngine: an existing cluster manager that carries out the brain's placements
// for `hetsched serve` — a real Slurm (slurm_engine), or the simulated twin
// (simulated_engine) when no engine is given. The service decides where and in what
// order every task runs; the engine only launches a task on the named node with the
// named devices, reports what its nodes hold and in what state they are, and tells
// what became of each launched task. Calls come from the service's one scheduling
// thread; an engine does its own waiting (it never blocks longer than a poll).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/cluster/device_spec.hpp"

namespace hetsched {

// The engine refused or failed a request (command failed, daemon unreachable).
class EngineError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class EngineNodeState { up, draining, down };

// Devices of one model on a node, as the engine inventories them (Slurm GRES
// "gpu:h100:8", "tpu:4"; a Kubernetes node's nvidia.com/gpu count and model label).
struct EngineDeviceGroup {
  DeviceKind kind = DeviceKind::gpu;
  std::string model;  // catalog name when known ("H100-SXM"), else the engine's word
  std::uint32_t count = 0;
};

struct EngineNode {
  std::string name;
  EngineNodeState state = EngineNodeState::up;
  std::uint32_t cpus = 0;
  double memory_bytes = 0;
  std::vector<EngineDeviceGroup> devices;
};

// One placed task, ready to start: the node and how many devices of which model.
struct EngineLaunch {
  std::string task_key;  // the service's own id, e.g. "job-42/task-7"; unique
  std::string node;
  DeviceKind kind = DeviceKind::gpu;
  std::string device_model;
  std::uint32_t device_count = 1;
  double expected_seconds = 0;  // the perf model's prediction; engines may run it
  // A shell command that is the task's real work; empty: the engine runs a stand-in
  // that lasts expected_seconds (see docs/engines.md).
  std::string command;
};

enum class EngineTaskState { pending, running, completed, failed, cancelled };

struct EngineTaskStatus {
  std::string task_key;
  std::string engine_id;  // the engine's own id (Slurm job id)
  EngineTaskState state = EngineTaskState::pending;
  std::string node;    // where the engine says it runs or ran
  std::string reason;  // why it failed or was cancelled, in the engine's words
  // When it started and ended on the engine's own model clock, for an engine that has
  // one (the twin); otherwise the service reads its clock when it learns of the change.
  std::optional<double> started_seconds;
  std::optional<double> ended_seconds;
};

class ClusterEngine {
 public:
  virtual ~ClusterEngine() = default;
  virtual std::string_view name() const = 0;
  // The nodes the engine manages now, with their devices and state.
  virtual std::vector<EngineNode> nodes() = 0;
  // Starts the task; returns the engine's id for it. Throws EngineError when the
  // engine refuses (the service then re-plans the task).
  virtual std::string launch(const EngineLaunch& launch) = 0;
  virtual void cancel(std::string_view task_key) = 0;
  // The current state of every task launched and not yet reported as ended, plus
  // the ones that ended since the previous poll (each end is reported once).
  virtual std::vector<EngineTaskStatus> poll() = 0;
  // The datasheet of a device model this engine names that the catalog does not
  // know (a cluster file's own part, a Slurm CPU core), or nullopt.
  virtual std::optional<DeviceSpec> device_spec(DeviceKind, std::string_view) const {
    return std::nullopt;
  }
};

}  // namespace hetsched
