// The stream simulator (see stream_simulator.hpp). Two ways of carrying a policy out:
//  - queue mode, event-driven: at every arrival and completion the waiting jobs are
//    taken in the policy's order and started while their gang fits (a job runs to
//    completion on the devices it got). With EASY backfilling (Lifka 1995; Mu'alem &
//    Feitelson 2001) the first job that does not fit gets a reservation, the earliest
//    time enough devices of one type will be free given the running jobs' known
//    finish times, and later jobs may start now only if they cannot delay it: they
//    run on another type, finish before the reservation, or use devices the reserved
//    job will not need.
//  - round mode, as in Gavel's simulator: at each round boundary the policy's
//    allocation x[job][type] is recomputed if jobs arrived or finished, and the jobs
//    are taken in decreasing order of x / (share of their time in the system spent on
//    that type) and given whole rounds while devices last. A job placed on devices
//    other than last round's pays the migration (checkpoint/restart) time. With space
//    sharing, single-device jobs left out of a round may share a device with a
//    running single-device job (Gavel's space sharing, here a greedy pairing): each
//    guest, heaviest first, takes the host where its weighted normalised gain most
//    exceeds the host's weighted loss, and both run at their measured co-located
//    rates for the round.
//    Devices the allocation leaves idle in a round (its fractions rounded to whole
//    rounds) are backfilled: jobs left out, heaviest first by the policy's weight,
//    then least attained service, take the type where they progress most this round.
// Gangs are placed by the rule the service shares (stream/gang_placement.hpp): one
// node (the fullest that fits), then one rack, then the nodes with the most free
// devices. A gang spread over nodes runs at its spread rate when the job has one.
// Fractional GPUs (milli-GPU requests as in the Alibaba trace, or whole MIG-like
// slices on a type split into S slices) go to an already opened device with room
// for their units and memory (best fit: fewest units left), else open a free device
// on the fullest node; they run at their rate times their share, isolated from the
// other shares (no interference). A job asking for CPU cores gets a specific set of
// free cores (lowest numbers first) on the node of its devices, held by no one else.
#include "hetsched/stream/stream_simulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/quantile.hpp"
#include "hetsched/sim/event_queue.hpp"
#include "hetsched/stream/gang_placement.hpp"

namespace hetsched {
namespace {

enum EventKind : std::uint32_t { arrival_event = 0, finish_event = 1, round_event = 2 };

struct NodeSlots {
  std::size_t type = 0;
  int rack = 0;
  int devices = 0;
  int free = 0;  // devices held by no one (whole, not opened for fractions)
  // Devices opened for fractional jobs, by slot: units held (milli-GPUs, or slices
  // on a MIG-like type; 0 = not opened) and memory held, GB. Whole-device jobs are
  // counted in `free` only, so a slot names a shared device, not a physical one.
  std::vector<int> units_used;
  std::vector<double> memory_used;
  std::vector<char> core_busy;  // per CPU core of the node (empty: not modelled)
};

// What a placement holds besides whole devices: the shared-device slot of a
// fractional job and the CPU core set.
struct PlacementExtras {
  int device = -1;
  std::vector<int> cores;
};

using Placement = GangPlacement;  // (node, devices taken)

enum class JobState { future, rejected, waiting, running, finished };

struct JobRuntime {
  std::vector<double> rate;    // per type, gang in one node
  std::vector<double> spread;  // per type, gang over nodes
  double best_rate = 0;
  std::size_t user = 0;
  double remaining = 0;
  JobState state = JobState::future;
  int type = -1;  // type of the current/last placement
  Placement placement;
  bool ran_before = false;
  double attained = 0;
  std::vector<double> received;  // seconds run per type
  // Fractional GPUs, per type: units taken on one device (0 = whole devices) and the
  // share of a device's compute they give (1 for whole devices).
  std::vector<int> share_units;
  std::vector<double> share;
  bool plain = true;         // whole devices and no CPU cores: placed by counts only
  PlacementExtras extras;    // its shared-device slot and core set while placed
  int colocation_type = -1;  // index into the co-location table (single-device jobs)
  double isolated_rate = 0;  // steps/s on its equal share at arrival (finish-time fairness)
};

class StreamRun {
 public:
  StreamRun(const StreamWorkload& workload, StreamPolicy& policy, const StreamSimOptions& options)
      : workload_(workload), policy_(policy), options_(options) {}

  StreamReport run(const std::string& policy_name);

 private:
  void build_nodes();
  void submit(std::size_t j);
  std::optional<Placement> place(std::size_t type, int gang) const;
  void take(const Placement& placement, int sign);
  // Any job: whole devices by count, a fractional job onto a shared device (best fit
  // by units left), CPU cores as a set on one node. nullopt when it does not fit now.
  std::optional<std::pair<Placement, PlacementExtras>> place_job(std::size_t j,
                                                                 std::size_t type) const;
  void take_job(std::size_t j, const Placement& placement, const PlacementExtras& extras, int sign);
  // Whether a job that is not plain can take exactly these resources again.
  bool can_retake(std::size_t j, const Placement& placement, const PlacementExtras& extras) const;
  int units_per_device(std::size_t type) const {
    return workload_.cluster.types[type].mig_slices > 0 ? workload_.cluster.types[type].mig_slices
                                                        : 1000;
  }
  // Round budget in milli-devices that job j takes on type k.
  int budget_need(std::size_t j, std::size_t type) const {
    const int units = jobs_[j].share_units[type];
    if (units == 0) return workload_.jobs[j].gang_size * 1000;
    return (units * 1000 + units_per_device(type) - 1) / units_per_device(type);
  }
  void reset_nodes();
  double rate_on(const JobRuntime& job, std::size_t type, const Placement& placement) const;
  StreamJobView view(std::size_t j) const;
  StreamPolicyContext context() const;
  void account(std::size_t j, std::size_t type, double seconds, double device_share = 1.0);
  void build_colocation();
  double isolated_rate(std::size_t j, std::size_t jobs_present) const;
  // Space sharing: guests for this round's single-device jobs, as (guest, index in
  // `chosen` of its host).
  std::vector<std::pair<std::size_t, std::size_t>> pair_guests(
      const std::vector<std::size_t>& chosen, const std::vector<int>& chosen_type,
      const std::vector<Placement>& placement) const;
  // Devices left idle by the allocation's round go to jobs left out (work conservation).
  void backfill_idle(std::vector<std::size_t>& chosen, std::vector<int>& chosen_type,
                     std::vector<int>& budget) const;
  std::vector<double> job_weights() const;  // the policy's per-job weights, 1 by default
  const std::pair<double, double>* colocated(std::size_t host, std::size_t guest,
                                             std::size_t type) const;
  void finish(std::size_t j, double time);
  // queue mode
  void schedule_queue();
  int agnostic_type_with_room(std::size_t j, const std::vector<int>& free) const;
  void start_now(std::size_t j, std::size_t type);
  // round mode
  void run_round();
  bool measured(std::size_t j) const {
    return j >= options_.measure_first && j < options_.measure_last;
  }

  const StreamWorkload& workload_;
  StreamPolicy& policy_;
  const StreamSimOptions& options_;
  std::vector<std::string> type_names_;
  std::vector<NodeSlots> nodes_;
  std::vector<std::vector<int>> nodes_of_type_;
  mutable std::vector<GangNodeRoom> rooms_;  // scratch of place()
  std::vector<int> free_by_type_;
  std::vector<JobRuntime> jobs_;
  std::vector<StreamJobOutcome> outcomes_;
  std::vector<std::string> users_;
  std::vector<double> user_devices_;
  std::vector<double> busy_seconds_;
  std::vector<std::size_t> waiting_;  // queue mode: waiting jobs
  std::vector<std::size_t> active_;   // round mode: arrived, unfinished jobs
  std::vector<std::size_t> running_;  // queue mode: running jobs
  std::vector<double> finish_time_;   // queue mode: known finish times
  std::vector<double> run_start_;     // queue mode: when the current run began
  EventQueue events_;
  double now_ = 0;
  bool round_pending_ = false;
  bool allocation_dirty_ = true;
  AllocationResult allocation_;
  std::vector<std::size_t> allocation_jobs_;
  std::size_t rounds_ = 0, allocations_ = 0, fallbacks_ = 0;
  std::string first_fallback_note_;
  std::size_t measured_total_ = 0, measured_done_ = 0;
  // Co-location rates, dense: [(host type * types + guest type) * device types + k];
  // a rate pair of zeros when not measured.
  std::size_t colocation_types_ = 0;
  std::vector<std::pair<double, double>> colocation_;
  std::size_t colocated_rounds_ = 0;
};

void StreamRun::build_colocation() {
  const auto& rates = workload_.colocation.rates;
  if (rates.empty()) return;
  std::map<std::string, int> index;
  for (const auto& [key, value] : rates) {
    index.emplace(std::get<0>(key), 0);
    index.emplace(std::get<1>(key), 0);
  }
  int next = 0;
  for (auto& [name, i] : index) i = next++;
  colocation_types_ = index.size();
  const std::size_t type_count = type_names_.size();
  colocation_.assign(colocation_types_ * colocation_types_ * type_count, {0.0, 0.0});
  for (const auto& [key, value] : rates) {
    const auto& [a, b, device] = key;
    std::size_t k = 0;
    while (k < type_count && !equals_ignoring_case(type_names_[k], device)) ++k;
    if (k == type_count) continue;
    const std::size_t ia = index[a], ib = index[b];
    colocation_[(ia * colocation_types_ + ib) * type_count + k] = value;
    auto& mirrored = colocation_[(ib * colocation_types_ + ia) * type_count + k];
    if (mirrored.first <= 0 && mirrored.second <= 0) mirrored = {value.second, value.first};
  }
  for (std::size_t j = 0; j < workload_.jobs.size(); ++j) {
    const auto it = index.find(workload_.jobs[j].job_type);
    if (workload_.jobs[j].gang_size == 1 && jobs_[j].plain && it != index.end())
      jobs_[j].colocation_type = it->second;
  }
}

const std::pair<double, double>* StreamRun::colocated(std::size_t host, std::size_t guest,
                                                      std::size_t type) const {
  const int a = jobs_[host].colocation_type, b = jobs_[guest].colocation_type;
  if (a < 0 || b < 0) return nullptr;
  const auto& rates =
      colocation_[(static_cast<std::size_t>(a) * colocation_types_ + static_cast<std::size_t>(b)) *
                      type_names_.size() +
                  type];
  return rates.first > 0 && rates.second > 0 ? &rates : nullptr;
}

double StreamRun::isolated_rate(std::size_t j, std::size_t jobs_present) const {
  const JobRuntime& job = jobs_[j];
  double usable = 0, weighted_rate = 0;
  for (std::size_t k = 0; k < type_names_.size(); ++k)
    if (job.rate[k] > 0) {
      usable += workload_.cluster.types[k].count;
      weighted_rate += workload_.cluster.types[k].count * job.rate[k];
    }
  if (usable <= 0) return 0;
  const double total = workload_.cluster.total_devices();
  const double gang = workload_.jobs[j].gang_size;
  const double fraction =
      std::min(1.0, total / (static_cast<double>(std::max<std::size_t>(1, jobs_present)) * gang));
  return fraction * weighted_rate / usable;
}

void StreamRun::build_nodes() {
  const auto& types = workload_.cluster.types;
  nodes_of_type_.resize(types.size());
  free_by_type_.assign(types.size(), 0);
  for (std::size_t k = 0; k < types.size(); ++k) {
    const int per_node = std::max(1, types[k].devices_per_node);
    int left = types[k].count;
    int index = 0;
    while (left > 0) {
      const int devices = std::min(per_node, left);
      nodes_of_type_[k].push_back(static_cast<int>(nodes_.size()));
      NodeSlots node{k, index / std::max(1, types[k].nodes_per_rack), devices, devices, {}, {}, {}};
      node.units_used.assign(devices, 0);
      node.memory_used.assign(devices, 0.0);
      node.core_busy.assign(std::max(0, types[k].cpu_cores_per_node), 0);
      nodes_.push_back(std::move(node));
      left -= devices;
      ++index;
    }
    free_by_type_[k] = types[k].count;
    type_names_.push_back(types[k].model);
  }
}

void StreamRun::submit(std::size_t j) {
  const StreamJob& job = workload_.jobs[j];
  JobRuntime& runtime = jobs_[j];
  StreamJobOutcome& outcome = outcomes_[j];
  const std::size_t type_count = type_names_.size();
  runtime.rate.assign(type_count, 0.0);
  runtime.spread.assign(type_count, 0.0);
  runtime.received.assign(type_count, 0.0);
  auto reject = [&](std::string reason) {
    runtime.state = JobState::rejected;
    outcome.rejected = true;
    outcome.rejection_reason = std::move(reason);
  };
  for (const auto& [name, rate] : job.steps_per_second) {
    std::size_t k = 0;
    while (k < type_count && !equals_ignoring_case(type_names_[k], name)) ++k;
    if (k == type_count) {
      if (!find_catalog_part(name)) {
        std::vector<std::string> valid = type_names_;
        return reject(unknown_name_message("device type", name, valid));
      }
      continue;  // a real part this cluster does not have: that rate is simply unused
    }
    runtime.rate[k] = std::max(0.0, rate);
    const auto spread = job.spread_steps_per_second.find(name);
    runtime.spread[k] = spread != job.spread_steps_per_second.end() && spread->second > 0
                            ? spread->second
                            : runtime.rate[k];
  }
  if (job.gang_size < 1) return reject("gang size must be at least 1");
  if (job.total_steps <= 0) return reject("total steps must be positive");
  int largest = 0;
  std::string largest_name;
  for (std::size_t k = 0; k < type_count; ++k)
    if (runtime.rate[k] > 0 && workload_.cluster.types[k].count > largest) {
      largest = workload_.cluster.types[k].count;
      largest_name = type_names_[k];
    }
  if (largest == 0)
    return reject("no device type in the cluster can run it (it has rates for none of them)");
  if (job.gang_size > largest)
    return reject("asks for " + std::to_string(job.gang_size) +
                  " devices at once; the largest type that can run it (" + largest_name + ") has " +
                  std::to_string(largest));
  // Types too small for the gang cannot run it.
  for (std::size_t k = 0; k < type_count; ++k)
    if (workload_.cluster.types[k].count < job.gang_size) runtime.rate[k] = runtime.spread[k] = 0;
  // Fractional GPUs, device memory and CPU cores.
  const bool fractional = job.gpu_milli > 0 && job.gpu_milli < 1000;
  if (job.gpu_milli < 0 || job.gpu_milli > 1000)
    return reject("gpu_milli must be between 0 and 1000 (thousandths of one device), not " +
                  std::to_string(job.gpu_milli));
  if (fractional && job.gang_size > 1)
    return reject("a fractional GPU request (gpu_milli " + std::to_string(job.gpu_milli) +
                  ") is a share of one device; it cannot have a gang of " +
                  std::to_string(job.gang_size));
  if (job.gpu_memory_gb < 0) return reject("gpu_memory_gb must not be negative");
  if (job.cpu_cores < 0) return reject("cpu_cores must not be negative");
  std::string unfit;
  for (std::size_t k = 0; k < type_count; ++k) {
    if (runtime.rate[k] <= 0) continue;
    const StreamDeviceType& type = workload_.cluster.types[k];
    std::string why;
    if (type.memory_gb > 0 && job.gpu_memory_gb > type.memory_gb + 1e-9)
      why = fmt::format("a {} has {:g} GB of memory, it needs {:g} GB", type.model, type.memory_gb,
                        job.gpu_memory_gb);
    else if (job.cpu_cores > 0 && type.cpu_cores_per_node > 0 &&
             job.cpu_cores > type.cpu_cores_per_node)
      why = fmt::format("a {} node has {} CPU cores, it asks for {}", type.model,
                        type.cpu_cores_per_node, job.cpu_cores);
    else if (job.cpu_cores > 0 && job.gang_size > type.devices_per_node)
      why = fmt::format(
          "its CPU cores must sit on the node of its devices, and a {} node has {} devices, "
          "it asks for {}",
          type.model, type.devices_per_node, job.gang_size);
    if (why.empty()) continue;
    runtime.rate[k] = runtime.spread[k] = 0;
    unfit += (unfit.empty() ? "" : "; ") + why;
  }
  if (std::all_of(runtime.rate.begin(), runtime.rate.end(), [](double r) { return r <= 0; }))
    return reject("no device type of the cluster can hold it: " + unfit);
  runtime.share_units.assign(type_count, 0);
  runtime.share.assign(type_count, 1.0);
  runtime.plain = !fractional && job.cpu_cores == 0;
  if (fractional)
    for (std::size_t k = 0; k < type_count; ++k) {
      const StreamDeviceType& type = workload_.cluster.types[k];
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
      runtime.share_units[k] = units;
      runtime.share[k] = static_cast<double>(units) / units_per_device(k);
      runtime.rate[k] *= runtime.share[k];
      runtime.spread[k] *= runtime.share[k];
    }
  runtime.best_rate = *std::max_element(runtime.rate.begin(), runtime.rate.end());
  runtime.remaining = job.total_steps;
  const auto user = std::find(users_.begin(), users_.end(), job.user);
  runtime.user = static_cast<std::size_t>(user - users_.begin());
  if (user == users_.end()) {
    users_.push_back(job.user);
    user_devices_.push_back(0);
  }
  runtime.state = JobState::waiting;
}

std::optional<Placement> StreamRun::place(std::size_t type, int gang) const {
  if (free_by_type_[type] < gang) return std::nullopt;
  rooms_.clear();
  for (int node : nodes_of_type_[type])
    rooms_.push_back(GangNodeRoom{node, nodes_[node].rack, nodes_[node].free});
  return place_gang(rooms_, gang, GangSpread::racks_then_anywhere);
}

void StreamRun::take(const Placement& placement, int sign) {
  for (const auto& [node, count] : placement) {
    nodes_[node].free -= sign * count;
    free_by_type_[nodes_[node].type] -= sign * count;
  }
}

void StreamRun::reset_nodes() {
  for (auto& node : nodes_) {
    node.free = node.devices;
    std::fill(node.units_used.begin(), node.units_used.end(), 0);
    std::fill(node.memory_used.begin(), node.memory_used.end(), 0.0);
    std::fill(node.core_busy.begin(), node.core_busy.end(), 0);
  }
  for (std::size_t k = 0; k < free_by_type_.size(); ++k)
    free_by_type_[k] = workload_.cluster.types[k].count;
}

std::optional<std::pair<Placement, PlacementExtras>> StreamRun::place_job(std::size_t j,
                                                                          std::size_t type) const {
  const JobRuntime& job = jobs_[j];
  const int gang = workload_.jobs[j].gang_size;
  if (job.plain) {
    auto placement = place(type, gang);
    if (!placement) return std::nullopt;
    return std::pair{*placement, PlacementExtras{}};
  }
  const int cores = workload_.jobs[j].cpu_cores;
  auto free_cores = [&](const NodeSlots& node) {
    return node.core_busy.empty()
               ? std::numeric_limits<int>::max()
               : static_cast<int>(std::count(node.core_busy.begin(), node.core_busy.end(), 0));
  };
  auto core_set = [&](const NodeSlots& node) {
    std::vector<int> set;
    for (std::size_t c = 0; c < node.core_busy.size() && static_cast<int>(set.size()) < cores; ++c)
      if (!node.core_busy[c]) set.push_back(static_cast<int>(c));
    return set;
  };
  const int units = job.share_units[type];
  const double memory = workload_.jobs[j].gpu_memory_gb;
  const double device_memory = workload_.cluster.types[type].memory_gb;
  const int total = units_per_device(type);
  int best_node = -1, best_device = -1, best_left = 0;
  for (int n : nodes_of_type_[type]) {
    const NodeSlots& node = nodes_[n];
    if (cores > 0 && free_cores(node) < cores) continue;
    if (units == 0) {
      // Whole devices on this node (a job with cores keeps its gang in one node).
      if (node.free < gang) continue;
      if (best_node < 0 || node.free < nodes_[best_node].free) best_node = n;
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
      const NodeSlots& node = nodes_[n];
      if (node.free < 1 || (cores > 0 && free_cores(node) < cores)) continue;
      if (best_node < 0 || node.free < nodes_[best_node].free) best_node = n;
    }
    if (best_node >= 0) {
      const auto& used = nodes_[best_node].units_used;
      best_device = static_cast<int>(std::find(used.begin(), used.end(), 0) - used.begin());
    }
  }
  if (best_node < 0) return std::nullopt;
  PlacementExtras extras;
  extras.device = units > 0 ? best_device : -1;
  if (cores > 0) extras.cores = core_set(nodes_[best_node]);
  return std::pair{Placement{{best_node, units > 0 ? 0 : gang}}, extras};
}

void StreamRun::take_job(std::size_t j, const Placement& placement, const PlacementExtras& extras,
                         int sign) {
  take(placement, sign);
  if (placement.empty()) return;
  NodeSlots& node = nodes_[placement.front().first];
  if (extras.device >= 0) {
    const auto d = static_cast<std::size_t>(extras.device);
    const bool was_open = node.units_used[d] > 0;
    node.units_used[d] += sign * jobs_[j].share_units[node.type];
    node.memory_used[d] += sign * workload_.jobs[j].gpu_memory_gb;
    const bool open = node.units_used[d] > 0;
    const int opened = (open ? 1 : 0) - (was_open ? 1 : 0);
    node.free -= opened;
    free_by_type_[node.type] -= opened;
  }
  for (int c : extras.cores) node.core_busy[static_cast<std::size_t>(c)] = sign > 0 ? 1 : 0;
}

bool StreamRun::can_retake(std::size_t j, const Placement& placement,
                           const PlacementExtras& extras) const {
  if (placement.size() != 1) return false;
  const NodeSlots& node = nodes_[placement.front().first];
  for (int c : extras.cores)
    if (node.core_busy[static_cast<std::size_t>(c)]) return false;
  if (extras.device < 0) return node.free >= placement.front().second;
  const auto d = static_cast<std::size_t>(extras.device);
  if (node.units_used[d] == 0) return node.free >= 1;
  const double device_memory = workload_.cluster.types[node.type].memory_gb;
  return node.units_used[d] + jobs_[j].share_units[node.type] <= units_per_device(node.type) &&
         (device_memory <= 0 ||
          node.memory_used[d] + workload_.jobs[j].gpu_memory_gb <= device_memory + 1e-9);
}

double StreamRun::rate_on(const JobRuntime& job, std::size_t type,
                          const Placement& placement) const {
  return placement.size() > 1 ? job.spread[type] : job.rate[type];
}

StreamJobView StreamRun::view(std::size_t j) const {
  const StreamJob& job = workload_.jobs[j];
  const JobRuntime& runtime = jobs_[j];
  return StreamJobView{j,
                       &runtime.rate,
                       job.gang_size,
                       job.priority_weight,
                       job.arrival_seconds,
                       job.total_steps,
                       runtime.remaining,
                       job.deadline_seconds ? *job.deadline_seconds : -1.0,
                       runtime.attained,
                       runtime.user};
}

StreamPolicyContext StreamRun::context() const {
  StreamPolicyContext context;
  context.now = now_;
  for (const auto& type : workload_.cluster.types) {
    context.capacity.push_back(type.count);
    context.price_per_hour.push_back(type.price_per_hour);
  }
  context.user_running_devices = user_devices_;
  return context;
}

void StreamRun::account(std::size_t j, std::size_t type, double seconds, double device_share) {
  const double gang = workload_.jobs[j].gang_size * device_share;
  jobs_[j].received[type] += seconds;
  jobs_[j].attained += seconds * gang;
  busy_seconds_[type] += seconds * gang;
  outcomes_[j].device_seconds += seconds * gang;
  outcomes_[j].cost_usd += seconds / 3600.0 * gang * workload_.cluster.types[type].price_per_hour;
}

void StreamRun::finish(std::size_t j, double time) {
  jobs_[j].state = JobState::finished;
  jobs_[j].remaining = 0;
  outcomes_[j].finish_seconds = time;
  const auto& deadline = workload_.jobs[j].deadline_seconds;
  outcomes_[j].slo_violated = deadline && time > *deadline + 1e-9;
  if (measured(j)) ++measured_done_;
  if (options_.progress) options_.progress(measured_done_, measured_total_);
}

int StreamRun::agnostic_type_with_room(std::size_t j, const std::vector<int>& free) const {
  // Heterogeneity-agnostic: the type with the most free devices that fits the gang.
  // A job that is not plain (a fraction, CPU cores) is tried on the real state; a
  // type marked -1 in `free` is excluded.
  int chosen = -1;
  for (std::size_t k = 0; k < free.size(); ++k) {
    if (jobs_[j].rate[k] <= 0 || (chosen >= 0 && free[k] <= free[chosen])) continue;
    const bool fits = jobs_[j].plain ? free[k] >= workload_.jobs[j].gang_size
                                     : free[k] >= 0 && place_job(j, k).has_value();
    if (fits) chosen = static_cast<int>(k);
  }
  return chosen;
}

void StreamRun::start_now(std::size_t j, std::size_t type) {
  JobRuntime& job = jobs_[j];
  auto placed = place_job(j, type);
  job.placement = placed->first;
  job.extras = placed->second;
  job.type = static_cast<int>(type);
  take_job(j, job.placement, job.extras, +1);
  job.state = JobState::running;
  const double duration = job.remaining / rate_on(job, type, job.placement);
  finish_time_[j] = now_ + duration;
  StreamJobOutcome& outcome = outcomes_[j];
  if (outcome.first_start_seconds < 0) {
    outcome.first_start_seconds = now_;
    for (const auto& slot : job.placement) outcome.placement_nodes.push_back(slot.first);
    outcome.shared_device = job.extras.device;
    outcome.cpu_core_set = job.extras.cores;
    outcome.device_share = job.share[type];
  }
  outcome.spread_over_nodes = outcome.spread_over_nodes || job.placement.size() > 1;
  user_devices_[job.user] += workload_.jobs[j].gang_size;
  run_start_[j] = now_;
  running_.push_back(j);
  events_.schedule(finish_time_[j], finish_event, static_cast<std::uint32_t>(j));
}

void StreamRun::schedule_queue() {
  std::vector<StreamJobView> views;
  views.reserve(waiting_.size());
  for (std::size_t j : waiting_) views.push_back(view(j));
  std::vector<std::size_t> order;
  for (std::size_t position : policy_.queue_order(views, context()))
    order.push_back(waiting_[position]);
  std::vector<std::size_t> still_waiting;
  bool blocked = false;
  int reserved_type = -1;
  double shadow_time = 0;
  int extra_devices = 0;
  for (const std::size_t j : order) {
    const int gang = workload_.jobs[j].gang_size;
    if (!blocked) {
      const int type = agnostic_type_with_room(j, free_by_type_);
      if (type >= 0) {
        start_now(j, static_cast<std::size_t>(type));
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
            releases.push_back({finish_time_[r], workload_.jobs[r].gang_size});
        std::sort(releases.begin(), releases.end());
        int free = free_by_type_[k];
        double when = now_;
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
      if (reserved_type >= 0 && outcomes_[j].reserved_start_seconds < 0)
        outcomes_[j].reserved_start_seconds = shadow_time;
      continue;
    }
    if (!options_.easy_backfilling || reserved_type < 0) {
      still_waiting.push_back(j);
      continue;
    }
    // Backfill: a type with room now where starting cannot delay the reservation.
    int chosen = -1;
    bool uses_extra = false;
    std::vector<int> candidates_free = free_by_type_;
    while (true) {
      const int type = agnostic_type_with_room(j, candidates_free);
      if (type < 0) break;
      if (type != reserved_type) {
        chosen = type;
        break;
      }
      const double slowest = std::min(jobs_[j].rate[type], jobs_[j].spread[type]);
      if (now_ + jobs_[j].remaining / slowest <= shadow_time) {
        chosen = type;
        break;
      }
      if (gang <= extra_devices) {
        chosen = type;
        uses_extra = true;
        break;
      }
      candidates_free[type] = -1;  // try the next type
    }
    if (chosen < 0) {
      still_waiting.push_back(j);
      continue;
    }
    if (uses_extra) extra_devices -= gang;
    start_now(j, static_cast<std::size_t>(chosen));
  }
  waiting_ = std::move(still_waiting);
}

void StreamRun::run_round() {
  ++rounds_;
  const double round = options_.round_seconds;
  const std::size_t type_count = type_names_.size();
  const StreamPolicyContext ctx = context();
  // Release every device; continuing jobs re-take theirs first below.
  reset_nodes();
  std::fill(user_devices_.begin(), user_devices_.end(), 0.0);

  if (allocation_dirty_ || policy_.reallocate_every_round()) {
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
        first_fallback_note_ = "t=" + std::to_string(now_) + " s: " + allocation_.note;
    }
  }
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
    if (jobs_[j].state == JobState::finished) continue;
    const double in_system = std::max(now_ - workload_.jobs[j].arrival_seconds, round);
    for (std::size_t k = 0; k < type_count; ++k) {
      const double x = allocation_.fraction[i][k];
      if (x <= 1e-9) continue;
      const double share = jobs_[j].received[k] / in_system;
      double priority = x / (share + 1e-6);
      // Hysteresis: staying where it ran last round avoids a checkpoint/restart.
      if (!jobs_[j].placement.empty() && jobs_[j].type == static_cast<int>(k))
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
  std::vector<int> chosen_type(workload_.jobs.size(), -1);
  std::vector<std::size_t> chosen;
  // Budget in milli-devices (fractional jobs take part of one).
  std::vector<int> budget(type_count);
  for (std::size_t k = 0; k < type_count; ++k) budget[k] = free_by_type_[k] * 1000;
  // A job that may not be preempted keeps the devices it ran on last round.
  for (std::size_t j : active_) {
    const JobRuntime& job = jobs_[j];
    if (workload_.jobs[j].preemptible || job.placement.empty() || job.type < 0) continue;
    budget[job.type] -= budget_need(j, static_cast<std::size_t>(job.type));
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
  // Work conservation: devices the allocation leaves idle this round (its fractions
  // rounded to whole rounds rarely use every device) go to jobs left out, heaviest
  // first (the policy's weight), then least attained service; each takes the type
  // where it progresses most this round, counting the migration a move costs.
  if (options_.backfill_idle_devices && policy_.work_conserving())
    backfill_idle(chosen, chosen_type, budget);
  // Placement, largest gangs first so that they find whole nodes (as Gavel does): a
  // job staying on its type keeps last round's devices when they are all still
  // free; otherwise it is placed afresh (best fit) and, if it ran before, migrates.
  std::vector<std::size_t> placement_order(chosen.size());
  std::iota(placement_order.begin(), placement_order.end(), 0);
  std::stable_sort(
      placement_order.begin(), placement_order.end(), [&](std::size_t a, std::size_t b) {
        return workload_.jobs[chosen[a]].gang_size > workload_.jobs[chosen[b]].gang_size;
      });
  std::vector<Placement> placement(chosen.size());
  std::vector<PlacementExtras> extras(chosen.size());
  std::vector<bool> moved(chosen.size(), false);
  std::vector<bool> placed(chosen.size(), true);
  for (std::size_t i : placement_order) {
    const std::size_t j = chosen[i];
    const JobRuntime& job = jobs_[j];
    const auto type = static_cast<std::size_t>(chosen_type[j]);
    bool keep = job.ran_before && job.type == chosen_type[j] && !job.placement.empty();
    if (job.plain) {
      for (const auto& [node, count] : job.placement) keep = keep && nodes_[node].free >= count;
    } else {
      keep = keep && can_retake(j, job.placement, job.extras);
    }
    // Staying spread over nodes is worth a move when one node now has room.
    if (keep && job.placement.size() > 1) {
      const auto fresh = place(type, workload_.jobs[j].gang_size);
      keep = !(fresh && fresh->size() == 1);
    }
    if (keep) {
      placement[i] = job.placement;
      extras[i] = job.extras;
    } else if (auto fresh = place_job(j, type)) {
      placement[i] = fresh->first;
      extras[i] = fresh->second;
    } else {
      // Only a fraction or a core set can miss here (the budget counts devices, not
      // how they are split): the job sits this round out.
      placed[i] = false;
      chosen_type[j] = -1;
      continue;
    }
    take_job(j, placement[i], extras[i], +1);
    moved[i] = job.ran_before && !keep;
  }
  if (std::find(placed.begin(), placed.end(), false) != placed.end()) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      if (!placed[i]) continue;
      if (kept != i) {
        chosen[kept] = chosen[i];
        placement[kept] = std::move(placement[i]);
        extras[kept] = std::move(extras[i]);
        moved[kept] = moved[i];
      }
      ++kept;
    }
    chosen.resize(kept);
    placement.resize(kept);
    extras.resize(kept);
    moved.resize(kept);
  }
  // Space sharing: guests join hosts; both run at their co-located rates.
  std::vector<double> colocated_rate(chosen.size(), 0.0);
  if (options_.space_sharing && !colocation_.empty()) {
    const auto guests = pair_guests(chosen, chosen_type, placement);
    for (const auto& [guest, host_index] : guests) {
      const std::size_t host = chosen[host_index];
      const auto type = static_cast<std::size_t>(chosen_type[host]);
      const auto* rates = colocated(host, guest, type);
      colocated_rate[host_index] = rates->first;
      const JobRuntime& job = jobs_[guest];
      const int node = placement[host_index].front().first;
      const bool stays = job.ran_before && job.type == chosen_type[host] &&
                         job.placement.size() == 1 && job.placement.front().first == node;
      chosen.push_back(guest);
      chosen_type[guest] = chosen_type[host];
      placement.push_back(Placement{{node, 1}});  // shares the host's device: not taken
      extras.emplace_back();
      moved.push_back(job.ran_before && !stays);
      colocated_rate.push_back(rates->second);
    }
  }
  // Run the round.
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const std::size_t j = chosen[i];
    JobRuntime& job = jobs_[j];
    const auto type = static_cast<std::size_t>(chosen_type[j]);
    const bool shared = colocated_rate[i] > 0;
    const double share = (shared ? 0.5 : 1.0) * job.share[type];
    if (shared) ++colocated_rounds_;
    StreamJobOutcome& outcome = outcomes_[j];
    if (outcome.first_start_seconds < 0) {
      outcome.first_start_seconds = now_;
      for (const auto& slot : placement[i]) outcome.placement_nodes.push_back(slot.first);
      outcome.shared_device = extras[i].device;
      outcome.cpu_core_set = extras[i].cores;
      outcome.device_share = job.share[type];
    }
    outcome.spread_over_nodes = outcome.spread_over_nodes || placement[i].size() > 1;
    const double overhead = moved[i] ? std::min(options_.migration_seconds, round) : 0.0;
    if (moved[i]) ++outcome.migrations;
    const double rate = shared ? colocated_rate[i] : rate_on(job, type, placement[i]);
    job.type = static_cast<int>(type);
    job.placement = placement[i];
    job.extras = extras[i];
    job.ran_before = true;
    user_devices_[job.user] += workload_.jobs[j].gang_size;
    const double work_seconds = round - overhead;
    if (rate * work_seconds >= job.remaining) {
      const double used = overhead + job.remaining / rate;
      account(j, type, used, share);
      finish(j, now_ + used);
      allocation_dirty_ = true;
    } else {
      job.remaining -= rate * work_seconds;
      account(j, type, round, share);
    }
  }
  // Jobs not chosen lose their devices (they are preempted).
  for (std::size_t j : active_)
    if (chosen_type[j] < 0) {
      jobs_[j].placement.clear();
      jobs_[j].extras = {};
    }
  std::erase_if(active_, [&](std::size_t j) { return jobs_[j].state == JobState::finished; });
}

void StreamRun::backfill_idle(std::vector<std::size_t>& chosen, std::vector<int>& chosen_type,
                              std::vector<int>& budget) const {
  if (std::none_of(budget.begin(), budget.end(), [](int free) { return free > 0; })) return;
  const std::vector<double> weight = job_weights();
  std::vector<std::size_t> left_out;
  for (std::size_t j : active_)
    if (chosen_type[j] < 0 && jobs_[j].state != JobState::finished) left_out.push_back(j);
  std::stable_sort(left_out.begin(), left_out.end(), [&](std::size_t a, std::size_t b) {
    if (weight[a] != weight[b]) return weight[a] > weight[b];
    if (jobs_[a].attained != jobs_[b].attained) return jobs_[a].attained < jobs_[b].attained;
    return a < b;
  });
  const double round = options_.round_seconds;
  for (std::size_t j : left_out) {
    const JobRuntime& job = jobs_[j];
    int best = -1;
    double best_progress = 0;
    for (std::size_t k = 0; k < budget.size(); ++k) {
      if (job.rate[k] <= 0 || budget[k] < budget_need(j, k)) continue;
      const bool stays = !job.placement.empty() && job.type == static_cast<int>(k);
      const double seconds =
          round - (job.ran_before && !stays ? std::min(options_.migration_seconds, round) : 0.0);
      const double progress = job.rate[k] * seconds / job.best_rate;
      if (progress > best_progress) {
        best_progress = progress;
        best = static_cast<int>(k);
      }
    }
    if (best < 0) continue;
    budget[best] -= budget_need(j, static_cast<std::size_t>(best));
    chosen_type[j] = best;
    chosen.push_back(j);
  }
}

std::vector<double> StreamRun::job_weights() const {
  std::vector<double> weight(workload_.jobs.size(), 1.0);
  if (!allocation_.job_weight.empty())
    for (std::size_t i = 0; i < allocation_jobs_.size(); ++i)
      weight[allocation_jobs_[i]] = allocation_.job_weight[i];
  return weight;
}

std::vector<std::pair<std::size_t, std::size_t>> StreamRun::pair_guests(
    const std::vector<std::size_t>& chosen, const std::vector<int>& chosen_type,
    const std::vector<Placement>& placement) const {
  const std::vector<double> weight = job_weights();
  std::vector<std::size_t> hosts;
  for (std::size_t i = 0; i < chosen.size(); ++i)
    if (jobs_[chosen[i]].colocation_type >= 0 && placement[i].size() == 1) hosts.push_back(i);
  std::vector<std::size_t> guests;
  for (std::size_t j : active_)
    if (chosen_type[j] < 0 && jobs_[j].state != JobState::finished &&
        jobs_[j].colocation_type >= 0 && workload_.jobs[j].preemptible)
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

StreamReport StreamRun::run(const std::string& policy_name) {
  const auto wall_start = std::chrono::steady_clock::now();
  build_nodes();
  const std::size_t job_count = workload_.jobs.size();
  jobs_.resize(job_count);
  outcomes_.resize(job_count);
  finish_time_.assign(job_count, 0.0);
  run_start_.assign(job_count, 0.0);
  busy_seconds_.assign(type_names_.size(), 0.0);
  build_colocation();
  for (std::size_t j = 0; j < job_count; ++j) {
    outcomes_[j].name = workload_.jobs[j].name;
    outcomes_[j].arrival_seconds = workload_.jobs[j].arrival_seconds;
    events_.schedule(workload_.jobs[j].arrival_seconds, arrival_event,
                     static_cast<std::uint32_t>(j));
  }
  const bool rounds = policy_.mode() == StreamPolicyMode::round;
  // Measured jobs are known only after submission; count them as they come.
  std::size_t future_measured = 0;
  for (std::size_t j = 0; j < job_count; ++j) future_measured += measured(j) ? 1 : 0;
  measured_total_ = future_measured;
  double first_arrival = job_count ? workload_.jobs.front().arrival_seconds : 0.0;
  double end_time = first_arrival;
  while (!events_.empty()) {
    if (measured_total_ > 0 && measured_done_ == measured_total_) break;
    const Event event = events_.pop();
    now_ = event.time;
    first_arrival = std::min(first_arrival, now_);
    end_time = std::max(end_time, now_);
    const std::size_t j = event.subject;
    if (event.kind == arrival_event) {
      submit(j);
      if (jobs_[j].state == JobState::rejected) {
        if (measured(j)) --measured_total_;
        continue;
      }
      jobs_[j].isolated_rate =
          isolated_rate(j, rounds ? active_.size() + 1 : waiting_.size() + running_.size() + 1);
      if (rounds) {
        active_.push_back(j);
        allocation_dirty_ = true;
        if (!round_pending_) {
          const double next = std::ceil(now_ / options_.round_seconds) * options_.round_seconds;
          events_.schedule(next, round_event, 0);
          round_pending_ = true;
        }
      } else {
        waiting_.push_back(j);
        schedule_queue();
      }
    } else if (event.kind == finish_event) {
      take_job(j, jobs_[j].placement, jobs_[j].extras, -1);
      const auto type = static_cast<std::size_t>(jobs_[j].type);
      account(j, type, now_ - run_start_[j], jobs_[j].share[type]);
      user_devices_[jobs_[j].user] -= workload_.jobs[j].gang_size;
      std::erase(running_, j);
      finish(j, now_);
      schedule_queue();
    } else {
      round_pending_ = false;
      run_round();
      end_time = std::max(end_time, now_ + options_.round_seconds);
      if (!active_.empty()) {
        events_.schedule(now_ + options_.round_seconds, round_event, 0);
        round_pending_ = true;
      }
    }
  }
  for (const auto& outcome : outcomes_) end_time = std::max(end_time, outcome.finish_seconds);

  StreamReport report;
  report.policy = policy_name;
  report.type_names = type_names_;
  std::vector<double> jct, inverse_slowdown, rho;
  double wait_sum = 0, last_finish = 0, first_measured_arrival = 1e300;
  for (std::size_t j = 0; j < job_count; ++j) {
    const StreamJobOutcome& outcome = outcomes_[j];
    report.cost_usd += outcome.cost_usd;
    if (outcome.rejected) {
      ++report.rejected;
      continue;
    }
    if (!measured(j)) continue;
    ++report.measured_jobs;
    first_measured_arrival = std::min(first_measured_arrival, outcome.arrival_seconds);
    if (workload_.jobs[j].deadline_seconds && (outcome.finish_seconds < 0 || outcome.slo_violated))
      ++report.slo_violations;
    if (outcome.finish_seconds < 0) continue;
    ++report.finished_measured;
    const double completion = outcome.finish_seconds - outcome.arrival_seconds;
    jct.push_back(completion);
    wait_sum += outcome.first_start_seconds - outcome.arrival_seconds;
    last_finish = std::max(last_finish, outcome.finish_seconds);
    const double alone = workload_.jobs[j].total_steps / jobs_[j].best_rate;
    inverse_slowdown.push_back(alone / std::max(completion, 1e-12));
    if (jobs_[j].isolated_rate > 0)
      rho.push_back(completion / (workload_.jobs[j].total_steps / jobs_[j].isolated_rate));
  }
  auto jain = [](const std::vector<double>& values) {
    double sum = 0, sum_squares = 0;
    for (double x : values) {
      sum += x;
      sum_squares += x * x;
    }
    return sum_squares > 0 ? sum * sum / (values.size() * sum_squares) : 0.0;
  };
  if (!rho.empty()) {
    std::vector<double> inverse_rho;
    for (double r : rho) {
      report.ftf_rho_average += r / rho.size();
      report.ftf_rho_max = std::max(report.ftf_rho_max, r);
      report.ftf_unfair_fraction += r > 1.0 ? 1.0 / rho.size() : 0.0;
      inverse_rho.push_back(1.0 / std::max(r, 1e-12));
    }
    report.jain_fairness_ftf = jain(inverse_rho);
  }
  if (!jct.empty()) {
    report.average_jct_seconds = std::accumulate(jct.begin(), jct.end(), 0.0) / jct.size();
    report.average_wait_seconds = wait_sum / jct.size();
    report.p50_jct_seconds = nearest_rank_quantile(jct, 0.50);
    report.p95_jct_seconds = nearest_rank_quantile(jct, 0.95);
    report.p99_jct_seconds = nearest_rank_quantile(jct, 0.99);
    report.makespan_seconds = last_finish - first_measured_arrival;
    report.jain_fairness = jain(inverse_slowdown);
  }
  const double span = std::max(end_time - first_arrival, 1e-12);
  for (std::size_t k = 0; k < type_names_.size(); ++k)
    report.utilisation.push_back(workload_.cluster.types[k].count > 0
                                     ? busy_seconds_[k] / (workload_.cluster.types[k].count * span)
                                     : 0.0);
  report.rounds = rounds_;
  report.colocated_rounds = colocated_rounds_;
  report.allocations = allocations_;
  report.fallbacks = fallbacks_;
  report.first_fallback_note = first_fallback_note_;
  report.jobs = std::move(outcomes_);
  report.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return report;
}

}  // namespace

StreamReport simulate_stream(const StreamWorkload& workload, StreamPolicy& policy,
                             const StreamSimOptions& options, std::string policy_name) {
  StreamRun run(workload, policy, options);
  return run.run(policy_name);
}

StreamReport simulate_stream(const StreamWorkload& workload, const std::string& policy_name,
                             const StreamSimOptions& options) {
  const std::unique_ptr<StreamPolicy> policy = make_stream_policy(policy_name);
  return simulate_stream(workload, *policy, options, policy_name);
}

}  // namespace hetsched
