// milp: a static planner that places each job, when it arrives, by the exact
// solver (a MILP through COIN-OR CBC, see exact_dag_solver.hpp) — the optimal
// makespan for the job on the devices as they are then (each device free from its
// predicted availability, each task's external input arriving from the job's data
// node). Jobs the exact solver does not take (more than 12 tasks, or a cluster of
// more than 3 devices) fall back on a greedy earliest-finish list plan (tasks by
// upward rank, each appended where it finishes first) — a heuristic, not an
// optimum. The search stops after a fixed number of branch-and-bound nodes (the
// user's iteration budget, else 200,000), never at a wall-clock limit, so plans
// are deterministic; at that limit it keeps the best schedule found, which is never
// worse than the list plan.
#include <algorithm>

#include "hetsched/policy/exact_dag_solver.hpp"
#include "hetsched/policy/list_scheduling.hpp"
#include "hetsched/policy/plan_emitter.hpp"
#include "hetsched/policy/scheduling_policy.hpp"

namespace hetsched {
namespace {

class MilpPolicy final : public SchedulingPolicy {
 public:
  explicit MilpPolicy(const PolicyOptions& options)
      : node_limit_(options.iteration_budget > 0 ? static_cast<long long>(options.iteration_budget)
                                                 : 200000) {}

  std::string_view name() const override { return "milp"; }

  void on_job_arrival(const ClusterSnapshot& snapshot, JobIndex job, AssignmentSink& out) override {
    const DagInstance instance(snapshot.graph, job, snapshot.perf);
    const std::size_t n = instance.task_count(), devices = instance.device_count();
    if (n == 0) return;
    // Nothing may start before now, on a device before it frees up, or before the
    // task's external input has arrived there (times from now).
    std::vector<double> release(n * devices, 0.0);
    const Job& spec = snapshot.graph.job(job);
    for (std::uint32_t t = 0; t < n; ++t) {
      const double input = snapshot.graph.task(instance.global_task(t)).input_bytes;
      for (DeviceId d = 0; d < devices; ++d) {
        double ready = std::max(0.0, snapshot.device_available_seconds[d] - snapshot.now_seconds);
        if (input > 0)
          ready = std::max(ready, snapshot.perf.host_to_device_seconds(input, spec.data_node, d));
        release[t * devices + d] = ready;
      }
    }
    StaticSchedule plan;
    if (n <= kExactSolverMaxTasks && devices <= kExactSolverMaxDevices) {
      ExactSolveOptions options;
      options.time_limit_seconds = 3600;  // the node limit is what stops it
      options.node_limit = node_limit_;
      options.release_seconds = release;
      ExactSolveResult result = solve_exact_schedule_with_status(instance, options);
      if (!result.schedule) return;  // some task runs nowhere: left for on_tasks_ready
      plan = std::move(*result.schedule);
    } else {
      plan = upward_rank_schedule(instance, ScheduleLimits{.release_seconds = release},
                                  SlotRule::append);
      if (std::any_of(plan.tasks.begin(), plan.tasks.end(),
                      [](const PlannedTask& p) { return p.device == kNoDevice; }))
        return;  // some task runs nowhere: left for on_tasks_ready
    }
    emit_plan(snapshot, instance, plan, PlanEmission{.time_origin_seconds = snapshot.now_seconds},
              out);
  }

  // Only tasks the plan could not place reach here (a job with a task no device can
  // run): each goes where it finishes first, if anywhere.
  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    for (TaskIndex t : ready) {
      DeviceId best = kUnplaced;
      double best_finish = kCannotRun;
      for (const Device& d : snapshot.cluster.devices()) {
        const double run = snapshot.perf.task_seconds(snapshot.graph.task(t), d, 0);
        if (run == kCannotRun) continue;
        const double finish = std::max(snapshot.device_available_seconds[d.id],
                                       snapshot.data_ready_seconds(t, d.id)) +
                              run;
        if (finish < best_finish) best = d.id, best_finish = finish;
      }
      if (best != kUnplaced) out.assign(Assignment{t, best});
    }
  }

 private:
  long long node_limit_;
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_milp_policy(const PolicyOptions& options) {
  return std::make_unique<MilpPolicy>(options);
}

}  // namespace hetsched
