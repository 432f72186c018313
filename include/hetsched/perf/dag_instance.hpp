// DagInstance: one DAG-scheduling problem in the form the list schedulers and the
// exact solver work on — how long each task runs on each device, and how long each
// edge's data takes between any two devices (0 on the same device). It is built
// from a job of a workload through the performance model (explicit cost matrices
// win there), or directly from matrices for published examples.
//
// Where the model predicts by a device's part alone and no task has its own costs, a
// task's run time is kept once per spec class (the cluster's distinct parts), not once
// per device: a job of 100,000 tasks on 100,000 devices of four parts needs 3.2 MB
// for its run times rather than 80 GB.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hetsched/core/expected.hpp"
#include "hetsched/perf/perf_model.hpp"
#include "hetsched/workload/task_graph.hpp"

namespace hetsched {

struct DagEdge {
  std::uint32_t from = 0;
  std::uint32_t to = 0;
  double bytes = 0;
};

struct DagNeighbor {
  std::uint32_t task;  // the task at the other end
  std::uint32_t edge;  // index into edges()
};

// Where each task runs and when: the output of a static planner.
struct PlannedTask {
  DeviceId device = 0;
  double start_seconds = 0;
  double finish_seconds = 0;
};

// A transfer between two nodes in a plan that shares their NICs (NetworkModel::one_port_nics):
// edge's data (kExternalInput: the consumer's external input) leaves `from_node` at start,
// holds both NICs until wire_end and is on the consumer's node at arrival (wire_end + the
// path's latency).
struct PlannedTransfer {
  static constexpr std::uint32_t kExternalInput = ~std::uint32_t{0};
  std::uint32_t edge = 0;
  NodeId from_node = 0, to_node = 0;
  double start_seconds = 0, wire_end_seconds = 0, arrival_seconds = 0;
};

struct StaticSchedule {
  std::vector<PlannedTask> tasks;  // indexed like the instance's tasks
  double makespan_seconds = 0;
  // The transfers between nodes, where the plan shares NICs (else empty), by consumer.
  std::vector<PlannedTransfer> transfers;
};

class DagInstance {
 public:
  // The tasks of job `job`, with times from the performance model (P-state 0).
  DagInstance(const TaskGraph& graph, JobIndex job, const PerfModel& perf);
  // A published example: compute[t][d] seconds, edges with their communication cost in
  // seconds between distinct devices (a uniform network).
  DagInstance(std::vector<std::vector<double>> compute_seconds, std::vector<DagEdge> edges);

  std::size_t task_count() const { return task_count_; }
  std::size_t device_count() const { return device_count_; }
  const std::vector<DagEdge>& edges() const { return edges_; }
  std::span<const DagNeighbor> predecessors(std::uint32_t t) const {
    return {pred_.data() + pred_begin_[t], pred_.data() + pred_begin_[t + 1]};
  }
  std::span<const DagNeighbor> successors(std::uint32_t t) const {
    return {succ_.data() + succ_begin_[t], succ_.data() + succ_begin_[t + 1]};
  }

  // Seconds for task t on device d (kCannotRun where it cannot run).
  double compute_seconds(std::uint32_t t, DeviceId d) const {
    return compute_[t * column_count_ + column(d)];
  }
  // Task t's compute times on every device, in device order: the instance's own row
  // where it keeps one per device, else written into `scratch` (device_count() long).
  std::span<const double> compute_row(std::uint32_t t, std::span<double> scratch) const;
  // Seconds to move edge e's data from device a to device b (0 when a == b).
  double comm_seconds(std::uint32_t e, DeviceId a, DeviceId b) const;
  // For every device b: arrival[b] = max(arrival[b], sent + comm_seconds(e, a, b)) — the
  // inputs of one edge reaching every device at once, as list schedulers need them.
  void raise_arrivals(std::uint32_t e, DeviceId a, double sent, std::span<double> arrival) const;
  // True for matrix instances: every edge takes the same time between any two
  // distinct devices (uniform_comm_seconds), so data-ready times need no per-pair work.
  bool uniform_network() const { return perf_ == nullptr; }
  double uniform_comm_seconds(std::uint32_t e) const { return edges_[e].bytes; }
  // The cluster whose devices the instance's are (null for matrix instances).
  const Cluster* cluster() const { return perf_ ? &perf_->cluster() : nullptr; }
  // Bytes of task t's external input (Task::input_bytes), read from the job's data node;
  // 0 for matrix instances.
  double input_bytes(std::uint32_t t) const { return input_bytes_.empty() ? 0.0 : input_bytes_[t]; }
  NodeId data_node() const { return data_node_; }
  // Mean over device pairs a != b of comm_seconds, as HEFT's ranking uses.
  double mean_comm_seconds(std::uint32_t e) const { return mean_comm_[e]; }
  // Mean over the devices that can run it of the task's compute time.
  double mean_compute_seconds(std::uint32_t t) const { return mean_compute_[t]; }

  // Topological order (Kahn's algorithm, ties by index).
  const std::vector<std::uint32_t>& topological_order() const { return topological_order_; }

  // Task index in the workload's TaskGraph (when built from a job) or the row index.
  TaskIndex global_task(std::uint32_t t) const { return first_task_ + t; }
  DeviceId global_device(DeviceId d) const { return d; }

 private:
  void index_edges();
  void compute_means();
  // The column of compute_ that holds device d's times: its spec class, or d itself.
  std::uint32_t column(DeviceId d) const {
    return column_of_device_.empty() ? d : column_of_device_[d];
  }

  std::vector<double> compute_;  // task-major: compute_[t * column_count_ + column(d)]
  std::vector<DagEdge> edges_;
  std::size_t task_count_ = 0;
  std::size_t device_count_ = 0;
  std::size_t column_count_ = 0;
  std::vector<std::uint32_t> column_of_device_;  // each device's spec class; empty: d
  const PerfModel* perf_ = nullptr;              // null for matrix instances (uniform network)
  TaskIndex first_task_ = 0;
  std::vector<std::uint32_t> pred_begin_, succ_begin_;
  std::vector<DagNeighbor> pred_, succ_;
  std::vector<double> mean_comm_, mean_compute_;
  std::vector<double> input_bytes_;  // empty when no task has an external input
  NodeId data_node_ = 0;
  std::vector<std::uint32_t> topological_order_;
};

// Checks a schedule against its instance: every task on a device that can run it
// for exactly its compute time, after each predecessor's finish plus communication,
// and no two tasks overlapping on one device. Fails with what is wrong.
Status check_schedule(const DagInstance& instance, const StaticSchedule& schedule);

}  // namespace hetsched
