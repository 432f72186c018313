#include "hetsched/perf/dag_instance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <queue>
#include <stdexcept>

#include "hetsched/core/available_memory.hpp"

namespace hetsched {
namespace {
// Plans smaller than this are not checked against the free memory (which costs a file read).
constexpr double kLargePlanBytes = 256e6;
}  // namespace

DagInstance::DagInstance(const TaskGraph& graph, JobIndex job, const PerfModel& perf)
    : task_count_(graph.end_task(job) - graph.first_task(job)),
      device_count_(perf.cluster().device_count()),
      perf_(&perf),
      first_task_(graph.first_task(job)) {
  const TaskIndex end = graph.end_task(job);
  const Cluster& cluster = perf.cluster();
  // Run times per spec class where the model predicts by part and no task has its own
  // costs (the same answer for every device of a class), else per device.
  bool by_class = perf.predicts_by_spec();
  for (TaskIndex t = first_task_; t < end && by_class; ++t)
    by_class = graph.task(t).cost_seconds.empty();
  if (by_class) {
    column_count_ = cluster.spec_class_count();
    column_of_device_.resize(device_count_);
    for (DeviceId d = 0; d < device_count_; ++d) column_of_device_[d] = cluster.spec_class(d);
  } else {
    column_count_ = device_count_;
  }
  // A job of 100,000 tasks with their own costs on 100,000 devices would ask for 80 GB,
  // refused here in one line rather than by the kernel.
  if (const double bytes =
          static_cast<double>(task_count_) * static_cast<double>(column_count_) * sizeof(double);
      bytes > kLargePlanBytes)
    check_memory_fits(bytes,
                      fmt::format("planning job '{}' ({} tasks on {} devices, a run time for each "
                                  "task on each {})",
                                  graph.job(job).name, task_count_, device_count_,
                                  by_class ? fmt::format("of {} device parts", column_count_)
                                           : std::string("device")));
  compute_.assign(task_count_ * column_count_, kCannotRun);
  data_node_ = graph.job(job).data_node;
  for (TaskIndex t = first_task_; t < end; ++t) {
    const Task& task = graph.task(t);
    if (task.input_bytes > 0) {
      input_bytes_.resize(task_count_, 0.0);
      input_bytes_[t - first_task_] = task.input_bytes;
    }
    double* row = compute_.data() + (t - first_task_) * column_count_;
    if (by_class) {
      // Once per spec class: a thousand nodes of a few parts cost a few predictions.
      for (std::uint32_t c = 0; c < column_count_; ++c)
        row[c] = perf.task_seconds(task, cluster.device(cluster.spec_class_device(c)), 0);
    } else {
      for (const Device& d : cluster.devices()) row[d.id] = perf.task_seconds(task, d, 0);
    }
    for (const Dependency& s : graph.successors(t))
      edges_.push_back(DagEdge{t - first_task_, s.task - first_task_, s.bytes});
  }
  index_edges();
  compute_means();
}

DagInstance::DagInstance(std::vector<std::vector<double>> compute_seconds,
                         std::vector<DagEdge> edges)
    : edges_(std::move(edges)),
      task_count_(compute_seconds.size()),
      device_count_(compute_seconds.empty() ? 0 : compute_seconds.front().size()),
      column_count_(device_count_) {
  compute_.reserve(task_count_ * device_count_);
  for (const std::vector<double>& row : compute_seconds) {
    if (row.size() != device_count_)
      throw std::invalid_argument("DagInstance: rows of the cost matrix differ in length");
    compute_.insert(compute_.end(), row.begin(), row.end());
  }
  index_edges();
  compute_means();
}

std::span<const double> DagInstance::compute_row(std::uint32_t t, std::span<double> scratch) const {
  const double* row = compute_.data() + t * column_count_;
  if (column_of_device_.empty()) return {row, device_count_};
  for (std::size_t d = 0; d < device_count_; ++d) scratch[d] = row[column_of_device_[d]];
  return scratch.first(device_count_);
}

double DagInstance::comm_seconds(std::uint32_t e, DeviceId a, DeviceId b) const {
  if (a == b) return 0.0;
  return perf_ ? perf_->transfer_seconds(edges_[e].bytes, a, b) : edges_[e].bytes;
}

void DagInstance::raise_arrivals(std::uint32_t e, DeviceId a, double sent,
                                 std::span<double> arrival) const {
  const double local = std::max(arrival[a], sent);
  const double bytes = edges_[e].bytes;
  if (perf_ && bytes > 0) {
    // The time to a device depends only on its path from a's node, which is the same for
    // every device of a node (devices are numbered node by node) and for every node of
    // the same rack relation and NIC: worked out when the path changes, read from the
    // cluster's dense arrays rather than from the nodes' records.
    const Cluster& cluster = perf_->cluster();
    const NodeId from = cluster.node_of(a);
    auto node = static_cast<NodeId>(-1);  // none yet
    double latency = -1, bandwidth = -1, at = sent;
    for (std::size_t d = 0; d < arrival.size(); ++d) {
      if (const NodeId n = cluster.node_of(static_cast<DeviceId>(d)); n != node) {
        node = n;
        const double path_latency = cluster.path_latency(from, n);
        const double path_bandwidth = cluster.path_bandwidth(from, n);
        if (path_latency != latency || path_bandwidth != bandwidth) {
          latency = path_latency, bandwidth = path_bandwidth;
          // Summed as Cluster::transfer_seconds sums, so the times are the same to the bit.
          at = sent + (latency + bytes / bandwidth);
        }
      }
      arrival[d] = std::max(arrival[d], at);
    }
  } else if (perf_) {
    for (double& b : arrival) b = std::max(b, sent);  // nothing to move: there when sent
  } else {
    // A uniform network: the same time to every other device (a loop the compiler vectorises).
    const double remote = sent + bytes;
    for (double& b : arrival) b = std::max(b, remote);
  }
  arrival[a] = local;
}

void DagInstance::index_edges() {
  const std::size_t n = task_count_;
  pred_begin_.assign(n + 1, 0);
  succ_begin_.assign(n + 1, 0);
  for (const DagEdge& e : edges_) {
    ++pred_begin_[e.to + 1];
    ++succ_begin_[e.from + 1];
  }
  for (std::size_t t = 0; t < n; ++t) {
    pred_begin_[t + 1] += pred_begin_[t];
    succ_begin_[t + 1] += succ_begin_[t];
  }
  pred_.resize(edges_.size());
  succ_.resize(edges_.size());
  std::vector<std::uint32_t> pred_fill(pred_begin_.begin(), pred_begin_.end() - 1);
  std::vector<std::uint32_t> succ_fill(succ_begin_.begin(), succ_begin_.end() - 1);
  for (std::uint32_t i = 0; i < edges_.size(); ++i) {
    pred_[pred_fill[edges_[i].to]++] = DagNeighbor{edges_[i].from, i};
    succ_[succ_fill[edges_[i].from]++] = DagNeighbor{edges_[i].to, i};
  }
  std::vector<std::uint32_t> remaining(n);
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ready;
  for (std::uint32_t t = 0; t < n; ++t) {
    remaining[t] = pred_begin_[t + 1] - pred_begin_[t];
    if (remaining[t] == 0) ready.push(t);
  }
  while (!ready.empty()) {
    const std::uint32_t t = ready.top();
    ready.pop();
    topological_order_.push_back(t);
    for (const DagNeighbor& s : successors(t))
      if (--remaining[s.task] == 0) ready.push(s.task);
  }
}

void DagInstance::compute_means() {
  mean_compute_.assign(task_count_, 0.0);
  for (std::uint32_t t = 0; t < task_count_; ++t) {
    double sum = 0;
    int count = 0;
    // Over every device in order (a device's time is its column's): the same sum as a
    // table per device gives, to the bit.
    for (DeviceId d = 0; d < device_count_; ++d)
      if (const double c = compute_seconds(t, d); c != kCannotRun) sum += c, ++count;
    mean_compute_[t] = count ? sum / count : kCannotRun;
  }
  mean_comm_.assign(edges_.size(), 0.0);
  // Edges that carry nothing cost nothing: the pair means are not needed then.
  if (device_count_ < 2 ||
      std::none_of(edges_.begin(), edges_.end(), [](const DagEdge& e) { return e.bytes > 0; }))
    return;
  if (!perf_) {
    for (std::size_t e = 0; e < edges_.size(); ++e) mean_comm_[e] = edges_[e].bytes;
    return;
  }
  // Mean transfer time over ordered pairs of distinct devices: latency and inverse
  // bandwidth averaged once (in O(nodes log nodes)), so O(1) per edge.
  const PairTransferMeans means = perf_->mean_pair_transfer();
  for (std::size_t e = 0; e < edges_.size(); ++e)
    mean_comm_[e] = edges_[e].bytes > 0
                        ? means.latency_seconds + means.seconds_per_byte * edges_[e].bytes
                        : 0.0;
}

Status check_schedule(const DagInstance& instance, const StaticSchedule& schedule) {
  if (schedule.tasks.size() != instance.task_count())
    return failure("schedule has the wrong number of tasks");
  constexpr double tolerance = 1e-9;
  for (std::uint32_t t = 0; t < instance.task_count(); ++t) {
    const PlannedTask& p = schedule.tasks[t];
    if (p.device >= instance.device_count()) return failure(fmt::format("task {} on no device", t));
    const double run = instance.compute_seconds(t, p.device);
    if (run == kCannotRun)
      return failure(fmt::format("task {} on device {} which cannot run it", t, p.device));
    if (std::abs(p.finish_seconds - p.start_seconds - run) > tolerance * std::max(1.0, run))
      return failure(fmt::format("task {} runs {} s instead of {} s", t,
                                 p.finish_seconds - p.start_seconds, run));
    if (p.finish_seconds > schedule.makespan_seconds * (1 + tolerance) + tolerance)
      return failure(fmt::format("task {} ends after the makespan", t));
    for (const DagNeighbor& q : instance.predecessors(t)) {
      const PlannedTask& producer = schedule.tasks[q.task];
      const double arrival =
          producer.finish_seconds + instance.comm_seconds(q.edge, producer.device, p.device);
      if (p.start_seconds + tolerance * std::max(1.0, arrival) < arrival)
        return failure(
            fmt::format("task {} starts at {} before its input from task {} arrives at {}", t,
                        p.start_seconds, q.task, arrival));
    }
  }
  std::vector<std::vector<std::pair<double, double>>> busy(instance.device_count());
  for (const PlannedTask& p : schedule.tasks)
    busy[p.device].emplace_back(p.start_seconds, p.finish_seconds);
  for (std::size_t d = 0; d < busy.size(); ++d) {
    std::sort(busy[d].begin(), busy[d].end());
    for (std::size_t i = 1; i < busy[d].size(); ++i)
      if (busy[d][i].first + tolerance * std::max(1.0, busy[d][i].first) < busy[d][i - 1].second)
        return failure(fmt::format("two tasks overlap on device {}", d));
  }
  return {};
}

}  // namespace hetsched
