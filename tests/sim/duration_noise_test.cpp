// DurationNoise: actual run times around the model's predictions. The factors are
// log-normal of mean 1 and the asked σ, stragglers come at the asked rate, the draw depends
// on the seed and the task only, and the simulator runs each task for exactly its
// predicted time × its factor.
#include "hetsched/sim/duration_noise.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"

namespace hetsched {
namespace {

TEST(DurationNoise, FactorsAreLogNormalOfMeanOneAndTheAskedSigma) {
  const DurationNoise noise({.sigma = 0.3}, 7);
  const std::size_t n = 40000;
  double sum = 0, log_sum = 0, log_square = 0;
  for (TaskIndex t = 0; t < n; ++t) {
    const double f = noise.factor(t);
    ASSERT_GT(f, 0);
    sum += f;
    log_sum += std::log(f);
    log_square += std::log(f) * std::log(f);
  }
  const double log_mean = log_sum / n;
  EXPECT_NEAR(sum / n, 1.0, 0.01);
  EXPECT_NEAR(log_mean, -0.3 * 0.3 / 2, 0.01);
  EXPECT_NEAR(std::sqrt(log_square / n - log_mean * log_mean), 0.3, 0.01);
}

TEST(DurationNoise, StragglersComeAtTheAskedRateAndSlowByTheAskedFactor) {
  const DurationNoise noise({.straggler_probability = 0.1, .straggler_slowdown = 5}, 3);
  std::size_t stragglers = 0;
  for (TaskIndex t = 0; t < 20000; ++t) {
    const double f = noise.factor(t);
    ASSERT_TRUE(f == 1 || f == 5) << f;
    stragglers += f == 5;
  }
  EXPECT_NEAR(double(stragglers) / 20000, 0.1, 0.01);
}

TEST(DurationNoise, DrawDependsOnSeedAndTaskOnly) {
  const DurationNoiseOptions options{.sigma = 0.2};
  const DurationNoise a(options, 11), b(options, 11), c(options, 12);
  EXPECT_EQ(DurationNoise({}, 11).factor(5), 1.0);
  for (TaskIndex t = 100; t-- > 0;) EXPECT_EQ(a.factor(t), b.factor(t));  // any order
  EXPECT_NE(a.factor(0), c.factor(0));
  EXPECT_NE(a.factor(0), a.factor(1));
}

TEST(DurationNoise, BadOptionsAreRefusedWithTheReason) {
  EXPECT_FALSE(check_duration_noise({.sigma = -0.1}));
  EXPECT_FALSE(check_duration_noise({.sigma = std::nan("")}));
  EXPECT_FALSE(check_duration_noise({.straggler_probability = 1.5}));
  EXPECT_FALSE(check_duration_noise({.straggler_probability = 0.1, .straggler_slowdown = 0.5}));
  EXPECT_TRUE(check_duration_noise({.sigma = 0.2, .straggler_probability = 0.1}));
}

// A chain of tasks on a one-device cluster: the makespan is exactly the sum of each task's
// predicted run time times its factor.
TEST(DurationNoise, SimulatorRunsEachTaskForItsPredictionTimesItsFactor) {
  const std::vector<std::string> none;
  Cluster cluster = accelerator_node(1, none);
  Workload workload;
  Job job{.name = "chain"};
  for (int i = 0; i < 20; ++i) {
    Task task;
    task.name = "t" + std::to_string(i);
    task.kernel = KernelClass::dense_matmul;
    task.precision = Precision::fp64;
    task.flops = 1e9 * (i + 1);
    job.tasks.push_back(task);
    if (i > 0) job.edges.push_back(Edge{std::uint32_t(i - 1), std::uint32_t(i), 0});
  }
  workload.jobs.push_back(job);
  const RooflineModel perf(cluster);
  SimulationOptions options{.seed = 5};
  options.noise = {.sigma = 0.4, .straggler_probability = 0.2, .straggler_slowdown = 3};
  auto policy = make_policy("greedy-eft", {});
  Simulator simulator(cluster, workload, perf, *policy, options);
  const RunReport report = simulator.run();
  const DurationNoise noise(options.noise, options.seed);
  double expected = 0;
  for (TaskIndex t = 0; t < 20; ++t)
    expected += perf.task_seconds(job.tasks[t], cluster.device(0), 0) * noise.factor(t);
  EXPECT_NEAR(report.makespan_seconds, expected, 1e-9 * expected);

  SimulationOptions exact{.seed = 5};
  auto plain_policy = make_policy("greedy-eft", {});
  Simulator plain(cluster, workload, perf, *plain_policy, exact);
  EXPECT_GT(std::abs(plain.run().makespan_seconds - report.makespan_seconds), 1e-6 * expected);
}

TEST(DurationNoise, SimulatorRefusesBadNoiseAsInput) {
  const Cluster cluster = default_cluster();
  const Workload workload;
  const RooflineModel perf(cluster);
  auto policy = make_policy("greedy-eft", {});
  SimulationOptions options;
  options.noise.sigma = -1;
  EXPECT_THROW(Simulator(cluster, workload, perf, *policy, options), InputError);
}

}  // namespace
}  // namespace hetsched
