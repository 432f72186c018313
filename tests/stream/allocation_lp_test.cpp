// The allocation LPs: feasibility of every answer, a hand-solved max-min example,
// and the safe fallback when SLOs cannot be met.
#include "hetsched/stream/allocation_lp.hpp"

#include <gtest/gtest.h>

#include "hetsched/core/rng.hpp"

namespace hetsched {
namespace {

void expect_feasible(const AllocationProblem& problem, const AllocationResult& result) {
  ASSERT_EQ(result.fraction.size(), problem.jobs.size());
  std::vector<double> used(problem.capacity.size(), 0.0);
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    double total = 0;
    for (std::size_t k = 0; k < problem.capacity.size(); ++k) {
      const double x = result.fraction[j][k];
      EXPECT_GE(x, 0.0);
      if (problem.jobs[j].rate[k] == 0) {
        EXPECT_EQ(x, 0.0);
      }
      total += x;
      used[k] += x * problem.jobs[j].gang_size;
    }
    EXPECT_LE(total, 1.0 + 1e-7) << "job " << j;
  }
  for (std::size_t k = 0; k < problem.capacity.size(); ++k)
    EXPECT_LE(used[k], problem.capacity[k] + 1e-6) << "type " << k;
}

double normalised_minimum(const AllocationProblem& problem, const AllocationResult& result,
                          const std::vector<double>& reference) {
  double minimum = 1e300;
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    double throughput = 0;
    for (std::size_t k = 0; k < problem.capacity.size(); ++k)
      throughput += problem.jobs[j].rate[k] * result.fraction[j][k];
    minimum = std::min(minimum, throughput / reference[j]);
  }
  return minimum;
}

TEST(AllocationLp, EveryObjectiveRespectsJobAndDeviceLimits) {
  Rng rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    AllocationProblem problem;
    problem.capacity = {4, 6, 8};
    problem.price_per_hour = {0.74, 0.43, 0.135};
    const int jobs = 2 + static_cast<int>(rng.below(25));
    for (int j = 0; j < jobs; ++j) {
      AllocationJob job;
      for (int k = 0; k < 3; ++k)
        job.rate.push_back(rng.uniform() < 0.15 ? 0 : rng.uniform(0.1, 5));
      if (job.rate == std::vector<double>{0, 0, 0}) job.rate[0] = 1;
      const int gangs[] = {1, 1, 2, 4};
      job.gang_size = gangs[rng.below(4)];
      job.priority_weight = rng.uniform() < 0.2 ? 5 : 1;
      job.remaining_steps = rng.uniform(100, 10000);
      problem.jobs.push_back(job);
    }
    for (auto objective : {AllocationObjective::max_min_fairness, AllocationObjective::min_makespan,
                           AllocationObjective::max_throughput, AllocationObjective::min_cost}) {
      const AllocationResult result = solve_allocation(problem, objective);
      expect_feasible(problem, result);
    }
    expect_feasible(problem, equal_share_allocation(problem));
  }
}

TEST(AllocationLp, MaxMinFairnessBeatsAgnosticOnAHandSolvedExample) {
  // One device of type A and one of B. Job 1 runs 4 steps/s on A and 1 on B; job 2
  // the other way round. The agnostic equal share gives each job half of each
  // device: 0.5*4 + 0.5*1 = 2.5 steps/s, normalised throughput 1 for both. By hand,
  // the best max-min allocation gives job 1 all of A and job 2 all of B: 4 steps/s
  // each, normalised 4 / 2.5 = 1.6; no allocation does better, since 4 is each
  // job's largest possible rate.
  AllocationProblem problem;
  problem.capacity = {1, 1};
  problem.price_per_hour = {1, 1};
  problem.jobs = {AllocationJob{{4, 1}, 1, 1, 100, 0, 1}, AllocationJob{{1, 4}, 1, 1, 100, 0, 1}};
  const AllocationResult agnostic = equal_share_allocation(problem);
  EXPECT_NEAR(agnostic.fraction[0][0], 0.5, 1e-12);
  EXPECT_NEAR(agnostic.fraction[1][1], 0.5, 1e-12);
  const std::vector<double> equal_share_throughput{2.5, 2.5};
  EXPECT_NEAR(normalised_minimum(problem, agnostic, equal_share_throughput), 1.0, 1e-9);
  const AllocationResult aware = solve_allocation(problem, AllocationObjective::max_min_fairness);
  EXPECT_FALSE(aware.fell_back);
  expect_feasible(problem, aware);
  EXPECT_NEAR(normalised_minimum(problem, aware, equal_share_throughput), 1.6, 1e-6);
  EXPECT_NEAR(aware.fraction[0][0], 1.0, 1e-6);
  EXPECT_NEAR(aware.fraction[1][1], 1.0, 1e-6);
}

TEST(AllocationLp, EqualShareWaterFillsGangsAndWeights) {
  // 4 devices, a 4-GPU job and two 1-GPU jobs, equal weights; max-min of
  // gang * time fraction (Gavel's agnostic objective). Levels: 4 f0 = f1 = f2 = L
  // would need 3L = 4 devices, L = 4/3, but f1, f2 <= 1: the 1-GPU jobs saturate at
  // f = 1 and the 4-GPU job takes the 2 devices left, f0 = 0.5.
  AllocationProblem problem;
  problem.capacity = {4};
  problem.price_per_hour = {1};
  problem.jobs = {AllocationJob{{1}, 4, 1, 1, 0, 1}, AllocationJob{{1}, 1, 1, 1, 0, 1},
                  AllocationJob{{1}, 1, 1, 1, 0, 1}};
  const AllocationResult share = equal_share_allocation(problem);
  EXPECT_NEAR(share.fraction[0][0], 0.5, 1e-12);
  EXPECT_NEAR(share.fraction[1][0], 1.0, 1e-12);
  EXPECT_NEAR(share.fraction[2][0], 1.0, 1e-12);
  // Eight 1-GPU jobs of weight 1 and one of weight 2 on 5 devices: L = 5/10 =
  // 0.5, the weighted job gets twice the others' time.
  problem.jobs.clear();
  for (int i = 0; i < 8; ++i) problem.jobs.push_back(AllocationJob{{1}, 1, 1, 1, 0, 1});
  problem.jobs.push_back(AllocationJob{{1}, 1, 2, 1, 0, 1});
  problem.capacity = {5};
  const AllocationResult weighted = equal_share_allocation(problem);
  EXPECT_NEAR(weighted.fraction[0][0], 0.5, 1e-12);
  EXPECT_NEAR(weighted.fraction[8][0], 1.0, 1e-12);
}

TEST(AllocationLp, UnmeetableSloFallsBackToTheEqualShareAndSaysSo) {
  AllocationProblem problem;
  problem.capacity = {1};
  problem.price_per_hour = {1};
  // Needs 100 steps/s; the device gives 1.
  problem.jobs = {AllocationJob{{1}, 1, 1, 1000, 100, 1}, AllocationJob{{1}, 1, 1, 10, 0, 1}};
  const AllocationResult result = solve_allocation(problem, AllocationObjective::min_cost);
  EXPECT_TRUE(result.fell_back);
  EXPECT_NE(result.note.find("SLO"), std::string::npos) << result.note;
  expect_feasible(problem, result);
  EXPECT_NEAR(result.fraction[0][0], 0.5, 1e-12);
}

TEST(AllocationLp, MinCostMeetsAFeasibleSloOnTheCheapType) {
  // Type 0 costs 10/h, type 1 costs 1/h; the job needs 1 step/s and gets 2 on either:
  // the cheapest allocation is half the time on type 1.
  AllocationProblem problem;
  problem.capacity = {1, 1};
  problem.price_per_hour = {10, 1};
  problem.jobs = {AllocationJob{{2, 2}, 1, 1, 1000, 1, 1}};
  const AllocationResult result = solve_allocation(problem, AllocationObjective::min_cost);
  EXPECT_FALSE(result.fell_back);
  EXPECT_NEAR(result.fraction[0][0], 0.0, 1e-9);
  EXPECT_NEAR(result.fraction[0][1], 0.5, 1e-9);
}

}  // namespace
}  // namespace hetsched
