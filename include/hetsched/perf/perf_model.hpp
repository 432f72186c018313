// PerfModel: predicted seconds and joules of a task on a device in a P-state,
// and seconds to move bytes between devices. Every policy and every body asks
// this interface; the roofline model is the first implementation, learned
// models come later behind the same calls.
#pragma once

#include <limits>
#include <string_view>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/workload/task.hpp"

namespace hetsched {

inline constexpr double kCannotRun = std::numeric_limits<double>::infinity();

class PerfModel {
 public:
  explicit PerfModel(const Cluster& cluster) : cluster_(&cluster) {}
  virtual ~PerfModel() = default;

  virtual std::string_view name() const = 0;

  // Seconds for the task on the device at the P-state; kCannotRun where it cannot run.
  // A task's explicit cost (a cost matrix) wins over the model's prediction and is
  // stretched by the P-state's speed like any other compute time.
  double task_seconds(const Task& task, const Device& device, std::size_t pstate = 0) const;

  // Average power while the task runs, in watts: idle power plus the dynamic power
  // of its activity, scaled by the P-state's power factor.
  virtual double task_watts(const Task& task, const Device& device, std::size_t pstate = 0) const;
  double task_joules(const Task& task, const Device& device, std::size_t pstate = 0) const {
    return task_watts(task, device, pstate) * task_seconds(task, device, pstate);
  }

  // Seconds to move bytes between two devices (0 on the same device): the cluster's links,
  // never a model's guess, so planners may work them out per node (see Cluster).
  double transfer_seconds(double bytes, DeviceId from, DeviceId to) const {
    return cluster_->transfer_seconds(bytes, from, to);
  }
  // The mean of transfer_seconds over ordered pairs of distinct devices, as latency and
  // seconds per byte.
  PairTransferMeans mean_pair_transfer() const { return cluster_->mean_pair_transfer(); }
  virtual double host_to_device_seconds(double bytes, NodeId from, DeviceId to) const {
    return cluster_->host_to_device_seconds(bytes, from, to);
  }
  // Lower bounds of host_to_device_seconds (and of transfer_seconds from a device of `from`)
  // over the devices of other nodes (NICs at most `destination_nic`) of `from`'s rack and of
  // the other racks (Cluster::remote_host_to_device_lower_bounds); a model that overrides
  // host_to_device_seconds overrides this too, so that searches bounded by it stay exact.
  virtual Cluster::RemoteInputBounds remote_host_to_device_lower_bounds(
      double bytes, NodeId from, double destination_nic) const {
    return cluster_->remote_host_to_device_lower_bounds(bytes, from, destination_nic);
  }

  // True when the model's own prediction and its power depend on a device only through
  // its spec, so devices of one spec class (Cluster::spec_class) get the same seconds and
  // watts for a task without explicit costs; callers may then ask once per class (or ask
  // about the class's stand-in, Cluster::spec_stand_in).
  virtual bool predicts_by_spec() const { return false; }

  const Cluster& cluster() const { return *cluster_; }

 protected:
  // The model's own prediction, for tasks without explicit costs.
  virtual double predict_seconds(const Task& task, const Device& device,
                                 std::size_t pstate) const = 0;

 private:
  const Cluster* cluster_;
};

}  // namespace hetsched
