// StreamPlan: the static plans an online policy follows on a stream of jobs — the learned
// policy's advice and its teacher. Jobs are planned one after the other in the order given
// (the learned policy gives least work left first: shortest remaining work first, which
// mean completion time rewards), each by HEFT and by PEFT, the shorter plan kept, over the
// work the devices already hold and the plans of the jobs before it. Transfers between
// nodes are planned on NICs that carry one at a time each way, as the twin's do
// (NetworkModel::one_port_nics), each job's after those of the jobs before it: a plan that
// spreads a job over nodes as if transfers never queued is late in the twin, and the
// tasks that follow it wait on the devices it holds. A job's tasks already placed are kept
// where they are, and the rest planned around them. Each device gets a sequence: the
// planned tasks not yet placed, job by job in the order given, each job's in its plan's
// start order. Planning the stream again at each arrival lets a job with more
// work plan around the devices the jobs before it will hold, and a job's plan follow the
// durations as they unfold.
//
// Cost of plan(): HEFT's and PEFT's cost for each job given (O(tasks² × devices) at worst
// for a job's plan, and with NICs shared, fitting a task's inputs from other nodes on
// every node: O(nodes × in-degree × log intervals) per task and candidate); head() is
// amortized O(1) per task placed.
#pragma once

#include <limits>
#include <span>
#include <vector>

#include "hetsched/policy/cluster_snapshot.hpp"
#include "hetsched/policy/list_scheduling.hpp"

namespace hetsched {

class StreamPlan {
 public:
  static constexpr TaskIndex kNoTask = std::numeric_limits<TaskIndex>::max();

  // Plans `jobs` again, in that order, from the snapshot's time, replacing every sequence;
  // tasks of other jobs keep their last planned device and start.
  void plan(const ClusterSnapshot& snapshot, std::span<const JobIndex> jobs);

  // Where and when the latest plan of its job runs task t (kNoDevice when no plan has it or
  // no device can run it); the start is in the snapshot's time.
  DeviceId device(TaskIndex t) const { return t < device_.size() ? device_[t] : kNoDevice; }
  double start_seconds(TaskIndex t) const { return t < start_.size() ? start_[t] : 0.0; }
  // d's sequence, as planned (tasks placed since included).
  std::span<const TaskIndex> sequence(DeviceId d) const {
    return d < sequence_.size() ? std::span<const TaskIndex>(sequence_[d])
                                : std::span<const TaskIndex>();
  }
  // The first task of d's sequence not yet placed (kNoTask when none is left).
  TaskIndex head(const ClusterSnapshot& snapshot, DeviceId d);
  // Whether t is the first task of its planned device's sequence not yet placed.
  bool is_head(const ClusterSnapshot& snapshot, TaskIndex t) {
    return device(t) != kNoDevice && head(snapshot, device(t)) == t;
  }

 private:
  std::vector<DeviceId> device_;
  std::vector<double> start_;
  std::vector<std::vector<TaskIndex>> sequence_;
  std::vector<std::size_t> next_;    // per device: its sequence's tasks before it are placed
  std::vector<PlannedTask> placed_;  // scratch: a job's tasks already placed
};

}  // namespace hetsched
