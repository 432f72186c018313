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

// One decision point: the window of ready tasks, their pairs with the devices, the
// features and scores of each pair and of waiting, and the choices made one after the
// other until the policy waits or nothing is left. Pair i·D + d is the task in window
// slot i on device d; a placement refreshes its device's column of the window.
class LearnedPolicy::DecisionPoint {
 public:
  DecisionPoint(LearnedPolicy& policy, const ClusterSnapshot& snapshot,
                std::span<const TaskIndex> ready);
  void run(AssignmentSink& out);

 private:
  static constexpr std::size_t F = kDecisionFeatureCount;
  double finish_of(std::size_t i, DeviceId d) const {
    const std::size_t p = i * D_ + d;
    return std::max({now_, snapshot_.device_available_seconds[d], s_.inputs_ready[p]}) +
           s_.run_seconds[p];
  }
  void fill_pair(std::size_t i, DeviceId d);  // a pair's row of features, and its score
  void enter(std::size_t i);                  // the next task that can run into slot i
  void fill_wait();                           // waiting's row and score
  // The index among s_.candidates of what is done (the last one: waiting, when allowed).
  std::size_t choose(bool may_wait);
  void record(std::size_t chosen);  // into the training trace, when there is one

  LearnedPolicy& policy_;
  const ClusterSnapshot& snapshot_;
  const TaskGraph& graph_;
  Scratch& s_;
  const double now_;
  const std::size_t D_;
  std::size_t W_ = 0;     // window slots
  std::size_t next_ = 0;  // of s_.order: the next task to enter the window
  std::size_t idle_ = 0;  // devices free now
  float idle_share_ = 0, ready_per_device_ = 0;
};

LearnedPolicy::DecisionPoint::DecisionPoint(LearnedPolicy& policy, const ClusterSnapshot& snapshot,
                                            std::span<const TaskIndex> ready)
    : policy_(policy),
      snapshot_(snapshot),
      graph_(snapshot.graph),
      s_(*policy.scratch_),
      now_(snapshot.now_seconds),
      D_(snapshot.cluster.device_count()) {
  // The order tasks enter the window: the job with the least work left first (shortest
  // remaining processing time, which mean completion time rewards), then by upward rank.
  s_.order.assign(ready.begin(), ready.end());
  std::sort(s_.order.begin(), s_.order.end(), [&](TaskIndex a, TaskIndex b) {
    const double wa = policy_.job_remaining_[graph_.job_of(a)];
    const double wb = policy_.job_remaining_[graph_.job_of(b)];
    if (wa != wb) return wa < wb;
    if (policy_.rank_seconds_[a] != policy_.rank_seconds_[b])
      return policy_.rank_seconds_[a] > policy_.rank_seconds_[b];
    return a < b;
  });
  W_ = std::min(kWindow, s_.order.size());
  for (DeviceId d = 0; d < D_; ++d) idle_ += snapshot.device_available_seconds[d] <= now_;
  idle_share_ = static_cast<float>(double(idle_) / double(D_));
  ready_per_device_ = bounded(std::log1p(double(ready.size()) / double(D_)));

  s_.slot_task.assign(W_, kNoTask);
  s_.run_seconds.assign(W_ * D_, kInfinity);
  s_.inputs_ready.assign(W_ * D_, 0);
  s_.inputs_local.assign(W_ * D_, 0);
  s_.best_finish.assign(W_, kInfinity);
  s_.fastest.assign(W_, kInfinity);
  s_.rows.assign((W_ * D_ + 1) * F, 0.0f);
  s_.scores.assign(W_ * D_ + 1, -std::numeric_limits<float>::infinity());
}

void LearnedPolicy::DecisionPoint::fill_pair(std::size_t i, DeviceId d) {
  const std::size_t p = i * D_ + d;
  const TaskIndex t = s_.slot_task[i];
  const JobIndex job = graph_.job_of(t);
  const double scale = policy_.job_scale_[job];
  const double available = std::max(now_, snapshot_.device_available_seconds[d]);
  const double inputs = s_.inputs_ready[p];
  const double finish = finish_of(i, d);
  float* row = &s_.rows[p * F];
  row[wait] = 0;
  row[finish_after_now] = bounded((finish - now_) / scale);
  row[finish_beyond_best] = bounded((finish - s_.best_finish[i]) / scale);
  row[run_time] = bounded(s_.run_seconds[p] / scale);
  row[log_run_time_over_fastest] = bounded(std::log(s_.run_seconds[p] / s_.fastest[i]));
  row[device_busy] = bounded((available - now_) / scale);
  row[input_wait] = bounded((std::max(inputs, now_) - now_) / scale);
  row[inputs_on_device] = s_.inputs_local[p];
  row[rank_ratio] = policy_.rank_ratio_[t];
  row[rank_scaled] = bounded(std::log1p(policy_.rank_seconds_[t] / scale));
  row[log_successors] = policy_.successors_[t];
  row[heft_device] = policy_.heft_device_[t] == d ? 1.0f : 0.0f;
  row[heft_start_after_now] = bounded((policy_.heft_start_[t] - now_) / scale);
  row[job_work_left] = bounded(std::log1p(policy_.job_remaining_[job] / scale));
  row[job_age] = bounded(std::log1p(std::max(0.0, now_ - graph_.job(job).arrival_seconds) / scale));
  row[idle_share] = idle_share_;
  row[log_ready_per_device] = ready_per_device_;
  s_.scores[p] = policy_.network_.score({row, F});
}

void LearnedPolicy::DecisionPoint::enter(std::size_t i) {
  const Cluster& cluster = snapshot_.cluster;
  s_.slot_task[i] = kNoTask;
  while (next_ < s_.order.size()) {
    const TaskIndex t = s_.order[next_++];
    const Task& task = graph_.task(t);
    double fastest = kInfinity;
    for (DeviceId d = 0; d < D_; ++d) {
      const double seconds = can_run(task, cluster.device(d))
                                 ? snapshot_.perf.task_seconds(task, cluster.device(d), 0)
                                 : kInfinity;
      s_.run_seconds[i * D_ + d] = seconds;
      fastest = std::min(fastest, seconds);
    }
    if (!std::isfinite(fastest)) continue;  // no device can: left for the loop to report
    s_.slot_task[i] = t;
    s_.fastest[i] = fastest;
    s_.best_finish[i] = kInfinity;
    double total = 0;
    for (const Dependency& dep : graph_.predecessors(t)) total += dep.bytes;
    for (DeviceId d = 0; d < D_; ++d) {
      const std::size_t p = i * D_ + d;
      if (!std::isfinite(s_.run_seconds[p])) continue;
      s_.inputs_ready[p] = snapshot_.data_ready_seconds(t, d);
      double local = 0;
      for (const Dependency& dep : graph_.predecessors(t))
        if (snapshot_.placement[dep.task] == d) local += dep.bytes;
      s_.inputs_local[p] = total > 0 ? static_cast<float>(local / total) : 0.0f;
      s_.best_finish[i] = std::min(s_.best_finish[i], finish_of(i, d));
    }
    for (DeviceId d = 0; d < D_; ++d)
      if (std::isfinite(s_.run_seconds[i * D_ + d]))
        fill_pair(i, d);
      else
        s_.scores[i * D_ + d] = -std::numeric_limits<float>::infinity();
    return;
  }
}

void LearnedPolicy::DecisionPoint::fill_wait() {
  float* row = &s_.rows[W_ * D_ * F];
  std::fill(row, row + F, 0.0f);
  double shortest = kInfinity, scale = 1;
  float largest_rank = 0;
  for (std::size_t i = 0; i < W_; ++i)
    if (s_.slot_task[i] != kNoTask) {
      largest_rank = std::max(largest_rank, policy_.rank_ratio_[s_.slot_task[i]]);
      scale = policy_.job_scale_[graph_.job_of(s_.slot_task[i])];
    }
  for (DeviceId d = 0; d < D_; ++d)
    shortest = std::min(shortest, std::max(0.0, snapshot_.device_available_seconds[d] - now_));
  row[wait] = 1;
  row[device_busy] = bounded(shortest / scale);
  row[rank_ratio] = largest_rank;
  row[idle_share] = idle_share_;
  row[log_ready_per_device] = ready_per_device_;
  s_.scores[W_ * D_] = policy_.network_.score({row, F});
}

std::size_t LearnedPolicy::DecisionPoint::choose(bool may_wait) {
  const std::vector<std::uint32_t>& candidates = s_.candidates;
  std::size_t chosen = 0;
  if (policy_.imitate_) {  // the pair that finishes first
    for (std::size_t c = 1; c + (may_wait ? 1 : 0) < candidates.size(); ++c)
      if (s_.rows[candidates[c] * F + finish_after_now] <
          s_.rows[candidates[chosen] * F + finish_after_now])
        chosen = c;
  } else if (policy_.rng_ == nullptr) {
    // The likeliest kind of action, then the likeliest of its kind: wait when the
    // softmax gives waiting more weight than every placement together, else the best
    // pair (the best candidate alone would wait whenever waiting outscores each pair,
    // however many pairs there are).
    const std::size_t pairs = candidates.size() - (may_wait ? 1 : 0);
    for (std::size_t c = 1; c < pairs; ++c)
      if (s_.scores[candidates[c]] > s_.scores[candidates[chosen]]) chosen = c;
    if (may_wait) {
      const float top = s_.scores[candidates[chosen]];
      double place = 0;
      for (std::size_t c = 0; c < pairs; ++c)
        place += std::exp(double(s_.scores[candidates[c]] - top));
      if (std::exp(double(s_.scores[W_ * D_] - top)) > place) chosen = pairs;
    }
  } else {
    float top = -std::numeric_limits<float>::infinity();
    for (std::uint32_t c : candidates) top = std::max(top, s_.scores[c]);
    s_.weights.resize(candidates.size());
    for (std::size_t c = 0; c < candidates.size(); ++c)
      s_.weights[c] = std::exp(double(s_.scores[candidates[c]] - top));
    chosen = policy_.rng_->weighted_index(s_.weights);
  }
  return chosen;
}

void LearnedPolicy::DecisionPoint::record(std::size_t chosen) {
  DecisionTrace* trace = policy_.trace_;
  if (trace == nullptr) return;
  trace->decisions.push_back({static_cast<std::uint32_t>(trace->rows.size() / F),
                              static_cast<std::uint32_t>(s_.candidates.size()),
                              static_cast<std::uint32_t>(chosen)});
  for (std::uint32_t c : s_.candidates)
    trace->rows.insert(trace->rows.end(), &s_.rows[std::size_t(c) * F],
                       &s_.rows[std::size_t(c) * F] + F);
}

void LearnedPolicy::DecisionPoint::run(AssignmentSink& out) {
  for (std::size_t i = 0; i < W_; ++i) enter(i);
  bool may_wait = idle_ < D_;  // else nothing would ever offer these tasks again
  for (;;) {
    if (may_wait) fill_wait();
    s_.candidates.clear();
    for (std::size_t i = 0; i < W_; ++i)
      if (s_.slot_task[i] != kNoTask)
        for (DeviceId d = 0; d < D_; ++d)
          if (std::isfinite(s_.run_seconds[i * D_ + d]))
            s_.candidates.push_back(static_cast<std::uint32_t>(i * D_ + d));
    if (s_.candidates.empty()) return;
    if (may_wait) s_.candidates.push_back(static_cast<std::uint32_t>(W_ * D_));
    const std::size_t chosen = choose(may_wait);
    record(chosen);
    const std::uint32_t pick = s_.candidates[chosen];
    if (pick == W_ * D_) return;  // wait for the next decision point
    const std::size_t i = pick / D_;
    const auto d = static_cast<DeviceId>(pick % D_);
    const TaskIndex t = s_.slot_task[i];
    out.assign(Assignment{.task = t,
                          .device = d,
                          .pstate = 0,
                          .planned_start_seconds = kAppend,
                          .predicted_finish_seconds = finish_of(i, d)});
    double& remaining = policy_.job_remaining_[graph_.job_of(t)];
    remaining = std::max(0.0, remaining - policy_.mean_run_[t]);
    may_wait = true;
    enter(i);
    for (std::size_t j = 0; j < W_; ++j)  // d's free time moved: its column changed
      if (j != i && s_.slot_task[j] != kNoTask && std::isfinite(s_.run_seconds[j * D_ + d]))
        fill_pair(j, d);
  }
}

void LearnedPolicy::on_tasks_ready(const ClusterSnapshot& snapshot,
                                   std::span<const TaskIndex> ready, AssignmentSink& out) {
  if (ready.empty() || snapshot.cluster.device_count() == 0) return;
  grow(snapshot.graph);
  DecisionPoint(*this, snapshot, ready).run(out);
}

}  // namespace hetsched
