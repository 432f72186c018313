#include "hetsched/cluster/default_cluster.hpp"

#include <algorithm>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/units.hpp"

namespace hetsched {
namespace {

const DeviceSpec& part(const char* model) { return *find_catalog_part(model); }

Node make_node(std::string name, std::string rack, IntraNodeLink link) {
  Node node;
  node.name = std::move(name);
  node.rack = std::move(rack);
  node.host_memory_bytes = 1024 * units::gigabyte;
  node.link = std::move(link);
  node.nic_bandwidth = 100 * units::gigabit_per_second;
  return node;
}

const IntraNodeLink kNvlink4{"nvlink4", 450e9, 2e-6};
const IntraNodeLink kNvlink3{"nvlink3", 300e9, 2e-6};
const IntraNodeLink kTpuIci{"ici", 200e9, 2e-6};
const IntraNodeLink kPcie5{"pcie5", 64e9, 2e-6};

}  // namespace

Cluster default_cluster() {
  Cluster cluster;
  cluster.add_node(make_node("h100-0", "rack0", kNvlink4),
                   std::vector<DeviceSpec>(8, part("H100-SXM")));
  cluster.add_node(make_node("a100-0", "rack0", kNvlink3),
                   std::vector<DeviceSpec>(4, part("A100-80GB")));
  cluster.add_node(make_node("tpu-v5e-0", "rack1", kTpuIci),
                   std::vector<DeviceSpec>(4, part("TPU-v5e")));
  cluster.add_node(make_node("cpu-0", "rack1", kPcie5), {part("EPYC-9654")});
  cluster.add_node(make_node("cpu-1", "rack1", kPcie5), {part("EPYC-9654")});
  cluster.network().inter_rack_bandwidth = 100 * units::gigabit_per_second;
  return cluster;
}

Cluster benchmark_cluster(std::size_t nodes, std::size_t devices_per_node) {
  static const char* const kinds[] = {"H100-SXM", "A100-80GB", "TPU-v5e", "EPYC-9654"};
  static const IntraNodeLink links[] = {kNvlink4, kNvlink3, kTpuIci, kPcie5};
  Cluster cluster;
  for (std::size_t n = 0; n < nodes; ++n) {
    const std::size_t k = n % 4;
    cluster.add_node(
        make_node("node-" + std::to_string(n), "rack" + std::to_string(n / 32), links[k]),
        std::vector<DeviceSpec>(devices_per_node, part(kinds[k])));
  }
  return cluster;
}

Cluster accelerator_node(std::size_t cpu_workers, std::span<const std::string> accelerator_models) {
  DeviceSpec worker = part("EPYC-9654");
  const double share = 1.0 / double(cpu_workers);
  for (double& f : worker.matrix_flops) f *= share;
  for (double& f : worker.vector_flops) f *= share;
  worker.compute_units = std::max(1, int(worker.compute_units * share));
  worker.memory_bytes *= share;
  worker.memory_bandwidth *= share;
  worker.idle_watts *= share;
  worker.peak_watts *= share;
  worker.price_per_hour *= share;
  std::vector<DeviceSpec> devices(cpu_workers, worker);
  for (const std::string& model : accelerator_models) devices.push_back(*find_catalog_part(model));
  Cluster cluster;
  cluster.add_node(make_node("node-0", "rack0", kPcie5), devices);
  return cluster;
}

}  // namespace hetsched
