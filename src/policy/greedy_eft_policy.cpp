// Greedy earliest finish time (online EFT, as StarPU's dm/dmda schedulers and the
// MCT heuristic of Braun et al. 2001): each ready task, in the order it became
// ready, goes to the device where it would finish first — the later of the
// device's predicted free time and the arrival of its inputs, plus its predicted
// run time there.
//
// To stay fast on large clusters, devices are grouped into classes of identical
// parts on one node. Within a class, every device that holds none of the task's
// inputs sees the same data-arrival time and run time, so only the one that frees
// up first needs looking at (a min-heap per class, corrected lazily); devices that
// hold an input are looked at one by one. The result is exactly the EFT choice, in
// O(classes + inputs) per task instead of O(devices). Tasks with explicit per-device
// costs are scanned over every device.
#include <algorithm>
#include <limits>
#include <queue>

#include "hetsched/policy/scheduling_policy.hpp"
#include "hetsched/workload/feasibility.hpp"

namespace hetsched {
namespace {

class GreedyEftPolicy final : public SchedulingPolicy {
 public:
  std::string_view name() const override { return "greedy-eft"; }

  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    if (classes_.empty()) build_classes(snapshot.cluster);
    for (TaskIndex t : ready) {
      const Task& task = snapshot.graph.task(t);
      Choice best;
      if (task.cost_seconds.empty()) {
        for (DeviceClass& c : classes_) {
          if (!can_run(task, c.spec())) continue;
          const DeviceId d = least_loaded(c, snapshot);
          consider(snapshot, t, task, d, best);
        }
        for (const Dependency& p : snapshot.graph.predecessors(t))
          if (snapshot.placement[p.task] != kUnplaced)
            consider(snapshot, t, task, snapshot.placement[p.task], best);
      } else {
        for (const Device& d : snapshot.cluster.devices()) consider(snapshot, t, task, d.id, best);
      }
      if (best.device == kUnplaced) continue;  // no device can run it: left for the loop to report
      // The chosen device's heap entry is now out of date; least_loaded corrects it.
      out.assign(Assignment{t, best.device});
    }
  }

 private:
  struct Entry {
    double available;
    DeviceId device;
    bool operator>(const Entry& o) const {
      return available != o.available ? available > o.available : device > o.device;
    }
  };
  struct DeviceClass {
    const Cluster* cluster;
    std::vector<DeviceId> members;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
    bool rebuilt_at_infinity = false;
    const DeviceSpec& spec() const { return cluster->device(members.front()).spec; }
  };
  struct Choice {
    DeviceId device = kUnplaced;
    double finish = kCannotRun;
  };

  void build_classes(const Cluster& cluster) {
    class_of_.assign(cluster.device_count(), 0);
    for (const Node& node : cluster.nodes()) {
      const std::size_t first_class_of_node = classes_.size();
      for (DeviceId d : node.devices) {
        std::size_t c = first_class_of_node;
        while (c < classes_.size() && !(classes_[c].spec() == cluster.device(d).spec)) ++c;
        if (c == classes_.size()) classes_.push_back(DeviceClass{&cluster, {}, {}, false});
        classes_[c].members.push_back(d);
        class_of_[d] = static_cast<std::uint32_t>(c);
      }
    }
    for (DeviceClass& c : classes_)
      for (DeviceId d : c.members) c.heap.push({0.0, d});
  }

  // The class member that frees up first. Each device has one entry; predicted free
  // times only grow as work is placed, so an out-of-date entry is re-pushed with its
  // current time until the top is current.
  static DeviceId least_loaded(DeviceClass& c, const ClusterSnapshot& snapshot) {
    while (true) {
      const Entry top = c.heap.top();
      const double current = snapshot.device_available_seconds[top.device];
      if (current == top.available) {
        // A device that is out (fault/) looks busy forever; if one heads the heap,
        // rebuild it so members that came back are seen.
        if (current == std::numeric_limits<double>::infinity() && !c.rebuilt_at_infinity) {
          c.heap = {};
          for (DeviceId d : c.members) c.heap.push({snapshot.device_available_seconds[d], d});
          c.rebuilt_at_infinity = true;
          continue;
        }
        c.rebuilt_at_infinity = false;
        return top.device;
      }
      c.heap.pop();
      c.heap.push({current, top.device});
    }
  }

  static void consider(const ClusterSnapshot& snapshot, TaskIndex t, const Task& task, DeviceId d,
                       Choice& best) {
    const Device& device = snapshot.cluster.device(d);
    const double run = snapshot.perf.task_seconds(task, device, 0);
    if (run == kCannotRun) return;
    const double start =
        std::max(snapshot.device_available_seconds[d], snapshot.data_ready_seconds(t, d));
    const double finish = start + run;
    if (finish < best.finish || (finish == best.finish && d < best.device)) best = {d, finish};
  }

  std::vector<DeviceClass> classes_;
  std::vector<std::uint32_t> class_of_;
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_greedy_eft_policy(const PolicyOptions&) {
  return std::make_unique<GreedyEftPolicy>();
}

}  // namespace hetsched
