// The earliest-finish index: classes of identical parts on a node, groups of classes of one
// part, heaps by predicted free time walked in order until no class can beat the best
// finish (see the header for the account and the cost).
#include "hetsched/policy/earliest_finish_index.hpp"

#include <algorithm>

#include "hetsched/workload/feasibility.hpp"

namespace hetsched {

void EarliestFinishIndex::sync(const ClusterSnapshot& snapshot) {
  const std::span<const DeviceId> lowered = snapshot.availability_lowered;
  const std::uint64_t first = snapshot.availability_lowered_first;
  if (indexed_devices_ != snapshot.cluster.device_count() || lowered_seen_ < first) {
    build(snapshot);  // the cluster grew, or lowered devices were dropped before being seen
  } else {
    for (std::size_t i = lowered_seen_ - first; i < lowered.size(); ++i)
      lower(snapshot, lowered[i]);
  }
  lowered_seen_ = first + lowered.size();
}

// Devices of one spec on one node form a class; classes of one spec (the cluster's spec
// class), a group. Every key is the current free time.
void EarliestFinishIndex::build(const ClusterSnapshot& snapshot) {
  const Cluster& cluster = snapshot.cluster;
  const std::span<const double> available = snapshot.device_available_seconds;
  classes_.clear();
  groups_.clear();
  first_class_of_node_.clear();
  indexed_devices_ = cluster.device_count();
  class_of_device_.assign(indexed_devices_, 0);
  for (const Node& node : cluster.nodes()) {
    const std::size_t first_class_of_node = classes_.size();
    first_class_of_node_.push_back(static_cast<std::uint32_t>(first_class_of_node));
    for (DeviceId d : node.devices) {
      std::size_t c = first_class_of_node;
      while (c < classes_.size() &&
             cluster.spec_class(classes_[c].members.front()) != cluster.spec_class(d))
        ++c;
      if (c == classes_.size())
        classes_.push_back(DeviceClass{});  // a few devices: found by a scan
      classes_[c].members.push_back(d);
      classes_[c].devices.push({available[d], d});
      class_of_device_[d] = static_cast<std::uint32_t>(c);
    }
  }
  first_class_of_node_.push_back(static_cast<std::uint32_t>(classes_.size()));
  class_group_position_.assign(classes_.size(), 0);
  class_rack_position_.assign(classes_.size(), 0);
  for (std::uint32_t g = 0; g < cluster.spec_class_count(); ++g)
    groups_.push_back(Group{
        cluster.spec_class_device(g), FreeTimeHeap(&class_group_position_),
        std::vector<FreeTimeHeap>(cluster.rack_count(), FreeTimeHeap(&class_rack_position_))});
  run_of_group_.assign(groups_.size(), kCannotRun);
  for (std::uint32_t c = 0; c < classes_.size(); ++c) {
    const Device& first = cluster.device(classes_[c].members.front());
    Group& group = groups_[cluster.spec_class(first.id)];
    group.widest_nic = std::max(group.widest_nic, cluster.node(first.node).nic_bandwidth);
    const double key = classes_[c].devices.top().available;
    group.heap.push({key, c});
    group.rack_heaps[cluster.rack_index(first.node)].push({key, c});
  }
}

// The device's free time went down: its key in its class's heap, and its class's in the
// group's heaps, come down with it (keys above the current value would hide it).
void EarliestFinishIndex::lower(const ClusterSnapshot& snapshot, DeviceId d) {
  const double now_free = snapshot.device_available_seconds[d];
  const std::uint32_t c = class_of_device_[d];
  classes_[c].devices.lower(d, now_free);
  Group& group = groups_[snapshot.cluster.spec_class(d)];
  group.heap.lower(c, now_free);
  group.rack_heaps[snapshot.cluster.rack_index(snapshot.cluster.node_of(d))].lower(c, now_free);
}

EarliestFinishIndex::Choice EarliestFinishIndex::earliest_finish(const ClusterSnapshot& snapshot,
                                                                 TaskIndex t, double free_by) {
  const Task& task = snapshot.graph.task(t);
  Choice best;
  if (!task.cost_seconds.empty()) {
    for (const Device& d : snapshot.cluster.devices())
      consider(snapshot, t, d.id, snapshot.perf.task_seconds(task, d, 0), free_by, best);
    return best;
  }
  // Groups in order of run time (then index), so the fast ones set a tight bound early;
  // an insertion sort, as there are only a few groups.
  runs_.clear();
  for (std::uint32_t g = 0; g < groups_.size(); ++g) {
    const Device& representative = snapshot.cluster.device(groups_[g].representative);
    const double run = snapshot.perf.task_seconds(task, representative, 0);
    run_of_group_[g] = run;
    if (run == kCannotRun) continue;
    runs_.emplace_back(run, g);
    for (std::size_t i = runs_.size() - 1; i > 0 && run < runs_[i - 1].first; --i)
      std::swap(runs_[i], runs_[i - 1]);
  }
  // The nodes where an input is already (the job's data node, the predecessors' devices'
  // nodes) get it sooner than any other: their classes are looked at one by one, and the
  // walks are bounded by the soonest every input can reach the rest.
  const NodeId data_node = snapshot.graph.job(snapshot.graph.job_of(t)).data_node;
  near_.clear();
  if (task.input_bytes > 0) near_.push_back(data_node);
  for (const Dependency& p : snapshot.graph.predecessors(t)) {
    if (snapshot.placement[p.task] == kUnplaced) continue;
    const NodeId holder = snapshot.cluster.node_of(snapshot.placement[p.task]);
    if (std::find(near_.begin(), near_.end(), holder) == near_.end()) near_.push_back(holder);
  }
  for (NodeId n : near_)
    for (std::uint32_t c = first_class_of_node_[n]; c < first_class_of_node_[n + 1]; ++c) {
      const DeviceId d = first_free(classes_[c], snapshot);
      consider(snapshot, t, d, run_of_group_[snapshot.cluster.spec_class(d)], free_by, best);
    }
  near_racks_.clear();
  for (NodeId n : near_)
    if (const std::uint32_t r = snapshot.cluster.rack_index(n);
        std::find(near_racks_.begin(), near_racks_.end(), r) == near_racks_.end())
      near_racks_.push_back(r);
  for (const auto& [run, g] : runs_) {
    const double widest = groups_[g].widest_nic;
    search(snapshot, t, groups_[g].heap, run,
           arrive_in_rack(snapshot, t, data_node, widest, kNoRack), free_by, best);
    for (std::uint32_t r : near_racks_)
      search(snapshot, t, groups_[g].rack_heaps[r], run,
             arrive_in_rack(snapshot, t, data_node, widest, r), free_by, best);
  }
  for (const Dependency& p : snapshot.graph.predecessors(t)) {
    const DeviceId holder = snapshot.placement[p.task];
    if (holder == kUnplaced) continue;
    consider(snapshot, t, holder, run_of_group_[snapshot.cluster.spec_class(holder)], free_by,
             best);
  }
  return best;
}

DeviceId EarliestFinishIndex::first_free(const ClusterSnapshot& snapshot, TaskIndex t) {
  const Task& task = snapshot.graph.task(t);
  const std::span<const double> available = snapshot.device_available_seconds;
  DeviceId first = kUnplaced;
  for (Group& group : groups_) {
    if (group.heap.empty() || !can_run(task, snapshot.cluster.device(group.representative)))
      continue;
    const DeviceId d = first_free(group.heap, snapshot);
    if (first == kUnplaced || available[d] < available[first] ||
        (available[d] == available[first] && d < first))
      first = d;
  }
  return first;
}

// Each input from a node of `rack` at the rack's bound, from elsewhere at the bound across
// racks. Lower bounds over nodes whose NIC is at most `widest_nic`; `now` for a task with
// no inputs.
inline double EarliestFinishIndex::arrive_in_rack(const ClusterSnapshot& snapshot, TaskIndex t,
                                                  NodeId data_node, double widest_nic,
                                                  std::uint32_t rack) {
  const double now = snapshot.now_seconds;
  double arrive = now;
  if (const double bytes = snapshot.graph.task(t).input_bytes; bytes > 0) {
    const Cluster::RemoteInputBounds input =
        snapshot.perf.remote_host_to_device_lower_bounds(bytes, data_node, widest_nic);
    arrive = now +
             (snapshot.cluster.rack_index(data_node) == rack ? input.same_rack : input.other_racks);
  }
  for (const Dependency& p : snapshot.graph.predecessors(t)) {
    const DeviceId holder = snapshot.placement[p.task];
    if (holder == kUnplaced) continue;
    const NodeId from = snapshot.cluster.node_of(holder);
    const Cluster::RemoteInputBounds output =
        snapshot.perf.remote_host_to_device_lower_bounds(p.bytes, from, widest_nic);
    arrive = std::max(arrive, std::max(now, snapshot.finish_seconds[p.task]) +
                                  (snapshot.cluster.rack_index(from) == rack ? output.same_rack
                                                                             : output.other_racks));
  }
  return arrive;
}

inline DeviceId EarliestFinishIndex::first_free(DeviceClass& c, const ClusterSnapshot& snapshot) {
  return c.devices
      .current_top([&](std::uint32_t d) { return snapshot.device_available_seconds[d]; })
      .index;
}

DeviceId EarliestFinishIndex::first_free(FreeTimeHeap& heap, const ClusterSnapshot& snapshot) {
  const FreeTimeEntry& top = heap.current_top([&](std::uint32_t c) {
    return snapshot.device_available_seconds[first_free(classes_[c], snapshot)];
  });
  return first_free(classes_[top.index], snapshot);  // current already: no correction
}

// Visits a heap's classes in order of first free time (then index) while they can still
// beat the best finish, their inputs arriving at `inputs_arrive` at the soonest, and are
// free by `free_by`. The heap is read, not popped: the next class in order is the earliest
// entry of the frontier (the root, then the children of every position visited), so
// visiting v classes costs O(v log v).
void EarliestFinishIndex::search(const ClusterSnapshot& snapshot, TaskIndex t, FreeTimeHeap& heap,
                                 double run, double inputs_arrive, double free_by, Choice& best) {
  if (heap.empty()) return;
  // The frontier is itself a min-heap of positions, ordered by their entries.
  const auto later = [&heap](std::uint32_t a, std::uint32_t b) {
    return earlier(heap.at(b), heap.at(a));
  };
  frontier_.clear();
  frontier_.push_back(0);
  while (!frontier_.empty()) {
    const std::uint32_t position = frontier_.front();
    const FreeTimeEntry entry = heap.at(position);
    const DeviceId d = first_free(classes_[entry.index], snapshot);
    const double current = snapshot.device_available_seconds[d];
    if (current != entry.available) {
      // Out of date: a later free time moves the entry down inside its own subtree, where
      // nothing has been visited (its position now holds a later entry, which takes its
      // place in the frontier).
      heap.update(position, current);
      std::pop_heap(frontier_.begin(), frontier_.end(), later);
      std::push_heap(frontier_.begin(), frontier_.end(), later);
      continue;
    }
    if (current > free_by || std::max(current, inputs_arrive) + run >= best.finish) break;
    std::pop_heap(frontier_.begin(), frontier_.end(), later);
    frontier_.pop_back();
    for (std::uint32_t child = 2 * position + 1; child <= 2 * position + 2; ++child)
      if (child < heap.size()) {
        frontier_.push_back(child);
        std::push_heap(frontier_.begin(), frontier_.end(), later);
      }
    consider(snapshot, t, d, run, free_by, best);
  }
}

inline void EarliestFinishIndex::consider(const ClusterSnapshot& snapshot, TaskIndex t, DeviceId d,
                                          double run, double free_by, Choice& best) {
  if (run == kCannotRun || snapshot.device_available_seconds[d] > free_by) return;
  const double start =
      std::max(snapshot.device_available_seconds[d], snapshot.data_ready_seconds(t, d));
  const double finish = start + run;
  if (finish < best.finish || (finish == best.finish && d < best.device)) best = {d, finish};
}

}  // namespace hetsched
