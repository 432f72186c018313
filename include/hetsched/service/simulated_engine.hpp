// SimulatedEngine: the digital twin as a ClusterEngine, so `hetsched serve` runs with
// no cluster manager at all (it is the service's default engine). Its nodes come
// from a cluster model (a cluster file or the built-in default cluster) and can be
// added while it runs. A launched task takes one or more devices of the named model
// on the named node, waits (pending, like a Slurm job in the queue) while the node
// has too few of them free, and completes after its expected seconds divided by
// the time scale (simulated seconds per real second), on the steady clock. Nodes
// can be drained (running tasks finish, nothing new starts) or set down (running
// tasks fail), as an operator does with `scontrol update state=DRAIN|DOWN`.
// Thread-safe: the control plane's scheduling thread and its HTTP threads may call it.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/service/cluster_engine.hpp"

namespace hetsched {

class SimulatedEngine final : public ClusterEngine {
 public:
  using Clock = std::chrono::steady_clock;

  // time_scale: simulated seconds per real second (> 0).
  SimulatedEngine(const Cluster& cluster, double time_scale);

  std::string_view name() const override { return "sim"; }
  std::vector<EngineNode> nodes() override;
  std::string launch(const EngineLaunch& launch) override;
  void cancel(std::string_view task_key) override;
  std::vector<EngineTaskStatus> poll() override;

  // Adds the nodes of `cluster` (their devices' full specs are kept, see
  // device_spec). Throws InputError naming the node when a name is taken.
  void add_nodes(const Cluster& cluster);
  // Drains, downs or brings back a node; throws InputError for an unknown name.
  void set_node_state(std::string_view node, EngineNodeState state);
  // The datasheet figures of a model on one of this engine's nodes (cluster files may
  // define parts the catalog lacks), or nullopt.
  std::optional<DeviceSpec> device_spec(DeviceKind kind, std::string_view model) const override;
  double time_scale() const { return time_scale_; }

 private:
  struct SimNode {
    EngineNode info;
    std::map<std::string, std::uint32_t> busy_by_model;  // devices taken by running tasks
  };
  struct SimTask {
    EngineLaunch launch;
    std::string engine_id;
    EngineTaskState state = EngineTaskState::pending;
    Clock::time_point queued_at;
    Clock::time_point ends_at;
    std::string reason;
  };

  void advance(Clock::time_point now);  // ends due tasks, starts pending ones
  bool try_start(SimTask& task, Clock::time_point now);
  void release(const SimTask& task);
  SimNode* find_node(std::string_view name);

  mutable std::mutex mutex_;
  double time_scale_;
  std::vector<SimNode> nodes_;
  std::vector<DeviceSpec> specs_;          // every model seen, by (kind, model)
  std::map<std::string, SimTask> active_;  // by task key: pending or running
  std::vector<EngineTaskStatus> ended_;    // ended since the last poll
  std::uint64_t next_engine_id_ = 1;
};

// The engine's view of a cluster model: one EngineNode per node, its devices
// grouped by (kind, model); a CPU device counts its compute units as the node's cpus.
std::vector<EngineNode> engine_nodes_of(const Cluster& cluster);

}  // namespace hetsched
