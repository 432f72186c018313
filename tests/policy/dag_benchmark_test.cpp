// The DAG benchmark's library function on a tiny configuration: every policy gets
// results, HEFT's own ratio is 1, heft-ils is never worse than HEFT, the exact
// solver hook (here a stand-in that returns HEFT's schedule, so HEFT's gap is 0)
// is called and reported, and the same seed gives the same figures.
#include "dag_benchmark.hpp"

#include <gtest/gtest.h>

#include "hetsched/policy/dag_planners.hpp"

namespace hetsched {
namespace {

DagBenchmarkParams tiny() {
  DagBenchmarkParams p;
  p.quick = true;
  p.graph_limit = 4;
  p.policies = {"heft", "peft", "min-min", "heft-ils"};
  p.ils_iterations = 60;
  p.measure_speed = false;
  p.exact_instances = 2;
  p.exact_solver = [](const DagInstance& i, double) -> std::optional<StaticSchedule> {
    return heft_plan(i, ScheduleLimits{});
  };
  return p;
}

TEST(DagBenchmark, TinyRunReportsEveryPolicy) {
  const DagBenchmarkResult r = run_dag_benchmark(tiny());
  EXPECT_EQ(r.graphs, 4u);
  EXPECT_EQ(r.exact_graphs, 2u);
  ASSERT_EQ(r.policies.size(), 4u);
  EXPECT_DOUBLE_EQ(r.policies[0].mean_makespan_vs_heft, 1.0);
  EXPECT_EQ(r.policies[0].worse_than_heft_count, 0u);
  ASSERT_TRUE(r.policies[0].milp_gap_mean.has_value());
  EXPECT_DOUBLE_EQ(*r.policies[0].milp_gap_mean, 0.0);
  EXPECT_EQ(r.policies[3].worse_than_heft_count, 0u);
  EXPECT_LT(r.policies[3].mean_makespan_vs_heft, 1.0);
  EXPECT_LE(*r.policies[3].milp_gap_mean, 0.0);
  for (const DagPolicyResult& p : r.policies) EXPECT_GE(p.mean_slr, 1.0) << p.name;
  const DagBenchmarkResult again = run_dag_benchmark(tiny());
  for (std::size_t i = 0; i < r.policies.size(); ++i)
    EXPECT_EQ(again.policies[i].mean_slr, r.policies[i].mean_slr);
}

// --speed-only: no suite, no extra instances, no exact solves (the hook is never
// called), only HEFT's speed on the quick sizes, each instance the size asked for.
TEST(DagBenchmark, SpeedOnlySkipsTheQualitySuite) {
  DagBenchmarkParams p = tiny();
  p.speed_only = true;
  int exact_calls = 0;
  p.exact_solver = [&](const DagInstance&, double) -> std::optional<StaticSchedule> {
    ++exact_calls;
    return std::nullopt;
  };
  const DagBenchmarkResult r = run_dag_benchmark(p);
  EXPECT_EQ(r.graphs, 0u);
  EXPECT_TRUE(r.policies.empty());
  EXPECT_EQ(exact_calls, 0);
  ASSERT_EQ(r.heft_speed.size(), 3u);  // quick: 1k, 3k, 10k
  EXPECT_EQ(r.heft_speed[0].tasks, 1000u);
  EXPECT_EQ(r.heft_speed[2].tasks, 10000u);
  for (const HeftSpeedPoint& point : r.heft_speed) {
    EXPECT_EQ(point.devices, 64u);
    EXPECT_GT(point.edges, point.tasks);  // out-degree 3
    EXPECT_GT(point.seconds, 0);
  }
  ASSERT_TRUE(r.heft_10k_64_seconds.has_value());
  EXPECT_EQ(*r.heft_10k_64_seconds, r.heft_speed[2].seconds);
  EXPECT_TRUE(r.heft_scaling_exponent.has_value());
}

// Speed sizes of the caller's choice: one point each, no 10k figure unless 10k is
// among them, and an exponent only from two different sizes.
TEST(DagBenchmark, SpeedSizesAreTheOnesAskedFor) {
  DagBenchmarkParams p = tiny();
  p.speed_only = true;
  p.speed_sizes = {200, 400};
  const DagBenchmarkResult two = run_dag_benchmark(p);
  ASSERT_EQ(two.heft_speed.size(), 2u);
  EXPECT_EQ(two.heft_speed[0].tasks, 200u);
  EXPECT_EQ(two.heft_speed[1].tasks, 400u);
  EXPECT_FALSE(two.heft_10k_64_seconds.has_value());
  EXPECT_TRUE(two.heft_scaling_exponent.has_value());
  p.speed_sizes = {300};
  const DagBenchmarkResult one = run_dag_benchmark(p);
  ASSERT_EQ(one.heft_speed.size(), 1u);
  EXPECT_FALSE(one.heft_scaling_exponent.has_value());
}

}  // namespace
}  // namespace hetsched
