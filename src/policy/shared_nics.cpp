// A plan's NICs, each carrying one transfer at a time each way (see the header for the
// account and the cost).
#include "hetsched/policy/shared_nics.hpp"

#include <algorithm>

namespace hetsched {

SharedNics::SharedNics(const Cluster& cluster, std::span<const double> nic_free_seconds)
    : cluster_(&cluster), lanes_(2 * cluster.node_count(), nic_free_seconds) {}

double SharedNics::earliest_common_gap(NodeId from, NodeId to, double ready, double wire) const {
  for (double at = ready;;) {
    const double sending = lanes_.earliest_start(from, at, wire);
    at = lanes_.earliest_start(receiving_lane(to), sending, wire);
    if (at == sending) return at;
  }
}

double SharedNics::fit(std::span<const Input> inputs, NodeId node,
                       std::vector<PlannedTransfer>& fitted) {
  remote_.clear();
  double arrival = 0;
  for (const Input& input : inputs) {
    if (input.node == node) continue;
    if (input.bytes > 0)
      remote_.push_back(input);
    else
      arrival = std::max(arrival, input.sent_seconds);  // nothing to move
  }
  std::sort(remote_.begin(), remote_.end(), [](const Input& a, const Input& b) {
    return a.sent_seconds != b.sent_seconds ? a.sent_seconds < b.sent_seconds : a.edge < b.edge;
  });
  for (const Input& input : remote_) {
    const double wire = input.bytes / cluster_->path_bandwidth(input.node, node);
    const double start = earliest_common_gap(input.node, node, input.sent_seconds, wire);
    lanes_.insert(input.node, start, start + wire);
    lanes_.insert(receiving_lane(node), start, start + wire);
    const PlannedTransfer transfer{
        .edge = input.edge,
        .from_node = input.node,
        .to_node = node,
        .start_seconds = start,
        .wire_end_seconds = start + wire,
        .arrival_seconds = start + wire + cluster_->path_latency(input.node, node)};
    arrival = std::max(arrival, transfer.arrival_seconds);
    fitted.push_back(transfer);
  }
  return arrival;
}

void SharedNics::free(std::span<const PlannedTransfer> transfers) {
  for (const PlannedTransfer& f : transfers) {
    lanes_.remove(f.from_node, f.start_seconds, f.wire_end_seconds);
    lanes_.remove(receiving_lane(f.to_node), f.start_seconds, f.wire_end_seconds);
  }
}

double SharedNics::arrival(std::span<const Input> inputs, NodeId node) {
  tentative_.clear();
  const double at = fit(inputs, node, tentative_);
  free(tentative_);
  return at;
}

void SharedNics::book_after(std::span<const PlannedTransfer> transfers,
                            std::span<double> nic_free) {
  const std::size_t nodes = nic_free.size() / 2;
  for (const PlannedTransfer& f : transfers) {
    nic_free[f.from_node] = std::max(nic_free[f.from_node], f.wire_end_seconds);
    nic_free[nodes + f.to_node] = std::max(nic_free[nodes + f.to_node], f.wire_end_seconds);
  }
}

void SharedNics::arrival_on_every_node(std::span<const Input> inputs, std::span<double> per_node) {
  std::fill(per_node.begin(), per_node.end(), 0.0);
  if (inputs.empty()) return;
  double first_sent = inputs.front().sent_seconds;
  for (const Input& input : inputs) first_sent = std::min(first_sent, input.sent_seconds);
  // A quiet node holds no input and receives nothing after the first input is sent: its
  // inputs' arrival depends only on which inputs' nodes share its rack and on its NIC's
  // bandwidth, so it is fitted once per such kind.
  quiet_kinds_.clear();
  const bool kinds_fit_a_word = inputs.size() <= 64;
  for (NodeId node = 0; node < cluster_->node_count(); ++node) {
    const bool quiet =
        kinds_fit_a_word && lanes_.last_finish(receiving_lane(node)) <= first_sent &&
        std::none_of(inputs.begin(), inputs.end(), [&](const Input& i) { return i.node == node; });
    if (!quiet) {
      per_node[node] = arrival(inputs, node);
      continue;
    }
    std::uint64_t same_rack = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      same_rack |= std::uint64_t{cluster_->rack_index(inputs[i].node) == cluster_->rack_index(node)}
                   << i;
    const double nic = cluster_->node(node).nic_bandwidth;
    const auto kind = std::find_if(quiet_kinds_.begin(), quiet_kinds_.end(), [&](const auto& k) {
      return k.same_rack == same_rack && k.nic_bandwidth == nic;
    });
    if (kind != quiet_kinds_.end()) {
      per_node[node] = kind->arrival;
    } else {
      per_node[node] = arrival(inputs, node);
      quiet_kinds_.push_back({same_rack, nic, per_node[node]});
    }
  }
}

}  // namespace hetsched
