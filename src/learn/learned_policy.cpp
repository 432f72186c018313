#include "hetsched/learn/learned_policy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "hetsched/core/input_error.hpp"
#include "hetsched/perf/dag_instance.hpp"
#include "hetsched/policy/list_scheduling.hpp"
#include "hetsched/workload/feasibility.hpp"

namespace hetsched {

namespace {

constexpr std::array<std::string_view, kDecisionFeatureCount> kFeatureNames{
    "wait",
    "finish_after_now",
    "finish_beyond_best",
    "run_time",
    "log_run_time_over_fastest",
    "device_busy",
    "input_wait",
    "inputs_on_device",
    "rank_ratio",
    "rank_scaled",
    "log_successors",
    "idle_share",
    "log_ready_per_device"};

enum Feature : std::size_t {
  wait,
  finish_after_now,
  finish_beyond_best,
  run_time,
  log_run_time_over_fastest,
  device_busy,
  input_wait,
  inputs_on_device,
  rank_ratio,
  rank_scaled,
  log_successors,
  idle_share,
  log_ready_per_device
};

constexpr double kInfinity = std::numeric_limits<double>::infinity();

float bounded(double value) { return static_cast<float>(std::clamp(value, -50.0, 50.0)); }

}  // namespace

std::span<const std::string_view> decision_feature_names() { return kFeatureNames; }

// One decision point's candidates: pair i·D + d is ready task i on device d.
struct LearnedPolicy::Scratch {
  std::vector<double> run_seconds;  // per pair; infinity where d cannot run the task
  std::vector<double> best_finish;  // per task, at the decision point's start
  std::vector<double> fastest;      // per task
  std::vector<float> rows;          // per pair, then the wait row at the end
  std::vector<float> scores;        // per pair, then the wait score
  std::vector<std::uint8_t> open;   // per task: not placed yet
  std::vector<double> weights;      // sampling
  std::vector<std::uint32_t> candidates;
};

LearnedPolicy::LearnedPolicy(PolicyNetwork network)
    : network_(std::move(network)), scratch_(std::make_unique<Scratch>()) {
  if (network_.input_count() != kDecisionFeatureCount)
    throw InputError(fmt::format("the learned policy's network reads {} features, not {}",
                                 network_.input_count(), kDecisionFeatureCount));
}

LearnedPolicy::~LearnedPolicy() = default;

void LearnedPolicy::on_job_arrival(const ClusterSnapshot& snapshot, JobIndex job,
                                   AssignmentSink& /*out*/) {
  const TaskGraph& graph = snapshot.graph;
  rank_ratio_.resize(graph.task_count(), 0);
  rank_scaled_.resize(graph.task_count(), 0);
  successors_.resize(graph.task_count(), 0);
  job_scale_.resize(graph.job_count(), 1);
  const DagInstance instance(graph, job, snapshot.perf);
  if (instance.task_count() == 0) return;
  const std::vector<double> rank = upward_ranks(instance);
  double scale = 0;
  for (std::uint32_t t = 0; t < instance.task_count(); ++t)
    scale += instance.mean_compute_seconds(t);
  scale = std::max(scale / double(instance.task_count()), 1e-12);
  const double longest = std::max(*std::max_element(rank.begin(), rank.end()), 1e-12);
  job_scale_[job] = scale;
  for (std::uint32_t t = 0; t < instance.task_count(); ++t) {
    const TaskIndex g = instance.global_task(t);
    rank_ratio_[g] = bounded(rank[t] / longest);
    rank_scaled_[g] = bounded(std::log1p(rank[t] / scale));
    successors_[g] = bounded(std::log1p(double(instance.successors(t).size())));
  }
}

void LearnedPolicy::on_tasks_ready(const ClusterSnapshot& snapshot,
                                   std::span<const TaskIndex> ready, AssignmentSink& out) {
  constexpr std::size_t F = kDecisionFeatureCount;
  Scratch& s = *scratch_;
  const Cluster& cluster = snapshot.cluster;
  const TaskGraph& graph = snapshot.graph;
  const double now = snapshot.now_seconds;
  const std::size_t R = ready.size();
  const std::size_t D = cluster.device_count();
  if (R == 0 || D == 0) return;
  // The job context may be missing when the policy joined a run late.
  if (rank_ratio_.size() < graph.task_count()) {
    rank_ratio_.resize(graph.task_count(), 0);
    rank_scaled_.resize(graph.task_count(), 0);
    successors_.resize(graph.task_count(), 0);
  }
  if (job_scale_.size() < graph.job_count()) job_scale_.resize(graph.job_count(), 1);

  std::size_t idle = 0;
  bool some_busy = false;
  for (DeviceId d = 0; d < D; ++d) {
    if (snapshot.device_available_seconds[d] <= now)
      ++idle;
    else
      some_busy = true;
  }
  const float idle_share_value = static_cast<float>(double(idle) / double(D));
  const float ready_value = bounded(std::log1p(double(R) / double(D)));

  s.run_seconds.assign(R * D, kInfinity);
  s.best_finish.assign(R, kInfinity);
  s.fastest.assign(R, kInfinity);
  s.open.assign(R, 0);
  s.rows.assign((R * D + 1) * F, 0.0f);
  s.scores.assign(R * D + 1, -std::numeric_limits<float>::infinity());
  for (std::size_t i = 0; i < R; ++i) {
    const Task& task = graph.task(ready[i]);
    for (DeviceId d = 0; d < D; ++d) {
      if (!can_run(task, cluster.device(d))) continue;
      const double seconds = snapshot.perf.task_seconds(task, cluster.device(d), 0);
      s.run_seconds[i * D + d] = seconds;
      s.fastest[i] = std::min(s.fastest[i], seconds);
    }
    s.open[i] = std::isfinite(s.fastest[i]) ? 1 : 0;
  }

  // A pair's finish and its row of features; the row's score.
  auto finish_of = [&](std::size_t i, DeviceId d) {
    const double start = std::max(
        {now, snapshot.device_available_seconds[d], snapshot.data_ready_seconds(ready[i], d)});
    return start + s.run_seconds[i * D + d];
  };
  auto fill_pair = [&](std::size_t i, DeviceId d) {
    const std::size_t p = i * D + d;
    const TaskIndex t = ready[i];
    const double scale = job_scale_[graph.job_of(t)];
    const double available = std::max(now, snapshot.device_available_seconds[d]);
    const double inputs = snapshot.data_ready_seconds(t, d);
    const double finish = std::max(available, inputs) + s.run_seconds[p];
    double local = 0, total = 0;
    for (const Dependency& dep : graph.predecessors(t)) {
      total += dep.bytes;
      if (snapshot.placement[dep.task] == d) local += dep.bytes;
    }
    float* row = &s.rows[p * F];
    row[wait] = 0;
    row[finish_after_now] = bounded((finish - now) / scale);
    row[finish_beyond_best] = bounded((finish - s.best_finish[i]) / scale);
    row[run_time] = bounded(s.run_seconds[p] / scale);
    row[log_run_time_over_fastest] = bounded(std::log(s.run_seconds[p] / s.fastest[i]));
    row[device_busy] = bounded((available - now) / scale);
    row[input_wait] = bounded((std::max(inputs, now) - now) / scale);
    row[inputs_on_device] = total > 0 ? static_cast<float>(local / total) : 0.0f;
    row[rank_ratio] = rank_ratio_[t];
    row[rank_scaled] = rank_scaled_[t];
    row[log_successors] = successors_[t];
    row[idle_share] = idle_share_value;
    row[log_ready_per_device] = ready_value;
    s.scores[p] = network_.score({row, F});
  };
  auto fill_wait = [&] {
    float* row = &s.rows[R * D * F];
    std::fill(row, row + F, 0.0f);
    double shortest = kInfinity;
    float largest_rank = 0;
    double scale = 1;
    for (std::size_t i = 0; i < R; ++i)
      if (s.open[i]) {
        largest_rank = std::max(largest_rank, rank_ratio_[ready[i]]);
        scale = job_scale_[graph.job_of(ready[i])];
      }
    for (DeviceId d = 0; d < D; ++d)
      shortest = std::min(shortest, std::max(0.0, snapshot.device_available_seconds[d] - now));
    row[wait] = 1;
    row[device_busy] = bounded(shortest / scale);
    row[rank_ratio] = largest_rank;
    row[idle_share] = idle_share_value;
    row[log_ready_per_device] = ready_value;
    s.scores[R * D] = network_.score({row, F});
  };

  for (std::size_t i = 0; i < R; ++i) {
    if (!s.open[i]) continue;
    for (DeviceId d = 0; d < D; ++d)
      if (std::isfinite(s.run_seconds[i * D + d]))
        s.best_finish[i] = std::min(s.best_finish[i], finish_of(i, d));
    for (DeviceId d = 0; d < D; ++d)
      if (std::isfinite(s.run_seconds[i * D + d])) fill_pair(i, d);
  }

  bool may_wait = some_busy;  // else nothing would ever offer these tasks again
  for (;;) {
    if (may_wait) fill_wait();
    s.candidates.clear();
    for (std::size_t i = 0; i < R; ++i)
      if (s.open[i])
        for (DeviceId d = 0; d < D; ++d)
          if (std::isfinite(s.run_seconds[i * D + d]))
            s.candidates.push_back(static_cast<std::uint32_t>(i * D + d));
    if (s.candidates.empty()) return;
    if (may_wait) s.candidates.push_back(static_cast<std::uint32_t>(R * D));

    std::size_t chosen = 0;
    if (rng_ == nullptr) {
      for (std::size_t c = 1; c < s.candidates.size(); ++c)
        if (s.scores[s.candidates[c]] > s.scores[s.candidates[chosen]]) chosen = c;
    } else {
      float top = -std::numeric_limits<float>::infinity();
      for (std::uint32_t c : s.candidates) top = std::max(top, s.scores[c]);
      s.weights.resize(s.candidates.size());
      for (std::size_t c = 0; c < s.candidates.size(); ++c)
        s.weights[c] = std::exp(double(s.scores[s.candidates[c]] - top));
      chosen = rng_->weighted_index(s.weights);
    }
    if (trace_ != nullptr) {
      trace_->decisions.push_back({static_cast<std::uint32_t>(trace_->rows.size() / F),
                                   static_cast<std::uint32_t>(s.candidates.size()),
                                   static_cast<std::uint32_t>(chosen)});
      for (std::uint32_t c : s.candidates)
        trace_->rows.insert(trace_->rows.end(), &s.rows[std::size_t(c) * F],
                            &s.rows[std::size_t(c) * F] + F);
    }
    const std::uint32_t pick = s.candidates[chosen];
    if (pick == R * D) return;  // wait for the next decision point
    const std::size_t i = pick / D;
    const auto d = static_cast<DeviceId>(pick % D);
    out.assign(Assignment{.task = ready[i],
                          .device = d,
                          .pstate = 0,
                          .planned_start_seconds = kAppend,
                          .predicted_finish_seconds = finish_of(i, d)});
    s.open[i] = 0;
    may_wait = true;
    for (std::size_t j = 0; j < R; ++j)  // d's free time moved: its column changed
      if (s.open[j] && std::isfinite(s.run_seconds[j * D + d])) fill_pair(j, d);
  }
}

}  // namespace hetsched
