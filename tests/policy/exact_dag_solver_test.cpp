// The exact solver against an independent brute force (every device assignment
// and every order of tasks, each appended as early as possible), on the
// Topcuoglu et al. 2002 graph and on random small instances; its schedules must
// pass check_schedule and never be worse than the list schedule or greedy-eft.
#include "hetsched/policy/exact_dag_solver.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "hetsched/core/rng.hpp"
#include "hetsched/io/cost_matrix_file.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/policy/list_scheduling.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"

namespace hetsched {
namespace {

CostMatrix topcuoglu_matrix() {
  return load_cost_matrix_file(std::string(HETSCHED_SOURCE_DIR) + "/examples/topcuoglu.yaml");
}

// Depth-first search over (next ready task, device): any schedule, listed by start
// time, is reproduced or improved by appending its tasks in that order, so the best
// leaf is the optimum. A branch is cut once a placed task's finish plus the
// shortest possible chain of its successors (minimum costs, no communication)
// reaches the best makespan found.
class BruteForce {
 public:
  explicit BruteForce(const DagInstance& instance)
      : instance_(instance),
        n_(instance.task_count()),
        remaining_(n_),
        placed_(n_, 0),
        device_free_(instance.device_count(), 0.0) {
    schedule_.tasks.resize(n_);
    for (std::uint32_t t = 0; t < n_; ++t)
      remaining_[t] = static_cast<std::uint32_t>(instance.predecessors(t).size());
    tail_.assign(n_, 0.0);
    const auto& order = instance.topological_order();
    for (auto it = order.rbegin(); it != order.rend(); ++it)
      for (const DagNeighbor& s : instance.successors(*it)) {
        double fastest = kCannotRun;
        for (DeviceId d = 0; d < instance.device_count(); ++d)
          fastest = std::min(fastest, instance.compute_seconds(s.task, d));
        tail_[*it] = std::max(tail_[*it], fastest + tail_[s.task]);
      }
  }
  // `bound`: a makespan known to be reachable (the search looks for anything shorter
  // or equal).
  double optimum(double bound = kCannotRun) {
    best_ = bound * (1 + 1e-9);
    search(0, 0.0);
    return best_;
  }

 private:
  void search(std::size_t placed_count, double makespan) {
    if (makespan >= best_) return;
    if (placed_count == n_) {
      best_ = makespan;  // the last task to finish is an exit task, whose tail is 0
      return;
    }
    for (std::uint32_t t = 0; t < n_; ++t) {
      if (placed_[t] || remaining_[t] != 0) continue;
      placed_[t] = 1;
      for (const DagNeighbor& s : instance_.successors(t)) --remaining_[s.task];
      for (DeviceId d = 0; d < instance_.device_count(); ++d) {
        const double run = instance_.compute_seconds(t, d);
        if (run == kCannotRun) continue;
        double start = device_free_[d];
        for (const DagNeighbor& p : instance_.predecessors(t))
          start = std::max(start,
                           schedule_.tasks[p.task].finish_seconds +
                               instance_.comm_seconds(p.edge, schedule_.tasks[p.task].device, d));
        const double saved_free = device_free_[d];
        schedule_.tasks[t] = PlannedTask{d, start, start + run};
        device_free_[d] = start + run;
        search(placed_count + 1, std::max(makespan, start + run + tail_[t]));
        device_free_[d] = saved_free;
      }
      for (const DagNeighbor& s : instance_.successors(t)) ++remaining_[s.task];
      placed_[t] = 0;
    }
  }

  const DagInstance& instance_;
  std::size_t n_;
  std::vector<std::uint32_t> remaining_;
  std::vector<char> placed_;
  std::vector<double> device_free_;
  StaticSchedule schedule_;
  std::vector<double> tail_;
  double best_ = kCannotRun;
};

// A random layered DAG: integer costs 1..20 per task and device, edges only from
// lower to higher index with probability 0.35, integer communication costs 0..15.
CostMatrix random_cost_matrix(Rng& rng, std::size_t tasks, std::size_t devices) {
  CostMatrix m;
  m.name = "random";
  for (std::size_t d = 0; d < devices; ++d) m.device_names.push_back("P" + std::to_string(d));
  for (std::size_t t = 0; t < tasks; ++t) {
    m.task_names.push_back("T" + std::to_string(t));
    std::vector<double> row;
    for (std::size_t d = 0; d < devices; ++d) row.push_back(static_cast<double>(1 + rng.below(20)));
    m.compute_seconds.push_back(row);
    for (std::size_t p = 0; p < t; ++p)
      if (rng.uniform() < 0.35)
        m.edges.push_back(DagEdge{static_cast<std::uint32_t>(p), static_cast<std::uint32_t>(t),
                                  static_cast<double>(rng.below(16))});
  }
  return m;
}

double greedy_eft_makespan(const CostMatrix& m) {
  const Cluster cluster = cost_matrix_cluster(m);
  Workload workload;
  workload.jobs.push_back(cost_matrix_job(m));
  const RooflineModel perf(cluster);
  auto policy = make_policy("greedy-eft", PolicyOptions{1});
  Simulator sim(cluster, workload, perf, *policy, SimulationOptions{.seed = 1});
  return sim.run().makespan_seconds;
}

TEST(ExactDagSolver, TopcuogluGraphOptimumIsProvenAndMatchesBruteForce) {
  const DagInstance instance = cost_matrix_instance(topcuoglu_matrix());
  const ExactSolveResult result =
      solve_exact_schedule_with_status(instance, ExactSolveOptions{60, 0, {}});
  ASSERT_EQ(result.status, ExactSolveStatus::optimal);
  ASSERT_TRUE(result.schedule.has_value());
  EXPECT_EQ(error_text(check_schedule(instance, *result.schedule)), "");
  EXPECT_LE(result.schedule->makespan_seconds, 80.0);  // HEFT's makespan in the paper
  // The brute force, bounded by the MILP's value: it must find a schedule that long
  // (else it returns the bound plus 1e-9, which fails the comparison) and none
  // shorter (else it returns that).
  EXPECT_DOUBLE_EQ(result.schedule->makespan_seconds,
                   BruteForce(instance).optimum(result.schedule->makespan_seconds));
  std::printf("Topcuoglu graph: MILP optimum %.6g, list schedule %.6g, %lld nodes\n",
              result.schedule->makespan_seconds, result.heuristic_makespan_seconds,
              result.branch_and_bound_nodes);
}

TEST(ExactDagSolver, EqualsBruteForceOnRandomSmallInstances) {
  Rng rng(2024);
  for (int trial = 0; trial < 10; ++trial) {
    const std::size_t tasks = 3 + trial % 4, devices = 2 + trial % 2;
    const CostMatrix m = random_cost_matrix(rng, tasks, devices);
    const DagInstance instance = cost_matrix_instance(m);
    SCOPED_TRACE(::testing::Message()
                 << "trial " << trial << ": " << tasks << " tasks, " << devices << " devices");
    const std::optional<StaticSchedule> exact = solve_exact_schedule(instance, 30);
    ASSERT_TRUE(exact.has_value());
    EXPECT_EQ(error_text(check_schedule(instance, *exact)), "");
    EXPECT_NEAR(exact->makespan_seconds, BruteForce(instance).optimum(), 1e-6);
    EXPECT_LE(exact->makespan_seconds,
              upward_rank_schedule(instance, {}, SlotRule::append).makespan_seconds + 1e-9);
    EXPECT_LE(exact->makespan_seconds, greedy_eft_makespan(m) + 1e-6);
  }
}

TEST(ExactDagSolver, RefusesInstancesBeyondItsSize) {
  std::vector<std::vector<double>> compute(13, std::vector<double>(2, 1.0));
  const DagInstance instance(compute, {});
  EXPECT_EQ(solve_exact_schedule_with_status(instance, {}).status, ExactSolveStatus::too_large);
  EXPECT_FALSE(solve_exact_schedule(instance, 1).has_value());
}

TEST(ExactDagSolver, TaskThatRunsNowhereIsInfeasible) {
  const DagInstance instance({{1.0, 2.0}, {kCannotRun, kCannotRun}}, {DagEdge{0, 1, 1.0}});
  EXPECT_EQ(solve_exact_schedule_with_status(instance, {}).status, ExactSolveStatus::infeasible);
}

TEST(ExactDagSolver, ReleaseTimesDelayTheStart) {
  // Two independent unit tasks, two devices; device 0 is busy until 5.
  const DagInstance instance({{1.0, 3.0}, {1.0, 3.0}}, {});
  ExactSolveOptions options{10, 0, {5.0, 0.0, 5.0, 0.0}};
  const ExactSolveResult result = solve_exact_schedule_with_status(instance, options);
  ASSERT_EQ(result.status, ExactSolveStatus::optimal);
  // Best: one on device 1 (0..3), the other on device 1 after it (3..6) or device 0
  // (5..6): makespan 6 either way.
  EXPECT_DOUBLE_EQ(result.schedule->makespan_seconds, 6.0);
}

}  // namespace
}  // namespace hetsched
