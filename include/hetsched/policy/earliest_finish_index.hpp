// EarliestFinishIndex: for a ready task, the device where it would finish first (the
// later of the device's predicted free time and the arrival of its inputs, plus its
// predicted run time there), or the device that frees up first, found without scanning
// every device. greedy-eft places every task by it and work stealing finds its owners
// and thieves with it.
//
// How (src/policy/earliest_finish_index.cpp):
//  - devices are grouped into classes of identical parts on one node; within a class
//    every device that holds none of the task's inputs sees the same input arrival and
//    run time, so only the one that frees up first matters (a min-heap per class, ties
//    to the lower device id);
//  - classes of one part form a group, whose classes sit in a min-heap keyed by their
//    first free time (and in one such heap per rack). A search walks a heap in key order
//    without taking anything out (a small frontier of heap positions whose parents were
//    seen), and a class that cannot beat the best finish found so far ends the walk: its
//    bound is the later of its free time and the soonest all the task's inputs can reach
//    it, plus the run time;
//  - the nodes that already hold an input (the job's data node for a task that reads
//    one, the nodes of its predecessors' devices) get it sooner than any other, so their
//    classes, and the predecessors' devices, are looked at one by one; then the group
//    heap is walked, bounded by the least time for every input to reach a node of
//    another rack than the one it is in, and the rack heap of each rack that holds an
//    input, where the inputs from that rack have the least time to another node of the
//    rack. On an idle cluster the nearest free device is found in a few steps, on a busy
//    one the first free; a task with no inputs walks the group heap bounded by now.
// The bounds use the network's latencies and the narrower of the sending node's NIC and
// the widest NIC among the group's nodes (and the spine between racks).
//
// The finish time found is exactly the earliest; among devices of equal finish the
// lowest id of those the search looked at wins (it stops at the first class that cannot
// beat the best finish, so an equal one further on is not seen). Every key in the heaps
// is at most the current value: placing work only raises free times, and an entry found
// out of date is given its current value (and moved in place) when a search reaches it;
// the devices whose free time went down (a device that drained before its prediction,
// one that came back after a failure: ClusterSnapshot::availability_lowered) are lowered
// in their heaps before each decision. Tasks with explicit per-device costs are scanned
// over every device.
//
// Cost per search: O(groups log groups) to order the groups, then per group and per walk
// (the group heap, and one rack heap per rack holding an input) O(v log v) for the v
// classes whose bound beats the best finish (v is a few when the nodes of a part have
// alike NICs, idle or busy), plus the lazy heap corrections (O(log classes) each), and
// the classes of the nodes holding inputs; first_free is O(groups) plus the lazy
// corrections; each lowered device costs O(log classes). None grows with the number of
// devices.
#pragma once

#include <limits>
#include <utility>
#include <vector>

#include "hetsched/policy/cluster_snapshot.hpp"
#include "hetsched/policy/free_time_heap.hpp"

namespace hetsched {

class EarliestFinishIndex {
 public:
  struct Choice {
    DeviceId device = kUnplaced;
    double finish = kCannotRun;  // none can run the task
  };

  EarliestFinishIndex() = default;
  // The heaps keep positions in the index's own arrays.
  EarliestFinishIndex(const EarliestFinishIndex&) = delete;
  EarliestFinishIndex& operator=(const EarliestFinishIndex&) = delete;

  // Brings the index up to date with the snapshot: built again when the cluster has
  // grown, devices whose free time went down lowered. Call once per decision point,
  // before the searches.
  void sync(const ClusterSnapshot& snapshot);

  // The device where `task` finishes first, among those whose predicted free time is at
  // most `free_by` (infinity: every device); device kUnplaced when none can run it.
  Choice earliest_finish(const ClusterSnapshot& snapshot, TaskIndex task,
                         double free_by = std::numeric_limits<double>::infinity());
  // The device that frees up first among those whose part can run `task` (ties to the
  // lower id); kUnplaced when none can.
  DeviceId first_free(const ClusterSnapshot& snapshot, TaskIndex task);

 private:
  struct DeviceClass {
    std::vector<DeviceId> members;
    FreeTimeHeap devices;
  };
  struct Group {
    DeviceId representative;
    FreeTimeHeap heap;                     // of its classes
    std::vector<FreeTimeHeap> rack_heaps;  // of its classes in each rack
    double widest_nic = 0;                 // of the nodes its classes are on
  };

  void build(const ClusterSnapshot& snapshot);
  void lower(const ClusterSnapshot& snapshot, DeviceId d);
  // The soonest all of a task's inputs can reach a node of `rack` that holds none of them
  // (kNoRack: a node of any rack where none of them is).
  static constexpr std::uint32_t kNoRack = UINT32_MAX;
  static double arrive_in_rack(const ClusterSnapshot& snapshot, TaskIndex t, NodeId data_node,
                               double widest_nic, std::uint32_t rack);
  // The class member that frees up first (its heap corrected lazily).
  static DeviceId first_free(DeviceClass& c, const ClusterSnapshot& snapshot);
  // The class of a heap of classes whose first member frees up first, and that member.
  DeviceId first_free(FreeTimeHeap& heap, const ClusterSnapshot& snapshot);
  void search(const ClusterSnapshot& snapshot, TaskIndex t, FreeTimeHeap& heap, double run,
              double inputs_arrive, double free_by, Choice& best);
  static void consider(const ClusterSnapshot& snapshot, TaskIndex t, DeviceId d, double run,
                       double free_by, Choice& best);

  std::size_t indexed_devices_ = 0;
  std::uint64_t lowered_seen_ = 0;  // entries of availability_lowered applied
  std::vector<DeviceClass> classes_;
  std::vector<Group> groups_;
  std::vector<std::uint32_t> class_of_device_;
  std::vector<std::uint32_t> class_group_position_;  // in its group's heap
  std::vector<std::uint32_t> class_rack_position_;   // in its group's heap of its rack
  std::vector<std::uint32_t> first_class_of_node_;   // a node's classes; one past the last node
  // Scratch, per search.
  std::vector<std::uint32_t> frontier_;
  std::vector<std::pair<double, std::uint32_t>> runs_;
  std::vector<double> run_of_group_;       // this task's run time per group
  std::vector<NodeId> near_;               // nodes that hold one of the task's inputs
  std::vector<std::uint32_t> near_racks_;  // racks that hold one of the task's inputs
};

}  // namespace hetsched
