#include "hetsched/training/learning_scenario.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/workload/generators.hpp"
#include "hetsched/workload/tiled_factorization.hpp"

namespace hetsched {

namespace {

std::size_t draw_between(Rng& rng, std::size_t low, std::size_t high) {
  return low + static_cast<std::size_t>(rng.below(high - low + 1));
}

}  // namespace

LearningScenario draw_tiled_scenario(const TiledScenarioSpace& space, Rng& rng) {
  const auto kind = static_cast<TiledFactorization>(rng.below(3));
  const auto tiles =
      static_cast<std::uint32_t>(draw_between(rng, space.min_tiles, space.max_tiles));
  const std::size_t workers = space.cpu_workers[rng.below(space.cpu_workers.size())];
  std::vector<std::string> accelerators(
      draw_between(rng, space.min_accelerators, space.max_accelerators));
  for (std::string& model : accelerators)
    model = space.accelerator_models[rng.below(space.accelerator_models.size())];
  LearningScenario s{.name = fmt::format("{} {}x{} on {} CPU workers + {}", to_string(kind), tiles,
                                         tiles, workers, fmt::join(accelerators, "+")),
                     .cluster = accelerator_node(workers, accelerators),
                     .workload = {},
                     .simulation = {}};
  s.workload.jobs.push_back(tiled_factorization_job({kind, tiles, space.tile_size}));
  s.simulation.seed = rng.next_u64();
  s.simulation.record_schedule = false;
  s.simulation.noise = space.noise;
  return s;
}

LearningScenario draw_dag_stream_scenario(const DagStreamScenarioSpace& space, Rng& rng) {
  LearningScenario s;
  if (space.cluster.device_count() > 0) {
    s.cluster = space.cluster;
  } else {
    const std::vector<std::string> accelerators{"A100-80GB", "V100"};
    s.cluster = accelerator_node(4, accelerators);
  }
  double arrival = 0;
  std::size_t tasks = 0;
  for (std::size_t j = 0; j < space.jobs; ++j) {
    WorkflowJobParams params;
    params.name = fmt::format("dag-{}", j);
    params.tasks = static_cast<std::uint32_t>(draw_between(rng, space.min_tasks, space.max_tasks));
    params.width = 2 + static_cast<std::uint32_t>(rng.below(6));
    params.arrival_seconds = arrival;
    s.workload.jobs.push_back(workflow_job(params, rng));
    tasks += params.tasks;
    arrival += rng.exponential(space.mean_interarrival_seconds);
  }
  s.name = fmt::format("{} DAG jobs ({} tasks) on {} devices", space.jobs, tasks,
                       s.cluster.device_count());
  s.simulation.seed = rng.next_u64();
  s.simulation.record_schedule = false;
  s.simulation.noise = space.noise;
  return s;
}

namespace {

// Forwards to a policy and times its hooks.
class TimedPolicy final : public SchedulingPolicy {
 public:
  explicit TimedPolicy(SchedulingPolicy& inner) : inner_(inner) {}
  std::string_view name() const override { return inner_.name(); }
  void on_job_arrival(const ClusterSnapshot& snapshot, JobIndex job, AssignmentSink& out) override {
    const auto start = std::chrono::steady_clock::now();
    inner_.on_job_arrival(snapshot, job, out);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  void on_tasks_ready(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                      AssignmentSink& out) override {
    const auto start = std::chrono::steady_clock::now();
    inner_.on_tasks_ready(snapshot, ready, out);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  double seconds = 0;

 private:
  SchedulingPolicy& inner_;
};

}  // namespace

ScenarioOutcome run_scenario(const LearningScenario& scenario, SchedulingPolicy& policy) {
  const RooflineModel perf(scenario.cluster);
  TimedPolicy timed(policy);
  Simulator simulator(scenario.cluster, scenario.workload, perf, timed, scenario.simulation);
  const RunReport report = simulator.run();
  if (report.tasks_completed != report.tasks_total)
    throw PolicyError(fmt::format("policy '{}' left {} of {} tasks unfinished on {}", policy.name(),
                                  report.tasks_total - report.tasks_completed, report.tasks_total,
                                  scenario.name));
  ScenarioOutcome outcome;
  for (const JobResult& job : report.jobs) outcome.objective_seconds += job.response_seconds();
  outcome.objective_seconds /= double(std::max<std::size_t>(report.jobs.size(), 1));
  outcome.policy_seconds = timed.seconds;
  outcome.tasks = report.tasks_total;
  return outcome;
}

}  // namespace hetsched
