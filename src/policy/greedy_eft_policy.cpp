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
//    per class);
//  - classes of one part form a group, whose classes sit in a min-heap keyed by
//    their first free time. A class whose free time plus the run time cannot beat
//    the best finish found so far ends the search in that group, because inputs
//    never arrive before now.
//  - devices that hold one of the task's inputs are looked at one by one.
// The finish time chosen is exactly the earliest (ties go to the device found
// first). Heaps are corrected lazily: predicted free times only grow as work is
// placed, so an out-of-date entry is re-pushed with its current value when it
// reaches the top. Tasks with explicit per-device costs are scanned over every device.
#include <algorithm>
#include <limits>
#include <queue>

#include "hetsched/policy/scheduling_policy.hpp"
#include "hetsched/workload/feasibility.hpp"

namespace hetsched {
namespace {

struct HeapEntry {
  double available;
  std::uint32_t index;  // a device in a class heap, a class in a group heap
  bool operator>(const HeapEntry& o) const {
    return available != o.available ? available > o.available : index > o.index;
  }
};
using MinHeap = std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<>>;

class GreedyEftPolicy final : public SchedulingPolicy {
 public:
  std::string_view name() const override { return "greedy-eft"; }

  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    if (classes_.empty()) build_groups(snapshot.cluster);
    for (TaskIndex t : ready) {
      const Task& task = snapshot.graph.task(t);
      Choice best;
      if (task.cost_seconds.empty()) {
        // Groups in order of run time, so the fast ones set a tight bound early.
        runs_.clear();
        for (std::uint32_t g = 0; g < groups_.size(); ++g) {
          const Device& representative = snapshot.cluster.device(groups_[g].representative);
          const double run = snapshot.perf.task_seconds(task, representative, 0);
          if (run != kCannotRun) runs_.emplace_back(run, g);
        }
        std::sort(runs_.begin(), runs_.end());
        for (const auto& [run, g] : runs_) search_group(snapshot, t, groups_[g], run, best);
        for (const Dependency& p : snapshot.graph.predecessors(t)) {
          const DeviceId holder = snapshot.placement[p.task];
          if (holder == kUnplaced) continue;
          const Device& device = snapshot.cluster.device(holder);
          consider(snapshot, t, holder, snapshot.perf.task_seconds(task, device, 0), best);
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

 private:
  struct DeviceClass {
    std::vector<DeviceId> members;
    MinHeap devices;
    bool rebuilt = false;
  };
  struct Group {
    DeviceId representative;
    std::vector<std::uint32_t> classes;
    MinHeap heap;
  };
  struct Choice {
    DeviceId device = kUnplaced;
    double finish = kCannotRun;
  };

  void build_groups(const Cluster& cluster) {
    for (const Node& node : cluster.nodes()) {
      const std::size_t first_class_of_node = classes_.size();
      for (DeviceId d : node.devices) {
        std::size_t c = first_class_of_node;
        while (c < classes_.size() &&
               !(cluster.device(classes_[c].members.front()).spec == cluster.device(d).spec))
          ++c;
        if (c == classes_.size()) classes_.emplace_back();
        classes_[c].members.push_back(d);
        classes_[c].devices.push({0.0, d});
      }
    }
    for (std::uint32_t c = 0; c < classes_.size(); ++c) {
      const DeviceId d = classes_[c].members.front();
      auto group = std::find_if(groups_.begin(), groups_.end(), [&](const Group& g) {
        return cluster.device(g.representative).spec == cluster.device(d).spec;
      });
      if (group == groups_.end()) group = groups_.insert(groups_.end(), Group{d, {}, {}});
      group->classes.push_back(c);
      group->heap.push({0.0, c});
    }
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
          c.devices = {};
          for (DeviceId d : c.members) c.devices.push({snapshot.device_available_seconds[d], d});
          c.rebuilt = true;
          continue;
        }
        c.rebuilt = false;
        return top.index;
      }
      c.devices.pop();
      c.devices.push({current, top.index});
    }
  }

  void search_group(const ClusterSnapshot& snapshot, TaskIndex t, Group& group, double run,
                    Choice& best) {
    popped_.clear();
    while (!group.heap.empty()) {
      const HeapEntry top = group.heap.top();
      const DeviceId d = first_free(classes_[top.index], snapshot);
      const double current = snapshot.device_available_seconds[d];
      if (current != top.available) {
        group.heap.pop();
        group.heap.push({current, top.index});
        continue;
      }
      if (std::max(current, snapshot.now_seconds) + run >= best.finish) break;
      group.heap.pop();
      popped_.push_back(top);
      consider(snapshot, t, d, run, best);
    }
    for (const HeapEntry& e : popped_) group.heap.push(e);
  }

  static void consider(const ClusterSnapshot& snapshot, TaskIndex t, DeviceId d, double run,
                       Choice& best) {
    if (run == kCannotRun) return;
    const double start =
        std::max(snapshot.device_available_seconds[d], snapshot.data_ready_seconds(t, d));
    const double finish = start + run;
    if (finish < best.finish || (finish == best.finish && d < best.device)) best = {d, finish};
  }

  std::vector<DeviceClass> classes_;
  std::vector<Group> groups_;
  std::vector<HeapEntry> popped_;
  std::vector<std::pair<double, std::uint32_t>> runs_;
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_greedy_eft_policy(const PolicyOptions&) {
  return std::make_unique<GreedyEftPolicy>();
}

}  // namespace hetsched
