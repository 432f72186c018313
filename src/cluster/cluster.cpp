#include "hetsched/cluster/cluster.hpp"

#include <algorithm>
#include <numeric>

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
    const auto same =
        std::find_if(spec_class_device_.begin(), spec_class_device_.end(),
                     [&](DeviceId first) { return devices_[first].spec == device.spec; });
    spec_class_of_device_.push_back(static_cast<std::uint32_t>(same - spec_class_device_.begin()));
    if (same == spec_class_device_.end()) spec_class_device_.push_back(device.id);
    node_of_device_.push_back(id);
    devices_.push_back(std::move(device));
  }
  const auto [rack, added] =
      rack_by_name_.emplace(node.rack, static_cast<std::uint32_t>(rack_names_.size()));
  rack_of_node_.push_back(rack->second);
  nic_bandwidth_of_node_.push_back(node.nic_bandwidth);
  if (added) rack_names_.push_back(node.rack);
  nodes_.push_back(std::move(node));
  return id;
}

double Cluster::transfer_seconds(double bytes, DeviceId from, DeviceId to) const {
  if (from == to || bytes <= 0) return 0.0;
  const NodeId a = node_of_device_[from];
  const NodeId b = node_of_device_[to];
  return path_latency(a, b) + bytes / path_bandwidth(a, b);
}

double Cluster::host_to_device_seconds(double bytes, NodeId from, DeviceId to) const {
  if (bytes <= 0) return 0.0;
  const NodeId b = node_of_device_[to];
  return path_latency(from, b) + bytes / path_bandwidth(from, b);
}

// Every remote path has at least the network's latency and at most the bandwidth of the
// narrower NIC; between racks the spine adds its latency and may narrow it further
// (path_latency, path_bandwidth).
Cluster::RemoteInputBounds Cluster::remote_host_to_device_lower_bounds(
    double bytes, NodeId from, double destination_nic) const {
  if (bytes <= 0) return {};
  const double bandwidth = std::min(nic_bandwidth_of_node_[from], destination_nic);
  return {network_.latency_seconds + bytes / bandwidth,
          network_.latency_seconds + network_.inter_rack_latency_seconds +
              bytes / std::min(bandwidth, network_.inter_rack_bandwidth)};
}

namespace {

// Σ over ordered pairs of distinct members (i ≠ j) of weight_i × weight_j × max(value_i,
// value_j): sorted by value, each member is the larger against all before it.
double weighted_pair_max_sum(std::vector<std::pair<double, double>> value_weight) {
  std::sort(value_weight.begin(), value_weight.end());
  double before = 0, sum = 0;
  for (const auto& [value, weight] : value_weight) {
    sum += 2 * weight * value * before;
    before += weight;
  }
  return sum;
}

}  // namespace

// Pairs on one node use its link. Pairs on two nodes pay the network latency (plus the
// spine's between racks) and the inverse of min(NIC, NIC) = max of the NICs' inverses
// (and of the spine's between racks), summed by weighted_pair_max_sum per rack and over
// all nodes.
PairTransferMeans Cluster::mean_pair_transfer() const {
  const auto devices = static_cast<double>(devices_.size());
  if (devices_.size() < 2) return {};
  double latency = 0, inverse_bandwidth = 0;
  double same_node_pairs = 0;
  std::vector<double> rack_devices(rack_names_.size(), 0);
  std::vector<std::vector<std::pair<double, double>>> nic_by_rack(rack_names_.size());
  std::vector<std::pair<double, double>> spine_capped;
  const double spine = 1.0 / network_.inter_rack_bandwidth;
  for (NodeId n = 0; n < nodes_.size(); ++n) {
    const auto count = static_cast<double>(nodes_[n].devices.size());
    if (count == 0) continue;
    const double inside = count * (count - 1);
    same_node_pairs += count * count;
    latency += inside * nodes_[n].link.latency_seconds;
    inverse_bandwidth += inside / nodes_[n].link.bandwidth;
    const std::uint32_t rack = rack_of_node_[n];
    rack_devices[rack] += count;
    const double nic = 1.0 / nodes_[n].nic_bandwidth;
    nic_by_rack[rack].emplace_back(nic, count);
    spine_capped.emplace_back(std::max(nic, spine), count);
  }
  const double other_node_pairs = devices * devices - same_node_pairs;
  double same_rack_pairs = 0;
  for (double c : rack_devices) same_rack_pairs += c * c;
  const double other_rack_pairs = devices * devices - same_rack_pairs;
  latency += other_node_pairs * network_.latency_seconds +
             other_rack_pairs * network_.inter_rack_latency_seconds;
  // Within a rack: max of the NICs' inverses; across racks: also capped by the spine.
  double across = weighted_pair_max_sum(spine_capped);
  for (std::uint32_t r = 0; r < rack_names_.size(); ++r) {
    inverse_bandwidth += weighted_pair_max_sum(nic_by_rack[r]);
    std::vector<std::pair<double, double>> capped;
    for (const auto& [nic, count] : nic_by_rack[r])
      capped.emplace_back(std::max(nic, spine), count);
    across -= weighted_pair_max_sum(std::move(capped));
  }
  inverse_bandwidth += across;
  const double pairs = devices * (devices - 1);
  return {latency / pairs, inverse_bandwidth / pairs};
}

}  // namespace hetsched
