// Greedy earliest finish time (online EFT, as StarPU's dm/dmda schedulers and the
// MCT heuristic of Braun et al. 2001): each ready task, in the order it became
// ready, goes to the device where it would finish first — the later of the
// device's predicted free time and the arrival of its inputs, plus its predicted
// run time there.
//
// To stay fast on large clusters it never scans every device:
//  - devices are grouped into classes of identical parts on one node; within a
//    class every device that holds none of the task's inputs sees the same input
//    arrival and run time, so only the one that frees up first matters (a min-heap
//    per class, ties to the lower device id);
//  - classes of one part form a group, whose classes sit in a min-heap keyed by
//    their first free time (and in one such heap per rack). The search walks a
//    heap in key order without taking anything out (a small frontier of heap
//    positions whose parents were seen), and a class that cannot beat the best
//    finish found so far ends the walk: its bound is the later of its free time
//    and the soonest all the task's inputs can reach it, plus the run time;
//  - the nodes that already hold an input (the job's data node for a task that
//    reads one, the nodes of its predecessors' devices) get it sooner than any
//    other, so their classes, and the predecessors' devices, are looked at one by
//    one; then the group heap is walked, bounded by the least time for every input
//    to reach a node of another rack than the one it is in, and the rack heap of
//    each rack that holds an input (the data node's, the predecessors' devices'),
//    where the inputs from that rack have the least time to another node of the
//    rack (a bound that let every input arrive at the in-rack time everywhere made
//    the walks look at every idle class of the other racks, whose inputs come
//    later by the spine's latency). On an idle cluster the nearest free device is
//    found in a few steps, on a busy one the first free; a task with no inputs walks
//    the group heap bounded by now.
// The finish time chosen is exactly the earliest; among devices of equal finish the
// lowest id of those the search looked at wins (it stops at the first class that
// cannot beat the best finish, so an equal one further on is not seen). Heaps are
// corrected lazily: predicted free times only grow as work is placed, so an
// out-of-date entry is given its current value (and moved in place) when the
// search reaches it. Tasks with explicit per-device costs are scanned over every
// device.
//
// The bounds use the network's latencies and the narrower of the sending node's NIC
// and the widest NIC among the group's nodes (and the spine between racks).
//
// Cost per decision: O(groups log groups) to order the groups, then per group and per
// walk (the group heap, and one rack heap per rack holding an input) O(v log v) for the
// v classes whose bound beats the best finish (v is a few when the nodes of a part have
// alike NICs, idle or busy), plus the lazy heap corrections (O(log classes) each), and
// the classes of the nodes holding inputs; it does not grow with the number of
// devices.
//
// Its score for a candidate device (score_devices) is its own rule as a number: the
// earliest predicted finish among the candidates / the device's, 1 where it would
// place the task.
#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "hetsched/policy/scheduling_policy.hpp"
#include "hetsched/workload/feasibility.hpp"

namespace hetsched {
namespace {

// A device in a class heap or a class in a group heap, keyed by its predicted
// free time; ties go to the lower index.
struct HeapEntry {
  double available;
  std::uint32_t index;
};

bool earlier(const HeapEntry& a, const HeapEntry& b) {
  return a.available < b.available || (a.available == b.available && a.index < b.index);
}

// A binary min-heap whose entries can be read at any position and given a new
// key in place (which moves the entry up or down to where it belongs).
class MinHeap {
 public:
  bool empty() const { return entries_.empty(); }
  std::uint32_t size() const { return static_cast<std::uint32_t>(entries_.size()); }
  const HeapEntry& top() const { return entries_.front(); }
  const HeapEntry& at(std::uint32_t position) const { return entries_[position]; }
  void clear() { entries_.clear(); }

  void push(HeapEntry entry) {
    entries_.push_back(entry);
    sift_up(size() - 1, entry);
  }
  // Gives the entry at `position` a new key and moves it to its place.
  void update(std::uint32_t position, double available) {
    HeapEntry entry = entries_[position];
    const bool up = available < entry.available;
    entry.available = available;
    if (up)
      sift_up(position, entry);
    else
      sift_down(position, entry);
  }

 private:
  void sift_up(std::uint32_t position, const HeapEntry& entry) {
    while (position > 0) {
      const std::uint32_t parent = (position - 1) / 2;
      if (!earlier(entry, entries_[parent])) break;
      entries_[position] = entries_[parent];
      position = parent;
    }
    entries_[position] = entry;
  }
  void sift_down(std::uint32_t position, const HeapEntry& entry) {
    const std::uint32_t n = size();
    while (true) {
      std::uint32_t child = 2 * position + 1;
      if (child >= n) break;
      if (child + 1 < n && earlier(entries_[child + 1], entries_[child])) ++child;
      if (!earlier(entries_[child], entry)) break;
      entries_[position] = entries_[child];
      position = child;
    }
    entries_[position] = entry;
  }

  std::vector<HeapEntry> entries_;
};

class GreedyEftPolicy final : public SchedulingPolicy {
 public:
  std::string_view name() const override { return "greedy-eft"; }

  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    if (grouped_devices_ != snapshot.cluster.device_count()) build_groups(snapshot.cluster);
    for (TaskIndex t : ready) {
      const Task& task = snapshot.graph.task(t);
      Choice best;
      if (task.cost_seconds.empty()) {
        // Groups in order of run time (then index), so the fast ones set a tight
        // bound early; an insertion sort, as there are only a few groups.
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
        // The nodes where an input is already (the job's data node, the predecessors'
        // devices' nodes) get it sooner than any other: their classes are looked at one by
        // one, and the walks are bounded by the soonest every input can reach the rest.
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
            consider(snapshot, t, d, run_of_group_[snapshot.cluster.spec_class(d)], best);
          }
        near_racks_.clear();
        for (NodeId n : near_)
          if (const std::uint32_t r = snapshot.cluster.rack_index(n);
              std::find(near_racks_.begin(), near_racks_.end(), r) == near_racks_.end())
            near_racks_.push_back(r);
        for (const auto& [run, g] : runs_) {
          const double widest = groups_[g].widest_nic;
          search(snapshot, t, groups_[g].heap, run,
                 arrive_in_rack(snapshot, t, data_node, widest, kNoRack), best);
          for (std::uint32_t r : near_racks_)
            search(snapshot, t, groups_[g].rack_heaps[r], run,
                   arrive_in_rack(snapshot, t, data_node, widest, r), best);
        }
        for (const Dependency& p : snapshot.graph.predecessors(t)) {
          const DeviceId holder = snapshot.placement[p.task];
          if (holder == kUnplaced) continue;
          consider(snapshot, t, holder, run_of_group_[snapshot.cluster.spec_class(holder)], best);
        }
      } else {
        for (const Device& d : snapshot.cluster.devices())
          consider(snapshot, t, d.id, snapshot.perf.task_seconds(task, d, 0), best);
      }
      if (best.device == kUnplaced) continue;  // no device can run it: left for the loop to report
      out.assign(Assignment{.task = t,
                            .device = best.device,
                            .pstate = 0,
                            .planned_start_seconds = kAppend,
                            .predicted_finish_seconds = best.finish});
    }
  }

  std::vector<double> score_devices(const ClusterSnapshot& snapshot, TaskIndex task,
                                    std::span<const DeviceId> candidates) override {
    return finish_time_scores(snapshot, task, candidates);
  }

 private:
  struct DeviceClass {
    std::vector<DeviceId> members;
    MinHeap devices;
    bool rebuilt = false;
  };
  struct Group {
    DeviceId representative;
    MinHeap heap;                     // of its classes
    std::vector<MinHeap> rack_heaps;  // of its classes in each rack
    double widest_nic = 0;            // of the nodes its classes are on
  };
  struct Choice {
    DeviceId device = kUnplaced;
    double finish = kCannotRun;
  };

  // Devices of one spec on one node form a class; classes of one spec (the cluster's
  // spec class), a group. Built
  // again when the cluster has grown (nodes joined a running service).
  void build_groups(const Cluster& cluster) {
    classes_.clear();
    groups_.clear();
    first_class_of_node_.clear();
    grouped_devices_ = cluster.device_count();
    for (const Node& node : cluster.nodes()) {
      const std::size_t first_class_of_node = classes_.size();
      first_class_of_node_.push_back(static_cast<std::uint32_t>(first_class_of_node));
      for (DeviceId d : node.devices) {
        std::size_t c = first_class_of_node;
        while (c < classes_.size() &&
               !(cluster.device(classes_[c].members.front()).spec == cluster.device(d).spec))
          ++c;
        if (c == classes_.size()) classes_.push_back(DeviceClass{{}, MinHeap{}, false});
        classes_[c].members.push_back(d);
        classes_[c].devices.push({0.0, d});
      }
    }
    first_class_of_node_.push_back(static_cast<std::uint32_t>(classes_.size()));
    for (std::uint32_t g = 0; g < cluster.spec_class_count(); ++g)
      groups_.push_back(Group{cluster.spec_class_device(g), MinHeap{},
                              std::vector<MinHeap>(cluster.rack_count())});
    run_of_group_.assign(groups_.size(), kCannotRun);
    for (std::uint32_t c = 0; c < classes_.size(); ++c) {
      const Device& first = cluster.device(classes_[c].members.front());
      Group& group = groups_[cluster.spec_class(first.id)];
      group.widest_nic = std::max(group.widest_nic, cluster.node(first.node).nic_bandwidth);
      group.heap.push({0.0, c});
      group.rack_heaps[cluster.rack_index(first.node)].push({0.0, c});
    }
  }

  // The soonest all of a task's inputs can reach a node of `rack` that holds none of them
  // (kNoRack: a node of any rack where none of them is): each input from a node of that
  // rack at the rack's bound, from elsewhere at the bound across racks. Lower bounds over
  // nodes whose NIC is at most `widest_nic`; `now` for a task with no inputs.
  static constexpr std::uint32_t kNoRack = UINT32_MAX;
  static double arrive_in_rack(const ClusterSnapshot& snapshot, TaskIndex t, NodeId data_node,
                               double widest_nic, std::uint32_t rack) {
    const double now = snapshot.now_seconds;
    double arrive = now;
    if (const double bytes = snapshot.graph.task(t).input_bytes; bytes > 0) {
      const Cluster::RemoteInputBounds input =
          snapshot.perf.remote_host_to_device_lower_bounds(bytes, data_node, widest_nic);
      arrive = now + (snapshot.cluster.rack_index(data_node) == rack ? input.same_rack
                                                                     : input.other_racks);
    }
    for (const Dependency& p : snapshot.graph.predecessors(t)) {
      const DeviceId holder = snapshot.placement[p.task];
      if (holder == kUnplaced) continue;
      const NodeId from = snapshot.cluster.node_of(holder);
      const Cluster::RemoteInputBounds output =
          snapshot.perf.remote_host_to_device_lower_bounds(p.bytes, from, widest_nic);
      arrive = std::max(
          arrive,
          std::max(now, snapshot.finish_seconds[p.task]) +
              (snapshot.cluster.rack_index(from) == rack ? output.same_rack : output.other_racks));
    }
    return arrive;
  }

  // The class member that frees up first (its heap corrected lazily).
  static DeviceId first_free(DeviceClass& c, const ClusterSnapshot& snapshot) {
    while (true) {
      const HeapEntry top = c.devices.top();
      const double current = snapshot.device_available_seconds[top.index];
      if (current == top.available) {
        // A device that is out (fault/) looks busy forever; when one heads the heap,
        // rebuild it from current values so members that came back are seen.
        if (current == std::numeric_limits<double>::infinity() && !c.rebuilt) {
          c.devices.clear();
          for (DeviceId d : c.members) c.devices.push({snapshot.device_available_seconds[d], d});
          c.rebuilt = true;
          continue;
        }
        c.rebuilt = false;
        return top.index;
      }
      c.devices.update(0, current);
    }
  }

  // Visits a heap's classes in order of first free time (then index) while they can
  // still beat the best finish, their inputs arriving at `inputs_arrive` at the
  // soonest. The heap is read, not popped: the next class in order is the earliest
  // entry of the frontier (the root, then the children of every position visited), so
  // visiting v classes costs O(v log v).
  void search(const ClusterSnapshot& snapshot, TaskIndex t, MinHeap& heap, double run,
              double inputs_arrive, Choice& best) {
    if (heap.empty()) return;
    // The frontier is itself a min-heap of positions, ordered by their entries.
    const auto later = [&heap](std::uint32_t a, std::uint32_t b) {
      return earlier(heap.at(b), heap.at(a));
    };
    frontier_.assign(1, 0);
    while (!frontier_.empty()) {
      const std::uint32_t position = frontier_.front();
      const HeapEntry entry = heap.at(position);
      const DeviceId d = first_free(classes_[entry.index], snapshot);
      const double current = snapshot.device_available_seconds[d];
      if (current != entry.available) {
        // Out of date. A later free time moves the entry down inside its own subtree,
        // where nothing has been visited (its position now holds a later entry, which
        // takes its place in the frontier); an earlier one may move it above visited
        // positions, so the walk starts over (visiting a class again changes nothing).
        heap.update(position, current);
        if (current < entry.available) {
          frontier_.assign(1, 0);
        } else {
          std::pop_heap(frontier_.begin(), frontier_.end(), later);
          std::push_heap(frontier_.begin(), frontier_.end(), later);
        }
        continue;
      }
      if (std::max(current, inputs_arrive) + run >= best.finish) break;
      std::pop_heap(frontier_.begin(), frontier_.end(), later);
      frontier_.pop_back();
      for (std::uint32_t child = 2 * position + 1; child <= 2 * position + 2; ++child)
        if (child < heap.size()) {
          frontier_.push_back(child);
          std::push_heap(frontier_.begin(), frontier_.end(), later);
        }
      consider(snapshot, t, d, run, best);
    }
  }

  static void consider(const ClusterSnapshot& snapshot, TaskIndex t, DeviceId d, double run,
                       Choice& best) {
    if (run == kCannotRun) return;
    const double start =
        std::max(snapshot.device_available_seconds[d], snapshot.data_ready_seconds(t, d));
    const double finish = start + run;
    if (finish < best.finish || (finish == best.finish && d < best.device)) best = {d, finish};
  }

  std::size_t grouped_devices_ = 0;
  std::vector<DeviceClass> classes_;
  std::vector<Group> groups_;
  std::vector<std::uint32_t> frontier_;
  std::vector<std::pair<double, std::uint32_t>> runs_;
  std::vector<double> run_of_group_;                // this task's run time per group
  std::vector<NodeId> near_;                        // nodes that hold one of the task's inputs
  std::vector<std::uint32_t> near_racks_;           // racks that hold one of the task's inputs
  std::vector<std::uint32_t> first_class_of_node_;  // a node's classes; one past the last node
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_greedy_eft_policy(const PolicyOptions&) {
  return std::make_unique<GreedyEftPolicy>();
}

}  // namespace hetsched
