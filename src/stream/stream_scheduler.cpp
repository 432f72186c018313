// The job-stream core (see stream_scheduler.hpp). Two ways of carrying a policy out:
//  - queue mode, decided at every arrival and completion: the waiting jobs are taken in
//    the policy's order and started while their gang fits (a job runs to completion on
//    the devices it got). With EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001)
//    the first job that does not fit gets a reservation, the earliest time enough
//    devices of one type will be free given the running jobs' known finish times, and
//    later jobs may start now only if they cannot delay it: they run on another type,
//    finish before the reservation, or use devices the reserved job will not need.
//  - round mode, as in Gavel's simulator: at each round boundary the policy's
//    allocation x[job][type] is recomputed if jobs arrived or finished, and the jobs
//    are taken in decreasing order of x / (share of their time in the system spent on
//    that type) and given whole rounds while devices last. A job placed on devices
//    other than last round's pays the migration (checkpoint/restart) time. With space
//    sharing, single-device jobs left out of a round may share a device with a
//    running single-device job (a greedy pairing): each guest, heaviest first, takes
//    the host where its weighted normalised gain most exceeds the host's weighted
//    loss, and both run at their measured co-located rates for the round.
//    Devices the allocation leaves idle in a round (its fractions rounded to whole
//    rounds) are backfilled: jobs left out, heaviest first by the policy's weight,
//    then least attained service, take the type where they progress most this round.
// Gangs are placed by stream/gang_placement.hpp: one node (the fullest that fits),
// then, when spreading is allowed, one rack, then the nodes with the most free
// devices. A gang spread over nodes runs at its spread rate when the job has one.
// Fractional GPUs (milli-GPU requests as in the Alibaba trace, or whole MIG-like
// slices on a type split into S slices) go to an already opened device with room for
// their units and memory (best fit: fewest units left), else open a free device on
// the fullest node; they run at their rate times their share, isolated from the other
// shares. A job asking for CPU cores gets a specific set of free cores (lowest numbers
// first) on the node of its devices, held by no one else; CPU and memory asked as
// quantities (milli-cores, MiB, as Kubernetes requests) come from that node's, and a
// CPU pod (a gang of 0) takes them alone.
// Those are the default rules (most_free_type). Best fit and fragmentation-aware (FGD)
// score every node that can hold the job, of every type it can run on, and each
// distinct way of placing it there (place_scored): the least free GPU capacity left,
// or the least growth of the node's fragmentation for the request mix.
// Without strict order, a queue-mode job that does not fit waits aside and the jobs
// behind it are tried; it is tried again only once something has been released.
//
// Cost per placement: a gang of whole devices that fits one node, O(devices per node) (each
// type's nodes are kept by their free devices); one that must spread, O(n log n) over the
// type's n nodes; a fraction or a job asking for CPU cores, O(n); best fit and FGD, O(nodes)
// plus O(devices x request classes) per distinct node state. Queue mode orders the waiting
// jobs by the policy at each decision, O(w log w) for w waiting; a job's end is O(1).
#include "hetsched/stream/stream_scheduler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/closest_names.hpp"

namespace hetsched {

const std::vector<std::string>& device_placement_names() {
  static const std::vector<std::string> names{"most-free-type", "best-fit", "fragmentation-aware"};
  return names;
}

std::optional<DevicePlacement> device_placement_named(std::string_view name) {
  const auto& names = device_placement_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) return std::nullopt;
  return static_cast<DevicePlacement>(it - names.begin());
}

StreamResources stream_resources(const StreamCluster& cluster) {
  StreamResources resources;
  resources.types = cluster.types;
  for (std::size_t k = 0; k < cluster.types.size(); ++k) {
    const StreamDeviceType& type = cluster.types[k];
    const int per_node = std::max(1, type.devices_per_node);
    int left = type.count;
    for (int index = 0; left > 0; ++index) {
      const int devices = std::min(per_node, left);
      resources.nodes.push_back(StreamNode{k, index / std::max(1, type.nodes_per_rack), devices,
                                           std::max(0, type.cpu_cores_per_node),
                                           static_cast<std::uint32_t>(resources.nodes.size()),
                                           fmt::format("{}-{}", type.model, index),
                                           type.cpu_milli_per_node, type.memory_mib_per_node});
      left -= devices;
    }
  }
  return resources;
}

StreamResources stream_resources(const Cluster& cluster) {
  StreamResources resources;
  const auto type_of = [&](const DeviceSpec& spec) {
    for (std::size_t k = 0; k < resources.types.size(); ++k)
      if (resources.types[k].model == spec.model) return k;
    StreamDeviceType type;
    type.model = spec.model;
    type.price_per_hour = spec.price_per_hour;
    type.memory_gb = spec.memory_bytes / 1e9;
    type.devices_per_node = 0;
    type.nodes_per_rack = 1;
    resources.types.push_back(type);
    return resources.types.size() - 1;
  };
  for (NodeId n = 0; n < cluster.node_count(); ++n) {
    std::vector<std::pair<std::size_t, int>> groups;  // (type, devices) in device order
    for (DeviceId d : cluster.node(n).devices) {
      const std::size_t k = type_of(cluster.device(d).spec);
      const auto group =
          std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == k; });
      if (group == groups.end())
        groups.push_back({k, 1});
      else
        ++group->second;
    }
    for (const auto& [k, devices] : groups) {
      resources.nodes.push_back(StreamNode{k, static_cast<int>(cluster.rack_index(n)), devices, 0,
                                           n, cluster.node(n).name});
      resources.types[k].count += devices;
      resources.types[k].devices_per_node = std::max(resources.types[k].devices_per_node, devices);
    }
  }
  return resources;
}

StreamScheduler::StreamScheduler(StreamResources resources, StreamPolicy& policy,
                                 StreamSchedulerOptions options,
                                 const StreamColocationTable& colocation)
    : policy_(policy), options_(options) {
  if (!options_.request_mix.empty()) {
    fragmentation_ = GpuFragmentation(options_.request_mix);
    mix_dirty_ = false;
  }
  append_resources(resources);
  build_colocation(colocation);
}

void StreamScheduler::append_resources(const StreamResources& larger) {
  for (std::size_t k = 0; k < resources_.types.size(); ++k)
    resources_.types[k].count = larger.types[k].count;
  for (std::size_t k = resources_.types.size(); k < larger.types.size(); ++k) {
    resources_.types.push_back(larger.types[k]);
    nodes_of_type_.emplace_back();
    nodes_by_free_.emplace_back();
    free_by_type_.push_back(0);
    largest_host_.push_back({0.0, 0.0});
    gang_room_.push_back(0);
  }
  for (std::size_t n = resources_.nodes.size(); n < larger.nodes.size(); ++n) {
    const StreamNode& node = larger.nodes[n];
    resources_.nodes.push_back(node);
    NodeState state;
    state.units_used.assign(static_cast<std::size_t>(node.devices), 0);
    state.memory_used.assign(static_cast<std::size_t>(node.devices), 0.0);
    state.core_busy.assign(static_cast<std::size_t>(std::max(0, node.cpu_cores)), 0);
    state.cpu_milli_left = node.cpu_milli;
    state.memory_mib_left = node.memory_mib;
    nodes_.push_back(std::move(state));
    node_fragmentation_.push_back(std::numeric_limits<double>::quiet_NaN());
    nodes_of_type_[node.type].push_back(static_cast<int>(n));
    auto& by_free = nodes_by_free_[node.type];
    if (by_free.size() <= static_cast<std::size_t>(std::max(0, node.devices)))
      by_free.resize(static_cast<std::size_t>(std::max(0, node.devices)) + 1);
    add_free(n, node.devices);
    // The most devices of one type a gang can hold: all of them when it may spread, the
    // largest node's otherwise.
    int& room = gang_room_[node.type];
    room = options_.gang_spread == GangSpread::one_node ? std::max(room, node.devices)
                                                        : room + node.devices;
    // A node whose CPU or memory is not modelled (0) holds any request.
    auto& [cpu, memory] = largest_host_[node.type];
    cpu = node.cpu_milli > 0 ? std::max(cpu, node.cpu_milli) : kUnlimited;
    memory = node.memory_mib > 0 ? std::max(memory, node.memory_mib) : kUnlimited;
  }
  ++free_epoch_;
}

StreamPolicyMode StreamScheduler::mode() const { return policy_.mode(); }

void StreamScheduler::build_colocation(const StreamColocationTable& table) {
  if (table.rates.empty()) return;
  for (const auto& [key, value] : table.rates) {
    colocation_index_.emplace(std::get<0>(key), 0);
    colocation_index_.emplace(std::get<1>(key), 0);
  }
  int next = 0;
  for (auto& [name, i] : colocation_index_) i = next++;
  colocation_types_ = colocation_index_.size();
  const std::size_t type_count = resources_.types.size();
  colocation_.assign(colocation_types_ * colocation_types_ * type_count, {0.0, 0.0});
  for (const auto& [key, value] : table.rates) {
    const auto& [a, b, device] = key;
    std::size_t k = 0;
    while (k < type_count && !equals_ignoring_case(resources_.types[k].model, device)) ++k;
    if (k == type_count) continue;
    const auto ia = static_cast<std::size_t>(colocation_index_[a]);
    const auto ib = static_cast<std::size_t>(colocation_index_[b]);
    colocation_[(ia * colocation_types_ + ib) * type_count + k] = value;
    auto& mirrored = colocation_[(ib * colocation_types_ + ia) * type_count + k];
    if (mirrored.first <= 0 && mirrored.second <= 0) mirrored = {value.second, value.first};
  }
}

const std::pair<double, double>* StreamScheduler::colocated(std::size_t host, std::size_t guest,
                                                            std::size_t type) const {
  const int a = colocation_type_[host], b = colocation_type_[guest];
  if (a < 0 || b < 0) return nullptr;
  const auto& rates =
      colocation_[(static_cast<std::size_t>(a) * colocation_types_ + static_cast<std::size_t>(b)) *
                      resources_.types.size() +
                  type];
  return rates.first > 0 && rates.second > 0 ? &rates : nullptr;
}

std::size_t StreamScheduler::jobs_present() const {
  return mode() == StreamPolicyMode::round ? active_.size() : waiting_.size() + running_.size();
}

int StreamScheduler::units_per_device(std::size_t type) const {
  return resources_.types[type].mig_slices > 0 ? resources_.types[type].mig_slices : 1000;
}

// Round budget in milli-devices that job j takes on type k.
int StreamScheduler::budget_need(std::size_t j, std::size_t type) const {
  const int units = jobs_[j].share_units[type];
  if (units == 0) return jobs_[j].job.gang_size * 1000;
  return (units * 1000 + units_per_device(type) - 1) / units_per_device(type);
}

void StreamScheduler::reject(std::size_t j, std::string reason) {
  jobs_[j].state = StreamJobState::rejected;
  jobs_[j].rejection_reason = std::move(reason);
}

std::string StreamScheduler::fit_type(std::size_t j, std::size_t k, const std::vector<int>& room) {
  StreamJobStatus& status = jobs_[j];
  const StreamJob& job = status.job;
  const StreamDeviceType& type = resources_.types[k];
  status.rate[k] = status.spread[k] = 0;
  status.share_units[k] = 0;
  status.share[k] = 1;
  for (const auto& [name, rate] : job.steps_per_second)
    if (equals_ignoring_case(type.model, name)) {
      status.rate[k] = std::max(0.0, rate);
      const auto spread = job.spread_steps_per_second.find(name);
      status.spread[k] = spread != job.spread_steps_per_second.end() && spread->second > 0
                             ? spread->second
                             : status.rate[k];
    }
  // A type too small for the gang cannot run it.
  if (status.rate[k] <= 0 || room[k] < job.gang_size) {
    status.rate[k] = status.spread[k] = 0;
    return "";
  }
  std::string why;
  if (type.memory_gb > 0 && job.gpu_memory_gb > type.memory_gb + 1e-9)
    why = fmt::format("a {} has {:g} GB of memory, it needs {:g} GB", type.model, type.memory_gb,
                      job.gpu_memory_gb);
  else if (job.cpu_cores > 0 && type.cpu_cores_per_node > 0 &&
           job.cpu_cores > type.cpu_cores_per_node)
    why = fmt::format("a {} node has {} CPU cores, it asks for {}", type.model,
                      type.cpu_cores_per_node, job.cpu_cores);
  else if ((job.cpu_cores > 0 || job.asks_host()) && job.gang_size > type.devices_per_node)
    why = fmt::format(
        "what it asks of a node must sit on the node of its devices, and a {} node has {} "
        "devices, it asks for {}",
        type.model, type.devices_per_node, job.gang_size);
  else if (const auto [cpu, memory] = largest_host_[k]; job.cpu_milli > cpu)
    why = fmt::format("the largest {} node has {:g} milli-CPU, it asks for {:g}", type.model, cpu,
                      job.cpu_milli);
  else if (job.memory_mib > memory)
    why = fmt::format("the largest {} node has {:g} MiB of memory, it asks for {:g}", type.model,
                      memory, job.memory_mib);
  if (!why.empty()) {
    status.rate[k] = status.spread[k] = 0;
    return why;
  }
  if (job.gpu_milli > 0 && job.gpu_milli < 1000) {  // a fraction of one device
    int units = job.gpu_milli;
    if (type.mig_slices > 0) {
      // Whole slices covering its compute share and, each slice carrying 1/S of the
      // device's memory, its memory.
      const int slices = type.mig_slices;
      units = static_cast<int>(std::ceil(job.gpu_milli * slices / 1000.0 - 1e-9));
      if (type.memory_gb > 0 && job.gpu_memory_gb > 0)
        units = std::max(
            units,
            static_cast<int>(std::ceil(job.gpu_memory_gb / (type.memory_gb / slices) - 1e-9)));
      units = std::clamp(units, 1, slices);
    }
    status.share_units[k] = units;
    status.share[k] = static_cast<double>(units) / units_per_device(k);
    status.rate[k] *= status.share[k];
    status.spread[k] *= status.share[k];
  }
  return "";
}

std::size_t StreamScheduler::submit(const StreamJob& stream_job, double arrival_seconds) {
  const std::size_t j = jobs_.size();
  jobs_.emplace_back();
  colocation_type_.push_back(-1);
  last_round_.emplace_back();
  unfit_epoch_.push_back(std::numeric_limits<std::uint64_t>::max());
  StreamJobStatus& status = jobs_[j];
  status.job = stream_job;
  status.arrival_seconds = arrival_seconds;
  const StreamJob& job = status.job;
  const auto& types = resources_.types;
  const std::size_t type_count = types.size();
  status.rate.assign(type_count, 0.0);
  status.spread.assign(type_count, 0.0);
  status.received.assign(type_count, 0.0);
  status.share_units.assign(type_count, 0);
  status.share.assign(type_count, 1.0);
  const auto rated = [&](std::size_t k) {
    return std::any_of(job.steps_per_second.begin(), job.steps_per_second.end(),
                       [&](const auto& r) {
                         return r.second > 0 && equals_ignoring_case(types[k].model, r.first);
                       });
  };
  for (const auto& [name, rate] : job.steps_per_second) {
    const bool here = std::any_of(types.begin(), types.end(), [&](const StreamDeviceType& t) {
      return equals_ignoring_case(t.model, name);
    });
    if (!here && !find_catalog_part(name)) {
      // A real part this cluster does not have is simply unused; a name no catalog knows
      // is a mistake.
      std::vector<std::string> valid;
      for (const auto& type : types) valid.push_back(type.model);
      reject(j, unknown_name_message("device type", name, valid));
      return j;
    }
  }
  if (job.cpu_milli < 0 || job.memory_mib < 0)
    return reject(j, "cpu_milli and memory_mib must not be negative"), j;
  if (job.gang_size < 0 || (job.gang_size == 0 && !job.asks_host()))
    return reject(j,
                  "gang size must be at least 1 (0 only for a job that asks for CPU or "
                  "memory alone)"),
           j;
  if (job.total_steps <= 0) return reject(j, "total steps must be positive"), j;
  const std::vector<int>& room = gang_room();
  int largest = 0;
  std::string largest_name;
  for (std::size_t k = 0; k < type_count; ++k)
    if (rated(k) && room[k] > largest) {
      largest = room[k];
      largest_name = types[k].model;
    }
  if (largest == 0)
    return reject(j, "no device type in the cluster can run it (it has rates for none of them)"), j;
  if (job.gang_size > largest)
    return reject(j, fmt::format(
                         "asks for {} devices at once; the largest {} that can run it "
                         "({}) has {}",
                         job.gang_size,
                         options_.gang_spread == GangSpread::one_node ? "node of a type" : "type",
                         largest_name, largest)),
           j;
  if (job.gpu_milli < 0 || job.gpu_milli > 1000)
    return reject(j, fmt::format("gpu_milli must be between 0 and 1000 (thousandths of one "
                                 "device), not {}",
                                 job.gpu_milli)),
           j;
  const bool fractional = job.gpu_milli > 0 && job.gpu_milli < 1000;
  if (fractional && job.gang_size != 1)
    return reject(j, fmt::format("a fractional GPU request (gpu_milli {}) is a share of one "
                                 "device; it cannot have a gang of {}",
                                 job.gpu_milli, job.gang_size)),
           j;
  if (job.gpu_memory_gb < 0) return reject(j, "gpu_memory_gb must not be negative"), j;
  if (job.cpu_cores < 0) return reject(j, "cpu_cores must not be negative"), j;
  std::string unfit;
  for (std::size_t k = 0; k < type_count; ++k)
    if (const std::string why = fit_type(j, k, room); !why.empty())
      unfit += (unfit.empty() ? "" : "; ") + why;
  if (std::all_of(status.rate.begin(), status.rate.end(), [](double r) { return r <= 0; }))
    return reject(j, "no device type of the cluster can hold it: " + unfit), j;
  status.plain = !fractional && job.cpu_cores == 0 && !job.asks_host();
  if (job.gang_size > 0 && options_.device_placement == DevicePlacement::fragmentation_aware &&
      options_.request_mix.empty()) {
    request_counts_[{job.gang_size, fractional ? job.gpu_milli : 1000}] += 1;
    mix_dirty_ = true;
  }
  status.best_rate = *std::max_element(status.rate.begin(), status.rate.end());
  status.remaining = job.total_steps;
  const auto user = std::find(users_.begin(), users_.end(), job.user);
  status.user = static_cast<std::size_t>(user - users_.begin());
  if (user == users_.end()) {
    users_.push_back(job.user);
    user_devices_.push_back(0);
  }
  if (const auto it = colocation_index_.find(job.job_type);
      job.gang_size == 1 && status.plain && it != colocation_index_.end())
    colocation_type_[j] = it->second;
  status.state = StreamJobState::waiting;
  if (mode() == StreamPolicyMode::round) {
    active_.push_back(j);
    allocation_dirty_ = true;
  } else {
    waiting_.push_back(j);
  }
  return j;
}

void StreamScheduler::grow(const StreamResources& larger) {
  append_resources(larger);
  // Jobs present may now fit more types (new ones, or old ones with larger nodes).
  const std::vector<int>& room = gang_room();
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    StreamJobStatus& job = jobs_[j];
    if (job.state == StreamJobState::rejected || job.state == StreamJobState::finished) continue;
    job.rate.resize(resources_.types.size(), 0.0);
    job.spread.resize(resources_.types.size(), 0.0);
    job.received.resize(resources_.types.size(), 0.0);
    job.share_units.resize(resources_.types.size(), 0);
    job.share.resize(resources_.types.size(), 1.0);
    for (std::size_t k = 0; k < resources_.types.size(); ++k) fit_type(j, k, room);
    job.best_rate = *std::max_element(job.rate.begin(), job.rate.end());
  }
  allocation_dirty_ = true;
}

// One node if any holds the gang: the fullest that does (the fewest free devices, then the
// first), from the type's nodes by free devices, O(devices per node); else, when gangs may
// spread, place_gang over the type's nodes, O(nodes log nodes).
std::optional<GangPlacement> StreamScheduler::place_whole(std::size_t type, int gang) const {
  if (gang <= 0 || free_by_type_[type] < gang) return std::nullopt;
  const std::vector<std::set<int>>& by_free = nodes_by_free_[type];
  for (auto free = static_cast<std::size_t>(gang); free < by_free.size(); ++free)
    if (!by_free[free].empty()) return GangPlacement{{*by_free[free].begin(), gang}};
  if (options_.gang_spread == GangSpread::one_node) return std::nullopt;
  rooms_.clear();
  for (int node : nodes_of_type_[type])
    rooms_.push_back(GangNodeRoom{node, resources_.nodes[static_cast<std::size_t>(node)].rack,
                                  nodes_[static_cast<std::size_t>(node)].free});
  return place_gang(rooms_, gang, options_.gang_spread);
}

void StreamScheduler::set_unavailable(std::size_t node, int devices) {
  NodeState& state = nodes_[node];
  const int change = devices - state.unavailable;
  state.unavailable = devices;
  add_free(node, -change);
  touched(node);
  if (change < 0) ++free_epoch_;
}

void StreamScheduler::touched(std::size_t node) {
  node_fragmentation_[node] = std::numeric_limits<double>::quiet_NaN();
}

void StreamScheduler::add_free(std::size_t node, int devices) {
  NodeState& state = nodes_[node];
  const std::size_t type = resources_.nodes[node].type;
  std::vector<std::set<int>>& by_free = nodes_by_free_[type];
  const auto bucket = [&](int free) {
    return static_cast<std::size_t>(std::clamp(free, 0, static_cast<int>(by_free.size()) - 1));
  };
  by_free[bucket(state.free)].erase(static_cast<int>(node));
  state.free += devices;
  free_by_type_[type] += devices;
  by_free[bucket(state.free)].insert(static_cast<int>(node));
}

void StreamScheduler::reset_nodes() {
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    NodeState& node = nodes_[n];
    add_free(n, resources_.nodes[n].devices - node.unavailable - node.free);
    std::fill(node.units_used.begin(), node.units_used.end(), 0);
    std::fill(node.memory_used.begin(), node.memory_used.end(), 0.0);
    std::fill(node.core_busy.begin(), node.core_busy.end(), 0);
    node.cpu_milli_left = resources_.nodes[n].cpu_milli;
    node.memory_mib_left = resources_.nodes[n].memory_mib;
    touched(n);
  }
  ++free_epoch_;
}

bool StreamScheduler::host_fits(std::size_t j, std::size_t n) const {
  // A node whose CPU or memory is not modelled (0) holds any request.
  const StreamJob& job = jobs_[j].job;
  const NodeState& node = nodes_[n];
  return (job.cpu_milli <= 0 || resources_.nodes[n].cpu_milli <= 0 ||
          node.cpu_milli_left >= job.cpu_milli) &&
         (job.memory_mib <= 0 || resources_.nodes[n].memory_mib <= 0 ||
          node.memory_mib_left >= job.memory_mib);
}

int StreamScheduler::node_free_total(std::size_t n) const {
  const NodeState& node = nodes_[n];
  const int total = units_per_device(resources_.nodes[n].type);
  int free = std::max(0, node.free) * 1000;
  for (int used : node.units_used)
    if (used > 0) free += (total - used) * 1000 / total;
  return free;
}

void StreamScheduler::node_free_milli(std::size_t n, std::vector<int>& free) const {
  const NodeState& node = nodes_[n];
  const int total = units_per_device(resources_.nodes[n].type);
  free.assign(static_cast<std::size_t>(std::max(0, node.free)), 1000);
  for (int used : node.units_used)
    if (used > 0) free.push_back((total - used) * 1000 / total);
}

const GpuFragmentation& StreamScheduler::fragmentation() const {
  if (mix_dirty_) {
    fragmentation_ = GpuFragmentation::of_counts(request_counts_);
    mix_dirty_ = false;
    std::fill(node_fragmentation_.begin(), node_fragmentation_.end(),
              std::numeric_limits<double>::quiet_NaN());
  }
  return fragmentation_;
}

GpuCapacity StreamScheduler::gpu_capacity() const {
  const GpuFragmentation& measure = fragmentation();
  GpuCapacity capacity;
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    capacity.free_milli += node_free_total(n);
    if (std::isnan(node_fragmentation_[n])) {  // measured again only when the node changed
      node_free_milli(n, free_scratch_);
      node_fragmentation_[n] = measure(free_scratch_);
    }
    capacity.fragmented_milli += node_fragmentation_[n];
  }
  return capacity;
}

// best_fit and fragmentation_aware: every node that can hold the job on its own is
// scored, each of its distinct ways too (a fraction: one per level of free capacity
// among its devices with room; whole devices: any of its free ones), and the lowest
// score wins; within a node, the way on the device with the least free; between nodes,
// the node with the least free GPU capacity, then the least free CPU, then the first.
// Nodes in the same state score the same, so each state is scored once per call.
// Cost: O(nodes) per call, plus O(devices x request classes) per distinct node state.
std::optional<StreamScheduler::ScoredPlacement> StreamScheduler::place_scored(
    std::size_t j, int only_type, std::span<const int> type_free) const {
  const StreamJobStatus& job = jobs_[j];
  const bool aware = options_.device_placement == DevicePlacement::fragmentation_aware;
  const GpuFragmentation* measure = aware ? &fragmentation() : nullptr;
  const int gang = job.job.gang_size;
  const int cores = job.job.cpu_cores;
  const double memory = job.job.gpu_memory_gb;
  struct Way {
    double score = 0;
    int level = -1;  // a fraction: free units of the device it goes on
  };
  std::unordered_map<std::string, Way> scored;  // by (type, node state)
  std::string key;
  std::vector<int> before, after;
  std::optional<ScoredPlacement> best;
  const auto consider = [&](std::size_t n) {
    const std::size_t type = resources_.nodes[n].type;
    if (job.rate[type] <= 0 || (!type_free.empty() && type_free[type] < 0)) return;
    const NodeState& node = nodes_[n];
    const int units = job.share_units[type];
    const int total = units_per_device(type);
    const double device_memory = resources_.types[type].memory_gb;
    if (units == 0 && node.free < gang) return;
    if (!host_fits(j, n)) return;
    if (cores > 0 && !node.core_busy.empty() &&
        std::count(node.core_busy.begin(), node.core_busy.end(), 0) < cores)
      return;
    const auto has_room = [&](std::size_t d) {
      return node.units_used[d] + units <= total &&
             (device_memory <= 0 || node.memory_used[d] + memory <= device_memory + 1e-9);
    };
    key.assign(reinterpret_cast<const char*>(&type), sizeof type);
    key.append(reinterpret_cast<const char*>(&node.free), sizeof node.free);
    for (std::size_t d = 0; d < node.units_used.size(); ++d)
      if (node.units_used[d] > 0) {
        key.append(reinterpret_cast<const char*>(&node.units_used[d]), sizeof(int));
        if (device_memory > 0)
          key.append(reinterpret_cast<const char*>(&node.memory_used[d]), sizeof(double));
      }
    auto it = scored.find(key);
    if (it == scored.end()) {
      node_free_milli(n, before);
      const double before_measure = measure ? measure->operator()(before) : 0;
      const auto score_of = [&](const std::vector<int>& free) {
        if (measure) return measure->operator()(free) - before_measure;
        double left = 0;
        for (int f : free) left += f;
        return left;
      };
      Way way;
      if (units == 0) {
        after = before;  // fully free devices come first
        std::fill_n(after.begin(), gang, 0);
        way.score = score_of(after);
      } else {
        // One way per level of free units: a free device (level total), or an opened one.
        std::vector<int> levels;
        if (node.free >= 1 && (device_memory <= 0 || memory <= device_memory + 1e-9))
          levels.push_back(total);
        for (std::size_t d = 0; d < node.units_used.size(); ++d)
          if (node.units_used[d] > 0 && has_room(d) &&
              std::find(levels.begin(), levels.end(), total - node.units_used[d]) == levels.end())
            levels.push_back(total - node.units_used[d]);
        for (int level : levels) {
          after = before;
          const int level_milli = level * 1000 / total;
          *std::find(after.begin(), after.end(), level_milli) -= units * 1000 / total;
          const double score = score_of(after);
          if (way.level < 0 || score < way.score - 1e-9 ||
              (std::abs(score - way.score) <= 1e-9 && level < way.level)) {
            way.score = score;
            way.level = level;
          }
        }
        if (way.level < 0) return;
      }
      it = scored.emplace(key, way).first;
    }
    const Way& way = it->second;
    const double cpu_left = resources_.nodes[n].cpu_milli > 0 ? node.cpu_milli_left : 0;
    const double tie = node_free_total(n) * 1e6 + cpu_left;
    if (best && !(way.score < best->score - 1e-9 ||
                  (std::abs(way.score - best->score) <= 1e-9 && tie < best->tie)))
      return;
    StreamPlacement placement{type, {{static_cast<int>(n), units > 0 ? 0 : gang}}, -1, {}};
    if (units > 0) {
      // The device: a free one (the first slot not opened), or the first opened at the level.
      for (std::size_t d = 0; d < node.units_used.size() && placement.shared_device < 0; ++d)
        if (way.level == total
                ? node.units_used[d] == 0
                : node.units_used[d] > 0 && total - node.units_used[d] == way.level && has_room(d))
          placement.shared_device = static_cast<int>(d);
    }
    for (std::size_t c = 0;
         c < node.core_busy.size() && static_cast<int>(placement.cores.size()) < cores; ++c)
      if (!node.core_busy[c]) placement.cores.push_back(static_cast<int>(c));
    best = ScoredPlacement{std::move(placement), way.score, tie};
  };
  if (only_type >= 0) {
    for (int n : nodes_of_type_[static_cast<std::size_t>(only_type)])
      consider(static_cast<std::size_t>(n));
  } else {
    for (std::size_t n = 0; n < nodes_.size(); ++n) consider(n);
  }
  return best;
}

std::optional<StreamPlacement> StreamScheduler::place_job(std::size_t j, std::size_t type) const {
  const StreamJobStatus& job = jobs_[j];
  const int gang = job.job.gang_size;
  if (options_.device_placement != DevicePlacement::most_free_type) {
    if (auto scored = place_scored(j, static_cast<int>(type), {}))
      return std::move(scored->placement);
    if (!job.plain || options_.gang_spread == GangSpread::one_node) return std::nullopt;
  }
  if (job.plain) {
    auto nodes = place_whole(type, gang);
    if (!nodes) return std::nullopt;
    return StreamPlacement{type, std::move(*nodes), -1, {}};
  }
  const int cores = job.job.cpu_cores;
  const auto free_cores = [&](const NodeState& node) {
    return node.core_busy.empty()
               ? std::numeric_limits<int>::max()
               : static_cast<int>(std::count(node.core_busy.begin(), node.core_busy.end(), 0));
  };
  const int units = job.share_units[type];
  const double memory = job.job.gpu_memory_gb;
  const double device_memory = resources_.types[type].memory_gb;
  const int total = units_per_device(type);
  int best_node = -1, best_device = -1, best_left = 0;
  const auto free_of = [&](int n) { return nodes_[static_cast<std::size_t>(n)].free; };
  for (int n : nodes_of_type_[type]) {
    const NodeState& node = nodes_[static_cast<std::size_t>(n)];
    if (cores > 0 && free_cores(node) < cores) continue;
    if (!host_fits(j, static_cast<std::size_t>(n))) continue;
    if (units == 0) {
      // Whole devices on this node (a job with cores keeps its gang in one node).
      if (node.free < gang) continue;
      if (best_node < 0 || node.free < free_of(best_node)) best_node = n;
      continue;
    }
    // A fraction: an opened device with room (best fit: fewest units left), else a
    // device of the fullest node that has a free one.
    for (std::size_t d = 0; d < node.units_used.size(); ++d) {
      if (node.units_used[d] == 0) continue;
      if (node.units_used[d] + units > total) continue;
      if (device_memory > 0 && node.memory_used[d] + memory > device_memory + 1e-9) continue;
      const int left = total - node.units_used[d] - units;
      if (best_device < 0 || left < best_left) {
        best_node = n;
        best_device = static_cast<int>(d);
        best_left = left;
      }
    }
  }
  if (units > 0 && best_node < 0) {
    // No opened device fits: open one on the fullest node with a free device.
    for (int n : nodes_of_type_[type]) {
      const NodeState& node = nodes_[static_cast<std::size_t>(n)];
      if (node.free < 1 || (cores > 0 && free_cores(node) < cores) ||
          !host_fits(j, static_cast<std::size_t>(n)))
        continue;
      if (best_node < 0 || node.free < free_of(best_node)) best_node = n;
    }
    if (best_node >= 0) {
      const auto& used = nodes_[static_cast<std::size_t>(best_node)].units_used;
      best_device = static_cast<int>(std::find(used.begin(), used.end(), 0) - used.begin());
    }
  }
  if (best_node < 0) return std::nullopt;
  StreamPlacement placement{
      type, {{best_node, units > 0 ? 0 : gang}}, units > 0 ? best_device : -1, {}};
  const NodeState& node = nodes_[static_cast<std::size_t>(best_node)];
  for (std::size_t c = 0;
       c < node.core_busy.size() && static_cast<int>(placement.cores.size()) < cores; ++c)
    if (!node.core_busy[c]) placement.cores.push_back(static_cast<int>(c));
  return placement;
}

void StreamScheduler::take(std::size_t j, const StreamPlacement& placement, int sign) {
  if (sign < 0) ++free_epoch_;
  for (const auto& [node, count] : placement.nodes) {
    add_free(static_cast<std::size_t>(node), -sign * count);
    touched(static_cast<std::size_t>(node));
  }
  if (placement.nodes.empty()) return;
  const auto host = static_cast<std::size_t>(placement.nodes.front().first);
  NodeState& node = nodes_[host];
  node.cpu_milli_left -= sign * jobs_[j].job.cpu_milli;
  node.memory_mib_left -= sign * jobs_[j].job.memory_mib;
  if (placement.shared_device >= 0) {
    const auto d = static_cast<std::size_t>(placement.shared_device);
    const bool was_open = node.units_used[d] > 0;
    node.units_used[d] += sign * jobs_[j].share_units[placement.type];
    node.memory_used[d] += sign * jobs_[j].job.gpu_memory_gb;
    const bool open = node.units_used[d] > 0;
    add_free(host, (was_open ? 1 : 0) - (open ? 1 : 0));
  }
  for (int c : placement.cores) node.core_busy[static_cast<std::size_t>(c)] = sign > 0 ? 1 : 0;
}

bool StreamScheduler::can_retake(std::size_t j, const StreamPlacement& placement) const {
  if (jobs_[j].plain) {
    for (const auto& [node, count] : placement.nodes)
      if (nodes_[static_cast<std::size_t>(node)].free < count) return false;
    return !placement.nodes.empty();
  }
  if (placement.nodes.size() != 1) return false;
  const NodeState& node = nodes_[static_cast<std::size_t>(placement.nodes.front().first)];
  if (!host_fits(j, static_cast<std::size_t>(placement.nodes.front().first))) return false;
  for (int c : placement.cores)
    if (node.core_busy[static_cast<std::size_t>(c)]) return false;
  if (placement.shared_device < 0) return node.free >= placement.nodes.front().second;
  const auto d = static_cast<std::size_t>(placement.shared_device);
  if (node.units_used[d] == 0) return node.free >= 1;
  const double device_memory = resources_.types[placement.type].memory_gb;
  return node.units_used[d] + jobs_[j].share_units[placement.type] <=
             units_per_device(placement.type) &&
         (device_memory <= 0 ||
          node.memory_used[d] + jobs_[j].job.gpu_memory_gb <= device_memory + 1e-9);
}

double StreamScheduler::rate_on(std::size_t j, std::size_t type, const GangPlacement& nodes) const {
  return nodes.size() > 1 ? jobs_[j].spread[type] : jobs_[j].rate[type];
}

StreamJobView StreamScheduler::view(std::size_t j) const {
  const StreamJobStatus& job = jobs_[j];
  return StreamJobView{j,
                       &job.rate,
                       job.job.gang_size,
                       job.job.priority_weight,
                       job.arrival_seconds,
                       job.job.total_steps,
                       job.remaining,
                       job.job.deadline_seconds ? *job.job.deadline_seconds : -1.0,
                       job.attained,
                       job.user};
}

StreamPolicyContext StreamScheduler::context(double now) const {
  StreamPolicyContext context;
  context.now = now;
  for (const auto& type : resources_.types) {
    context.capacity.push_back(type.count);
    context.price_per_hour.push_back(type.price_per_hour);
  }
  context.user_running_devices = user_devices_;
  return context;
}

void StreamScheduler::account(std::size_t j, std::size_t type, double seconds,
                              double device_share) {
  jobs_[j].received[type] += seconds;
  jobs_[j].attained += seconds * jobs_[j].job.gang_size * device_share;
}

StreamScheduler::TypeChoice StreamScheduler::agnostic_type_with_room(
    std::size_t j, const std::vector<int>& free) const {
  // The scored rules choose the node among every type at once.
  if (options_.device_placement != DevicePlacement::most_free_type) {
    if (auto scored = place_scored(j, -1, free))
      return {static_cast<int>(scored->placement.type), std::move(scored->placement)};
    if (!jobs_[j].plain || options_.gang_spread == GangSpread::one_node) return {};
  }
  // Heterogeneity-agnostic: the type with the most free devices that fits the gang.
  // A job that is not plain (a fraction, CPU cores) is tried on the real state; a
  // type marked -1 in `free` is excluded.
  TypeChoice chosen;
  for (std::size_t k = 0; k < free.size(); ++k) {
    if (jobs_[j].rate[k] <= 0 ||
        (chosen.type >= 0 && free[k] <= free[static_cast<std::size_t>(chosen.type)]))
      continue;
    // Enough free devices of a type hold a plain gang when it may spread; packed, or
    // not plain, it is tried on the real state.
    if (jobs_[j].plain && options_.gang_spread != GangSpread::one_node) {
      if (free[k] >= jobs_[j].job.gang_size) chosen = {static_cast<int>(k), std::nullopt};
    } else if (free[k] >= 0) {
      if (auto placement = place_job(j, k)) chosen = {static_cast<int>(k), std::move(placement)};
    }
  }
  return chosen;
}

StreamStart StreamScheduler::start_now(std::size_t j, const TypeChoice& choice, double now) {
  StreamJobStatus& job = jobs_[j];
  const auto type = static_cast<std::size_t>(choice.type);
  job.placement = choice.placement ? *choice.placement : *place_job(j, type);
  job.type = static_cast<int>(type);
  take(j, job.placement, +1);
  job.state = StreamJobState::running;
  job.ran_before = true;
  const double rate = rate_on(j, type, job.placement.nodes);
  const double seconds = job.remaining / rate;
  job.finish_seconds = now + seconds;
  job.run_start = now;
  user_devices_[job.user] += job.job.gang_size;
  add_running(j);
  return StreamStart{j, job.placement, rate, seconds, job.finish_seconds};
}

std::vector<StreamStart> StreamScheduler::schedule(double now) {
  std::vector<StreamStart> starts;
  if (waiting_.empty()) return starts;
  std::vector<StreamJobView> views;
  views.reserve(waiting_.size());
  for (std::size_t j : waiting_) views.push_back(view(j));
  std::vector<std::size_t> order;
  for (std::size_t position : policy_.queue_order(views, context(now)))
    order.push_back(waiting_[position]);
  std::vector<std::size_t> still_waiting;
  bool blocked = false;
  int reserved_type = -1;
  double shadow_time = 0;
  int extra_devices = 0;
  for (const std::size_t j : order) {
    const int gang = jobs_[j].job.gang_size;
    if (!options_.strict_order) {
      // Nothing was released since it last did not fit: it still does not.
      const TypeChoice choice =
          unfit_epoch_[j] == free_epoch_ ? TypeChoice{} : agnostic_type_with_room(j, free_by_type_);
      if (choice.type >= 0) {
        starts.push_back(start_now(j, choice, now));
      } else {
        unfit_epoch_[j] = free_epoch_;
        still_waiting.push_back(j);
      }
      continue;
    }
    if (!blocked) {
      const TypeChoice choice = agnostic_type_with_room(j, free_by_type_);
      if (choice.type >= 0) {
        starts.push_back(start_now(j, choice, now));
        continue;
      }
      blocked = true;
      still_waiting.push_back(j);
      if (!options_.easy_backfilling) continue;
      // Reservation for the blocked head: the earliest time one type frees enough.
      for (std::size_t k = 0; k < free_by_type_.size(); ++k) {
        if (jobs_[j].rate[k] <= 0) continue;
        std::vector<std::pair<double, int>> releases;
        for (std::size_t r : running_)
          if (jobs_[r].type == static_cast<int>(k))
            releases.push_back({jobs_[r].finish_seconds, jobs_[r].job.gang_size});
        std::sort(releases.begin(), releases.end());
        int free = free_by_type_[k];
        double when = now;
        for (const auto& [time, devices] : releases) {
          if (free >= gang) break;
          free += devices;
          when = time;
        }
        if (free < gang) continue;
        if (reserved_type < 0 || when < shadow_time ||
            (when == shadow_time && free - gang > extra_devices)) {
          reserved_type = static_cast<int>(k);
          shadow_time = when;
          extra_devices = free - gang;
        }
      }
      if (reserved_type >= 0 && jobs_[j].reserved_start_seconds < 0)
        jobs_[j].reserved_start_seconds = shadow_time;
      continue;
    }
    if (!options_.easy_backfilling || reserved_type < 0) {
      still_waiting.push_back(j);
      continue;
    }
    // Backfill: a type with room now where starting cannot delay the reservation.
    TypeChoice chosen;
    bool uses_extra = false;
    std::vector<int> candidates_free = free_by_type_;
    while (true) {
      TypeChoice choice = agnostic_type_with_room(j, candidates_free);
      const int type = choice.type;
      if (type < 0) break;
      if (type != reserved_type) {
        chosen = std::move(choice);
        break;
      }
      const double slowest = std::min(jobs_[j].rate[static_cast<std::size_t>(type)],
                                      jobs_[j].spread[static_cast<std::size_t>(type)]);
      if (now + jobs_[j].remaining / slowest <= shadow_time) {
        chosen = std::move(choice);
        break;
      }
      if (gang <= extra_devices) {
        chosen = std::move(choice);
        uses_extra = true;
        break;
      }
      candidates_free[static_cast<std::size_t>(type)] = -1;  // try the next type
    }
    if (chosen.type < 0) {
      still_waiting.push_back(j);
      continue;
    }
    if (uses_extra) extra_devices -= gang;
    starts.push_back(start_now(j, chosen, now));
  }
  waiting_ = std::move(still_waiting);
  return starts;
}

void StreamScheduler::stop_running(std::size_t j, double now) {
  StreamJobStatus& job = jobs_[j];
  take(j, job.placement, -1);
  const auto type = static_cast<std::size_t>(job.type);
  account(j, type, now - job.run_start, job.share[type]);
  user_devices_[job.user] -= job.job.gang_size;
  // Its place goes to the last one (the order of running_ is never read).
  const std::size_t at = running_position_[j];
  running_[at] = running_.back();
  running_position_[running_[at]] = at;
  running_.pop_back();
}

void StreamScheduler::add_running(std::size_t j) {
  running_position_.resize(jobs_.size());
  running_position_[j] = running_.size();
  running_.push_back(j);
}

void StreamScheduler::finish(std::size_t j, double now) {
  StreamJobStatus& job = jobs_[j];
  if (job.state != StreamJobState::running) return;
  stop_running(j, now);
  job.state = StreamJobState::finished;
  job.remaining = 0;
}

void StreamScheduler::requeue(std::size_t j, double now) {
  StreamJobStatus& job = jobs_[j];
  if (mode() == StreamPolicyMode::round) {
    // Undo the last round it was given, if that is the round now running.
    const RoundCredit& credit = last_round_[j];
    if (credit.round != rounds_ || job.placement.nodes.empty()) return;
    job.remaining += credit.steps;
    job.received[credit.type] -= credit.seconds;
    job.attained -= credit.seconds * job.job.gang_size * credit.device_share;
    job.placement = {};
    if (job.state == StreamJobState::finished) active_.push_back(j);
    job.state = StreamJobState::waiting;
    allocation_dirty_ = true;
    return;
  }
  if (job.state != StreamJobState::running) return;
  stop_running(j, now);
  job.placement = {};
  job.state = StreamJobState::waiting;
  waiting_.push_back(j);
}

void StreamScheduler::withdraw(std::size_t j, double now) {
  StreamJobStatus& job = jobs_[j];
  if (job.state == StreamJobState::rejected || job.state == StreamJobState::finished) return;
  if (mode() == StreamPolicyMode::queue) {
    if (job.state == StreamJobState::running) requeue(j, now);
    std::erase(waiting_, j);
  } else {
    // Round mode: devices are handed out afresh each round.
    std::erase(active_, j);
    allocation_dirty_ = true;
  }
  job.placement = {};
  job.state = StreamJobState::finished;
}

bool StreamScheduler::adopt(std::size_t j, const StreamPlacement& placement, double started_seconds,
                            double now) {
  StreamJobStatus& job = jobs_[j];
  if (job.state != StreamJobState::waiting || !can_retake(j, placement)) return false;
  const std::size_t type = placement.type;
  if (job.rate[type] <= 0) return false;
  job.placement = placement;
  job.type = static_cast<int>(type);
  take(j, placement, +1);
  job.state = StreamJobState::running;
  job.ran_before = true;
  job.run_start = started_seconds;
  job.finish_seconds =
      std::max(now, started_seconds + job.remaining / rate_on(j, type, placement.nodes));
  user_devices_[job.user] += job.job.gang_size;
  std::erase(waiting_, j);
  add_running(j);
  return true;
}

std::vector<StreamSegment> StreamScheduler::run_round(double now) {
  ++rounds_;
  // What the policy sees: each user's devices as last round left them.
  const StreamPolicyContext ctx = context(now);
  // Release every device; continuing jobs re-take theirs first below.
  reset_nodes();
  std::fill(user_devices_.begin(), user_devices_.end(), 0.0);
  refresh_allocation(ctx);
  RoundPlan plan = choose_round_jobs(now);
  place_round_jobs(plan);
  if (options_.space_sharing && !colocation_.empty()) add_colocated_guests(plan);
  std::vector<StreamSegment> segments = run_round_jobs(plan, now);
  // Jobs not chosen lose their devices (they are preempted).
  for (std::size_t j : active_)
    if (plan.chosen_type[j] < 0) {
      jobs_[j].placement = {};
      jobs_[j].state = StreamJobState::waiting;
    }
  std::erase_if(active_, [&](std::size_t j) { return jobs_[j].state == StreamJobState::finished; });
  return segments;
}

// The policy's allocation: recomputed when the jobs changed or the policy asks every round.
void StreamScheduler::refresh_allocation(const StreamPolicyContext& ctx) {
  if (!allocation_dirty_ && !policy_.reallocate_every_round()) return;
  std::vector<StreamJobView> views;
  views.reserve(active_.size());
  for (std::size_t j : active_) views.push_back(view(j));
  allocation_ = policy_.allocate(views, ctx);
  allocation_jobs_ = active_;
  allocation_dirty_ = false;
  ++allocations_;
  if (allocation_.fell_back) {
    ++fallbacks_;
    if (first_fallback_note_.empty())
      first_fallback_note_ = "t=" + std::to_string(ctx.now) + " s: " + allocation_.note;
  }
}

// Which jobs run this round on which type: those that may not be preempted keep their
// devices, then the allocation's (job, type) pairs by priority while the type's budget
// lasts, then idle devices are backfilled.
StreamScheduler::RoundPlan StreamScheduler::choose_round_jobs(double now) {
  const double round = options_.round_seconds;
  const std::size_t type_count = resources_.types.size();
  // Priorities: allocation over the share of its time in the system spent on a type.
  struct Candidate {
    double priority;
    double fraction;
    std::size_t job;
    std::size_t type;
  };
  std::vector<Candidate> candidates;
  for (std::size_t i = 0; i < allocation_jobs_.size(); ++i) {
    const std::size_t j = allocation_jobs_[i];
    if (jobs_[j].state != StreamJobState::waiting && jobs_[j].state != StreamJobState::running)
      continue;
    const double in_system = std::max(now - jobs_[j].arrival_seconds, round);
    for (std::size_t k = 0; k < type_count; ++k) {
      const double x = allocation_.fraction[i][k];
      if (x <= 1e-9) continue;
      const double share = jobs_[j].received[k] / in_system;
      double priority = x / (share + 1e-6);
      // Hysteresis: staying where it ran last round avoids a checkpoint/restart.
      if (!jobs_[j].placement.nodes.empty() && jobs_[j].type == static_cast<int>(k))
        priority *= options_.stay_bonus;
      candidates.push_back({priority, x, j, k});
    }
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.fraction != b.fraction) return a.fraction > b.fraction;
    if (a.job != b.job) return a.job < b.job;
    return a.type < b.type;
  });
  RoundPlan plan;
  std::vector<int>& chosen_type = plan.chosen_type;
  std::vector<std::size_t>& chosen = plan.chosen;
  chosen_type.assign(jobs_.size(), -1);
  // Budget in milli-devices (fractional jobs take part of one).
  std::vector<int> budget(type_count);
  for (std::size_t k = 0; k < type_count; ++k) budget[k] = free_by_type_[k] * 1000;
  // A job that may not be preempted keeps the devices it ran on last round.
  for (std::size_t j : active_) {
    const StreamJobStatus& job = jobs_[j];
    if (job.job.preemptible || job.placement.nodes.empty() || job.type < 0) continue;
    budget[static_cast<std::size_t>(job.type)] -=
        budget_need(j, static_cast<std::size_t>(job.type));
    chosen_type[j] = job.type;
    chosen.push_back(j);
  }
  for (const Candidate& c : candidates) {
    if (chosen_type[c.job] >= 0) continue;
    const int need = budget_need(c.job, c.type);
    if (budget[c.type] < need) continue;
    budget[c.type] -= need;
    chosen_type[c.job] = static_cast<int>(c.type);
    chosen.push_back(c.job);
  }
  if (options_.backfill_idle_devices && policy_.work_conserving())
    backfill_idle(chosen, chosen_type, budget);
  return plan;
}

// Placement, largest gangs first so that they find whole nodes (as Gavel does): a job
// staying on its type keeps last round's devices when they are all still free; otherwise
// it is placed afresh (best fit) and, if it ran before, migrates. A job that finds no
// room sits the round out.
void StreamScheduler::place_round_jobs(RoundPlan& plan) {
  std::vector<std::size_t>& chosen = plan.chosen;
  std::vector<int>& chosen_type = plan.chosen_type;
  std::vector<StreamPlacement>& placement = plan.placement;
  std::vector<bool>& moved = plan.moved;
  std::vector<std::size_t> placement_order(chosen.size());
  std::iota(placement_order.begin(), placement_order.end(), 0);
  std::stable_sort(placement_order.begin(), placement_order.end(),
                   [&](std::size_t a, std::size_t b) {
                     return jobs_[chosen[a]].job.gang_size > jobs_[chosen[b]].job.gang_size;
                   });
  placement.resize(chosen.size());
  moved.assign(chosen.size(), false);
  std::vector<bool> placed(chosen.size(), true);
  for (std::size_t i : placement_order) {
    const std::size_t j = chosen[i];
    const StreamJobStatus& job = jobs_[j];
    const auto type = static_cast<std::size_t>(chosen_type[j]);
    bool keep = job.ran_before && job.type == chosen_type[j] && !job.placement.nodes.empty() &&
                can_retake(j, job.placement);
    // Staying spread over nodes is worth a move when one node now has room.
    if (keep && job.placement.nodes.size() > 1) {
      const auto fresh = place_whole(type, job.job.gang_size);
      keep = !(fresh && fresh->size() == 1);
    }
    if (keep) {
      placement[i] = job.placement;
    } else if (auto fresh = place_job(j, type)) {
      placement[i] = std::move(*fresh);
    } else {
      // Only a fraction or a core set can miss here (the budget counts devices, not
      // how they are split): the job sits this round out.
      placed[i] = false;
      chosen_type[j] = -1;
      continue;
    }
    take(j, placement[i], +1);
    moved[i] = job.ran_before && !keep;
  }
  if (std::find(placed.begin(), placed.end(), false) != placed.end()) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      if (!placed[i]) continue;
      if (kept != i) {
        chosen[kept] = chosen[i];
        placement[kept] = std::move(placement[i]);
        moved[kept] = moved[i];
      }
      ++kept;
    }
    chosen.resize(kept);
    placement.resize(kept);
    moved.resize(kept);
  }
  plan.colocated_rate.assign(chosen.size(), 0.0);
}

// Space sharing: guests join hosts; both run at their co-located rates.
void StreamScheduler::add_colocated_guests(RoundPlan& plan) {
  std::vector<std::size_t>& chosen = plan.chosen;
  std::vector<int>& chosen_type = plan.chosen_type;
  std::vector<StreamPlacement>& placement = plan.placement;
  std::vector<bool>& moved = plan.moved;
  std::vector<double>& colocated_rate = plan.colocated_rate;
  const auto guests = pair_guests(chosen, chosen_type, placement);
  for (const auto& [guest, host_index] : guests) {
    const std::size_t host = chosen[host_index];
    const auto type = static_cast<std::size_t>(chosen_type[host]);
    const auto* rates = colocated(host, guest, type);
    colocated_rate[host_index] = rates->first;
    const StreamJobStatus& job = jobs_[guest];
    const int node = placement[host_index].nodes.front().first;
    const bool stays = job.ran_before && job.type == chosen_type[host] &&
                       job.placement.nodes.size() == 1 && job.placement.nodes.front().first == node;
    chosen.push_back(guest);
    chosen_type[guest] = chosen_type[host];
    // Shares the host's device: not taken.
    placement.push_back(StreamPlacement{type, {{node, 1}}, -1, {}});
    moved.push_back(job.ran_before && !stays);
    colocated_rate.push_back(rates->second);
  }
}

// Runs the chosen jobs for the round: progress at their rates after any migration's
// overhead; a job whose work ends within the round finishes then.
std::vector<StreamSegment> StreamScheduler::run_round_jobs(const RoundPlan& plan, double now) {
  const double round = options_.round_seconds;
  const std::vector<std::size_t>& chosen = plan.chosen;
  const std::vector<int>& chosen_type = plan.chosen_type;
  const std::vector<StreamPlacement>& placement = plan.placement;
  const std::vector<bool>& moved = plan.moved;
  const std::vector<double>& colocated_rate = plan.colocated_rate;
  std::vector<StreamSegment> segments;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const std::size_t j = chosen[i];
    StreamJobStatus& job = jobs_[j];
    const auto type = static_cast<std::size_t>(chosen_type[j]);
    const bool shared = colocated_rate[i] > 0;
    const double share = (shared ? 0.5 : 1.0) * job.share[type];
    if (shared) ++colocated_rounds_;
    const double overhead = moved[i] ? std::min(options_.migration_seconds, round) : 0.0;
    const double rate = shared ? colocated_rate[i] : rate_on(j, type, placement[i].nodes);
    job.type = static_cast<int>(type);
    job.placement = placement[i];
    job.ran_before = true;
    job.state = StreamJobState::running;
    user_devices_[job.user] += job.job.gang_size;
    StreamSegment segment{j, placement[i], now, round, now + round, false, moved[i], shared, share};
    const double work_seconds = round - overhead;
    last_round_[j] = RoundCredit{rounds_, type, job.remaining, round, share};
    if (rate * work_seconds >= job.remaining) {
      const double used = overhead + job.remaining / rate;
      account(j, type, used, share);
      job.state = StreamJobState::finished;
      job.remaining = 0;
      segment.seconds = used;
      segment.end_seconds = now + used;
      segment.finishes = true;
      last_round_[j].seconds = used;
      allocation_dirty_ = true;
    } else {
      job.remaining -= rate * work_seconds;
      last_round_[j].steps = rate * work_seconds;
      account(j, type, round, share);
    }
    segments.push_back(std::move(segment));
  }
  return segments;
}

void StreamScheduler::backfill_idle(std::vector<std::size_t>& chosen, std::vector<int>& chosen_type,
                                    std::vector<int>& budget) const {
  if (std::none_of(budget.begin(), budget.end(), [](int free) { return free > 0; })) return;
  const std::vector<double> weight = job_weights();
  std::vector<std::size_t> left_out;
  for (std::size_t j : active_)
    if (chosen_type[j] < 0) left_out.push_back(j);
  std::stable_sort(left_out.begin(), left_out.end(), [&](std::size_t a, std::size_t b) {
    if (weight[a] != weight[b]) return weight[a] > weight[b];
    if (jobs_[a].attained != jobs_[b].attained) return jobs_[a].attained < jobs_[b].attained;
    return a < b;
  });
  const double round = options_.round_seconds;
  for (std::size_t j : left_out) {
    const StreamJobStatus& job = jobs_[j];
    int best = -1;
    double best_progress = 0;
    for (std::size_t k = 0; k < budget.size(); ++k) {
      if (job.rate[k] <= 0 || budget[k] < budget_need(j, k)) continue;
      const bool stays = !job.placement.nodes.empty() && job.type == static_cast<int>(k);
      const double seconds =
          round - (job.ran_before && !stays ? std::min(options_.migration_seconds, round) : 0.0);
      const double progress = job.rate[k] * seconds / job.best_rate;
      if (progress > best_progress) {
        best_progress = progress;
        best = static_cast<int>(k);
      }
    }
    if (best < 0) continue;
    budget[static_cast<std::size_t>(best)] -= budget_need(j, static_cast<std::size_t>(best));
    chosen_type[j] = best;
    chosen.push_back(j);
  }
}

std::vector<double> StreamScheduler::job_weights() const {
  std::vector<double> weight(jobs_.size(), 1.0);
  if (!allocation_.job_weight.empty())
    for (std::size_t i = 0; i < allocation_jobs_.size(); ++i)
      weight[allocation_jobs_[i]] = allocation_.job_weight[i];
  return weight;
}

std::vector<std::pair<std::size_t, std::size_t>> StreamScheduler::pair_guests(
    const std::vector<std::size_t>& chosen, const std::vector<int>& chosen_type,
    const std::vector<StreamPlacement>& placement) const {
  const std::vector<double> weight = job_weights();
  std::vector<std::size_t> hosts;
  for (std::size_t i = 0; i < chosen.size(); ++i)
    if (colocation_type_[chosen[i]] >= 0 && placement[i].nodes.size() == 1) hosts.push_back(i);
  std::vector<std::size_t> guests;
  for (std::size_t j : active_)
    if (chosen_type[j] < 0 && colocation_type_[j] >= 0 && jobs_[j].job.preemptible)
      guests.push_back(j);
  std::stable_sort(guests.begin(), guests.end(),
                   [&](std::size_t a, std::size_t b) { return weight[a] > weight[b]; });
  std::vector<bool> hosting(chosen.size(), false);
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t guest : guests) {
    if (pairs.size() == hosts.size()) break;
    double best_gain = 0;
    std::size_t best_host = chosen.size();
    for (std::size_t i : hosts) {
      if (hosting[i]) continue;
      const std::size_t host = chosen[i];
      const auto type = static_cast<std::size_t>(chosen_type[host]);
      const auto* rates = colocated(host, guest, type);
      if (!rates) continue;
      const double host_alone = jobs_[host].rate[type];
      const double gain = weight[guest] * rates->second / jobs_[guest].best_rate -
                          weight[host] * (host_alone - rates->first) / jobs_[host].best_rate;
      if (gain > best_gain) {
        best_gain = gain;
        best_host = i;
      }
    }
    if (best_host == chosen.size()) continue;
    hosting[best_host] = true;
    pairs.push_back({guest, best_host});
  }
  return pairs;
}

}  // namespace hetsched
