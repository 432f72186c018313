// The insertion-EFT toolkit (see list_scheduling.hpp): task priorities, the ready-set
// list order, a schedule under construction whose devices keep their busy intervals
// (DeviceTimeline) and whose tasks go where they finish first, in an idle gap or after
// the device's last task, and the re-timer of a fixed assignment in a fixed order.
#include "hetsched/policy/list_scheduling.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <queue>
#include <utility>

namespace hetsched {
namespace {
// From this many tasks on, order_by_decreasing sorts by radix (O(v)) rather than
// by comparison (O(v log v)); both give the same order.
constexpr std::size_t kRadixSortMinimum = 256;

// The smallest of values[0..count) that is below infinity (infinity when none; NaN
// is never the smallest), in four independent running minima, without branches.
double lowest_of(const double* values, std::size_t count) {
  std::array<double, 4> lowest{kCannotRun, kCannotRun, kCannotRun, kCannotRun};
  std::size_t i = 0;
  for (; i + 4 <= count; i += 4)
    for (std::size_t k = 0; k < 4; ++k)
      lowest[k] = values[i + k] < lowest[k] ? values[i + k] : lowest[k];
  for (; i < count; ++i) lowest[0] = values[i] < lowest[0] ? values[i] : lowest[0];
  return std::min(std::min(lowest[0], lowest[1]), std::min(lowest[2], lowest[3]));
}

// The first i with values[i] == value (kNoDevice when none), 64 comparisons to a word.
DeviceId first_index_of(const double* values, std::size_t count, double value) {
  for (std::size_t base = 0; base < count; base += 64) {
    std::uint64_t equal = 0;
    for (std::size_t i = base; i < std::min(count, base + 64); ++i)
      equal |= static_cast<std::uint64_t>(values[i] == value) << (i - base);
    if (equal != 0)
      return static_cast<DeviceId>(base + static_cast<std::size_t>(std::countr_zero(equal)));
  }
  return kNoDevice;
}

// When all of t's inputs from the placed tasks (device kNoDevice: not yet) can be on
// device d, and t is released there.
double inputs_ready_seconds(const DagInstance& instance, std::span<const PlannedTask> tasks,
                            std::span<const double> release, std::uint32_t t, DeviceId d) {
  double ready = release.empty() ? 0.0 : release[t * instance.device_count() + d];
  for (const DagNeighbor& p : instance.predecessors(t)) {
    const PlannedTask& producer = tasks[p.task];
    if (producer.device == kNoDevice) continue;
    ready = std::max(ready,
                     producer.finish_seconds + instance.comm_seconds(p.edge, producer.device, d));
  }
  return ready;
}
}  // namespace

std::vector<double> upward_ranks(const DagInstance& instance) {
  std::vector<double> rank(instance.task_count(), 0.0);
  const auto& order = instance.topological_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const std::uint32_t t = *it;
    double tail = 0;
    for (const DagNeighbor& s : instance.successors(t))
      tail = std::max(tail, instance.mean_comm_seconds(s.edge) + rank[s.task]);
    rank[t] = instance.mean_compute_seconds(t) + tail;
  }
  return rank;
}

std::vector<double> downward_ranks(const DagInstance& instance) {
  std::vector<double> rank(instance.task_count(), 0.0);
  for (const std::uint32_t t : instance.topological_order()) {
    double head = 0;
    for (const DagNeighbor& p : instance.predecessors(t))
      head = std::max(head, rank[p.task] + instance.mean_compute_seconds(p.task) +
                                instance.mean_comm_seconds(p.edge));
    rank[t] = head;
  }
  return rank;
}

std::vector<double> optimistic_cost_table(const DagInstance& instance) {
  const std::size_t devices = instance.device_count();
  std::vector<double> table(instance.task_count() * devices, 0.0);
  // cost_through[w] = OCT(s,w) + w(s,w) for the successor s at hand.
  std::vector<double> through(devices);
  const auto& order = instance.topological_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const std::uint32_t t = *it;
    double* row = &table[t * devices];
    for (const DagNeighbor& s : instance.successors(t)) {
      double best_anywhere = kCannotRun;
      for (DeviceId w = 0; w < devices; ++w) {
        through[w] = table[s.task * devices + w] + instance.compute_seconds(s.task, w);
        best_anywhere = std::min(best_anywhere, through[w]);
      }
      const double moved = best_anywhere + instance.mean_comm_seconds(s.edge);
      for (DeviceId p = 0; p < devices; ++p) row[p] = std::max(row[p], std::min(through[p], moved));
    }
  }
  return table;
}

std::vector<std::uint32_t> topological_positions(const DagInstance& instance) {
  std::vector<std::uint32_t> position(instance.task_count());
  const auto& order = instance.topological_order();
  for (std::uint32_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  return position;
}

std::vector<std::uint32_t> order_by_decreasing(const DagInstance& instance,
                                               std::span<const double> key) {
  std::vector<std::uint32_t> order(instance.topological_order());
  const std::size_t n = order.size();
  const bool any_nan =
      std::any_of(order.begin(), order.end(), [&](std::uint32_t t) { return std::isnan(key[t]); });
  if (n < kRadixSortMinimum || any_nan) {
    const std::vector<std::uint32_t> position = topological_positions(instance);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return key[a] != key[b] ? key[a] > key[b] : position[a] < position[b];
    });
    return order;
  }
  // A stable LSD radix sort, one byte at a time, of the tasks in topological order
  // by a 64-bit image of the key that orders like the key, reversed (higher keys
  // first): equal keys keep their topological order, as in the comparison above.
  // Bytes on which all keys agree are skipped.
  std::vector<std::uint64_t> image(n), image_next(n);
  std::vector<std::uint32_t> order_next(n);
  for (std::size_t i = 0; i < n; ++i) {
    // + 0.0 turns -0 into +0 (the comparison above has them equal).
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(key[order[i]] + 0.0);
    constexpr std::uint64_t kSign = std::uint64_t{1} << 63;
    const std::uint64_t ascending = (bits & kSign) ? ~bits : bits | kSign;
    image[i] = ~ascending;
  }
  constexpr int kDigitBits = 8;
  constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;
  std::array<std::array<std::uint32_t, kBuckets>, 64 / kDigitBits> counts{};
  for (const std::uint64_t k : image)
    for (int digit = 0; digit < 64 / kDigitBits; ++digit)
      ++counts[digit][(k >> (digit * kDigitBits)) & (kBuckets - 1)];
  for (int digit = 0; digit < 64 / kDigitBits; ++digit) {
    std::array<std::uint32_t, kBuckets>& count = counts[digit];
    const int shift = digit * kDigitBits;
    if (count[(image[0] >> shift) & (kBuckets - 1)] == n) continue;  // all keys agree here
    std::uint32_t next = 0;
    for (std::uint32_t& c : count) next += std::exchange(c, next);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t at = count[(image[i] >> shift) & (kBuckets - 1)]++;
      image_next[at] = image[i];
      order_next[at] = order[i];
    }
    image.swap(image_next);
    order.swap(order_next);
  }
  return order;
}

std::vector<std::uint32_t> priority_order(const DagInstance& instance,
                                          std::span<const double> key) {
  // A key that never increases along an edge makes the sorted order topological,
  // and then each next task of it is ready when its turn comes: the ready-set order
  // is the sorted one, which order_by_decreasing computes in O(v) for large v.
  const bool never_increases =
      std::all_of(instance.edges().begin(), instance.edges().end(),
                  [&](const DagEdge& e) { return key[e.from] >= key[e.to]; });
  if (never_increases) return order_by_decreasing(instance, key);
  const std::size_t n = instance.task_count();
  const std::vector<std::uint32_t> position = topological_positions(instance);
  const auto lower_priority = [&](std::uint32_t a, std::uint32_t b) {
    return key[a] != key[b] ? key[a] < key[b] : position[a] > position[b];
  };
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, decltype(lower_priority)> ready(
      lower_priority);
  std::vector<std::uint32_t> waiting(n);
  for (std::uint32_t t = 0; t < n; ++t) {
    waiting[t] = static_cast<std::uint32_t>(instance.predecessors(t).size());
    if (waiting[t] == 0) ready.push(t);
  }
  std::vector<std::uint32_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    const std::uint32_t t = ready.top();
    ready.pop();
    order.push_back(t);
    for (const DagNeighbor& s : instance.successors(t))
      if (--waiting[s.task] == 0) ready.push(s.task);
  }
  return order;
}

PartialSchedule::PartialSchedule(const DagInstance& instance,
                                 std::span<const double> device_free_seconds)
    : PartialSchedule(instance, ScheduleLimits{.device_free_seconds = device_free_seconds}) {}

PartialSchedule::PartialSchedule(const DagInstance& instance, const ScheduleLimits& limits)
    : instance_(&instance),
      release_seconds_(limits.release_seconds),
      run_seconds_(limits.run_seconds),
      timeline_(instance.device_count(), limits.device_free_seconds),
      ready_scratch_(instance.device_count()),
      bound_scratch_(instance.device_count()),
      run_scratch_(instance.device_count()) {
  schedule_.tasks.assign(instance.task_count(), PlannedTask{kNoDevice, 0, 0});
  if (!limits.placed.empty())
    std::copy(limits.placed.begin(), limits.placed.end(), schedule_.tasks.begin());
  if (limits.network == NetworkModel::one_port_nics && instance.cluster() != nullptr &&
      instance.cluster()->node_count() > 1) {
    nics_.emplace(*instance.cluster(), limits.nic_free_seconds);
    external_inputs_from_ = limits.external_inputs_from_seconds;
    transfers_in_.resize(instance.task_count());
    node_scratch_.resize(instance.cluster()->node_count());
  }
}

double PartialSchedule::data_ready_seconds(std::uint32_t t, DeviceId d) const {
  if (!shares_nics())
    return inputs_ready_seconds(*instance_, schedule_.tasks, release_seconds_, t, d);
  const Cluster& cluster = *instance_->cluster();
  const NodeId node = cluster.node_of(d);
  double ready =
      release_seconds_.empty() ? 0.0 : release_seconds_[t * instance_->device_count() + d];
  const std::span<const SharedNics::Input> inputs = inputs_of(t);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].node == node) ready = std::max(ready, arrival_inside_node(i, d));
  return std::max(ready, remote_inputs_arrival(t, node));
}

std::span<const SharedNics::Input> PartialSchedule::inputs_of(std::uint32_t t) const {
  const Cluster& cluster = *instance_->cluster();
  inputs_scratch_.clear();
  input_devices_.clear();
  for (const DagNeighbor& p : instance_->predecessors(t)) {
    const PlannedTask& producer = schedule_.tasks[p.task];
    if (producer.device == kNoDevice) continue;
    inputs_scratch_.push_back(SharedNics::Input{.edge = p.edge,
                                                .node = cluster.node_of(producer.device),
                                                .sent_seconds = producer.finish_seconds,
                                                .bytes = instance_->edges()[p.edge].bytes});
    input_devices_.push_back(producer.device);
  }
  if (const double bytes = instance_->input_bytes(t); bytes > 0) {
    inputs_scratch_.push_back(SharedNics::Input{.edge = PlannedTransfer::kExternalInput,
                                                .node = instance_->data_node(),
                                                .sent_seconds = external_inputs_from_,
                                                .bytes = bytes});
    input_devices_.push_back(kNoDevice);
  }
  return inputs_scratch_;
}

double PartialSchedule::arrival_inside_node(std::size_t i, DeviceId d) const {
  const SharedNics::Input& input = inputs_scratch_[i];
  if (input_devices_[i] != kNoDevice)
    return input.sent_seconds + instance_->comm_seconds(input.edge, input_devices_[i], d);
  if (input.bytes <= 0) return input.sent_seconds;
  const Cluster& cluster = *instance_->cluster();
  return input.sent_seconds + (cluster.path_latency(input.node, input.node) +
                               input.bytes / cluster.path_bandwidth(input.node, input.node));
}

double PartialSchedule::remote_inputs_arrival(std::uint32_t t, NodeId node) const {
  if (remembered_.task == t && remembered_.node == node && remembered_.version == version_)
    return remembered_.arrival;
  const double arrival = nics_->arrival(inputs_of(t), node);
  remembered_ = {.task = t, .node = node, .version = version_, .arrival = arrival};
  return arrival;
}

void PartialSchedule::data_ready_through_nics(std::uint32_t t, std::span<double> ready) const {
  // Inside an input's node over the node's link; from other nodes through the NICs, the
  // same for every device of a node.
  const Cluster& cluster = *instance_->cluster();
  std::fill(ready.begin(), ready.end(), 0.0);
  const std::span<const SharedNics::Input> inputs = inputs_of(t);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    for (const DeviceId d : cluster.node(inputs[i].node).devices)
      ready[d] = std::max(ready[d], arrival_inside_node(i, d));
  nics_->arrival_on_every_node(inputs, node_scratch_);
  for (NodeId node = 0; node < cluster.node_count(); ++node)
    for (const DeviceId d : cluster.node(node).devices)
      ready[d] = std::max(ready[d], node_scratch_[node]);
}

void PartialSchedule::data_ready_on_every_device(std::uint32_t t, std::span<double> ready) const {
  data_ready_from_producers(t, ready);
  if (release_seconds_.empty()) return;
  const double* release = &release_seconds_[t * instance_->device_count()];
  for (std::size_t d = 0; d < ready.size(); ++d) ready[d] = std::max(ready[d], release[d]);
}

void PartialSchedule::data_ready_from_producers(std::uint32_t t, std::span<double> ready) const {
  if (shares_nics()) {
    data_ready_through_nics(t, ready);
    return;
  }
  if (!instance_->uniform_network()) {
    std::fill(ready.begin(), ready.end(), 0.0);
    for (const DagNeighbor& p : instance_->predecessors(t)) {
      const PlannedTask& producer = schedule_.tasks[p.task];
      if (producer.device != kNoDevice)
        instance_->raise_arrivals(p.edge, producer.device, producer.finish_seconds, ready);
    }
    return;
  }
  // A uniform network, in O(in-degree + devices): a device that holds none of the
  // producers gets every input at `latest` (the latest finish + transfer); the
  // device of that latest input gets the others' at `latest_elsewhere`; each
  // producer's own device also has its output from the moment it finishes.
  double latest = 0, latest_elsewhere = 0;
  DeviceId latest_device = kNoDevice;
  for (const DagNeighbor& p : instance_->predecessors(t)) {
    const PlannedTask& producer = schedule_.tasks[p.task];
    if (producer.device == kNoDevice) continue;
    const double arrival = producer.finish_seconds + instance_->uniform_comm_seconds(p.edge);
    if (producer.device == latest_device) {
      latest = std::max(latest, arrival);
    } else if (arrival > latest || latest_device == kNoDevice) {
      latest_elsewhere = latest;
      latest = std::max(latest, arrival);
      latest_device = producer.device;
    } else {
      latest_elsewhere = std::max(latest_elsewhere, arrival);
    }
  }
  std::fill(ready.begin(), ready.end(), latest);
  if (latest_device == kNoDevice) return;
  ready[latest_device] = latest_elsewhere;
  for (const DagNeighbor& p : instance_->predecessors(t)) {
    const PlannedTask& producer = schedule_.tasks[p.task];
    if (producer.device != kNoDevice)
      ready[producer.device] = std::max(ready[producer.device], producer.finish_seconds);
  }
}

PlannedTask PartialSchedule::placement(std::uint32_t t, DeviceId d, double run,
                                       SlotRule rule) const {
  const double ready = data_ready_seconds(t, d);
  const double start = rule == SlotRule::insertion ? timeline_.earliest_start(d, ready, run)
                                                   : timeline_.earliest_start_appending(d, ready);
  return PlannedTask{d, start, start + run};
}

PlannedTask PartialSchedule::earliest_placement(std::uint32_t t, DeviceId d) const {
  const double run = run_seconds(t, d);
  if (run == kCannotRun) return PlannedTask{d, kCannotRun, kCannotRun};
  const double start = timeline_.earliest_start(d, data_ready_seconds(t, d), run);
  return PlannedTask{d, start, start + run};
}

PlannedTask PartialSchedule::appending_placement(std::uint32_t t, DeviceId d) const {
  const double run = run_seconds(t, d);
  if (run == kCannotRun) return PlannedTask{d, kCannotRun, kCannotRun};
  const double start = timeline_.earliest_start_appending(d, data_ready_seconds(t, d));
  return PlannedTask{d, start, start + run};
}

PlannedTask PartialSchedule::earliest_finish_placement(std::uint32_t t, SlotRule rule) const {
  return rule == SlotRule::insertion ? earliest_finish_inserting(t) : earliest_finish_appending(t);
}

PlannedTask PartialSchedule::earliest_finish_appending(std::uint32_t t) const {
  PlannedTask best{kNoDevice, kCannotRun, kCannotRun};
  data_ready_on_every_device(t, ready_scratch_);
  const std::span<const double> runs = run_row(t);
  for (DeviceId d = 0; d < runs.size(); ++d) {
    if (runs[d] == kCannotRun) continue;
    const double start = timeline_.earliest_start_appending(d, ready_scratch_[d]);
    if (start + runs[d] < best.finish_seconds) best = PlannedTask{d, start, start + runs[d]};
  }
  return best;
}

PlannedTask PartialSchedule::earliest_finish_inserting(std::uint32_t t) const {
  // Every device's finish is bounded from below in one vector pass: exactly where
  // the timeline knows the start without a gap search (idle from the data-ready
  // time on, or no gap after it long enough: DeviceTimeline::finish_bounds), else
  // by data-ready time + run time (the timeline can only delay the start). The
  // device with the lowest bound is tried first; it sets a finish that rules out
  // nearly every other device, and only those whose bound could still beat it are
  // looked at again (a search where the start is not known). Ties go to the lowest
  // device id, as in a plain search of every device; a device that cannot run the
  // task has an infinite run time and never wins.
  PlannedTask best{kNoDevice, kCannotRun, kCannotRun};
  data_ready_on_every_device(t, ready_scratch_);
  const std::span<const double> runs = run_row(t);
  timeline_.finish_bounds(ready_scratch_, runs, bound_scratch_);
  const double* bounds = bound_scratch_.data();
  const std::size_t count = runs.size();
  const double lowest_bound = lowest_of(bounds, count);
  if (!(lowest_bound < kCannotRun)) return best;
  const auto try_device = [&](DeviceId d) {
    const double bound = bounds[d];
    if (bound > best.finish_seconds || (bound == best.finish_seconds && d > best.device)) return;
    const double run = runs[d];
    const double ready = ready_scratch_[d];
    double start;
    if (!timeline_.known_start(d, ready, run, start))
      start = timeline_.earliest_start_updating_probe(d, ready, run);
    const double finish = start + run;
    if (finish < best.finish_seconds || (finish == best.finish_seconds && d < best.device))
      best = PlannedTask{d, start, finish};
  };
  const DeviceId first = first_index_of(bounds, count, lowest_bound);
  try_device(first);
  // The other devices whose bound does not exceed the best finish so far, 64 at a
  // time as the bits of a word (no branch per device); try_device checks each
  // again against the best when its turn comes.
  for (std::size_t base = 0; base < count; base += 64) {
    const std::size_t end = std::min(count, base + 64);
    const double finish = best.finish_seconds;
    std::uint64_t candidates = 0;
    for (std::size_t d = base; d < end; ++d)
      candidates |= static_cast<std::uint64_t>(!(bounds[d] > finish) & (runs[d] != kCannotRun))
                    << (d - base);
    if (first >= base && first < end) candidates &= ~(std::uint64_t{1} << (first - base));
    for (; candidates != 0; candidates &= candidates - 1)
      try_device(
          static_cast<DeviceId>(base + static_cast<std::size_t>(std::countr_zero(candidates))));
  }
  return best;
}

void PartialSchedule::place(std::uint32_t t, const PlannedTask& placement) {
  ++version_;
  if (shares_nics())
    nics_->fit(inputs_of(t), instance_->cluster()->node_of(placement.device), transfers_in_[t]);
  schedule_.tasks[t] = placement;
  timeline_.insert(placement.device, placement.start_seconds, placement.finish_seconds);
}

void PartialSchedule::unplace(std::uint32_t t) {
  ++version_;
  PlannedTask& p = schedule_.tasks[t];
  timeline_.remove(p.device, p.start_seconds, p.finish_seconds);
  p = PlannedTask{kNoDevice, 0, 0};
  if (!shares_nics()) return;
  nics_->free(transfers_in_[t]);
  transfers_in_[t].clear();
}

StaticSchedule PartialSchedule::finish() && {
  schedule_.makespan_seconds = 0;
  for (const PlannedTask& p : schedule_.tasks)
    if (p.device != kNoDevice)
      schedule_.makespan_seconds = std::max(schedule_.makespan_seconds, p.finish_seconds);
  for (const std::vector<PlannedTransfer>& in : transfers_in_)
    schedule_.transfers.insert(schedule_.transfers.end(), in.begin(), in.end());
  return std::move(schedule_);
}

StaticSchedule schedule_in_order(const DagInstance& instance, std::span<const std::uint32_t> order,
                                 std::span<const DeviceId> devices, const ScheduleLimits& limits,
                                 SlotRule rule, std::span<const double> task_run_seconds) {
  const auto run_of = [&](std::uint32_t t, DeviceId d) {
    if (!task_run_seconds.empty()) return task_run_seconds[t];
    return limits.run_seconds.empty() ? instance.compute_seconds(t, d)
                                      : limits.run_seconds[t * instance.device_count() + d];
  };
  if (rule == SlotRule::append && limits.network == NetworkModel::contention_free) {
    // Each device's tasks one after another: its last finish is all there is to know
    // (what PartialSchedule's timeline would say, without building one; the energy
    // planners re-time this way in their inner loops).
    StaticSchedule schedule;
    schedule.tasks.assign(instance.task_count(), PlannedTask{kNoDevice, 0, 0});
    std::vector<double> last_finish(instance.device_count(), 0.0);
    for (std::size_t d = 0; d < last_finish.size() && d < limits.device_free_seconds.size(); ++d)
      last_finish[d] = limits.device_free_seconds[d];
    for (const std::uint32_t t : order) {
      const DeviceId d = devices[t];
      const double run = run_of(t, d);
      if (task_run_seconds.empty() && run == kCannotRun) {  // as appending_placement says
        schedule.tasks[t] = PlannedTask{d, kCannotRun, kCannotRun};
      } else {
        const double start =
            std::max(inputs_ready_seconds(instance, schedule.tasks, limits.release_seconds, t, d),
                     last_finish[d]);
        schedule.tasks[t] = PlannedTask{d, start, start + run};
      }
      last_finish[d] = schedule.tasks[t].finish_seconds;
      schedule.makespan_seconds =
          std::max(schedule.makespan_seconds, schedule.tasks[t].finish_seconds);
    }
    return schedule;
  }
  PartialSchedule partial(instance, limits);
  for (const std::uint32_t t : order) {
    const DeviceId d = devices[t];
    partial.place(t, task_run_seconds.empty() ? partial.earliest_placement(t, d)
                                              : partial.placement(t, d, run_of(t, d), rule));
  }
  return std::move(partial).finish();
}

StaticSchedule earliest_finish_schedule(const DagInstance& instance,
                                        std::span<const std::uint32_t> order,
                                        const ScheduleLimits& limits, SlotRule rule) {
  PartialSchedule partial(instance, limits);
  for (const std::uint32_t t : order) {
    if (partial.placed(t)) continue;
    const PlannedTask best = partial.earliest_finish_placement(t, rule);
    if (best.device == kNoDevice) continue;  // no device can run it
    partial.place(t, best);
  }
  return std::move(partial).finish();
}

StaticSchedule upward_rank_schedule(const DagInstance& instance, const ScheduleLimits& limits,
                                    SlotRule rule) {
  const std::vector<double> rank = upward_ranks(instance);
  return earliest_finish_schedule(instance, priority_order(instance, rank), limits, rule);
}

std::vector<std::uint32_t> start_order(const DagInstance& instance, const StaticSchedule& schedule,
                                       StartTies ties) {
  std::vector<std::uint32_t> order(instance.topological_order());
  if (ties == StartTies::finish_then_index) {
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      const PlannedTask &x = schedule.tasks[a], &y = schedule.tasks[b];
      if (x.start_seconds != y.start_seconds) return x.start_seconds < y.start_seconds;
      if (x.finish_seconds != y.finish_seconds) return x.finish_seconds < y.finish_seconds;
      return a < b;
    });
    return order;
  }
  const std::vector<std::uint32_t> position = topological_positions(instance);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const double sa = schedule.tasks[a].start_seconds, sb = schedule.tasks[b].start_seconds;
    return sa != sb ? sa < sb : position[a] < position[b];
  });
  return order;
}

}  // namespace hetsched
