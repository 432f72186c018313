// Gavel's job generator: the published distributions, within sampling tolerance.
#include "hetsched/stream/gavel_job_generator.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "hetsched/stream/gavel_throughputs.hpp"

namespace hetsched {
namespace {

TEST(GavelJobGenerator, MatchesGavelsDistributions) {
  const auto table =
      load_gavel_throughputs(std::string(HETSCHED_DATA_DIR) + "/gavel/simulation_throughputs.json");
  const std::size_t n = 20000;
  const auto jobs = generate_gavel_jobs(table, GavelGeneratorParams{n, 5.0, true, 42});
  ASSERT_EQ(jobs.size(), n);
  std::map<int, double> gangs;
  double long_jobs = 0, short_in_range = 0;
  for (const auto& job : jobs) {
    gangs[job.gang_size] += 1.0 / n;
    const double v100 = job.steps_per_second.at("V100");
    const double exponent = std::log10(job.total_steps / v100 / 60.0);
    EXPECT_GE(exponent, 1.5 - 1e-9);
    EXPECT_LE(exponent, 4.0 + 1e-9);
    if (exponent >= 3.0) long_jobs += 1.0 / n;
    ASSERT_TRUE(table.find(job.job_type, job.gang_size).has_value());
  }
  (void)short_in_range;
  const double tolerance = 0.015;  // > 4 standard deviations at n = 20000
  EXPECT_NEAR(gangs[1], 0.70, tolerance);
  EXPECT_NEAR(gangs[2], 0.10, tolerance);
  EXPECT_NEAR(gangs[4], 0.15, tolerance);
  EXPECT_NEAR(gangs[8], 0.05, tolerance);
  EXPECT_NEAR(long_jobs, 0.20, tolerance);
  // Poisson arrivals at 5 jobs/hour: mean gap 720 s.
  const double mean_gap = jobs.back().arrival_seconds / (n - 1);
  EXPECT_NEAR(mean_gap, 720.0, 720.0 * 0.03);
  // Single-GPU streams have gang 1 only, and all 26 models appear.
  const auto single = generate_gavel_jobs(table, GavelGeneratorParams{2000, 5.0, false, 1});
  std::set<std::string> models;
  for (const auto& job : single) {
    EXPECT_EQ(job.gang_size, 1);
    models.insert(job.job_type);
  }
  EXPECT_EQ(models.size(), 26u);
  // Same seed, same stream.
  const auto again = generate_gavel_jobs(table, GavelGeneratorParams{n, 5.0, true, 42});
  EXPECT_EQ(again.back().arrival_seconds, jobs.back().arrival_seconds);
  EXPECT_EQ(again[123].total_steps, jobs[123].total_steps);
}

}  // namespace
}  // namespace hetsched
