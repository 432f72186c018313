// The policy contract's default score (Kubernetes' Score extension point, for any
// registry policy without per-policy code). To score candidate devices for one ready
// task, the policy is asked where it would place it: first as a planner
// (on_job_arrival for the task's job), then, when that placed nothing for the task,
// as an online policy (on_tasks_ready with the task alone). The device it names
// scores 1. Every other candidate scores 0.9 × the earliest predicted finish among
// the candidates / its own, so the rest keep the order of the finish time the policy
// would see and all stay below its choice. A policy that names no candidate (it left
// the task unplaced, or chose a device outside the list) gets the finish-time order
// alone.
#include "hetsched/policy/scheduling_policy.hpp"

#include <algorithm>
#include <cmath>

namespace hetsched {
namespace {

// Keeps the first device the policy names for one task.
class ScoreChoiceSink final : public AssignmentSink {
 public:
  explicit ScoreChoiceSink(TaskIndex task) : task_(task) {}
  void assign(const Assignment& assignment) override {
    if (assignment.task == task_ && device_ == kUnplaced) device_ = assignment.device;
  }
  DeviceId device() const { return device_; }

 private:
  TaskIndex task_;
  DeviceId device_ = kUnplaced;
};

// Share of the top score left to the candidates the policy did not choose.
constexpr double kScoreOfOthers = 0.9;

}  // namespace

std::vector<double> SchedulingPolicy::finish_time_scores(const ClusterSnapshot& snapshot,
                                                         TaskIndex task,
                                                         std::span<const DeviceId> candidates) {
  const Task& work = snapshot.graph.task(task);
  std::vector<double> finish(candidates.size(), kCannotRun);
  double earliest = kCannotRun;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const DeviceId d = candidates[i];
    const double run = snapshot.perf.task_seconds(work, snapshot.cluster.device(d), 0);
    if (!std::isfinite(run)) continue;
    finish[i] =
        std::max(snapshot.device_available_seconds[d], snapshot.data_ready_seconds(task, d)) + run;
    earliest = std::min(earliest, finish[i]);
  }
  std::vector<double> scores(candidates.size(), 0.0);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!std::isfinite(finish[i])) continue;
    scores[i] = finish[i] <= earliest ? 1.0 : earliest / finish[i];
  }
  return scores;
}

std::vector<double> SchedulingPolicy::score_devices(const ClusterSnapshot& snapshot, TaskIndex task,
                                                    std::span<const DeviceId> candidates) {
  ScoreChoiceSink choice(task);
  on_job_arrival(snapshot, snapshot.graph.job_of(task), choice);
  if (choice.device() == kUnplaced) {
    const TaskIndex ready[] = {task};
    on_tasks_ready(snapshot, ready, choice);
  }
  std::vector<double> scores = finish_time_scores(snapshot, task, candidates);
  const auto chosen = std::find(candidates.begin(), candidates.end(), choice.device());
  if (chosen == candidates.end()) return scores;
  for (double& score : scores) score *= kScoreOfOthers;
  scores[static_cast<std::size_t>(chosen - candidates.begin())] = 1.0;
  return scores;
}

}  // namespace hetsched
