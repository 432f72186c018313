// LearnedPolicy ("learned" in the registry): an online policy whose choices come from a
// network trained in the twin (hetsched train). At each job's arrival every job with tasks
// not yet placed is planned again (HEFT's or PEFT's plan, the shorter), least work left first
// (shortest remaining work first, which mean completion time rewards), each over the work
// the devices hold and the plans of the jobs before it, its tasks already placed kept where
// they are (StreamPlan); each device gets a sequence of planned tasks, job by job in that
// order, each job's in its plan's order. At each decision point the policy orders the
// ready tasks — each device's next task in its sequence first, then the job with the
// least work left, then by upward rank — and looks at the first 8 (its window). It offers
// each window task on its planned device and on the 3 others where it would finish first,
// scores every such pair, and one more candidate, "wait", whenever some device still has
// work (a task may then hold out for a better device instead of queueing behind a worse
// one), and takes the best pair — or waits, when under the softmax waiting outweighs every
// placement together. The next ready task enters the window, the pairs the choice changed
// (the chosen device's column, the planned device's next task) are scored again, and so on
// until every ready task is placed or it waits. What stays true of a ready task while it
// waits (its run times, its inputs' transfers) is kept from one decision point to the next.
// Then each device's next planned task that is not ready yet but whose producers are all
// placed is offered as a commitment — queued on its device now, so that its inputs move as
// soon as they are made, at the price of holding the device's queue until they are in —
// scored against waiting.
// During training it samples the candidates by softmax instead, or imitates the plan, and
// records what it saw and chose (DecisionTrace).
//
// Cost per decision point: O(window x devices) to find each window task's devices and the
// devices' shortest wait, O(devices) for the commitments, and the scores (O(features x
// hidden) each); a ready task keeps a run time and a transfer per device (O(devices) of
// memory each). At a job's arrival, HEFT's and PEFT's plans over the cluster for each job
// with tasks not yet placed (a job's plans cost what they cost the static planners). It is
// built for a node or a rack of unlike devices (the settings it is trained and measured
// on), not for fleets of 100,000: there greedy-eft's index finds each device in time that
// does not grow with the fleet.
//
// What it sees of a pair (task t, device d), times over the job's mean task run time
// (its scale), so that one network serves small and large tiles and clusters alike:
//  - the finish t would have on d (the later of d's predicted free time and t's inputs'
//    arrival, plus its run time) after now, and beyond t's best finish on any device;
//  - t's run time on d, and its log ratio over t's run time on its fastest device;
//  - how long d is busy, how long t's inputs take to reach d, the share of t's input
//    bytes already on d;
//  - t's upward rank (its critical path to the job's end: Decima's and READYS' graph
//    summary of what depends on it) over the job's longest, and over the scale;
//  - log(1 + t's successors);
//  - whether d is the device the plan of t's job gives t, and when that plan starts t,
//    after now (the shorter of HEFT's and PEFT's, as heft-ils starts from: PEFT's
//    optimistic cost table sees a fast and a slow accelerator where HEFT's mean run times
//    blur them), and whether t is the next task of d's sequence (the first not yet
//    placed): following the plan's order, not only its devices, is what makes a static
//    plan good;
//  - log(1 + the work of t's job not yet placed), and log(1 + the job's age);
//  - the share of devices idle and log(1 + ready tasks per device) at the decision point;
//  - whether it is a commitment (t not ready yet), log(1 + the jobs with tasks not yet
//    placed) and log(1 + the jobs that have arrived).
// The "wait" candidate has its own flag set, the shortest wait of any device, the
// largest rank ratio of the window's tasks and the two shares.
// And it sees t's embedding: the network's graph encoder (GraphEncoder) embeds each job's
// tasks at its arrival from their node features — t's mean run time over the scale, its
// fastest over its mean, its rank (as a ratio and scaled), log(1 + its successors), log(1 +
// its predecessors), log(1 + the mean transfer time of its outputs over the scale) — and
// those of its neighbourhood in the DAG.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "hetsched/learn/policy_network.hpp"
#include "hetsched/learn/stream_plan.hpp"
#include "hetsched/perf/dag_instance.hpp"
#include "hetsched/policy/scheduling_policy.hpp"

namespace hetsched {

inline constexpr std::size_t kDecisionFeatureCount = 21;
// The job counts the network sees (log_active_jobs, log_jobs_arrived) stop growing here: the
// streams it trains on have this many jobs (DagStreamScenarioSpace), and a count far beyond
// them is extrapolation it was never taught (on a 400-job stream it then waited until one
// device at a time was busy).
inline constexpr std::size_t kJobCountFeatureLimit = 12;
// How far behind its plan a task may look (plan_start_after_now, in its job's mean task run
// times): the plans the network trains on are rarely more than two behind, and one far
// further behind (whose transfers the twin queued longer than planned) is extrapolation it
// was never taught (on a stream on the default cluster it then waited while most devices
// idled).
inline constexpr double kPlanLagFeatureLimit = 4;
inline constexpr std::size_t kNodeFeatureCount = 7;
std::span<const std::string_view> decision_feature_names();
std::span<const std::string_view> node_feature_names();
// Both: what a model file for this build's policy must list.
ModelInputs learned_model_inputs();

// What the policy saw and chose, decision by decision, for the trainer.
struct DecisionTrace {
  struct Decision {
    std::uint32_t first_row = 0;   // of rows / kDecisionFeatureCount
    std::uint32_t candidates = 0;  // rows of this decision
    std::uint32_t chosen = 0;      // index among them
  };
  static constexpr std::uint32_t kNoNode = std::numeric_limits<std::uint32_t>::max();
  std::vector<float> rows;              // kDecisionFeatureCount floats per candidate
  std::vector<std::uint32_t> row_node;  // per candidate: its task's node (kNoNode: waiting)
  std::vector<Decision> decisions;
  // The graph the encoder embedded: the tasks of every job that arrived, as nodes
  // (kNodeFeatureCount floats each, jobs one after the other) and the edges between them.
  std::vector<float> node_features;
  std::vector<DagEdge> edges;
  void clear() {
    rows.clear();
    row_node.clear();
    decisions.clear();
    node_features.clear();
    edges.clear();
  }
};

class LearnedPolicy final : public SchedulingPolicy {
 public:
  explicit LearnedPolicy(PolicyNetwork network);
  ~LearnedPolicy() override;

  std::string_view name() const override { return "learned"; }
  void on_job_arrival(const ClusterSnapshot& snapshot, JobIndex job, AssignmentSink& out) override;
  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override;

  // Training: sample candidates by softmax with `rng` (null: take the best) and record
  // each decision into `trace` (null: none). Both must outlive the runs.
  void explore(Rng* rng, DecisionTrace* trace) {
    rng_ = rng;
    trace_ = trace;
  }
  // Training from a teacher: record at each decision the choice the plan would make (of
  // the window's tasks that are the next of their planned device, the one the plan starts
  // first; wait when there is none and some device is busy, else the pair that finishes
  // first). The teacher acts on it; with `network_acts`, the network's own greedy choice is
  // taken instead, so that the trace holds the teacher's choices in the states the
  // network's mistakes lead to (DAgger: Ross, Gordon and Bagnell, AISTATS 2011).
  void imitate_plan(DecisionTrace* trace, bool network_acts = false) {
    imitation_ = network_acts ? Imitation::network_acts : Imitation::teacher_acts;
    trace_ = trace;
  }
  const PolicyNetwork& network() const { return network_; }

  // Ready tasks the policy looks at together at most (the window).
  static constexpr std::size_t kWindow = 8;
  // Devices a task is offered on besides its planned one: where it would finish first.
  static constexpr std::size_t kOffered = 3;

 private:
  struct Scratch;
  class DecisionPoint;  // one call of on_tasks_ready (learned_policy.cpp)
  static constexpr TaskIndex kNoTask = StreamPlan::kNoTask;
  void grow(const TaskGraph& graph);  // sizes the per-task and per-job state to the graph

  PolicyNetwork network_;
  // Per task of the graph, from its job's arrival.
  std::vector<float> rank_ratio_, rank_scaled_, successors_;
  std::vector<double> rank_seconds_, mean_run_;
  // The first layer's sums of the task's embedding (PolicyNetwork::embedding_sums), and
  // its node in the training trace.
  std::vector<float> first_sums_;
  std::vector<std::uint32_t> trace_node_;
  // The job's node features and embeddings (reused between arrivals).
  std::vector<float> nodes_, embeddings_;
  // Embeds the job's tasks (and records them into the trace, when there is one).
  void embed(const DagInstance& instance, JobIndex job);
  // The jobs' plans and each device's sequence of planned tasks, made again at each job's
  // arrival for every job with tasks not yet placed, least work left first.
  StreamPlan plan_;
  // Per job: mean task run time (the scale of its features), work not yet placed and its
  // feature.
  std::vector<double> job_scale_, job_remaining_;
  std::vector<float> job_work_left_;
  // Per job, its tasks not yet placed; the jobs that have some, the jobs that arrived, and
  // their features.
  std::vector<std::size_t> job_unplaced_;
  std::vector<JobIndex> planned_jobs_;  // those that may have some, least work left first
  std::size_t active_jobs_ = 0, arrived_jobs_ = 0;
  float active_jobs_feature() const { return job_count_feature(active_jobs_); }
  float jobs_arrived_feature() const { return job_count_feature(arrived_jobs_); }
  static float job_count_feature(std::size_t jobs) {
    return static_cast<float>(std::log1p(double(std::min(jobs, kJobCountFeatureLimit))));
  }
  void place(JobIndex job, TaskIndex t);  // t of `job` is placed: less of its work is left
  Rng* rng_ = nullptr;
  DecisionTrace* trace_ = nullptr;
  enum class Imitation : std::uint8_t { none, teacher_acts, network_acts };
  Imitation imitation_ = Imitation::none;
  bool scores_candidates() const { return imitation_ != Imitation::teacher_acts; }
  std::unique_ptr<Scratch> scratch_;
};

// The model the repository ships (data/models/learned_policy.json, built into the binary).
const PolicyNetwork& builtin_policy_network();
// "learned" in the registry: the policy with the shipped model.
std::unique_ptr<SchedulingPolicy> make_learned_policy(const PolicyOptions& options);

}  // namespace hetsched
