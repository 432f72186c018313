// The built-in cluster the demo and `hetsched simulate` use without a file: one
// 8× H100 node with NVLink, one 4× A100 node, one host with 4 TPU v5e chips and
// two EPYC CPU-only nodes, on a 100 Gb/s network in two racks.
#pragma once

#include <span>
#include <string>

#include "hetsched/cluster/cluster.hpp"

namespace hetsched {

Cluster default_cluster();

// A large homogeneous-in-structure cluster for throughput benchmarks: `nodes` nodes
// of `devices_per_node` devices, cycling through H100, A100, TPU v5e and EPYC nodes.
Cluster benchmark_cluster(std::size_t nodes, std::size_t devices_per_node);

// One node as a task runtime (StarPU) sees it: an EPYC-9654 socket split into
// `cpu_workers` equal workers (each a share of its cores, peak rates, bandwidth, memory and
// power), and the catalog accelerators `accelerator_models` on PCIe 5. The models must be
// catalog parts (find_catalog_part).
Cluster accelerator_node(std::size_t cpu_workers, std::span<const std::string> accelerator_models);

}  // namespace hetsched
