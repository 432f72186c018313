// RunnableDevices: the devices that can run a task, in id order, without a scan of the
// cluster. Whether a device can run a task depends on its part alone (feasibility.hpp), so
// the parts that can run the task (a set of the cluster's spec classes) pick a list of
// devices, built once for each distinct set and kept until the cluster grows.
//
// Cost per task: O(parts) to tell which parts can run it and find its list; building a
// list is O(devices), once per distinct set of parts.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/workload/task.hpp"

namespace hetsched {

class RunnableDevices {
 public:
  // The devices of `cluster` that can run `task`, in increasing id; valid until the next
  // call.
  std::span<const DeviceId> of(const Cluster& cluster, const Task& task);

 private:
  std::size_t devices_ = 0;           // the cluster's device count the lists were built for
  std::vector<std::uint64_t> parts_;  // scratch: a bit per spec class that can run the task
  std::map<std::vector<std::uint64_t>, std::vector<DeviceId>> lists_;
};

}  // namespace hetsched
