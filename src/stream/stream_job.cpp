#include "hetsched/stream/stream_job.hpp"

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/units.hpp"

namespace hetsched {

std::int64_t StreamCluster::total_devices() const {
  std::int64_t total = 0;
  for (const auto& type : types) total += type.count;
  return total;
}

std::vector<std::string> StreamCluster::type_names() const {
  std::vector<std::string> names;
  for (const auto& type : types) names.push_back(type.model);
  return names;
}

StreamCluster make_stream_cluster(const std::vector<std::pair<std::string, int>>& counts,
                                  int devices_per_node, int nodes_per_rack) {
  StreamCluster cluster;
  for (const auto& [model, count] : counts) {
    const DeviceSpec* part = find_catalog_part(model);
    if (!part) throw InputError(unknown_name_message("device model", model, catalog_model_names()));
    StreamDeviceType type{part->model, count, devices_per_node, nodes_per_rack,
                          part->price_per_hour};
    type.memory_gb = part->memory_bytes / units::gigabyte;
    cluster.types.push_back(type);
  }
  return cluster;
}

}  // namespace hetsched
