// The insertion-EFT toolkit every static planner shares — HEFT, CPOP, PEFT,
// lookahead HEFT, heft-ils, the independent-task heuristics, the milp policy's
// exact solver and its fallback, and the energy planners (Topcuoglu, Hariri, Wu
// 2002; Arabnejad, Barbosa 2014):
//
// - task priorities: upward and downward rank, the optimistic cost table;
// - the list order: tasks taken from the ready set by decreasing priority, ties in
//   topological order (priority_order);
// - a schedule under construction (PartialSchedule): the data-ready time of a task
//   on a device given where its predecessors were placed, each device's busy
//   intervals (DeviceTimeline), and the earliest-finish placement, either in the
//   first idle gap long enough (SlotRule::insertion) or after the device's last
//   task (SlotRule::append);
// - what a plan must respect beyond the DAG (ScheduleLimits): when each device
//   frees up, when each task's external input arrives on each device, and run
//   times other than the instance's (a P-state, a subset of devices), and the
//   network it is made on: contention-free, or NICs that carry one transfer at a
//   time each way, as the twin's (NetworkModel, SharedNics);
// - HEFT's second phase (earliest_finish_schedule), the re-timer of a fixed device
//   assignment in a fixed task order (schedule_in_order), and a schedule's start
//   order (start_order).
//
// Assignments of a finished plan go to the scheduling loop through
// plan_emitter.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "hetsched/perf/dag_instance.hpp"
#include "hetsched/policy/device_timeline.hpp"
#include "hetsched/policy/network_model.hpp"
#include "hetsched/policy/shared_nics.hpp"

namespace hetsched {

// rank_u(t) = w̄(t) + max over successors s of (c̄(t,s) + rank_u(s)).
std::vector<double> upward_ranks(const DagInstance& instance);
// rank_d(t) = max over predecessors p of (rank_d(p) + w̄(p) + c̄(p,t)); 0 for entry tasks.
std::vector<double> downward_ranks(const DagInstance& instance);
// PEFT's optimistic cost table, row-major [task * devices + device]:
// OCT(t,p) = max over successors s of min over devices w of
//            (OCT(s,w) + w(s,w) + (w == p ? 0 : c̄(t,s))); 0 for exit tasks.
std::vector<double> optimistic_cost_table(const DagInstance& instance);

// Tasks by decreasing key; ties in topological order, so the result is a
// topological order whenever the key never increases along an edge.
std::vector<std::uint32_t> order_by_decreasing(const DagInstance& instance,
                                               std::span<const double> key);
// The list schedulers' order: repeatedly the task of highest key among those whose
// predecessors are all listed (ties: earlier topological position) — always a
// topological order. Where the key never increases along an edge (upward ranks,
// with non-negative costs) it is order_by_decreasing's order, and is computed so.
std::vector<std::uint32_t> priority_order(const DagInstance& instance, std::span<const double> key);
// Position of each task in the instance's topological order.
std::vector<std::uint32_t> topological_positions(const DagInstance& instance);

inline constexpr DeviceId kNoDevice = static_cast<DeviceId>(-1);

// What a plan must respect beyond the instance's DAG and costs. The spans are
// views: what they view must outlive the schedule that uses them.
struct ScheduleLimits {
  // Per device, the earliest time it may start planned work (empty: every device
  // is free from 0).
  std::span<const double> device_free_seconds = {};
  // Per task and device, row-major [t * devices + d]: the earliest start of t on d
  // whatever its DAG inputs (its external input arriving from the job's data node,
  // the device busy with other work); empty: 0.
  std::span<const double> release_seconds = {};
  // Per task and device, row-major: run times to plan with instead of the
  // instance's compute_seconds (kCannotRun where the task may not run); empty: the
  // instance's.
  std::span<const double> run_seconds = {};
  // Per task, where and when it already runs (device kNoDevice: not yet placed; times
  // relative to the plan's start, negative for work done before it): PartialSchedule
  // starts with it, and earliest_finish_schedule (so HEFT) and PEFT keep it and plan the
  // rest around it; its outputs leave at its finish. It holds no slot on its device's
  // timeline (device_free_seconds accounts for it). schedule_in_order re-times every task
  // it is given, and must be given none. Empty: none.
  std::span<const PlannedTask> placed = {};
  NetworkModel network = NetworkModel::contention_free;
  // With one_port_nics, when the tasks' external inputs (DagInstance::input_bytes) may
  // leave the job's data node (the time the plan is made); they then move as the twin
  // moves them, over the node's link to its own devices and through the NICs to other
  // nodes. Contention-free plans leave external inputs out.
  double external_inputs_from_seconds = 0;
  // With one_port_nics, per node the earliest time its NIC may send planned transfers
  // ([node]) and receive them ([node_count + node]); empty: every NIC is free from 0.
  std::span<const double> nic_free_seconds = {};
};

// Where on a device a task may start: in the first idle gap, after its data-ready
// time, long enough to hold it (HEFT's insertion), or only after the device's last
// task (the machine-availability model of the independent-task heuristics and of
// re-timing in a fixed per-device order).
enum class SlotRule { insertion, append };

// A schedule under construction: tasks placed so far (device kNoDevice: not yet)
// and the devices' timelines.
class PartialSchedule {
 public:
  PartialSchedule(const DagInstance& instance, std::span<const double> device_free_seconds);
  PartialSchedule(const DagInstance& instance, const ScheduleLimits& limits);

  const DagInstance& instance() const { return *instance_; }
  bool placed(std::uint32_t t) const { return schedule_.tasks[t].device != kNoDevice; }
  const PlannedTask& task(std::uint32_t t) const { return schedule_.tasks[t]; }
  const DeviceTimeline& timeline() const { return timeline_; }
  DeviceTimeline& timeline() { return timeline_; }

  // Run time of t on d (the limits' run_seconds, else the instance's).
  double run_seconds(std::uint32_t t, DeviceId d) const {
    return run_seconds_.empty() ? instance_->compute_seconds(t, d)
                                : run_seconds_[t * instance_->device_count() + d];
  }
  // The same on every device at once (valid until the next call).
  std::span<const double> run_row(std::uint32_t t) const {
    return run_seconds_.empty()
               ? instance_->compute_row(t, run_scratch_)
               : run_seconds_.subspan(t * instance_->device_count(), instance_->device_count());
  }
  // When all of t's inputs from placed predecessors can be on device d, and t is
  // released there.
  double data_ready_seconds(std::uint32_t t, DeviceId d) const;
  // The same on every device at once: ready[d] for d in 0..device_count.
  void data_ready_on_every_device(std::uint32_t t, std::span<double> ready) const;
  // Start and finish of t on d under the slot rule when it runs `run` seconds
  // there (the finish is infinite when the run time is).
  PlannedTask placement(std::uint32_t t, DeviceId d, double run, SlotRule rule) const;
  // Earliest start and finish of t on d with insertion (finish kCannotRun when d cannot run t).
  PlannedTask earliest_placement(std::uint32_t t, DeviceId d) const;
  // Same, appending after the device's last task (no insertion).
  PlannedTask appending_placement(std::uint32_t t, DeviceId d) const;
  // The device where t finishes first under the slot rule (ties: lowest device id;
  // device kNoDevice when no device can run t).
  PlannedTask earliest_finish_placement(std::uint32_t t, SlotRule rule = SlotRule::insertion) const;

  // Places t; with one_port_nics its inputs from other nodes take their NICs' time.
  void place(std::uint32_t t, const PlannedTask& placement);
  // Takes back a placement (a tentative one, as the lookahead tries them).
  void unplace(std::uint32_t t);
  // The finished schedule (every task must be placed).
  StaticSchedule finish() &&;

 private:
  PlannedTask earliest_finish_inserting(std::uint32_t t) const;
  void data_ready_from_producers(std::uint32_t t, std::span<double> ready) const;
  PlannedTask earliest_finish_appending(std::uint32_t t) const;
  bool shares_nics() const { return nics_.has_value(); }
  // data_ready_from_producers with one_port_nics.
  void data_ready_through_nics(std::uint32_t t, std::span<double> ready) const;
  // With one_port_nics: t's inputs, its placed producers' outputs and its external input
  // (valid until the next call; input_devices_ holds each one's device, kNoDevice for the
  // external input).
  std::span<const SharedNics::Input> inputs_of(std::uint32_t t) const;
  // When input i of the last inputs_of is on device d of its own node (the node's link).
  double arrival_inside_node(std::size_t i, DeviceId d) const;
  // When t's inputs from nodes other than `node` are there (the answer for the task and
  // node asked last is kept until the schedule changes: PEFT asks device by device).
  double remote_inputs_arrival(std::uint32_t t, NodeId node) const;

  const DagInstance* instance_;
  std::span<const double> release_seconds_, run_seconds_;
  DeviceTimeline timeline_;
  StaticSchedule schedule_;
  // Per device, for earliest_finish_placement.
  mutable std::vector<double> ready_scratch_, bound_scratch_, run_scratch_;
  // With one_port_nics: the NICs (mutable: a data-ready query books a task's transfers
  // tentatively and takes them back), each placed task's transfers in, when external
  // inputs are sent, and scratch.
  mutable std::optional<SharedNics> nics_;
  std::vector<std::vector<PlannedTransfer>> transfers_in_;
  double external_inputs_from_ = 0;
  mutable std::vector<SharedNics::Input> inputs_scratch_;
  mutable std::vector<DeviceId> input_devices_;
  mutable std::vector<double> node_scratch_;
  // remote_inputs_arrival's last answer, valid while version_ (bumped by place and
  // unplace) is unchanged.
  struct RememberedArrival {
    std::uint32_t task = ~0u;
    NodeId node = 0;
    std::uint64_t version = 0;
    double arrival = 0;
  };
  mutable RememberedArrival remembered_;
  std::uint64_t version_ = 0;
};

// The re-timer: places the tasks in `order` (a topological order), each on
// devices[t], at its earliest start under the slot rule — the re-timing step of
// local search (insertion), of the exact solver and of the energy planners (append,
// in an order that keeps each device's sequence). task_run_seconds: per task, its
// run time on devices[t] (a P-state's); empty: the limits' or the instance's.
StaticSchedule schedule_in_order(const DagInstance& instance, std::span<const std::uint32_t> order,
                                 std::span<const DeviceId> devices, const ScheduleLimits& limits,
                                 SlotRule rule = SlotRule::insertion,
                                 std::span<const double> task_run_seconds = {});

// HEFT's second phase: tasks in `order`, each to its earliest-finish device under
// the slot rule. A task no device can run keeps device kNoDevice and is left out of
// the makespan.
StaticSchedule earliest_finish_schedule(const DagInstance& instance,
                                        std::span<const std::uint32_t> order,
                                        const ScheduleLimits& limits,
                                        SlotRule rule = SlotRule::insertion);

// HEFT whole: tasks by decreasing upward rank (priority_order), each to its
// earliest-finish device under the slot rule.
StaticSchedule upward_rank_schedule(const DagInstance& instance, const ScheduleLimits& limits,
                                    SlotRule rule = SlotRule::insertion);

// How start_order breaks ties between tasks that start at the same time.
enum class StartTies {
  // Earlier topological position first: always a topological order. The static
  // planners' and the milp policy's order of emission.
  topological,
  // Earlier finish, then lower task index: a zero-length task goes before a task
  // that starts with it on its device. The energy planners' order (re-timing and
  // emission).
  finish_then_index,
};

// The tasks of a schedule ordered by planned start: an order in which each device
// runs its tasks as planned, for re-timing and for emitting the plan.
std::vector<std::uint32_t> start_order(const DagInstance& instance, const StaticSchedule& schedule,
                                       StartTies ties = StartTies::topological);

}  // namespace hetsched
