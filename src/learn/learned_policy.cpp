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
    "heft_device",
    "heft_start_after_now",
    "job_work_left",
    "job_age",
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
  heft_device,
  heft_start_after_now,
  job_work_left,
  job_age,
  idle_share,
  log_ready_per_device
};

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr TaskIndex kNoTask = std::numeric_limits<TaskIndex>::max();

float bounded(double value) { return static_cast<float>(std::clamp(value, -50.0, 50.0)); }

}  // namespace

std::span<const std::string_view> decision_feature_names() { return kFeatureNames; }

// One decision point's candidates: pair i·D + d is the task in window slot i on device d.
struct LearnedPolicy::Scratch {
  std::vector<TaskIndex> order;      // the ready tasks in the order they enter the window
  std::vector<TaskIndex> slot_task;  // per slot; kNoTask when empty
  std::vector<double> run_seconds;   // per pair; infinity where d cannot run the task
  // Per pair, fixed for the decision point (a ready task's producers are all done): when
  // the task's inputs can be on the device, and the share of their bytes already there.
  std::vector<double> inputs_ready;
  std::vector<float> inputs_local;
  std::vector<double> best_finish;  // per slot, when its task entered
  std::vector<double> fastest;      // per slot
  std::vector<float> rows;          // per pair, then the wait row at the end
  std::vector<float> scores;        // per pair, then the wait score
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

void LearnedPolicy::grow(const TaskGraph& graph) {
  rank_ratio_.resize(graph.task_count(), 0);
  rank_seconds_.resize(graph.task_count(), 0);
  successors_.resize(graph.task_count(), 0);
  mean_run_.resize(graph.task_count(), 0);
  heft_device_.resize(graph.task_count(), kNoDevice);
  heft_start_.resize(graph.task_count(), 0);
  job_scale_.resize(graph.job_count(), 1);
  job_remaining_.resize(graph.job_count(), 0);
}

void LearnedPolicy::on_job_arrival(const ClusterSnapshot& snapshot, JobIndex job,
                                   AssignmentSink& /*out*/) {
  grow(snapshot.graph);
  const DagInstance instance(snapshot.graph, job, snapshot.perf);
  if (instance.task_count() == 0) return;
  const std::vector<double> rank = upward_ranks(instance);
  // HEFT's plan of the job from now, over what the devices already hold: advice the
  // network may follow or overrule as the actual durations unfold.
  const double now = snapshot.now_seconds;
  std::vector<double> free(snapshot.cluster.device_count());
  heft_free_.resize(free.size(), 0);
  for (DeviceId d = 0; d < free.size(); ++d)
    free[d] = std::max({0.0, snapshot.device_available_seconds[d] - now, heft_free_[d] - now});
  const StaticSchedule plan = upward_rank_schedule(instance, {.device_free_seconds = free});
  for (const PlannedTask& p : plan.tasks)
    if (p.device != kNoDevice)
      heft_free_[p.device] = std::max(heft_free_[p.device], now + p.finish_seconds);
  double work = 0;
  for (std::uint32_t t = 0; t < instance.task_count(); ++t)
    if (std::isfinite(instance.mean_compute_seconds(t))) work += instance.mean_compute_seconds(t);
  const double longest = std::max(*std::max_element(rank.begin(), rank.end()), 1e-12);
  job_scale_[job] = std::max(work / double(instance.task_count()), 1e-12);
  job_remaining_[job] = work;
  for (std::uint32_t t = 0; t < instance.task_count(); ++t) {
    const TaskIndex g = instance.global_task(t);
    rank_ratio_[g] = bounded(rank[t] / longest);
    rank_seconds_[g] = rank[t];
    successors_[g] = bounded(std::log1p(double(instance.successors(t).size())));
    heft_device_[g] = plan.tasks[t].device;
    heft_start_[g] = now + plan.tasks[t].start_seconds;
    mean_run_[g] =
        std::isfinite(instance.mean_compute_seconds(t)) ? instance.mean_compute_seconds(t) : 0;
  }
}

void LearnedPolicy::on_tasks_ready(const ClusterSnapshot& snapshot,
                                   std::span<const TaskIndex> ready, AssignmentSink& out) {
  constexpr std::size_t F = kDecisionFeatureCount;
  Scratch& s = *scratch_;
  const Cluster& cluster = snapshot.cluster;
  const TaskGraph& graph = snapshot.graph;
  const double now = snapshot.now_seconds;
  const std::size_t D = cluster.device_count();
  if (ready.empty() || D == 0) return;
  grow(graph);

  // The order tasks enter the window: the job with the least work left first (shortest
  // remaining processing time, which mean completion time rewards), then by upward rank.
  s.order.assign(ready.begin(), ready.end());
  std::sort(s.order.begin(), s.order.end(), [&](TaskIndex a, TaskIndex b) {
    const double wa = job_remaining_[graph.job_of(a)], wb = job_remaining_[graph.job_of(b)];
    if (wa != wb) return wa < wb;
    if (rank_seconds_[a] != rank_seconds_[b]) return rank_seconds_[a] > rank_seconds_[b];
    return a < b;
  });
  const std::size_t W = std::min(kWindow, s.order.size());
  std::size_t next = 0;  // of s.order: the next task to enter the window

  std::size_t idle = 0;
  for (DeviceId d = 0; d < D; ++d) idle += snapshot.device_available_seconds[d] <= now;
  const float idle_share_value = static_cast<float>(double(idle) / double(D));
  const float ready_value = bounded(std::log1p(double(ready.size()) / double(D)));

  s.slot_task.assign(W, kNoTask);
  s.run_seconds.assign(W * D, kInfinity);
  s.inputs_ready.assign(W * D, 0);
  s.inputs_local.assign(W * D, 0);
  s.best_finish.assign(W, kInfinity);
  s.fastest.assign(W, kInfinity);
  s.rows.assign((W * D + 1) * F, 0.0f);
  s.scores.assign(W * D + 1, -std::numeric_limits<float>::infinity());

  // A pair's finish and its row of features; the row's score.
  auto finish_of = [&](std::size_t i, DeviceId d) {
    const std::size_t p = i * D + d;
    return std::max({now, snapshot.device_available_seconds[d], s.inputs_ready[p]}) +
           s.run_seconds[p];
  };
  auto fill_pair = [&](std::size_t i, DeviceId d) {
    const std::size_t p = i * D + d;
    const TaskIndex t = s.slot_task[i];
    const JobIndex job = graph.job_of(t);
    const double scale = job_scale_[job];
    const double available = std::max(now, snapshot.device_available_seconds[d]);
    const double inputs = s.inputs_ready[p];
    const double finish = finish_of(i, d);
    float* row = &s.rows[p * F];
    row[wait] = 0;
    row[finish_after_now] = bounded((finish - now) / scale);
    row[finish_beyond_best] = bounded((finish - s.best_finish[i]) / scale);
    row[run_time] = bounded(s.run_seconds[p] / scale);
    row[log_run_time_over_fastest] = bounded(std::log(s.run_seconds[p] / s.fastest[i]));
    row[device_busy] = bounded((available - now) / scale);
    row[input_wait] = bounded((std::max(inputs, now) - now) / scale);
    row[inputs_on_device] = s.inputs_local[p];
    row[rank_ratio] = rank_ratio_[t];
    row[rank_scaled] = bounded(std::log1p(rank_seconds_[t] / scale));
    row[log_successors] = successors_[t];
    row[heft_device] = heft_device_[t] == d ? 1.0f : 0.0f;
    row[heft_start_after_now] = bounded((heft_start_[t] - now) / scale);
    row[job_work_left] = bounded(std::log1p(job_remaining_[job] / scale));
    row[job_age] = bounded(std::log1p(std::max(0.0, now - graph.job(job).arrival_seconds) / scale));
    row[idle_share] = idle_share_value;
    row[log_ready_per_device] = ready_value;
    s.scores[p] = network_.score({row, F});
  };
  // Puts the next task of the order that some device can run into slot i (or empties it).
  auto enter = [&](std::size_t i) {
    s.slot_task[i] = kNoTask;
    while (next < s.order.size()) {
      const TaskIndex t = s.order[next++];
      const Task& task = graph.task(t);
      double fastest = kInfinity;
      for (DeviceId d = 0; d < D; ++d) {
        const double seconds = can_run(task, cluster.device(d))
                                   ? snapshot.perf.task_seconds(task, cluster.device(d), 0)
                                   : kInfinity;
        s.run_seconds[i * D + d] = seconds;
        fastest = std::min(fastest, seconds);
      }
      if (!std::isfinite(fastest)) continue;  // no device can: left for the loop to report
      s.slot_task[i] = t;
      s.fastest[i] = fastest;
      s.best_finish[i] = kInfinity;
      double total = 0;
      for (const Dependency& dep : graph.predecessors(t)) total += dep.bytes;
      for (DeviceId d = 0; d < D; ++d) {
        const std::size_t p = i * D + d;
        if (!std::isfinite(s.run_seconds[p])) continue;
        s.inputs_ready[p] = snapshot.data_ready_seconds(t, d);
        double local = 0;
        for (const Dependency& dep : graph.predecessors(t))
          if (snapshot.placement[dep.task] == d) local += dep.bytes;
        s.inputs_local[p] = total > 0 ? static_cast<float>(local / total) : 0.0f;
        s.best_finish[i] = std::min(s.best_finish[i], finish_of(i, d));
      }
      for (DeviceId d = 0; d < D; ++d)
        if (std::isfinite(s.run_seconds[i * D + d]))
          fill_pair(i, d);
        else
          s.scores[i * D + d] = -std::numeric_limits<float>::infinity();
      return;
    }
  };
  auto fill_wait = [&] {
    float* row = &s.rows[W * D * F];
    std::fill(row, row + F, 0.0f);
    double shortest = kInfinity, scale = 1;
    float largest_rank = 0;
    for (std::size_t i = 0; i < W; ++i)
      if (s.slot_task[i] != kNoTask) {
        largest_rank = std::max(largest_rank, rank_ratio_[s.slot_task[i]]);
        scale = job_scale_[graph.job_of(s.slot_task[i])];
      }
    for (DeviceId d = 0; d < D; ++d)
      shortest = std::min(shortest, std::max(0.0, snapshot.device_available_seconds[d] - now));
    row[wait] = 1;
    row[device_busy] = bounded(shortest / scale);
    row[rank_ratio] = largest_rank;
    row[idle_share] = idle_share_value;
    row[log_ready_per_device] = ready_value;
    s.scores[W * D] = network_.score({row, F});
  };

  for (std::size_t i = 0; i < W; ++i) enter(i);
  bool may_wait = idle < D;  // else nothing would ever offer these tasks again
  for (;;) {
    if (may_wait) fill_wait();
    s.candidates.clear();
    for (std::size_t i = 0; i < W; ++i)
      if (s.slot_task[i] != kNoTask)
        for (DeviceId d = 0; d < D; ++d)
          if (std::isfinite(s.run_seconds[i * D + d]))
            s.candidates.push_back(static_cast<std::uint32_t>(i * D + d));
    if (s.candidates.empty()) return;
    if (may_wait) s.candidates.push_back(static_cast<std::uint32_t>(W * D));

    std::size_t chosen = 0;
    if (imitate_) {  // the pair that finishes first
      for (std::size_t c = 1; c + (may_wait ? 1 : 0) < s.candidates.size(); ++c)
        if (s.rows[s.candidates[c] * F + finish_after_now] <
            s.rows[s.candidates[chosen] * F + finish_after_now])
          chosen = c;
    } else if (rng_ == nullptr) {
      // The likeliest kind of action, then the likeliest of its kind: wait when the
      // softmax gives waiting more weight than every placement together, else the best
      // pair (the best candidate alone would wait whenever waiting outscores each pair,
      // however many pairs there are).
      const std::size_t pairs = s.candidates.size() - (may_wait ? 1 : 0);
      for (std::size_t c = 1; c < pairs; ++c)
        if (s.scores[s.candidates[c]] > s.scores[s.candidates[chosen]]) chosen = c;
      if (may_wait) {
        const float top = s.scores[s.candidates[chosen]];
        double place = 0;
        for (std::size_t c = 0; c < pairs; ++c)
          place += std::exp(double(s.scores[s.candidates[c]] - top));
        if (std::exp(double(s.scores[W * D] - top)) > place) chosen = pairs;
      }
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
    if (pick == W * D) return;  // wait for the next decision point
    const std::size_t i = pick / D;
    const auto d = static_cast<DeviceId>(pick % D);
    const TaskIndex t = s.slot_task[i];
    out.assign(Assignment{.task = t,
                          .device = d,
                          .pstate = 0,
                          .planned_start_seconds = kAppend,
                          .predicted_finish_seconds = finish_of(i, d)});
    job_remaining_[graph.job_of(t)] = std::max(0.0, job_remaining_[graph.job_of(t)] - mean_run_[t]);
    may_wait = true;
    enter(i);
    for (std::size_t j = 0; j < W; ++j)  // d's free time moved: its column changed
      if (j != i && s.slot_task[j] != kNoTask && std::isfinite(s.run_seconds[j * D + d]))
        fill_pair(j, d);
  }
}

}  // namespace hetsched
