// Loading a cluster description from a YAML (or JSON) file: nodes with their devices
// (catalog parts, overridden figures, new parts, MIG-like slices), intra-node links and
// the network between nodes. The format is described in docs/file-formats.md. Every
// problem with the input is an InputError naming the file, line, column and what was
// expected.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "hetsched/cluster/cluster.hpp"

namespace hetsched {

// Bounds that keep a malicious file from allocating unbounded memory or time. The
// defaults suit real clusters; a service or a fuzzer may pass tighter ones.
struct ClusterFileLimits {
  std::int64_t max_nodes = 100'000;          // nodes in the cluster, replicas included
  std::int64_t max_devices_per_node = 4096;  // devices (slices included) in one node
  std::int64_t max_devices = 1'000'000;      // devices in the cluster
};
inline constexpr std::int64_t kMaxSlicesPerDevice = 128;
inline constexpr std::int64_t kMaxPStates = 64;

// Parses the text of a cluster file; `file_name` is used in error positions only.
Cluster parse_cluster(std::string_view text, const std::string& file_name,
                      const ClusterFileLimits& limits = {});

// Reads and parses a cluster file; an unreadable file is an InputError naming it.
Cluster load_cluster_file(const std::string& path, const ClusterFileLimits& limits = {});

}  // namespace hetsched
