#include "hetsched/cluster/cluster.hpp"

#include <algorithm>

namespace hetsched {

NodeId Cluster::add_node(Node node, const std::vector<DeviceSpec>& devices) {
  const NodeId id = static_cast<NodeId>(nodes_.size());
  node.devices.clear();
  for (std::size_t i = 0; i < devices.size(); ++i) {
    Device device;
    device.id = static_cast<DeviceId>(devices_.size());
    device.node = id;
    device.spec = devices[i];
    device.name = node.name + "/" + device.spec.model + "#" + std::to_string(i);
    node.devices.push_back(device.id);
    devices_.push_back(std::move(device));
  }
  const auto rack = std::find(rack_names_.begin(), rack_names_.end(), node.rack);
  rack_of_node_.push_back(static_cast<std::uint32_t>(rack - rack_names_.begin()));
  if (rack == rack_names_.end()) rack_names_.push_back(node.rack);
  nodes_.push_back(std::move(node));
  return id;
}

double Cluster::path_latency(NodeId from, NodeId to) const {
  if (from == to) return nodes_[from].link.latency_seconds;
  double latency = network_.latency_seconds;
  if (rack_of_node_[from] != rack_of_node_[to]) latency += network_.inter_rack_latency_seconds;
  return latency;
}

double Cluster::path_bandwidth(NodeId from, NodeId to) const {
  if (from == to) return nodes_[from].link.bandwidth;
  double bandwidth = std::min(nodes_[from].nic_bandwidth, nodes_[to].nic_bandwidth);
  if (rack_of_node_[from] != rack_of_node_[to])
    bandwidth = std::min(bandwidth, network_.inter_rack_bandwidth);
  return bandwidth;
}

double Cluster::transfer_seconds(double bytes, DeviceId from, DeviceId to) const {
  if (from == to || bytes <= 0) return 0.0;
  const NodeId a = devices_[from].node;
  const NodeId b = devices_[to].node;
  return path_latency(a, b) + bytes / path_bandwidth(a, b);
}

double Cluster::host_to_device_seconds(double bytes, NodeId from, DeviceId to) const {
  if (bytes <= 0) return 0.0;
  const NodeId b = devices_[to].node;
  return path_latency(from, b) + bytes / path_bandwidth(from, b);
}

}  // namespace hetsched
