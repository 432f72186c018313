// SimulatedEngine: the digital twin as a ClusterEngine, so `hetsched serve` runs with
// no cluster manager at all (it is the service's default engine). Its nodes come from
// a cluster model (a cluster file or the built-in default cluster) and can be added
// while it runs; they can be drained (running work finishes, nothing new starts) or set
// down (running work fails), as an operator does with `scontrol update state=...`.
//
// Time is virtual: the engine's clock runs at `time_scale` simulated seconds per real
// second, or, with an infinite scale, jumps from event to event as fast as they can be
// processed. The control plane reads its clock from here (now()).
//
// DAG tasks run on the real Simulator (network transfers and contention, energy,
// thermal) once the control plane attaches its SchedulingLoop and task graph: the loop
// places, the control plane hands each placement to simulator().launch(), and steps
// the clock with run_due_instant(), deciding after every instant exactly as `hetsched
// simulate` does — so both give the same schedule. Launches through the ClusterEngine
// interface (a gang of devices) take devices of the named model on the named node,
// wait (pending, like a Slurm job in the queue) while too few are free, and complete
// after their expected seconds on the same clock.
//
// Threads: add_nodes, set_node_state and device_spec may be called from any thread; the
// rest from the control plane's one scheduling thread.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/service/cluster_engine.hpp"
#include "hetsched/sim/simulator.hpp"

namespace hetsched {

class SimulatedEngine final : public ClusterEngine {
 public:
  // time_scale: simulated seconds per real second (> 0; infinity: as fast as possible).
  SimulatedEngine(const Cluster& cluster, double time_scale,
                  SimulationOptions simulation = SimulationOptions{});

  std::string_view name() const override { return "sim"; }
  std::vector<EngineNode> nodes() override;
  std::string launch(const EngineLaunch& launch) override;
  void cancel(std::string_view task_key) override;
  std::vector<EngineTaskStatus> poll() override;

  // Adds the nodes of `cluster` (their devices' full specs are kept, see device_spec).
  // Throws InputError naming the node when a name is taken.
  void add_nodes(const Cluster& cluster);
  // Drains, downs or brings back a node; throws InputError for an unknown name.
  void set_node_state(std::string_view node, EngineNodeState state);
  // The datasheet figures of a model on one of this engine's nodes (cluster files may
  // define parts the catalog lacks), or nullopt.
  std::optional<DeviceSpec> device_spec(DeviceKind kind, std::string_view model) const override;
  double time_scale() const { return time_scale_; }
  // Bumped whenever nodes() would answer differently. Any thread, without a lock.
  std::uint64_t node_generation() const { return node_generation_.load(std::memory_order_acquire); }

  // The twin's body for DAG tasks: a Simulator in an open world over the control plane's
  // loop and graph; its starts and finishes go to `observer`. A control plane attaching
  // again (a restart on the same engine) gets a fresh simulator: what ran is lost, as it
  // is when the process restarts.
  void attach(TaskGraph& graph, const PerfModel& perf, SchedulingLoop& loop,
              SimulationObserver& observer);
  Simulator& simulator() { return *simulator_; }
  // The nodes as the simulator models them (links, racks, full datasheets), in order;
  // up to date after nodes().
  const Cluster& cluster() const { return cluster_; }
  double now() const { return now_.load(std::memory_order_relaxed); }  // any thread
  // The time as an outside observer sees it now (any thread): as far as the pace has
  // gone, which the scheduling thread's clock reaches at its next step.
  double observed_now() const {
    if (std::isinf(time_scale_)) return now();  // nothing moves it between steps
    return std::max(now(), std::min(paced_time(), limit_.load(std::memory_order_relaxed)));
  }
  // Carries out the next instant's events (simulator and launches) when the pace allows;
  // false when nothing is due (the clock has then moved on to the pace's time). Jobs the
  // owner lets arrive at `arrivals_at` make that an instant too: `arrive` is called at
  // it before the simulator's own events of that instant, as `hetsched simulate` takes
  // a job's arrival before the other events of its time.
  bool run_due_instant(double arrivals_at = std::numeric_limits<double>::infinity(),
                       const std::function<void()>& arrive = {});
  // The clock goes no further than `seconds` whatever the pace (infinity: no limit), so
  // a test can step the twin by hand. Any thread.
  void limit_clock(double seconds) { limit_.store(seconds, std::memory_order_relaxed); }

 private:
  struct SimNode {
    EngineNode info;
    std::map<std::string, std::uint32_t> busy_by_model;  // devices taken by running launches
  };
  struct SimTask {
    EngineLaunch launch;
    std::string engine_id;
    EngineTaskState state = EngineTaskState::pending;
    std::uint64_t queued = 0;  // launch order
    double started_at = 0;     // virtual seconds
    double ends_at = 0;
  };

  double paced_time() const;  // how far the pace lets the clock go now
  void apply_added_nodes();   // the nodes add_nodes queued join the simulator's cluster
  void end_due_launches();    // ends launches due at now_, starts pending ones
  bool try_start(SimTask& task);
  void release(const SimTask& task);
  SimNode* find_node(std::string_view name);
  double next_launch_end() const;

  const double time_scale_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  SimulationOptions simulation_;
  std::atomic<double> now_{0};  // virtual seconds; written by the scheduling thread only
  std::atomic<double> limit_{std::numeric_limits<double>::infinity()};
  Cluster cluster_;
  std::unique_ptr<Simulator> simulator_;

  mutable std::mutex mutex_;  // what other threads may touch
  std::vector<SimNode> nodes_;
  std::vector<Cluster> added_;             // added, not yet in cluster_
  std::vector<DeviceSpec> specs_;          // every model seen, by (kind, model)
  std::map<std::string, SimTask> active_;  // launches by task key: pending or running
  std::vector<EngineTaskStatus> ended_;    // ended since the last poll
  std::uint64_t next_engine_id_ = 1;
  std::atomic<std::uint64_t> node_generation_{1};  // bumped under mutex_, read without it
};

// The engine's view of a cluster model: one EngineNode per node, its devices
// grouped by (kind, model); a CPU device counts its compute units as the node's cpus.
std::vector<EngineNode> engine_nodes_of(const Cluster& cluster);

}  // namespace hetsched
