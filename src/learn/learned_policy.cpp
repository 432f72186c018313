#include "hetsched/learn/learned_policy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "hetsched/core/input_error.hpp"
#include "hetsched/perf/dag_instance.hpp"
#include "hetsched/policy/dag_planners.hpp"
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
    "plan_device",
    "plan_start_after_now",
    "plan_next",
    "job_work_left",
    "job_age",
    "idle_share",
    "log_ready_per_device",
    "not_ready",
    "log_active_jobs",
    "log_jobs_arrived"};

constexpr std::array<std::string_view, kNodeFeatureCount> kNodeFeatureNames{
    "log_mean_run",   "log_fastest_over_mean", "rank_ratio",         "rank_scaled",
    "log_successors", "log_predecessors",      "log_output_transfer"};

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
  plan_device,
  plan_start_after_now,
  plan_next,
  job_work_left,
  job_age,
  idle_share,
  log_ready_per_device,
  not_ready,
  log_active_jobs,
  log_jobs_arrived
};

constexpr double kInfinity = std::numeric_limits<double>::infinity();

float bounded(double value) { return static_cast<float>(std::clamp(value, -50.0, 50.0)); }

}  // namespace

std::span<const std::string_view> decision_feature_names() { return kFeatureNames; }
std::span<const std::string_view> node_feature_names() { return kNodeFeatureNames; }
ModelInputs learned_model_inputs() { return {kFeatureNames, kNodeFeatureNames}; }

// One decision point's candidates: pair i·D + d is the task in window slot i on device d.
struct LearnedPolicy::Scratch {
  // A ready task's place in the order tasks enter the window, fixed at the decision point's
  // start: the plan's next tasks first, then the least work left, then the longest rank.
  struct OrderKey {
    bool plan_next = false;
    double work_left = 0, rank = 0;
    TaskIndex task = 0;
    // True when `b` enters before `a` (std::*_heap keep the first to enter at the front).
    friend bool operator<(const OrderKey& a, const OrderKey& b) {
      if (a.plan_next != b.plan_next) return b.plan_next;
      if (a.work_left != b.work_left) return b.work_left < a.work_left;
      if (a.rank != b.rank) return b.rank > a.rank;
      return b.task < a.task;
    }
  };
  std::vector<OrderKey> order;            // a heap of the ready tasks not yet entered
  std::vector<TaskIndex> slot_task;       // per slot; kNoTask when empty
  std::vector<std::uint32_t> slot_entry;  // per slot: its task's entry (below)
  std::vector<std::uint8_t> offered;      // per pair: a candidate (see offer())
  std::vector<double> inputs_ready;       // per pair: when the task's inputs can be there
  std::vector<double> best_finish;        // per slot, when its task entered
  std::vector<float> job_age;             // per slot: its job's age feature
  std::vector<float> rows;                // per pair, then the wait row at the end
  std::vector<float> scores;              // per pair, then the wait score
  std::vector<double> weights;            // sampling
  std::vector<std::uint32_t> candidates;

  // What stays true of a ready task while it waits — its run time on each device (infinity
  // where it cannot run), how long its inputs take to reach it once its producers are done,
  // the share of their bytes already there, its fastest run time — kept from the first
  // window it enters until it is placed, so that the decision points it waits through do
  // not work it out again. Entry e's device d is at e·D + d; `inputs_done` (its producers'
  // latest finish) tells a task whose inputs were made again since, and one whose
  // producers are still running (their inputs' arrival is then worked out each time).
  static constexpr std::uint32_t kNoEntry = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> entry_of;  // per task
  std::vector<std::uint32_t> free_entries;
  std::vector<double> cached_run, cached_transfer, cached_fastest, cached_inputs_done;
  std::vector<float> cached_inputs_local;
  std::size_t cached_devices = 0;  // D of the entries: another cluster size clears them
  std::uint32_t ready_entry(const ClusterSnapshot& snapshot, TaskIndex t);
  void release(TaskIndex t) {  // t is placed, or its job arrives
    if (t < entry_of.size() && entry_of[t] != kNoEntry) {
      free_entries.push_back(entry_of[t]);
      entry_of[t] = kNoEntry;
    }
  }
};

std::uint32_t LearnedPolicy::Scratch::ready_entry(const ClusterSnapshot& snapshot, TaskIndex t) {
  const TaskGraph& graph = snapshot.graph;
  const Cluster& cluster = snapshot.cluster;
  const std::size_t D = cluster.device_count();
  if (cached_devices != D) {
    entry_of.clear();
    free_entries.clear();
    cached_run.clear();
    cached_transfer.clear();
    cached_inputs_local.clear();
    cached_fastest.clear();
    cached_inputs_done.clear();
    cached_devices = D;
  }
  entry_of.resize(graph.task_count(), kNoEntry);
  double done = 0;
  for (const Dependency& dep : graph.predecessors(t))
    done = std::max(done, snapshot.finish_seconds[dep.task]);
  std::uint32_t e = entry_of[t];
  if (e != kNoEntry && cached_inputs_done[e] == done) return e;
  if (e == kNoEntry) {
    if (free_entries.empty()) {
      e = static_cast<std::uint32_t>(cached_fastest.size());
      cached_run.resize(cached_run.size() + D);
      cached_transfer.resize(cached_transfer.size() + D);
      cached_inputs_local.resize(cached_inputs_local.size() + D);
      cached_fastest.push_back(0);
      cached_inputs_done.push_back(0);
    } else {
      e = free_entries.back();
      free_entries.pop_back();
    }
    entry_of[t] = e;
  }
  cached_inputs_done[e] = done;
  const Task& task = graph.task(t);
  double* run = &cached_run[std::size_t(e) * D];
  double* transfer = &cached_transfer[std::size_t(e) * D];
  float* inputs_local = &cached_inputs_local[std::size_t(e) * D];
  double fastest = kInfinity, total = 0;
  for (const Dependency& dep : graph.predecessors(t)) total += dep.bytes;
  for (DeviceId d = 0; d < D; ++d) {
    run[d] = can_run(task, cluster.device(d))
                 ? snapshot.perf.task_seconds(task, cluster.device(d), 0)
                 : kInfinity;
    fastest = std::min(fastest, run[d]);
    transfer[d] = 0;
    inputs_local[d] = 0;
    if (!std::isfinite(run[d])) continue;
    transfer[d] = snapshot.input_transfer_seconds(t, d);
    double local = 0;
    for (const Dependency& dep : graph.predecessors(t))
      if (snapshot.placement[dep.task] == d) local += dep.bytes;
    inputs_local[d] = total > 0 ? static_cast<float>(local / total) : 0.0f;
  }
  cached_fastest[e] = fastest;
  return e;
}

LearnedPolicy::LearnedPolicy(PolicyNetwork network)
    : network_(std::move(network)), scratch_(std::make_unique<Scratch>()) {
  if (network_.input_count() != kDecisionFeatureCount)
    throw InputError(fmt::format("the learned policy's network reads {} features, not {}",
                                 network_.input_count(), kDecisionFeatureCount));
  if (network_.encoder().width() > 0 &&
      network_.encoder().node_feature_count() != kNodeFeatureCount)
    throw InputError(fmt::format("the learned policy's encoder reads {} node features, not {}",
                                 network_.encoder().node_feature_count(), kNodeFeatureCount));
}

LearnedPolicy::~LearnedPolicy() = default;

void LearnedPolicy::grow(const TaskGraph& graph) {
  rank_ratio_.resize(graph.task_count(), 0);
  rank_seconds_.resize(graph.task_count(), 0);
  rank_scaled_.resize(graph.task_count(), 0);
  successors_.resize(graph.task_count(), 0);
  mean_run_.resize(graph.task_count(), 0);
  first_sums_.resize(graph.task_count() * network_.first_width(), 0);
  trace_node_.resize(graph.task_count(), DecisionTrace::kNoNode);
  job_scale_.resize(graph.job_count(), 1);
  job_remaining_.resize(graph.job_count(), 0);
  job_work_left_.resize(graph.job_count(), 0);
  job_unplaced_.resize(graph.job_count(), 0);
}

void LearnedPolicy::place(JobIndex job, TaskIndex t) {
  if (job_unplaced_[job] > 0 && --job_unplaced_[job] == 0) --active_jobs_;
  double& remaining = job_remaining_[job];
  remaining = std::max(0.0, remaining - mean_run_[t]);
  job_work_left_[job] = bounded(std::log1p(remaining / job_scale_[job]));
}

void LearnedPolicy::on_job_arrival(const ClusterSnapshot& snapshot, JobIndex job,
                                   AssignmentSink& /*out*/) {
  grow(snapshot.graph);
  const DagInstance instance(snapshot.graph, job, snapshot.perf);
  if (instance.task_count() == 0) return;
  const std::vector<double> rank = upward_ranks(instance);
  double work = 0;
  for (std::uint32_t t = 0; t < instance.task_count(); ++t) {
    const double mean = instance.mean_compute_seconds(t);
    mean_run_[instance.global_task(t)] = std::isfinite(mean) ? mean : 0;
    work += mean_run_[instance.global_task(t)];
  }
  // Every job with tasks not yet placed is planned again, least work left first.
  job_remaining_[job] = work;
  std::erase_if(planned_jobs_, [&](JobIndex j) { return j == job || job_unplaced_[j] == 0; });
  planned_jobs_.push_back(job);
  std::sort(planned_jobs_.begin(), planned_jobs_.end(), [&](JobIndex a, JobIndex b) {
    return job_remaining_[a] != job_remaining_[b] ? job_remaining_[a] < job_remaining_[b] : a < b;
  });
  plan_.plan(snapshot, planned_jobs_);
  const double longest = std::max(*std::max_element(rank.begin(), rank.end()), 1e-12);
  job_scale_[job] = std::max(work / double(instance.task_count()), 1e-12);
  if (job_unplaced_[job] == 0) ++active_jobs_;
  ++arrived_jobs_;
  job_unplaced_[job] = instance.task_count();
  job_work_left_[job] = bounded(std::log1p(work / job_scale_[job]));
  for (std::uint32_t t = 0; t < instance.task_count(); ++t) {
    const TaskIndex g = instance.global_task(t);
    scratch_->release(g);  // nothing kept of a task before its job arrives (another run's)
    rank_ratio_[g] = bounded(rank[t] / longest);
    rank_seconds_[g] = rank[t];
    rank_scaled_[g] = bounded(std::log1p(rank[t] / job_scale_[job]));
    successors_[g] = bounded(std::log1p(double(instance.successors(t).size())));
  }
  embed(instance, job);
}

void LearnedPolicy::embed(const DagInstance& instance, JobIndex job) {
  const std::size_t N = instance.task_count();
  const double scale = job_scale_[job];
  nodes_.assign(N * kNodeFeatureCount, 0.0f);
  std::vector<double> row(instance.device_count());
  for (std::uint32_t t = 0; t < N; ++t) {
    const TaskIndex g = instance.global_task(t);
    const double mean = mean_run_[g];
    double fastest = kInfinity, sent = 0;
    for (double seconds : instance.compute_row(t, row)) fastest = std::min(fastest, seconds);
    for (const DagNeighbor& s : instance.successors(t)) sent += instance.mean_comm_seconds(s.edge);
    float* x = &nodes_[t * kNodeFeatureCount];
    // In the order of kNodeFeatureNames.
    x[0] = bounded(std::log1p(mean / scale));
    x[1] = mean > 0 && fastest > 0 ? bounded(std::log(fastest / mean)) : 0.0f;
    x[2] = rank_ratio_[g];
    x[3] = rank_scaled_[g];
    x[4] = successors_[g];
    x[5] = bounded(std::log1p(double(instance.predecessors(t).size())));
    x[6] = bounded(std::log1p(sent / scale));  // log_output_transfer
  }
  const std::size_t H = network_.first_width();
  const std::size_t E = network_.encoder().width();
  network_.encoder().encode(nodes_, instance.edges(), embeddings_);
  for (std::uint32_t t = 0; t < N; ++t)
    network_.embedding_sums({embeddings_.data() + std::size_t(t) * E, E},
                            {&first_sums_[std::size_t(instance.global_task(t)) * H], H});
  if (trace_ == nullptr) return;
  const auto base = static_cast<std::uint32_t>(trace_->node_features.size() / kNodeFeatureCount);
  trace_->node_features.insert(trace_->node_features.end(), nodes_.begin(), nodes_.end());
  for (const DagEdge& e : instance.edges())
    trace_->edges.push_back({.from = base + e.from, .to = base + e.to, .bytes = e.bytes});
  for (std::uint32_t t = 0; t < N; ++t) trace_node_[instance.global_task(t)] = base + t;
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
  // Slot i's task's run time on d (infinity where d cannot run it), from its entry.
  double run_seconds(std::size_t i, DeviceId d) const {
    return s_.cached_run[std::size_t(s_.slot_entry[i]) * D_ + d];
  }
  double finish_of(std::size_t i, DeviceId d) const {
    return std::max({now_, snapshot_.device_available_seconds[d], s_.inputs_ready[i * D_ + d]}) +
           run_seconds(i, d);
  }
  // What a candidate's row is written from: task t on device d, when it would finish, its
  // best finish on any device, its run time there and on its fastest device, when its
  // inputs can be there and the share of their bytes already there, its job's age feature,
  // whether it is d's next planned task and whether it is not ready yet (a commitment).
  struct Candidate {
    TaskIndex task;
    DeviceId device;
    double finish, best_finish, run, fastest, inputs;
    float inputs_local, job_age;
    bool plan_next, not_ready;
  };
  // Writes its row of features and returns its score (0 when the network does not score).
  float write_row(const Candidate& c, float* row) const;
  void fill_pair(std::size_t i, DeviceId d);  // a pair's row of features, and its score
  void enter(std::size_t i);                  // the next task that can run into slot i
  // The devices slot i's task is offered on: its planned device and the kOffered others
  // where it would finish first (the rest would only be worse places for it). Fills the
  // pairs newly offered, and `refresh` as well when it is still offered.
  void offer(std::size_t i, DeviceId refresh = kNoDevice);
  void fill_wait();  // waiting's row and score
  // The index among s_.candidates of what is done (the last one: waiting, when allowed):
  // the network's choice, and the plan's (imitate_plan).
  std::size_t choose(bool may_wait);
  std::size_t teacher_choice(bool may_wait) const;
  void record(std::size_t chosen);           // into the training trace, when there is one
  void place_ready(AssignmentSink& out);     // the window's decisions
  void commit_planned(AssignmentSink& out);  // the plan's next tasks that are not ready yet
  // A commit candidate's row of features (the task t, not ready yet, on its planned device
  // d) and its score (-infinity where d cannot run t); `finish` is when t would finish.
  float fill_commit(TaskIndex t, DeviceId d, float* row, double& finish) const;
  void commit_to(TaskIndex t, DeviceId d, double finish, AssignmentSink& out);
  void record_commit(TaskIndex t, const float* commit_row, const float* wait_row, bool commit);

  LearnedPolicy& policy_;
  const ClusterSnapshot& snapshot_;
  const TaskGraph& graph_;
  Scratch& s_;
  const double now_;
  const std::size_t D_;
  std::size_t W_ = 0;     // window slots
  std::size_t idle_ = 0;  // devices free now
  std::size_t busy_ = 0;  // devices up and busy
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
  // The order tasks enter the window: the plan's next task of each device first (so that
  // the plan can be followed however many tasks are ready), then the job with the least
  // work left (shortest remaining processing time, which mean completion time rewards),
  // then by upward rank.
  // It is a heap: only the tasks that enter are taken out of it in order.
  s_.order.clear();
  for (TaskIndex t : ready) {
    s_.order.push_back({.plan_next = policy_.plan_.is_head(snapshot_, t),
                        .work_left = policy_.job_remaining_[graph_.job_of(t)],
                        .rank = policy_.rank_seconds_[t],
                        .task = t});
  }
  std::make_heap(s_.order.begin(), s_.order.end());
  W_ = std::min(kWindow, s_.order.size());
  for (DeviceId d = 0; d < D_; ++d) {
    const double available = snapshot.device_available_seconds[d];
    idle_ += available <= now_;
    busy_ += available > now_ && std::isfinite(available);
  }
  idle_share_ = static_cast<float>(double(idle_) / double(D_));
  ready_per_device_ = bounded(std::log1p(double(ready.size()) / double(D_)));

  s_.slot_task.assign(W_, kNoTask);
  s_.slot_entry.assign(W_, Scratch::kNoEntry);
  s_.offered.assign(W_ * D_, 0);
  s_.inputs_ready.assign(W_ * D_, 0);
  s_.best_finish.assign(W_, kInfinity);
  s_.job_age.assign(W_, 0.0f);
  s_.rows.assign((W_ * D_ + 1) * F, 0.0f);
  s_.scores.assign(W_ * D_ + 1, -std::numeric_limits<float>::infinity());
}

float LearnedPolicy::DecisionPoint::write_row(const Candidate& c, float* row) const {
  const TaskIndex t = c.task;
  const JobIndex job = graph_.job_of(t);
  const double scale = policy_.job_scale_[job];
  const double available = std::max(now_, snapshot_.device_available_seconds[c.device]);
  row[wait] = 0;
  row[finish_after_now] = bounded((c.finish - now_) / scale);
  row[finish_beyond_best] = bounded((c.finish - c.best_finish) / scale);
  row[run_time] = bounded(c.run / scale);
  row[log_run_time_over_fastest] = bounded(std::log(c.run / c.fastest));
  row[device_busy] = bounded((available - now_) / scale);
  row[input_wait] = bounded((std::max(c.inputs, now_) - now_) / scale);
  row[inputs_on_device] = c.inputs_local;
  row[rank_ratio] = policy_.rank_ratio_[t];
  row[rank_scaled] = policy_.rank_scaled_[t];
  row[log_successors] = policy_.successors_[t];
  row[plan_device] = policy_.plan_.device(t) == c.device ? 1.0f : 0.0f;
  row[plan_start_after_now] =
      bounded(std::max((policy_.plan_.start_seconds(t) - now_) / scale, -kPlanLagFeatureLimit));
  row[plan_next] = c.plan_next ? 1.0f : 0.0f;
  row[job_work_left] = policy_.job_work_left_[job];
  row[job_age] = c.job_age;
  row[idle_share] = idle_share_;
  row[log_ready_per_device] = ready_per_device_;
  row[not_ready] = c.not_ready ? 1.0f : 0.0f;
  row[log_active_jobs] = policy_.active_jobs_feature();
  row[log_jobs_arrived] = policy_.jobs_arrived_feature();
  if (!policy_.scores_candidates()) return 0;
  const std::size_t H = policy_.network_.first_width();
  return policy_.network_.score({row, F}, {&policy_.first_sums_[std::size_t(t) * H], H});
}

void LearnedPolicy::DecisionPoint::fill_pair(std::size_t i, DeviceId d) {
  const std::size_t p = i * D_ + d;
  const TaskIndex t = s_.slot_task[i];
  const std::size_t e = s_.slot_entry[i];
  const float score =
      write_row({.task = t,
                 .device = d,
                 .finish = finish_of(i, d),
                 .best_finish = s_.best_finish[i],
                 .run = run_seconds(i, d),
                 .fastest = s_.cached_fastest[e],
                 .inputs = s_.inputs_ready[p],
                 .inputs_local = s_.cached_inputs_local[e * D_ + d],
                 .job_age = s_.job_age[i],
                 .plan_next = policy_.plan_.device(t) == d && policy_.plan_.is_head(snapshot_, t),
                 .not_ready = false},
                &s_.rows[p * F]);
  if (policy_.scores_candidates()) s_.scores[p] = score;
}

void LearnedPolicy::DecisionPoint::enter(std::size_t i) {
  s_.slot_task[i] = kNoTask;
  while (!s_.order.empty()) {
    std::pop_heap(s_.order.begin(), s_.order.end());
    const TaskIndex t = s_.order.back().task;
    s_.order.pop_back();
    const std::uint32_t e = s_.ready_entry(snapshot_, t);
    if (!std::isfinite(s_.cached_fastest[e])) continue;  // no device can: left for the loop
    s_.slot_task[i] = t;
    s_.slot_entry[i] = e;
    const JobIndex job = graph_.job_of(t);
    s_.job_age[i] = bounded(std::log1p(std::max(0.0, now_ - graph_.job(job).arrival_seconds) /
                                       policy_.job_scale_[job]));
    const bool inputs_done = s_.cached_inputs_done[e] <= now_;
    s_.best_finish[i] = kInfinity;
    for (DeviceId d = 0; d < D_; ++d) {
      if (!std::isfinite(run_seconds(i, d))) continue;
      s_.inputs_ready[i * D_ + d] =
          inputs_done ? now_ + s_.cached_transfer[e * D_ + d] : snapshot_.data_ready_seconds(t, d);
      s_.best_finish[i] = std::min(s_.best_finish[i], finish_of(i, d));
    }
    std::fill_n(&s_.offered[i * D_], D_, 0);
    offer(i);
    return;
  }
}

void LearnedPolicy::DecisionPoint::offer(std::size_t i, DeviceId refresh) {
  std::array<DeviceId, kOffered> first{};
  std::size_t count = 0;
  const auto earlier = [&](DeviceId a, DeviceId b) {
    const double fa = finish_of(i, a), fb = finish_of(i, b);
    return fa != fb ? fa < fb : a < b;
  };
  const DeviceId planned = policy_.plan_.device(s_.slot_task[i]);
  for (DeviceId d = 0; d < D_; ++d) {
    if (d == planned || !std::isfinite(run_seconds(i, d))) continue;
    if (count < kOffered)
      first[count++] = d;
    else if (earlier(d, first[kOffered - 1]))
      first[kOffered - 1] = d;
    else
      continue;
    for (std::size_t k = count - 1; k > 0 && earlier(first[k], first[k - 1]); --k)
      std::swap(first[k], first[k - 1]);
  }
  const auto set = [&](DeviceId d) {
    std::uint8_t& offered = s_.offered[i * D_ + d];
    if (!offered || d == refresh) fill_pair(i, d);
    offered = 2;  // offered now; 1 below: offered before
  };
  for (std::size_t k = 0; k < count; ++k) set(first[k]);
  if (planned != kNoDevice && planned < D_ && std::isfinite(run_seconds(i, planned))) set(planned);
  for (DeviceId d = 0; d < D_; ++d) {
    std::uint8_t& offered = s_.offered[i * D_ + d];
    offered = offered == 2 ? 1 : 0;
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
  row[log_active_jobs] = policy_.active_jobs_feature();
  row[log_jobs_arrived] = policy_.jobs_arrived_feature();
  if (policy_.scores_candidates()) s_.scores[W_ * D_] = policy_.network_.score({row, F});
}

std::size_t LearnedPolicy::DecisionPoint::teacher_choice(bool may_wait) const {
  // The plan's next task of its device that it starts first; else wait, or when no
  // device is busy, the pair that finishes first.
  const std::vector<std::uint32_t>& candidates = s_.candidates;
  const auto row = [&](std::size_t c) { return &s_.rows[std::size_t(candidates[c]) * F]; };
  const std::size_t pairs = candidates.size() - (may_wait ? 1 : 0);
  std::size_t next = pairs;
  for (std::size_t c = 0; c < pairs; ++c)
    if (row(c)[plan_next] > 0 &&
        (next == pairs || row(c)[plan_start_after_now] < row(next)[plan_start_after_now]))
      next = c;
  if (next < pairs || may_wait) return next;
  std::size_t chosen = 0;
  for (std::size_t c = 1; c < pairs; ++c)
    if (row(c)[finish_after_now] < row(chosen)[finish_after_now]) chosen = c;
  return chosen;
}

std::size_t LearnedPolicy::DecisionPoint::choose(bool may_wait) {
  const std::vector<std::uint32_t>& candidates = s_.candidates;
  std::size_t chosen = 0;
  if (policy_.rng_ == nullptr) {
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
  for (std::uint32_t c : s_.candidates) {
    trace->rows.insert(trace->rows.end(), &s_.rows[std::size_t(c) * F],
                       &s_.rows[std::size_t(c) * F] + F);
    trace->row_node.push_back(c == W_ * D_ ? DecisionTrace::kNoNode
                                           : policy_.trace_node_[s_.slot_task[c / D_]]);
  }
}

void LearnedPolicy::DecisionPoint::run(AssignmentSink& out) {
  place_ready(out);
  commit_planned(out);
}

float LearnedPolicy::DecisionPoint::fill_commit(TaskIndex t, DeviceId d, float* row,
                                                double& finish) const {
  // Its run times and input shares are kept like a ready task's (Scratch::ready_entry),
  // so that a task declined at one decision point is not worked out again at the next.
  const std::uint32_t e = s_.ready_entry(snapshot_, t);
  const double run = s_.cached_run[std::size_t(e) * D_ + d];
  if (!std::isfinite(run)) return -std::numeric_limits<float>::infinity();
  const JobIndex job = graph_.job_of(t);
  const double inputs = snapshot_.data_ready_seconds(t, d);
  finish = std::max({now_, snapshot_.device_available_seconds[d], inputs}) + run;
  const double age = std::max(0.0, now_ - graph_.job(job).arrival_seconds);
  return write_row({.task = t,
                    .device = d,
                    .finish = finish,
                    .best_finish = finish,
                    .run = run,
                    .fastest = s_.cached_fastest[e],
                    .inputs = inputs,
                    .inputs_local = s_.cached_inputs_local[std::size_t(e) * D_ + d],
                    .job_age = bounded(std::log1p(age / policy_.job_scale_[job])),
                    .plan_next = true,
                    .not_ready = true},
                   row);
}

void LearnedPolicy::DecisionPoint::commit_planned(AssignmentSink& out) {
  // Each device's next planned task, when it is not ready yet but all its producers are
  // placed, may be committed to its device now — queued there, so that its inputs move as
  // soon as they are made, at the price of holding the device's queue — or wait to be
  // offered when it is ready. Committing one may let the next of its device's sequence
  // (or another device's) be offered, so the devices are gone over until none changes.
  std::array<float, F> row{};
  bool changed = true;
  while (changed) {
    changed = false;
    for (DeviceId d = 0; d < D_; ++d) {
      // A device that is down (its free time infinite) is offered nothing.
      while (std::isfinite(snapshot_.device_available_seconds[d])) {
        const TaskIndex t = policy_.plan_.head(snapshot_, d);
        if (t == kNoTask || snapshot_.state[t] != TaskState::pending) break;
        bool producers_placed = true;
        for (const Dependency& dep : graph_.predecessors(t))
          producers_placed = producers_placed && snapshot_.placement[dep.task] != kUnplaced;
        if (!producers_placed) break;
        double finish = 0;
        const float commit_score = fill_commit(t, d, row.data(), finish);
        if (!std::isfinite(commit_score)) break;  // d cannot run it
        fill_wait();
        const float* wait_row = &s_.rows[W_ * D_ * F];
        const float wait_score = s_.scores[W_ * D_];
        // The network's choice (sampled when exploring), or the teacher's: commit while
        // the job is the only one the run has seen — once jobs compete, a committed task
        // that waits for its inputs holds its device's queue against theirs.
        bool commit = commit_score > wait_score;
        if (policy_.rng_ != nullptr && policy_.imitation_ == Imitation::none)
          commit = policy_.rng_->weighted_index(
                       {1.0, std::exp(double(wait_score) - double(commit_score))}) == 0;
        if (policy_.imitation_ == Imitation::none) {
          record_commit(t, row.data(), wait_row, commit);
        } else {
          const bool taught = policy_.active_jobs_ == 1 && policy_.arrived_jobs_ == 1;
          record_commit(t, row.data(), wait_row, taught);
          if (policy_.imitation_ == Imitation::teacher_acts) commit = taught;
        }
        if (!commit) break;
        commit_to(t, d, finish, out);
        if (snapshot_.placement[t] == kUnplaced) break;  // refused: the device went down
        changed = true;
      }
    }
  }
}

void LearnedPolicy::DecisionPoint::commit_to(TaskIndex t, DeviceId d, double finish,
                                             AssignmentSink& out) {
  out.assign(Assignment{.task = t,
                        .device = d,
                        .pstate = 0,
                        .planned_start_seconds = kAppend,
                        .predicted_finish_seconds = finish});
  if (snapshot_.placement[t] != kUnplaced) policy_.place(graph_.job_of(t), t);
  s_.release(t);
}

void LearnedPolicy::DecisionPoint::record_commit(TaskIndex t, const float* commit_row,
                                                 const float* wait_row, bool commit) {
  DecisionTrace* trace = policy_.trace_;
  if (trace == nullptr) return;
  trace->decisions.push_back(
      {static_cast<std::uint32_t>(trace->rows.size() / F), 2, commit ? 0u : 1u});
  trace->rows.insert(trace->rows.end(), commit_row, commit_row + F);
  trace->rows.insert(trace->rows.end(), wait_row, wait_row + F);
  trace->row_node.push_back(policy_.trace_node_[t]);
  trace->row_node.push_back(DecisionTrace::kNoNode);
}

void LearnedPolicy::DecisionPoint::place_ready(AssignmentSink& out) {
  for (std::size_t i = 0; i < W_; ++i) enter(i);
  // Waiting needs a device that is up and busy: its finish is a later decision point
  // (waiting on devices that are all idle or down would never offer these tasks again).
  bool may_wait = busy_ > 0;
  for (;;) {
    if (may_wait) fill_wait();
    s_.candidates.clear();
    for (std::size_t i = 0; i < W_; ++i)
      if (s_.slot_task[i] != kNoTask)
        for (DeviceId d = 0; d < D_; ++d)
          if (s_.offered[i * D_ + d])
            s_.candidates.push_back(static_cast<std::uint32_t>(i * D_ + d));
    if (s_.candidates.empty()) return;
    if (may_wait) s_.candidates.push_back(static_cast<std::uint32_t>(W_ * D_));
    std::size_t chosen = 0;
    if (policy_.imitation_ == Imitation::none) {
      chosen = choose(may_wait);
      record(chosen);
    } else {
      const std::size_t taught = teacher_choice(may_wait);
      record(taught);
      chosen = policy_.imitation_ == Imitation::teacher_acts ? taught : choose(may_wait);
    }
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
    s_.release(t);
    // A device that went down refuses it: it is offered again at a later decision point.
    if (snapshot_.placement[t] != kUnplaced) {
      policy_.place(graph_.job_of(t), t);
      may_wait = true;
    }
    enter(i);
    // d's free time moved (a task offered on d may now finish sooner elsewhere), and the
    // next task of t's planned device changed: their columns are filled again.
    const DeviceId planned = policy_.plan_.device(t);
    for (std::size_t j = 0; j < W_; ++j) {
      if (j == i || s_.slot_task[j] == kNoTask) continue;
      if (s_.offered[j * D_ + d]) offer(j, d);
      if (planned != d && planned != kNoDevice && s_.offered[j * D_ + planned])
        fill_pair(j, planned);
    }
  }
}

void LearnedPolicy::on_tasks_ready(const ClusterSnapshot& snapshot,
                                   std::span<const TaskIndex> ready, AssignmentSink& out) {
  if (ready.empty() || snapshot.cluster.device_count() == 0) return;
  grow(snapshot.graph);
  DecisionPoint(*this, snapshot, ready).run(out);
}

}  // namespace hetsched
