// Heterogeneity-aware LAS and SRPT with service classes (aware-las-priority,
// aware-srpt), the priority-throughput LP's exchange rule, space sharing at
// measured co-located rates, and Themis' finish-time fairness in the stream report.
#include <gtest/gtest.h>

#include "../support/cli_runner.hpp"
#include "hetsched/stream/allocation_lp.hpp"
#include "hetsched/stream/stream_simulator.hpp"

namespace hetsched {
namespace {

StreamJob typed_job(const std::string& name, const std::string& type, double steps, double arrival,
                    std::map<std::string, double> rates) {
  StreamJob j;
  j.name = name;
  j.job_type = type;
  j.total_steps = steps;
  j.arrival_seconds = arrival;
  j.steps_per_second = std::move(rates);
  return j;
}

StreamReport run_sharing(const StreamWorkload& workload, const std::string& policy_name,
                         bool space_sharing = false) {
  StreamSimOptions options;
  options.space_sharing = space_sharing;
  return simulate_stream(workload, policy_name, options);
}

TEST(PriorityThroughputLp, ALighterJobTakesTheFastTypeOnlyWhenItGainsMoreThanItsWeightCosts) {
  // One V100 and one K80. Job 0 (weight 1) loses little on the K80, job 1 a lot.
  AllocationProblem problem;
  problem.capacity = {1, 1};
  problem.price_per_hour = {0, 0};
  problem.jobs = {AllocationJob{{1.0, 0.9}, 1, 1.0, 1, 0, 1},
                  AllocationJob{{1.0, 0.1}, 1, 0.5, 1, 0, 1}};
  // Weight 0.5: job 1 on the V100 is worth 0.9 + 0.5 = 1.4 > 1 + 0.05.
  AllocationResult swapped = solve_allocation(problem, AllocationObjective::priority_throughput);
  EXPECT_NEAR(swapped.fraction[0][1], 1.0, 1e-9);
  EXPECT_NEAR(swapped.fraction[1][0], 1.0, 1e-9);
  // Weight 0.05: 1 + 0.005 > 0.9 + 0.05, so the heavier job keeps the V100.
  problem.jobs[1].priority_weight = 0.05;
  AllocationResult kept = solve_allocation(problem, AllocationObjective::priority_throughput);
  EXPECT_NEAR(kept.fraction[0][0], 1.0, 1e-9);
  EXPECT_NEAR(kept.fraction[1][1], 1.0, 1e-9);
}

TEST(AwareClassPolicies, AShortArrivalOvertakesALongRunningJob) {
  StreamWorkload workload;
  workload.cluster = make_stream_cluster({{"V100", 1}}, 1, 1);
  workload.jobs = {typed_job("long", "a", 40 * 3600.0, 0, {{"V100", 1.0}}),
                   typed_job("short", "a", 1800, 3 * 3600.0 + 100, {{"V100", 1.0}})};
  // LAS: the long job has 3.1 h of attained service, the newcomer none. SRPT: the
  // newcomer has 0.5 h left, the long job 37 h.
  for (const std::string policy : {"aware-las-priority", "aware-srpt"}) {
    const StreamReport report = run_sharing(workload, policy);
    const double short_jct = report.jobs[1].finish_seconds - report.jobs[1].arrival_seconds;
    // It waits at most for the next round, then runs alone: 1800 s of work.
    EXPECT_LE(short_jct, 1800 + 360) << policy;
    EXPECT_EQ(report.jobs[1].migrations, 0) << policy;
    // The long job was preempted for it (and pays one move back), and still finishes.
    EXPECT_GE(report.jobs[0].finish_seconds, 40 * 3600.0 + 1800) << policy;
    EXPECT_EQ(report.finished_measured, 2u) << policy;
  }
}

StreamWorkload two_jobs_one_gpu(double own, double other) {
  StreamWorkload workload;
  workload.cluster = make_stream_cluster({{"V100", 1}}, 1, 1);
  workload.jobs = {typed_job("a", "A", 7200, 0, {{"V100", 1.0}}),
                   typed_job("b", "B", 7200, 0, {{"V100", 2.0}})};
  workload.colocation.rates[{"A", "B", "V100"}] = {own, other};
  return workload;
}

TEST(SpaceSharing, PairsJobsThatGainTogetherAtTheirMeasuredRates) {
  // Together: a at 0.7 of its rate, b at 0.7 of its (1.4 steps/s).
  const StreamWorkload workload = two_jobs_one_gpu(0.7, 1.4);
  const StreamReport alone = run_sharing(workload, "aware-las");
  const StreamReport shared = run_sharing(workload, "aware-las", true);
  EXPECT_EQ(alone.colocated_rounds, 0u);
  EXPECT_GT(shared.colocated_rounds, 0u);
  EXPECT_LT(shared.makespan_seconds, alone.makespan_seconds);
  // b finishes first, after 7200 / 1.4 s of shared running (no one moved).
  EXPECT_NEAR(shared.jobs[1].finish_seconds, 7200 / 1.4, 1e-6);
  EXPECT_EQ(shared.jobs[1].migrations, 0);
}

TEST(SpaceSharing, NeverPairsJobsThatInterfereTooMuch) {
  // Together each keeps only 0.3 of its rate: the pair does less than one alone.
  const StreamReport shared = run_sharing(two_jobs_one_gpu(0.3, 0.6), "aware-las", true);
  EXPECT_EQ(shared.colocated_rounds, 0u);
  EXPECT_EQ(shared.finished_measured, 2u);
}

TEST(FinishTimeFairness, FifoOnIdenticalJobsIsExactlyFinishTimeFair) {
  // Job 1 sees one job present: its isolated JCT is its run alone (rho 1). Job 2
  // sees two: on half the GPU it would take twice as long, which is its JCT.
  StreamWorkload workload;
  workload.cluster = make_stream_cluster({{"V100", 1}}, 1, 1);
  workload.jobs = {typed_job("first", "a", 3600, 0, {{"V100", 1.0}}),
                   typed_job("second", "a", 3600, 0, {{"V100", 1.0}})};
  const StreamReport report = run_sharing(workload, "fifo");
  EXPECT_NEAR(report.ftf_rho_average, 1.0, 1e-9);
  EXPECT_NEAR(report.ftf_rho_max, 1.0, 1e-9);
  EXPECT_NEAR(report.ftf_unfair_fraction, 0.0, 1e-12);
  EXPECT_NEAR(report.jain_fairness_ftf, 1.0, 1e-9);
  // Jain's index over inverse slowdowns sees 1 and 1/2: (1.5)^2 / (2 * 1.25) = 0.9.
  EXPECT_NEAR(report.jain_fairness, 0.9, 1e-9);
}

TEST(PoliciesCli, ListsTaskAndStreamPoliciesInTheirOwnSections) {
  const auto r = hetsched::testing::run_cli("policies");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto stream_section = r.out.find("Job-stream policies");
  ASSERT_NE(stream_section, std::string::npos) << r.out;
  EXPECT_GT(r.out.find("aware-las-priority", stream_section), stream_section);
  EXPECT_LT(r.out.find("heft"), stream_section);
}

}  // namespace
}  // namespace hetsched
