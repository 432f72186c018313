#include "hetsched/policy/runnable_devices.hpp"

#include "hetsched/workload/feasibility.hpp"

namespace hetsched {

std::span<const DeviceId> RunnableDevices::of(const Cluster& cluster, const Task& task) {
  if (devices_ != cluster.device_count()) {
    lists_.clear();
    devices_ = cluster.device_count();
  }
  const std::size_t classes = cluster.spec_class_count();
  parts_.assign((classes + 63) / 64, 0);
  for (std::uint32_t c = 0; c < classes; ++c)
    if (can_run(task, cluster.device(cluster.spec_class_device(c))))
      parts_[c / 64] |= std::uint64_t{1} << (c % 64);
  auto [list, added] = lists_.try_emplace(parts_);
  if (added)
    for (const Device& d : cluster.devices()) {
      const std::uint32_t c = cluster.spec_class(d.id);
      if ((parts_[c / 64] >> (c % 64)) & 1) list->second.push_back(d.id);
    }
  return list->second;
}

}  // namespace hetsched
