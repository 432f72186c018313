#include "hetsched/partition/map_reduce_partition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "hetsched/partition/data_parallel_split.hpp"

namespace hetsched {
namespace {

constexpr double kMebibyte = 1024.0 * 1024.0;

Task scaled_per_byte(const Task& per_byte, double bytes) {
  Task t = per_byte;
  t.flops *= bytes;
  t.bytes *= bytes;
  return t;
}

// memory_bytes stays: it is the working set of a streaming task, not per byte.
// Seconds per byte (beyond the launch) of `per_byte` on device d, measured on
// `bytes` of it so the roofline's compute/memory balance is that of the whole.
double seconds_per_byte(const PerfModel& perf, const Task& per_byte, const Device& d,
                        double bytes) {
  const Task probe = scaled_per_byte(per_byte, bytes);
  const double seconds = perf.task_seconds(probe, d, 0);
  if (seconds == kCannotRun) return kCannotRun;
  return std::max(0.0, seconds - d.spec.launch_overhead_seconds) / bytes;
}

struct DeviceRates {
  double map_per_byte = 0;     // compute + host-to-device copy
  double reduce_per_byte = 0;  // compute + host-to-device copy
  double launch = 0;
  NodeId node = 0;
};

std::vector<DeviceRates> rates_of(const PerfModel& perf, const std::vector<DeviceId>& devices,
                                  const MapReduceSpec& spec) {
  const Cluster& cluster = perf.cluster();
  const double shuffled = spec.input_bytes * spec.map_output_ratio;
  std::vector<DeviceRates> out;
  for (DeviceId id : devices) {
    const Device& d = cluster.device(id);
    const double copy = 1 / cluster.node(d.node).link.bandwidth;
    DeviceRates r;
    r.map_per_byte = seconds_per_byte(perf, spec.map_per_byte, d, spec.input_bytes) + copy;
    r.reduce_per_byte =
        shuffled > 0 ? seconds_per_byte(perf, spec.reduce_per_byte, d, shuffled) + copy : 0;
    r.launch = d.spec.launch_overhead_seconds;
    r.node = d.node;
    out.push_back(r);
  }
  return out;
}

std::vector<double> equal_shares(std::size_t n, double total) {
  return std::vector<double>(n, n ? total / static_cast<double>(n) : 0.0);
}

// Shares of `total` in proportion to 1/seconds_per_unit (equal finish, no start-up).
std::vector<double> shares_by_rate(const std::vector<double>& seconds_per_unit,
                                   const std::vector<bool>& allowed, double total) {
  double sum = 0;
  for (std::size_t i = 0; i < seconds_per_unit.size(); ++i)
    if (allowed[i] && seconds_per_unit[i] > 0) sum += 1 / seconds_per_unit[i];
  std::vector<double> out(seconds_per_unit.size(), 0.0);
  if (sum <= 0) return equal_shares(seconds_per_unit.size(), total);
  for (std::size_t i = 0; i < out.size(); ++i)
    if (allowed[i] && seconds_per_unit[i] > 0) out[i] = total / seconds_per_unit[i] / sum;
  return out;
}

}  // namespace

MapReducePhases map_reduce_phases(const PerfModel& perf, const std::vector<DeviceId>& devices,
                                  const std::vector<double>& map_bytes,
                                  const std::vector<double>& reduce_share,
                                  const MapReduceSpec& spec) {
  const Cluster& cluster = perf.cluster();
  const std::vector<DeviceRates> rates = rates_of(perf, devices, spec);
  MapReducePhases out;
  const std::size_t nodes = cluster.node_count();
  std::vector<double> stored(nodes, 0.0), mapped(nodes, 0.0), produced(nodes, 0.0),
      reduced_share(nodes, 0.0), intra(nodes, 0.0);
  const double per_device_store = devices.empty() ? 0 : spec.input_bytes / devices.size();
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const NodeId n = rates[i].node;
    stored[n] += per_device_store;
    mapped[n] += map_bytes[i];
    produced[n] += map_bytes[i] * spec.map_output_ratio;
    reduced_share[n] += reduce_share[i];
    if (map_bytes[i] > 0)
      out.map_seconds =
          std::max(out.map_seconds, rates[i].launch + map_bytes[i] * rates[i].map_per_byte);
    if (reduce_share[i] > 0)
      out.reduce_seconds =
          std::max(out.reduce_seconds, rates[i].launch + reduce_share[i] * spec.input_bytes *
                                                             spec.map_output_ratio *
                                                             rates[i].reduce_per_byte);
  }
  // Within a node: output of each device for the other devices' key ranges there.
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const NodeId n = rates[i].node;
    intra[n] += map_bytes[i] * spec.map_output_ratio * (reduced_share[n] - reduce_share[i]);
  }
  const double total_output = spec.input_bytes * spec.map_output_ratio;
  const double latency = cluster.network().latency_seconds;
  for (NodeId n = 0; n < nodes; ++n) {
    const double nic = cluster.node(n).nic_bandwidth;
    const double fetch_in = std::max(0.0, mapped[n] - stored[n]);
    const double fetch_out = std::max(0.0, stored[n] - mapped[n]);
    if (fetch_in > 0 || fetch_out > 0)
      out.map_fetch_seconds =
          std::max(out.map_fetch_seconds, std::max(fetch_in, fetch_out) / nic + latency);
    const double sent = produced[n] * (1 - reduced_share[n]);
    const double received = reduced_share[n] * (total_output - produced[n]);
    if (sent > 0 || received > 0)
      out.shuffle_seconds = std::max(out.shuffle_seconds, std::max(sent, received) / nic + latency);
    if (intra[n] > 0)
      out.shuffle_seconds =
          std::max(out.shuffle_seconds, intra[n] / cluster.node(n).link.bandwidth +
                                            cluster.node(n).link.latency_seconds);
  }
  return out;
}

MapReducePlan plan_map_reduce(const PerfModel& perf, const std::vector<DeviceId>& candidates,
                              const MapReduceSpec& spec) {
  const Cluster& cluster = perf.cluster();
  MapReducePlan plan;
  if (candidates.empty()) {
    plan.message = "the device set is empty: there is nowhere to run the map-reduce job";
    return plan;
  }
  if (!(spec.input_bytes > 0)) {
    plan.message = fmt::format("the input must be more than 0 bytes, not {}", spec.input_bytes);
    return plan;
  }
  std::string excluded;
  const double shuffled = spec.input_bytes * spec.map_output_ratio;
  for (DeviceId id : candidates) {
    if (id >= cluster.device_count()) {
      excluded += fmt::format(" device {} does not exist;", id);
      continue;
    }
    const Device& d = cluster.device(id);
    if (seconds_per_byte(perf, spec.map_per_byte, d, spec.input_bytes) == kCannotRun ||
        (shuffled > 0 && seconds_per_byte(perf, spec.reduce_per_byte, d, shuffled) == kCannotRun)) {
      excluded += fmt::format(" {} cannot run the map or the reduce;", d.name);
      continue;
    }
    plan.devices.push_back(id);
  }
  if (plan.devices.empty()) {
    plan.message = "no candidate device can run both the map and the reduce:" + excluded;
    return plan;
  }
  const std::size_t n = plan.devices.size();
  const std::vector<DeviceRates> rates = rates_of(perf, plan.devices, spec);

  // Map: the equal-finish split over devices (MiB items), and the equal split.
  DataParallelSplitRequest request;
  request.total_items = spec.input_bytes / kMebibyte;
  request.min_chunk_items = std::min(spec.min_chunk_bytes, spec.input_bytes) / kMebibyte;
  for (std::size_t i = 0; i < n; ++i)
    request.devices.push_back(SplitDevice{cluster.device(plan.devices[i]).name,
                                          rates[i].map_per_byte * kMebibyte, rates[i].launch});
  const DataParallelSplit map_split = split_data_parallel(request);
  std::vector<std::vector<double>> map_options{equal_shares(n, spec.input_bytes)};
  if (map_split.feasible) {
    // The rate split, and blends of it with the equal split: moving input to the
    // fast devices costs network time the rate split alone does not see.
    for (double weight : {1.0, 0.75, 0.5, 0.25}) {
      std::vector<double> bytes(n);
      for (std::size_t i = 0; i < n; ++i)
        bytes[i] = weight * map_split.items[i] * kMebibyte +
                   (1 - weight) * spec.input_bytes / static_cast<double>(n);
      map_options.push_back(std::move(bytes));
    }
  }
  // Reduce: key ranges by rate, by rate with the network, the faster half, equal.
  std::vector<double> reduce_cost(n), reduce_network_cost(n);
  std::vector<std::size_t> per_node(cluster.node_count(), 0);
  for (const DeviceRates& r : rates) ++per_node[r.node];
  for (std::size_t i = 0; i < n; ++i) {
    reduce_cost[i] = rates[i].reduce_per_byte;
    reduce_network_cost[i] =
        rates[i].reduce_per_byte +
        static_cast<double>(per_node[rates[i].node]) / cluster.node(rates[i].node).nic_bandwidth;
  }
  const std::vector<bool> all(n, true);
  std::vector<bool> faster_half(n, false);
  {
    std::vector<std::size_t> by_rate(n);
    std::iota(by_rate.begin(), by_rate.end(), std::size_t{0});
    std::stable_sort(by_rate.begin(), by_rate.end(),
                     [&](std::size_t a, std::size_t b) { return reduce_cost[a] < reduce_cost[b]; });
    for (std::size_t k = 0; k < (n + 1) / 2; ++k) faster_half[by_rate[k]] = true;
  }
  const std::pair<const char*, std::vector<double>> reduce_options[] = {
      {"by rate", shares_by_rate(reduce_cost, all, 1.0)},
      {"by rate and network", shares_by_rate(reduce_network_cost, all, 1.0)},
      {"faster half by rate", shares_by_rate(reduce_cost, faster_half, 1.0)},
      {"equal", equal_shares(n, 1.0)}};
  bool first = true;
  for (const auto& bytes : map_options)
    for (const auto& [name, share] : reduce_options) {
      const MapReducePhases phases = map_reduce_phases(perf, plan.devices, bytes, share, spec);
      if (first || phases.total_seconds() < plan.phases.total_seconds()) {
        plan.phases = phases;
        plan.map_bytes = bytes;
        plan.reduce_share = share;
        plan.reduce_sizing = name;
        first = false;
      }
    }
  plan.equal = map_reduce_phases(perf, plan.devices, equal_shares(n, spec.input_bytes),
                                 equal_shares(n, 1.0), spec);
  plan.feasible = true;
  return plan;
}

Job map_reduce_to_job(const PerfModel& perf, const MapReducePlan& plan, const MapReduceSpec& spec,
                      NodeId data_node) {
  const Cluster& cluster = perf.cluster();
  Job job;
  job.name = spec.name;
  job.family = "bigdata";
  job.data_node = data_node;
  if (!plan.feasible) return job;
  const std::vector<DeviceRates> rates = rates_of(perf, plan.devices, spec);
  const double per_device_store = spec.input_bytes / static_cast<double>(plan.devices.size());
  std::vector<std::uint32_t> mappers, reducers;
  std::vector<double> mapper_output;
  for (std::size_t i = 0; i < plan.devices.size(); ++i) {
    if (plan.map_bytes[i] <= 0) continue;
    Task map = scaled_per_byte(spec.map_per_byte, plan.map_bytes[i]);
    map.name =
        fmt::format("{}/map{}@{}", spec.name, mappers.size(), cluster.device(plan.devices[i]).name);
    // The part beyond what the device's share of the stored blocks holds comes from
    // elsewhere over the network (here: from the data node).
    map.input_bytes = std::max(0.0, plan.map_bytes[i] - per_device_store);
    map.cost_seconds.assign(cluster.device_count(), kCannotRun);
    map.cost_seconds[plan.devices[i]] = rates[i].launch + plan.map_bytes[i] * rates[i].map_per_byte;
    mappers.push_back(static_cast<std::uint32_t>(job.tasks.size()));
    mapper_output.push_back(plan.map_bytes[i] * spec.map_output_ratio);
    job.tasks.push_back(std::move(map));
  }
  const double shuffled = spec.input_bytes * spec.map_output_ratio;
  for (std::size_t i = 0; i < plan.devices.size(); ++i) {
    if (plan.reduce_share[i] <= 0) continue;
    Task reduce = scaled_per_byte(spec.reduce_per_byte, plan.reduce_share[i] * shuffled);
    reduce.name = fmt::format("{}/reduce{}@{}", spec.name, reducers.size(),
                              cluster.device(plan.devices[i]).name);
    reduce.cost_seconds.assign(cluster.device_count(), kCannotRun);
    reduce.cost_seconds[plan.devices[i]] =
        rates[i].launch + plan.reduce_share[i] * shuffled * rates[i].reduce_per_byte;
    const auto id = static_cast<std::uint32_t>(job.tasks.size());
    for (std::size_t m = 0; m < mappers.size(); ++m)
      job.edges.push_back(Edge{mappers[m], id, mapper_output[m] * plan.reduce_share[i]});
    reducers.push_back(id);
    job.tasks.push_back(std::move(reduce));
  }
  return job;
}

}  // namespace hetsched
