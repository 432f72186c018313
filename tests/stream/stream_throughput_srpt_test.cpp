// aware-throughput-srpt: the priority-throughput LP with gentle remaining-work weights
// (2^(1/8) per halving). Known answers worked out by hand on one V100 and one K80:
// where steep SRPT weights (aware-srpt) hand the fast type to the shorter job and park
// the longer one where it crawls, the gentle weights keep each job where its
// comparative advantage is, and within one job type the shorter job goes first.
#include <gtest/gtest.h>

#include "hetsched/stream/stream_simulator.hpp"

namespace hetsched {
namespace {

StreamJob tsrpt_job(const std::string& name, const std::string& type, double steps,
                    std::map<std::string, double> rates) {
  StreamJob j;
  j.name = name;
  j.job_type = type;
  j.total_steps = steps;
  j.arrival_seconds = 0;
  j.steps_per_second = std::move(rates);
  return j;
}

double tsrpt_jct(const StreamReport& report, std::size_t j) {
  return report.jobs[j].finish_seconds - report.jobs[j].arrival_seconds;
}

// "steady": 2 h of work at 1 step/s on the V100, 10x slower on the K80.
// "portable": 0.5 h of work, 0.7 of its V100 rate on the K80.
StreamWorkload tsrpt_comparative_advantage() {
  StreamWorkload workload;
  workload.cluster = make_stream_cluster({{"V100", 1}, {"K80", 1}}, 1, 1);
  workload.jobs = {tsrpt_job("steady", "A", 7200, {{"V100", 1.0}, {"K80", 0.1}}),
                   tsrpt_job("portable", "B", 1800, {{"V100", 1.0}, {"K80", 0.7}})};
  return workload;
}

TEST(AwareThroughputSrpt, KeepsEachJobWhereItsComparativeAdvantageIs) {
  // Classes by remaining hours, per factor 2: steady (2 h) class 2, weight 2^-0.25 =
  // 0.841; portable (0.5 h) class 0, weight 1. Steady on the V100 and portable on the
  // K80 score 0.841 + 0.7 = 1.541 against 0.084 + 1 the other way round, and stay so
  // as steady's class falls. Portable: 1800 / 0.7 = 2571.43 s; steady: 7200 s.
  const StreamReport report =
      simulate_stream(tsrpt_comparative_advantage(), "aware-throughput-srpt");
  ASSERT_EQ(report.finished_measured, 2u);
  EXPECT_NEAR(tsrpt_jct(report, 0), 7200.0, 1e-3);
  EXPECT_NEAR(tsrpt_jct(report, 1), 1800.0 / 0.7, 1e-3);
  EXPECT_EQ(report.jobs[0].migrations + report.jobs[1].migrations, 0);
  EXPECT_NEAR(report.average_jct_seconds, (7200.0 + 1800.0 / 0.7) / 2, 1e-3);
}

TEST(AwareThroughputSrpt, SteepSrptWeightsParkTheLongerJobOnTheSlowType) {
  // aware-srpt: classes per factor 4, weights 1/4 per class: steady (class 1) weighs
  // 0.25, so 0.025 + 1 > 0.25 + 0.7 and portable takes the V100 (done at 1800 s).
  // Steady crawls on the K80 (180 steps), moves to the V100 (30 s) and ends at
  // 1800 + 30 + 7020 = 8850 s: a worse mean than the gentle weights' 4885.7 s.
  const StreamReport report = simulate_stream(tsrpt_comparative_advantage(), "aware-srpt");
  ASSERT_EQ(report.finished_measured, 2u);
  EXPECT_NEAR(tsrpt_jct(report, 1), 1800.0, 1e-3);
  EXPECT_NEAR(tsrpt_jct(report, 0), 8850.0, 1e-3);
  EXPECT_EQ(report.jobs[0].migrations, 1);
  EXPECT_GT(report.average_jct_seconds, (7200.0 + 1800.0 / 0.7) / 2 + 400);
}

TEST(AwareThroughputSrpt, WithinAJobTypeTheShorterJobRunsFirst) {
  // One V100; two jobs of one type in one class (1-2 h left): 1.5 h and 1.2 h. The
  // folded row's device goes to the 1.2 h job first (4320 s), then the other runs
  // its 5400 s: done at 9720 s. An equal split would finish both near 9720 s.
  StreamWorkload workload;
  workload.cluster = make_stream_cluster({{"V100", 1}}, 1, 1);
  workload.jobs = {tsrpt_job("longer", "A", 5400, {{"V100", 1.0}}),
                   tsrpt_job("shorter", "A", 4320, {{"V100", 1.0}})};
  const StreamReport report = simulate_stream(workload, "aware-throughput-srpt");
  ASSERT_EQ(report.finished_measured, 2u);
  EXPECT_NEAR(tsrpt_jct(report, 1), 4320.0, 1e-3);
  EXPECT_NEAR(tsrpt_jct(report, 0), 9720.0, 1e-3);
}

}  // namespace
}  // namespace hetsched
