// StaticPlannerPolicy: turns a static DAG planner (HEFT and kin) into a
// SchedulingPolicy. When a job arrives, it builds the job's DagInstance from the
// snapshot (perf model; explicit cost matrices win), plans it with every device
// free from max(now, the device's predicted free time), and emits one Assignment
// per task with its planned absolute start — in order of planned start (ties in
// topological order), so the scheduling loop's predictions build on the
// predecessors' placements and a backend that starts a device's first queued task
// at once always sees the device's earlier tasks first. The backend runs each device's
// tasks in planned-start order; on a network without contention the simulated
// makespan equals the planned one. A task offered again after its plan failed (its
// device went down, its attempt was lost) is placed when ready on the device where
// it would finish first, as HEFT places each task (without re-planning the rest).
//
// The network it plans on is its options' plan_network. Planned contention-free (the
// literature's model), a plan leaves out the transfers' queueing at the NICs and each
// task's external input (Task::input_bytes, read from the job's data node), which the
// backend does not: the plan can be optimistic. Planned on shared NICs, both are in the
// plan, as the twin runs them, and each job's plan books the NICs after the time the
// earlier jobs' plans booked.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string_view>

#include "hetsched/perf/dag_instance.hpp"
#include "hetsched/policy/list_scheduling.hpp"
#include "hetsched/policy/scheduling_policy.hpp"

namespace hetsched {

class StaticPlannerPolicy : public SchedulingPolicy {
 public:
  // `network`: how its plans share the network between nodes.
  explicit StaticPlannerPolicy(NetworkModel network) : network_(network) {}

  // A full schedule of the instance within the limits (list_scheduling.hpp). Tasks no
  // device can run keep device kNoDevice.
  virtual StaticSchedule plan(const DagInstance& instance, const ScheduleLimits& limits) = 0;

  void on_job_arrival(const ClusterSnapshot& snapshot, JobIndex job, AssignmentSink& out) final;
  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) final;

 private:
  NetworkModel network_;
  // On shared NICs: per NIC (each node's sending one, then each node's receiving one), when
  // the transfers of the plans made so far leave it free.
  std::vector<double> nic_free_;
};

using PlanFunction = std::function<StaticSchedule(const DagInstance&, const ScheduleLimits&)>;

// A planner function as a registered policy: `name` must outlive the policy (registry names
// are string literals).
std::unique_ptr<SchedulingPolicy> make_static_planner_policy(std::string_view name,
                                                             PlanFunction plan,
                                                             NetworkModel network);

}  // namespace hetsched
