#include "hetsched/policy/list_scheduling.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace hetsched {

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
  const std::vector<std::uint32_t> position = topological_positions(instance);
  std::vector<std::uint32_t> order(instance.topological_order());
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return key[a] != key[b] ? key[a] > key[b] : position[a] < position[b];
  });
  return order;
}

PartialSchedule::PartialSchedule(const DagInstance& instance,
                                 std::span<const double> device_free_seconds)
    : instance_(&instance),
      timeline_(instance.device_count(), device_free_seconds),
      ready_scratch_(instance.device_count()) {
  schedule_.tasks.assign(instance.task_count(), PlannedTask{kNoDevice, 0, 0});
}

double PartialSchedule::data_ready_seconds(std::uint32_t t, DeviceId d) const {
  double ready = 0;
  for (const DagNeighbor& p : instance_->predecessors(t)) {
    const PlannedTask& producer = schedule_.tasks[p.task];
    if (producer.device == kNoDevice) continue;
    ready = std::max(ready,
                     producer.finish_seconds + instance_->comm_seconds(p.edge, producer.device, d));
  }
  return ready;
}

void PartialSchedule::data_ready_on_every_device(std::uint32_t t, std::span<double> ready) const {
  std::fill(ready.begin(), ready.end(), 0.0);
  for (const DagNeighbor& p : instance_->predecessors(t)) {
    const PlannedTask& producer = schedule_.tasks[p.task];
    if (producer.device != kNoDevice)
      instance_->raise_arrivals(p.edge, producer.device, producer.finish_seconds, ready);
  }
}

PlannedTask PartialSchedule::earliest_placement(std::uint32_t t, DeviceId d) const {
  const double run = instance_->compute_seconds(t, d);
  if (run == kCannotRun) return PlannedTask{d, kCannotRun, kCannotRun};
  const double start = timeline_.earliest_start(d, data_ready_seconds(t, d), run);
  return PlannedTask{d, start, start + run};
}

PlannedTask PartialSchedule::appending_placement(std::uint32_t t, DeviceId d) const {
  const double run = instance_->compute_seconds(t, d);
  if (run == kCannotRun) return PlannedTask{d, kCannotRun, kCannotRun};
  const double start = timeline_.earliest_start_appending(d, data_ready_seconds(t, d));
  return PlannedTask{d, start, start + run};
}

PlannedTask PartialSchedule::earliest_finish_placement(std::uint32_t t) const {
  // Inputs' arrival plus run time bounds each device's finish from below (the
  // timeline can only delay the start). The device with the lowest bound is tried
  // first, which usually sets a finish that lets the bound rule out most others
  // without a look at their timelines. Ties go to the lowest device id.
  PlannedTask best{kNoDevice, kCannotRun, kCannotRun};
  data_ready_on_every_device(t, ready_scratch_);
  const std::span<const double> runs = instance_->compute_row(t);
  DeviceId first = kNoDevice;
  double lowest_bound = kCannotRun;
  for (DeviceId d = 0; d < runs.size(); ++d) {
    if (runs[d] == kCannotRun) continue;
    const double bound = ready_scratch_[d] + runs[d];
    if (bound < lowest_bound) lowest_bound = bound, first = d;
  }
  if (first == kNoDevice) return best;
  const auto try_device = [&](DeviceId d) {
    const double run = runs[d];
    const double ready = ready_scratch_[d];
    const double bound = ready + run;
    if (bound > best.finish_seconds || (bound == best.finish_seconds && d > best.device)) return;
    const double start = timeline_.earliest_start(d, ready, run);
    const double finish = start + run;
    if (finish < best.finish_seconds || (finish == best.finish_seconds && d < best.device))
      best = PlannedTask{d, start, finish};
  };
  try_device(first);
  for (DeviceId d = 0; d < runs.size(); ++d)
    if (d != first && runs[d] != kCannotRun) try_device(d);
  return best;
}

void PartialSchedule::place(std::uint32_t t, const PlannedTask& placement) {
  schedule_.tasks[t] = placement;
  timeline_.insert(placement.device, placement.start_seconds, placement.finish_seconds);
}

void PartialSchedule::unplace(std::uint32_t t) {
  PlannedTask& p = schedule_.tasks[t];
  timeline_.remove(p.device, p.start_seconds, p.finish_seconds);
  p = PlannedTask{kNoDevice, 0, 0};
}

StaticSchedule PartialSchedule::finish() && {
  schedule_.makespan_seconds = 0;
  for (const PlannedTask& p : schedule_.tasks)
    if (p.device != kNoDevice)
      schedule_.makespan_seconds = std::max(schedule_.makespan_seconds, p.finish_seconds);
  return std::move(schedule_);
}

StaticSchedule schedule_in_order(const DagInstance& instance, std::span<const std::uint32_t> order,
                                 std::span<const DeviceId> devices,
                                 std::span<const double> device_free_seconds) {
  PartialSchedule partial(instance, device_free_seconds);
  for (const std::uint32_t t : order) partial.place(t, partial.earliest_placement(t, devices[t]));
  return std::move(partial).finish();
}

StaticSchedule earliest_finish_schedule(const DagInstance& instance,
                                        std::span<const std::uint32_t> order,
                                        std::span<const double> device_free_seconds) {
  PartialSchedule partial(instance, device_free_seconds);
  for (const std::uint32_t t : order) {
    const PlannedTask best = partial.earliest_finish_placement(t);
    if (best.device == kNoDevice) continue;  // no device can run it
    partial.place(t, best);
  }
  return std::move(partial).finish();
}

std::vector<std::uint32_t> start_order(const DagInstance& instance,
                                       const StaticSchedule& schedule) {
  const std::vector<std::uint32_t> position = topological_positions(instance);
  std::vector<std::uint32_t> order(instance.topological_order());
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const double sa = schedule.tasks[a].start_seconds, sb = schedule.tasks[b].start_seconds;
    return sa != sb ? sa < sb : position[a] < position[b];
  });
  return order;
}

}  // namespace hetsched
