// Reads a cluster file (YAML or JSON, see docs/file-formats.md) into a Cluster. Devices
// start from a catalog part (or a new part with its own figures), take any overridden
// figure, and may be split into MIG-like slices; nodes are replicated by `count`. Sizes
// are bounded before anything is allocated, so a hostile file cannot exhaust memory.
#include "hetsched/io/cluster_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/units.hpp"
#include "yaml_fields.hpp"

namespace hetsched {
namespace {

using io_detail::FieldReader;
using io_detail::InputNode;
using io_detail::NumberRange;

const std::vector<std::string> kTopLevelFields{"network", "nodes"};
const std::vector<std::string> kNetworkFields{"latency_us", "inter_rack_latency_us",
                                              "inter_rack_gbit_s"};
const std::vector<std::string> kNodeFields{"name",           "count",      "rack", "nodes_per_rack",
                                           "host_memory_gb", "nic_gbit_s", "link", "devices"};
const std::vector<std::string> kLinkFields{"kind", "bandwidth_gb_s", "latency_us"};
const std::vector<std::string> kDeviceFields{
    "model",         "count",          "slices",
    "kind",          "matrix_tflops",  "vector_tflops",
    "compute_units", "memory_gb",      "memory_bandwidth_gb_s",
    "idle_watts",    "peak_watts",     "launch_overhead_us",
    "mtbf_hours",    "price_per_hour", "pstates"};
const std::vector<std::string> kFlopRateFields{"fp64", "fp32", "fp16", "bf16", "int8"};
const std::vector<std::string> kPStateFields{"frequency", "speed", "power"};
// Figures a part outside the catalog must give (besides a flop rate).
const std::vector<std::string> kNewPartRequiredFields{"kind", "memory_gb", "memory_bandwidth_gb_s",
                                                      "peak_watts"};

// Intra-node link kinds with a typical per-direction bandwidth used when the file gives
// only the kind.
struct LinkKind {
  const char* name;
  double bandwidth_gb_s;
};
constexpr LinkKind kLinkKinds[] = {
    {"pcie4", 32}, {"pcie5", 64},           {"nvlink3", 300}, {"nvlink4", 450},
    {"ici", 100},  {"infinity-fabric", 64}, {"upi", 32},
};
constexpr double kDefaultLinkLatencyUs = 2;

std::vector<std::string> link_kind_names() {
  std::vector<std::string> names;
  for (const LinkKind& kind : kLinkKinds) names.emplace_back(kind.name);
  return names;
}

// One `devices:` entry: `count` identical devices (slices already expanded into count).
struct DeviceGroup {
  DeviceSpec spec;
  std::int64_t count = 1;
};

void read_flop_rates(const InputNode& value, std::string_view field, const std::string& file,
                     std::array<double, kPrecisionCount>& rates) {
  const FieldReader reader(value, fmt::format("field '{}'", field), file, kFlopRateFields);
  if (reader.has("fp16") && reader.has("bf16"))
    throw InputError(reader.position_of_field("bf16"),
                     fmt::format("field '{}' gives both fp16 and bf16, which name the same rate; "
                                 "give one of them",
                                 field));
  for (const std::string& name : kFlopRateFields) {
    const InputNode* rate = reader.find(name);
    if (rate == nullptr) continue;
    const auto precision = parse_precision(name);
    rates[static_cast<std::size_t>(*precision)] =
        io_detail::number_value(*rate, fmt::format("{}.{}", field, name), NumberRange::non_negative,
                                file, units::teraflops);
  }
}

std::vector<PState> read_pstates(const InputNode& value, const std::string& file) {
  const std::size_t length = io_detail::list_length(value, "pstates", file);
  if (length == 0)
    throw InputError(io_detail::position_of(value, file),
                     "field 'pstates' expects at least one P-state");
  if (static_cast<std::int64_t>(length) > kMaxPStates)
    throw InputError(
        io_detail::position_of(value, file),
        fmt::format("field 'pstates' has {} entries; the limit is {}", length, kMaxPStates));
  std::vector<PState> states;
  for (std::size_t i = 0; i < length; ++i) {
    const FieldReader entry(value[i], fmt::format("P-state {}", i), file, kPStateFields);
    PState state;
    state.frequency_scale = entry.required_number("frequency", NumberRange::fraction);
    state.speed_scale = entry.required_number("speed", NumberRange::fraction);
    state.power_scale = entry.required_number("power", NumberRange::fraction);
    if (!states.empty() && state.speed_scale > states.front().speed_scale)
      throw InputError(entry.position(),
                       fmt::format("P-state {} (speed {}) is faster than P-state 0 (speed {}); "
                                   "the first P-state must be the fastest",
                                   i, state.speed_scale, states.front().speed_scale));
    states.push_back(state);
  }
  return states;
}

// A slice of `slices` equal parts of `whole`: 1/N of the compute, memory, bandwidth,
// power and price, the same P-states, launch overhead and MTBF.
DeviceSpec slice_of(const DeviceSpec& whole, std::int64_t slices) {
  DeviceSpec slice = whole;
  const auto n = static_cast<double>(slices);
  slice.model = fmt::format("{}/{}", whole.model, slices);
  for (std::size_t p = 0; p < kPrecisionCount; ++p) {
    slice.matrix_flops[p] = whole.matrix_flops[p] / n;
    slice.vector_flops[p] = whole.vector_flops[p] / n;
  }
  slice.compute_units = std::max(1, static_cast<int>(whole.compute_units / slices));
  slice.memory_bytes = whole.memory_bytes / n;
  slice.memory_bandwidth = whole.memory_bandwidth / n;
  slice.idle_watts = whole.idle_watts / n;
  slice.peak_watts = whole.peak_watts / n;
  slice.price_per_hour = whole.price_per_hour / n;
  return slice;
}

DeviceGroup read_device(const InputNode& value, const std::string& file,
                        const ClusterFileLimits& limits) {
  const FieldReader device(value, "device", file, kDeviceFields);
  const std::string model = device.required_string("model");
  DeviceSpec spec;
  if (const DeviceSpec* part = find_catalog_part(model)) {
    spec = *part;
  } else {
    if (!device.has("kind"))
      throw InputError(device.position_of_field("model"),
                       unknown_name_message("device model", model, catalog_model_names()) +
                           "; to describe a part outside the catalog give kind, memory_gb, "
                           "memory_bandwidth_gb_s, peak_watts and a flop rate");
    for (const std::string& field : kNewPartRequiredFields)
      if (!device.has(field))
        throw InputError(device.position(),
                         fmt::format("device model {} is not in the catalog, so it must give "
                                     "field '{}'",
                                     io_detail::quote_for_message(model), field));
    if (!device.has("matrix_tflops") && !device.has("vector_tflops"))
      throw InputError(device.position(),
                       fmt::format("device model {} is not in the catalog, so it must give "
                                   "matrix_tflops or vector_tflops",
                                   io_detail::quote_for_message(model)));
    spec.model = model;
  }

  if (const InputNode* kind = device.find("kind")) {
    const std::string text = io_detail::string_value(*kind, "kind", file);
    const auto parsed = parse_device_kind(text);
    if (!parsed)
      throw InputError(io_detail::position_of(*kind, file),
                       unknown_name_message("device kind", text, device_kind_names()));
    spec.kind = *parsed;
  }
  if (const InputNode* rates = device.find("matrix_tflops"))
    read_flop_rates(*rates, "matrix_tflops", file, spec.matrix_flops);
  if (const InputNode* rates = device.find("vector_tflops"))
    read_flop_rates(*rates, "vector_tflops", file, spec.vector_flops);
  if (auto units = device.optional_whole_number("compute_units", 1, 10'000'000))
    spec.compute_units = static_cast<int>(*units);
  if (auto memory = device.optional_number("memory_gb", NumberRange::positive, units::gigabyte))
    spec.memory_bytes = *memory;
  if (auto bandwidth =
          device.optional_number("memory_bandwidth_gb_s", NumberRange::positive, units::gigabyte))
    spec.memory_bandwidth = *bandwidth;
  if (auto watts = device.optional_number("idle_watts", NumberRange::non_negative))
    spec.idle_watts = *watts;
  if (auto watts = device.optional_number("peak_watts", NumberRange::non_negative))
    spec.peak_watts = *watts;
  if (auto overhead = device.optional_number("launch_overhead_us", NumberRange::non_negative,
                                             units::microsecond))
    spec.launch_overhead_seconds = *overhead;
  if (auto mtbf = device.optional_number("mtbf_hours", NumberRange::positive))
    spec.mtbf_hours = *mtbf;
  if (auto price = device.optional_number("price_per_hour", NumberRange::non_negative))
    spec.price_per_hour = *price;
  if (const InputNode* pstates = device.find("pstates"))
    spec.pstates = read_pstates(*pstates, file);

  const bool computes = std::any_of(spec.matrix_flops.begin(), spec.matrix_flops.end(),
                                    [](double rate) { return rate > 0; }) ||
                        std::any_of(spec.vector_flops.begin(), spec.vector_flops.end(),
                                    [](double rate) { return rate > 0; });
  if (!computes)
    throw InputError(device.position(),
                     fmt::format("device model {} has no flop rate above 0 for any precision",
                                 io_detail::quote_for_message(model)));
  if (spec.idle_watts > spec.peak_watts)
    throw InputError(
        device.position_of_field(device.has("idle_watts") ? "idle_watts" : "peak_watts"),
        fmt::format("device model {}: idle_watts ({}) exceeds peak_watts ({})",
                    io_detail::quote_for_message(model), spec.idle_watts, spec.peak_watts));

  DeviceGroup group;
  group.count = device.optional_whole_number("count", 1, limits.max_devices_per_node).value_or(1);
  const std::int64_t slices =
      device.optional_whole_number("slices", 1, kMaxSlicesPerDevice).value_or(1);
  group.spec = slices > 1 ? slice_of(spec, slices) : std::move(spec);
  group.count *= slices;
  return group;
}

IntraNodeLink read_link(const InputNode& value, const std::string& file) {
  const FieldReader link(value, "link", file, kLinkFields);
  IntraNodeLink result;
  if (const InputNode* kind = link.find("kind")) {
    const std::string text = io_detail::string_value(*kind, "kind", file);
    const auto known =
        std::find_if(std::begin(kLinkKinds), std::end(kLinkKinds),
                     [&](const LinkKind& kind) { return equals_ignoring_case(kind.name, text); });
    if (known == std::end(kLinkKinds))
      throw InputError(io_detail::position_of(*kind, file),
                       unknown_name_message("link kind", text, link_kind_names()));
    result.kind = known->name;
    result.bandwidth = known->bandwidth_gb_s * units::gigabyte;
  }
  if (auto bandwidth =
          link.optional_number("bandwidth_gb_s", NumberRange::positive, units::gigabyte))
    result.bandwidth = *bandwidth;
  result.latency_seconds =
      link.optional_number("latency_us", NumberRange::non_negative, units::microsecond)
          .value_or(kDefaultLinkLatencyUs * units::microsecond);
  return result;
}

Network read_network(const InputNode& value, const std::string& file) {
  const FieldReader network(value, "network", file, kNetworkFields);
  Network result;
  if (auto latency =
          network.optional_number("latency_us", NumberRange::non_negative, units::microsecond))
    result.latency_seconds = *latency;
  if (auto latency = network.optional_number("inter_rack_latency_us", NumberRange::non_negative,
                                             units::microsecond))
    result.inter_rack_latency_seconds = *latency;
  if (auto bandwidth = network.optional_number("inter_rack_gbit_s", NumberRange::positive,
                                               units::gigabit_per_second))
    result.inter_rack_bandwidth = *bandwidth;
  return result;
}

// One `nodes:` entry: a node and its devices, `count` times.
struct NodeGroup {
  Node node;
  std::int64_t count = 1;
  std::int64_t nodes_per_rack = 0;  // > 0: the copies fill racks <rack>-0, <rack>-1, ...
  std::vector<DeviceGroup> devices;
  std::int64_t devices_per_node = 0;
  SourcePosition name_position;
};

NodeGroup read_node(const InputNode& value, const std::string& file,
                    const ClusterFileLimits& limits) {
  const FieldReader node(value, "node", file, kNodeFields);
  NodeGroup group;
  group.node.name = node.required_string("name");
  group.name_position = node.position_of_field("name");
  group.count = node.optional_whole_number("count", 1, limits.max_nodes).value_or(1);
  if (auto rack = node.optional_string("rack")) group.node.rack = *rack;
  if (auto per_rack = node.optional_whole_number("nodes_per_rack", 1, limits.max_nodes)) {
    group.nodes_per_rack = *per_rack;
    if (!node.has("rack")) group.node.rack = group.node.name;  // racks <name>-0, <name>-1, ...
  }
  if (auto memory =
          node.optional_number("host_memory_gb", NumberRange::non_negative, units::gigabyte))
    group.node.host_memory_bytes = *memory;
  if (auto nic =
          node.optional_number("nic_gbit_s", NumberRange::positive, units::gigabit_per_second))
    group.node.nic_bandwidth = *nic;
  if (const InputNode* link = node.find("link")) group.node.link = read_link(*link, file);
  if (const InputNode* devices = node.find("devices")) {
    const std::size_t length = io_detail::list_length(*devices, "devices", file);
    for (std::size_t i = 0; i < length; ++i) {
      const InputNode entry = (*devices)[i];
      DeviceGroup device = read_device(entry, file, limits);
      group.devices_per_node += device.count;
      if (group.devices_per_node > limits.max_devices_per_node)
        throw InputError(io_detail::position_of(entry, file),
                         fmt::format("node {} has more than {} devices",
                                     io_detail::quote_for_message(group.node.name),
                                     limits.max_devices_per_node));
      group.devices.push_back(std::move(device));
    }
  }
  return group;
}

Cluster build_cluster(const InputNode& root, const std::string& file,
                      const ClusterFileLimits& limits) {
  const FieldReader top(root, "the cluster file", file, kTopLevelFields);
  Cluster cluster;
  if (const InputNode* network = top.find("network"))
    cluster.network() = read_network(*network, file);

  const InputNode& nodes = top.required("nodes");
  const std::size_t length = io_detail::list_length(nodes, "nodes", file);
  if (length == 0)
    throw InputError(io_detail::position_of(nodes, file),
                     "field 'nodes' expects at least one node");

  std::vector<NodeGroup> groups;
  std::int64_t total_nodes = 0;
  std::int64_t total_devices = 0;
  for (std::size_t i = 0; i < length; ++i) {
    const InputNode entry = nodes[i];
    NodeGroup group = read_node(entry, file, limits);
    total_nodes += group.count;
    if (total_nodes > limits.max_nodes)
      throw InputError(io_detail::position_of(entry, file),
                       fmt::format("the cluster has more than {} nodes", limits.max_nodes));
    total_devices += group.count * group.devices_per_node;
    if (total_devices > limits.max_devices)
      throw InputError(io_detail::position_of(entry, file),
                       fmt::format("the cluster has more than {} devices", limits.max_devices));
    groups.push_back(std::move(group));
  }
  if (total_devices == 0)
    throw InputError(io_detail::position_of(nodes, file),
                     "the cluster has no devices; give at least one node a 'devices' list");

  // Node names, replicated ones included, must be unique.
  std::unordered_map<std::string, SourcePosition> first_use;
  for (const NodeGroup& group : groups) {
    for (std::int64_t r = 0; r < group.count; ++r) {
      const std::string name =
          group.count > 1 ? fmt::format("{}-{}", group.node.name, r) : group.node.name;
      const auto [it, inserted] = first_use.emplace(name, group.name_position);
      if (!inserted)
        throw InputError(
            group.name_position,
            fmt::format("duplicate node name {} (first at line {}, column {})",
                        io_detail::quote_for_message(name), it->second.line, it->second.column));
    }
  }

  for (const NodeGroup& group : groups) {
    std::vector<DeviceSpec> specs;
    specs.reserve(static_cast<std::size_t>(group.devices_per_node));
    for (const DeviceGroup& device : group.devices)
      specs.insert(specs.end(), static_cast<std::size_t>(device.count), device.spec);
    for (std::int64_t r = 0; r < group.count; ++r) {
      Node node = group.node;
      if (group.count > 1) node.name = fmt::format("{}-{}", group.node.name, r);
      if (group.nodes_per_rack > 0)
        node.rack = fmt::format("{}-{}", group.node.rack, r / group.nodes_per_rack);
      cluster.add_node(std::move(node), specs);
    }
  }
  return cluster;
}

}  // namespace

Cluster parse_cluster(std::string_view text, const std::string& file_name,
                      const ClusterFileLimits& limits) {
  const io_detail::InputDocument document =
      io_detail::parse_document(text, file_name, "'nodes' (and optionally 'network')");
  return build_cluster(document.root(), file_name, limits);
}

Cluster load_cluster_file(const std::string& path, const ClusterFileLimits& limits) {
  return parse_cluster(read_text_file(path), path, limits);
}

}  // namespace hetsched
