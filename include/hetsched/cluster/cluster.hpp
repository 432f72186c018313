// Cluster: nodes holding devices, the links inside each node and the network
// between nodes. Devices are numbered 0..n-1 across the cluster (DeviceId) and
// nodes 0..m-1 (NodeId); these are the indices every other part uses.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "hetsched/cluster/device_spec.hpp"

namespace hetsched {

using DeviceId = std::uint32_t;
using NodeId = std::uint32_t;

struct Device {
  DeviceId id = 0;
  std::string name;  // "<node>/<model>#<index>"
  NodeId node = 0;
  DeviceSpec spec;
};

// A link inside a node (PCIe, NVLink, TPU ICI) between its devices and host memory.
struct IntraNodeLink {
  std::string kind = "pcie5";
  double bandwidth = 64e9;  // bytes/s per direction
  double latency_seconds = 2e-6;
};

struct Node {
  std::string name;
  std::string rack = "rack0";
  double host_memory_bytes = 0;
  IntraNodeLink link;
  double nic_bandwidth = 12.5e9;  // bytes/s; 100 Gb/s by default
  std::vector<DeviceId> devices;
};

// Means over every ordered pair of distinct devices: moving `bytes` between two devices
// drawn at random takes latency_seconds + bytes × seconds_per_byte on average.
struct PairTransferMeans {
  double latency_seconds = 0;
  double seconds_per_byte = 0;
};

// The network between nodes: each node's NIC into a top-of-rack switch, racks
// joined by a spine whose per-flow bandwidth and extra latency are given here.
struct Network {
  double latency_seconds = 5e-6;             // node to node within a rack
  double inter_rack_latency_seconds = 5e-6;  // added between racks
  double inter_rack_bandwidth = 12.5e9;      // bytes/s available to one flow between racks
};

class Cluster {
 public:
  Cluster() = default;

  // Adds a node; devices are appended in order and get the next DeviceIds.
  NodeId add_node(Node node, const std::vector<DeviceSpec>& devices);

  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Device>& devices() const { return devices_; }
  const Node& node(NodeId id) const { return nodes_[id]; }
  const Device& device(DeviceId id) const { return devices_[id]; }
  std::size_t device_count() const { return devices_.size(); }
  std::size_t node_count() const { return nodes_.size(); }
  std::uint32_t rack_index(NodeId node) const { return rack_of_node_[node]; }
  // A device's node, read from a dense array: hot paths of a large run (a transfer, a
  // device's draw) need it without touching the device's record (a few cache lines).
  NodeId node_of(DeviceId id) const { return node_of_device_[id]; }
  // Devices of equal spec share a class (numbered by first appearance), so whatever
  // depends on a device only through its spec is worked out once per class.
  std::uint32_t spec_class(DeviceId id) const { return spec_class_of_device_[id]; }
  std::size_t spec_class_count() const { return spec_class_device_.size(); }
  // The first device of a class, which stands for all of them.
  DeviceId spec_class_device(std::uint32_t spec_class) const {
    return spec_class_device_[spec_class];
  }
  // The device that stands for `id`'s class: what depends only on the spec is read from
  // it, whose record stays in cache while thousands of devices share it.
  const Device& spec_stand_in(DeviceId id) const {
    return devices_[spec_class_device_[spec_class_of_device_[id]]];
  }
  std::size_t rack_count() const { return rack_names_.size(); }
  Network& network() { return network_; }
  const Network& network() const { return network_; }

  // Seconds to move `bytes` from one device's memory to another's along the links,
  // without contention: 0 on the same device, the node's link inside a node, and the
  // NICs (and spine between racks) across nodes.
  double transfer_seconds(double bytes, DeviceId from, DeviceId to) const;
  // Seconds to move `bytes` from a node's host memory (where a job's input lives) to a device.
  double host_to_device_seconds(double bytes, NodeId from, DeviceId to) const;
  // Lower bounds, in O(1), of host_to_device_seconds(bytes, from, d) over the devices d of
  // other nodes whose NIC is at most `destination_nic` bytes/s: over those of `from`'s rack
  // and over those of the other racks (the network's latency, and the spine's; the narrower
  // of the two NICs and of the spine). Searches use them to stop early.
  struct RemoteInputBounds {
    double same_rack = 0;
    double other_racks = 0;
  };
  RemoteInputBounds remote_host_to_device_lower_bounds(double bytes, NodeId from,
                                                       double destination_nic) const;
  // Latency and bandwidth of the path between two nodes (same node: the intra-node link).
  // Inline: planners ask them once per node of a large cluster for each transfer.
  double path_latency(NodeId from, NodeId to) const {
    if (from == to) return nodes_[from].link.latency_seconds;
    double latency = network_.latency_seconds;
    if (rack_of_node_[from] != rack_of_node_[to]) latency += network_.inter_rack_latency_seconds;
    return latency;
  }
  double path_bandwidth(NodeId from, NodeId to) const {
    if (from == to) return nodes_[from].link.bandwidth;
    double bandwidth = std::min(nic_bandwidth_of_node_[from], nic_bandwidth_of_node_[to]);
    if (rack_of_node_[from] != rack_of_node_[to])
      bandwidth = std::min(bandwidth, network_.inter_rack_bandwidth);
    return bandwidth;
  }
  // The mean transfer between distinct devices (HEFT's mean communication cost), in
  // O(nodes log nodes) rather than over every pair of devices.
  PairTransferMeans mean_pair_transfer() const;

 private:
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> rack_of_node_;  // racks numbered by first appearance
  std::vector<std::string> rack_names_;
  std::unordered_map<std::string, std::uint32_t> rack_by_name_;  // a fleet has thousands
  std::vector<Device> devices_;
  std::vector<NodeId> node_of_device_;
  std::vector<double> nic_bandwidth_of_node_;  // dense, as node_of_device_
  std::vector<std::uint32_t> spec_class_of_device_;
  std::vector<DeviceId> spec_class_device_;
  Network network_;
};

}  // namespace hetsched
