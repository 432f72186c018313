// NetworkModel: how a static plan's transfers between nodes share the network — the
// choice the list schedulers plan with (ScheduleLimits::network) and a static planner
// policy is given (PolicyOptions::plan_network).
#pragma once

namespace hetsched {

// How a plan's transfers between nodes share the network.
enum class NetworkModel {
  // Each transfer takes its path's latency and bandwidth however many run at once: the
  // model of HEFT and of the list-scheduling literature.
  contention_free,
  // Each node's NIC sends one transfer at a time and receives one at a time, as the
  // twin's NICs do (Simulator::send_input): a transfer takes the first gap, at or after
  // its producer's finish, that is free on both NICs and long enough for its bytes at the
  // path's bandwidth, and arrives the path's latency later. A consumer's inputs from
  // other nodes are fitted in their producers' finish order. Transfers inside a node
  // keep the contention-free model, as in the twin. Only instances built from a cluster
  // have nodes; a matrix instance is planned contention-free whatever the model.
  one_port_nics,
};

}  // namespace hetsched
