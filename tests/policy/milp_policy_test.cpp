// The milp policy, run by the simulator on the Topcuoglu et al. 2002 graph entered
// as a cost matrix (one node, 1 B/s uncontended link, edge bytes = cost): the
// simulated makespan equals the proven optimum, and it beats greedy-eft.
// On a cluster larger than the solver takes, it falls back on the list plan.
#include <gtest/gtest.h>

#include "hetsched/io/cost_matrix_file.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/policy/exact_dag_solver.hpp"
#include "hetsched/policy/list_scheduling.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"

namespace hetsched {
namespace {

double simulated_makespan(const CostMatrix& m, const char* policy_name) {
  const Cluster cluster = cost_matrix_cluster(m);
  Workload workload;
  workload.jobs.push_back(cost_matrix_job(m));
  const RooflineModel perf(cluster);
  auto policy = make_policy(policy_name, PolicyOptions{3});
  Simulator sim(cluster, workload, perf, *policy, SimulationOptions{.seed = 3});
  return sim.run().makespan_seconds;
}

TEST(MilpPolicy, SimulatesTheProvenOptimumOnTheTopcuogluGraph) {
  const CostMatrix m =
      load_cost_matrix_file(std::string(HETSCHED_SOURCE_DIR) + "/examples/topcuoglu.yaml");
  // 73: the optimum that exact_dag_solver_test proves twice (MILP and brute force);
  // HEFT's schedule in the paper is 80.
  const double milp = simulated_makespan(m, "milp");
  EXPECT_NEAR(milp, 73.0, 1e-9);
  EXPECT_LE(milp, simulated_makespan(m, "greedy-eft"));
}

TEST(MilpPolicy, FallsBackOnTheListPlanBeyondThreeDevices) {
  CostMatrix m;
  m.device_names = {"A", "B", "C", "D"};
  m.task_names = {"x", "y", "z"};
  m.compute_seconds = {{4, 2, 8, 8}, {3, 3, 1, 9}, {5, 5, 5, 1}};
  m.edges = {DagEdge{0, 1, 1}, DagEdge{0, 2, 1}};
  const StaticSchedule list = upward_rank_schedule(cost_matrix_instance(m), {}, SlotRule::append);
  EXPECT_NEAR(simulated_makespan(m, "milp"), list.makespan_seconds, 1e-9);
}

}  // namespace
}  // namespace hetsched
