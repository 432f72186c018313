// The building blocks the list schedulers share (Topcuoglu, Hariri, Wu 2002;
// Arabnejad, Barbosa 2014): task priorities (upward and downward rank, the
// optimistic cost table), the data-ready time of a task on a device given where
// its predecessors were placed, the earliest-finish placement with idle-slot
// insertion, and re-timing a fixed device assignment in a fixed task order.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hetsched/perf/dag_instance.hpp"
#include "hetsched/policy/device_timeline.hpp"

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
// Position of each task in the instance's topological order.
std::vector<std::uint32_t> topological_positions(const DagInstance& instance);

inline constexpr DeviceId kNoDevice = static_cast<DeviceId>(-1);

// A schedule under construction: tasks placed so far (device kNoDevice: not yet)
// and the devices' timelines.
class PartialSchedule {
 public:
  PartialSchedule(const DagInstance& instance, std::span<const double> device_free_seconds);

  const DagInstance& instance() const { return *instance_; }
  bool placed(std::uint32_t t) const { return schedule_.tasks[t].device != kNoDevice; }
  const PlannedTask& task(std::uint32_t t) const { return schedule_.tasks[t]; }
  const DeviceTimeline& timeline() const { return timeline_; }
  DeviceTimeline& timeline() { return timeline_; }

  // When all of t's inputs from placed predecessors can be on device d.
  double data_ready_seconds(std::uint32_t t, DeviceId d) const;
  // The same on every device at once: ready[d] for d in 0..device_count.
  void data_ready_on_every_device(std::uint32_t t, std::span<double> ready) const;
  // Earliest start and finish of t on d with insertion (finish kCannotRun when d cannot run t).
  PlannedTask earliest_placement(std::uint32_t t, DeviceId d) const;
  // Same, appending after the device's last task (no insertion).
  PlannedTask appending_placement(std::uint32_t t, DeviceId d) const;
  // The device where t finishes first, with insertion (ties: lowest device id).
  PlannedTask earliest_finish_placement(std::uint32_t t) const;

  void place(std::uint32_t t, const PlannedTask& placement);
  // Takes back a placement (a tentative one, as the lookahead tries them).
  void unplace(std::uint32_t t);
  // The finished schedule (every task must be placed).
  StaticSchedule finish() &&;

 private:
  const DagInstance* instance_;
  DeviceTimeline timeline_;
  StaticSchedule schedule_;
  // Per device, for earliest_finish_placement.
  mutable std::vector<double> ready_scratch_, bound_scratch_;
};

// Places the tasks in `order` (a topological order), each on devices[t], at its
// earliest start with insertion: the re-timing step of local search.
StaticSchedule schedule_in_order(const DagInstance& instance, std::span<const std::uint32_t> order,
                                 std::span<const DeviceId> devices,
                                 std::span<const double> device_free_seconds);

// HEFT's second phase: tasks in `order`, each to its earliest-finish device with insertion.
StaticSchedule earliest_finish_schedule(const DagInstance& instance,
                                        std::span<const std::uint32_t> order,
                                        std::span<const double> device_free_seconds);

// The tasks of a schedule ordered by planned start (ties in topological order):
// a topological order in which each device runs its tasks as planned.
std::vector<std::uint32_t> start_order(const DagInstance& instance, const StaticSchedule& schedule);

}  // namespace hetsched
