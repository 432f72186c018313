// Cluster: the mean transfer between distinct devices, computed per node and rack in
// O(nodes log nodes), equals the mean over every ordered pair of devices; the dense
// lookups the hot paths use agree with the device and node records.
#include "hetsched/cluster/cluster.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/cluster/device_catalog.hpp"

namespace hetsched {
namespace {

PairTransferMeans brute_force_means(const Cluster& cluster) {
  double latency = 0, inverse_bandwidth = 0, pairs = 0;
  for (const Device& a : cluster.devices())
    for (const Device& b : cluster.devices()) {
      if (a.id == b.id) continue;
      // transfer_seconds(bytes) = latency + bytes / bandwidth along the path.
      latency += cluster.path_latency(a.node, b.node);
      inverse_bandwidth += 1.0 / cluster.path_bandwidth(a.node, b.node);
      ++pairs;
      EXPECT_DOUBLE_EQ(
          cluster.transfer_seconds(1e6, a.id, b.id),
          cluster.path_latency(a.node, b.node) + 1e6 / cluster.path_bandwidth(a.node, b.node));
    }
  return {latency / pairs, inverse_bandwidth / pairs};
}

TEST(Cluster, MeanPairTransferEqualsTheMeanOverEveryPairOfDevices) {
  Cluster mixed;
  const DeviceSpec gpu = *find_catalog_part("H100-SXM");
  const DeviceSpec cpu = *find_catalog_part("EPYC-9654");
  // Racks of unlike nodes: NICs slower and faster than the spine, links of their own,
  // a node without devices, equal NICs (ties) across racks.
  const double nics[] = {12.5e9, 50e9, 25e9, 12.5e9, 3e9, 50e9, 25e9};
  for (int n = 0; n < 7; ++n) {
    Node node;
    node.name = "n" + std::to_string(n);
    node.rack = n < 3 ? "r0" : n < 5 ? "r1" : "r2";
    node.nic_bandwidth = nics[n];
    node.link.bandwidth = 64e9 * (n + 1);
    node.link.latency_seconds = 1e-6 * (n + 1);
    std::vector<DeviceSpec> devices(static_cast<std::size_t>(n % 4), gpu);
    if (n % 2 == 0) devices.push_back(cpu);
    mixed.add_node(std::move(node), devices);
  }
  mixed.network().inter_rack_bandwidth = 20e9;
  mixed.network().inter_rack_latency_seconds = 7e-6;
  const Cluster built_in = default_cluster();
  for (const Cluster* cluster : {static_cast<const Cluster*>(&mixed), &built_in}) {
    const PairTransferMeans fast = cluster->mean_pair_transfer();
    const PairTransferMeans exact = brute_force_means(*cluster);
    EXPECT_NEAR(fast.latency_seconds, exact.latency_seconds, 1e-12 * exact.latency_seconds);
    EXPECT_NEAR(fast.seconds_per_byte, exact.seconds_per_byte, 1e-12 * exact.seconds_per_byte);
  }
  Cluster one;
  one.add_node(Node{}, {gpu});
  EXPECT_EQ(one.mean_pair_transfer().latency_seconds, 0.0);  // no pair at all
}

TEST(Cluster, DenseLookupsAgreeWithTheDeviceAndNodeRecords) {
  Cluster cluster;
  const DeviceSpec gpu = *find_catalog_part("H100-SXM");
  DeviceSpec slow_gpu = gpu;
  slow_gpu.memory_bandwidth /= 2;  // another spec class of the same model
  const DeviceSpec cpu = *find_catalog_part("EPYC-9654");
  const double nics[] = {12.5e9, 50e9, 3e9, 25e9};
  for (int n = 0; n < 4; ++n) {
    Node node;
    node.name = "n" + std::to_string(n);
    node.rack = n < 2 ? "r0" : "r1";
    node.nic_bandwidth = nics[n];
    std::vector<DeviceSpec> devices = {n % 2 == 0 ? gpu : slow_gpu, cpu, gpu};
    cluster.add_node(std::move(node), devices);
  }
  ASSERT_EQ(cluster.spec_class_count(), 3u);
  for (const Device& d : cluster.devices()) {
    EXPECT_EQ(cluster.node_of(d.id), d.node);
    const Device& stand_in = cluster.spec_stand_in(d.id);
    EXPECT_EQ(stand_in.spec, d.spec) << d.name;
    EXPECT_EQ(cluster.spec_class(stand_in.id), cluster.spec_class(d.id));
    EXPECT_LE(stand_in.id, d.id);  // the class's first device
  }
  for (NodeId a = 0; a < cluster.node_count(); ++a)
    for (NodeId b = 0; b < cluster.node_count(); ++b) {
      if (a == b) continue;
      const double spine = cluster.rack_index(a) != cluster.rack_index(b)
                               ? cluster.network().inter_rack_bandwidth
                               : std::numeric_limits<double>::infinity();
      EXPECT_EQ(cluster.path_bandwidth(a, b),
                std::min({cluster.node(a).nic_bandwidth, cluster.node(b).nic_bandwidth, spine}));
    }
}

}  // namespace
}  // namespace hetsched
