// SharedNics: the network of a plan made on NICs that carry one transfer at a time each way
// (NetworkModel::one_port_nics), as the twin's do (Simulator::send_input). Every node has a
// sending and a receiving NIC, each a lane of busy intervals (a DeviceTimeline). A transfer
// from node A to node B takes the first gap, at or after the moment it is sent, that is free
// on A's sending NIC and B's receiving NIC at once and long enough for its bytes at the
// path's bandwidth; it arrives the path's latency after its last byte. A consumer's inputs
// from other nodes are fitted one after the other in the order they are sent (ties by edge),
// as the twin sends them.
//
// Cost: fitting one input is a few gap searches (O(log intervals + block) each, repeated
// while the two NICs' gaps disagree). arrival_on_every_node fits a consumer's inputs once
// per node that holds an input or receives something after the first input is sent, and
// once per kind of the other, quiet, nodes, which differ only by their rack relations to
// the inputs' nodes and their NIC's bandwidth: O(nodes + kinds × inputs × fit).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/perf/dag_instance.hpp"
#include "hetsched/policy/device_timeline.hpp"

namespace hetsched {

class SharedNics {
 public:
  // One input of a consumer: `bytes` of edge `edge` (PlannedTransfer::kExternalInput for the
  // consumer's external input) sent from `node` at sent_seconds.
  struct Input {
    std::uint32_t edge;
    NodeId node;
    double sent_seconds, bytes;
  };

  // nic_free_seconds: per node, when its NIC may first send ([node]) and receive
  // ([node_count + node]); empty: every NIC is free from 0.
  SharedNics(const Cluster& cluster, std::span<const double> nic_free_seconds);

  // When the inputs from nodes other than `node` are all on `node` (0 when there are none):
  // fitted into the NICs' gaps and taken back.
  double arrival(std::span<const Input> inputs, NodeId node);
  // The same, keeping the NICs' time booked; the transfers are appended to `fitted`.
  double fit(std::span<const Input> inputs, NodeId node, std::vector<PlannedTransfer>& fitted);
  // arrival() on every node: per_node[n] for n in 0..node_count.
  void arrival_on_every_node(std::span<const Input> inputs, std::span<double> per_node);
  // Gives booked transfers' time back.
  void free(std::span<const PlannedTransfer> transfers);

  // Raises nic_free (per node its sending NIC, then per node its receiving one, as the
  // constructor takes it) to the end of each transfer's wire time: what the next plan
  // made after these transfers must leave to them.
  static void book_after(std::span<const PlannedTransfer> transfers, std::span<double> nic_free);

 private:
  // The earliest start >= ready of `wire` seconds free on both NICs.
  double earliest_common_gap(NodeId from, NodeId to, double ready, double wire) const;
  DeviceId receiving_lane(NodeId node) const {
    return static_cast<DeviceId>(cluster_->node_count() + node);
  }

  const Cluster* cluster_;
  // Lane n: node n's sending NIC; lane node_count + n: its receiving NIC.
  DeviceTimeline lanes_;
  // Scratch.
  std::vector<Input> remote_;
  std::vector<PlannedTransfer> tentative_;
  struct QuietKind {
    std::uint64_t same_rack;  // bit i: the node shares a rack with input i's node
    double nic_bandwidth, arrival;
  };
  std::vector<QuietKind> quiet_kinds_;
};

}  // namespace hetsched
