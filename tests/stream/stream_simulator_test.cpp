// The stream simulator: EASY backfilling keeps the head job's reservation, gangs
// prefer one node, bad jobs are rejected without blocking the queue, runs repeat.
#include "hetsched/stream/stream_simulator.hpp"

#include <gtest/gtest.h>

#include "hetsched/core/rng.hpp"
#include "hetsched/stream/gavel_job_generator.hpp"
#include "hetsched/stream/gavel_throughputs.hpp"

namespace hetsched {
namespace {

StreamJob gang_job(const std::string& name, int gang, double seconds, double arrival = 0) {
  StreamJob j;
  j.name = name;
  j.gang_size = gang;
  j.total_steps = seconds;  // 1 step/s on V100
  j.steps_per_second = {{"V100", 1.0}};
  j.arrival_seconds = arrival;
  return j;
}

StreamReport run_policy(const StreamWorkload& workload, const std::string& policy_name,
                        bool backfill = false) {
  StreamSimOptions options;
  options.easy_backfilling = backfill;
  return simulate_stream(workload, policy_name, options);
}

TEST(StreamSimulator, EasyBackfillsAShortJobWithoutDelayingTheHead) {
  StreamWorkload workload;
  workload.cluster = make_stream_cluster({{"V100", 4}}, 4, 1);
  workload.jobs = {gang_job("running", 2, 1000), gang_job("head", 4, 100, 1),
                   gang_job("short", 2, 500, 2), gang_job("long", 2, 5000, 3)};
  const StreamReport fifo = run_policy(workload, "fifo");
  EXPECT_EQ(fifo.jobs[2].first_start_seconds, 1100);  // strict FIFO: after the head
  const StreamReport easy = run_policy(workload, "fifo", true);
  EXPECT_EQ(easy.jobs[1].reserved_start_seconds, 1000);
  EXPECT_EQ(easy.jobs[1].first_start_seconds, 1000);
  EXPECT_EQ(easy.jobs[2].first_start_seconds, 2);     // fits before the reservation
  EXPECT_GE(easy.jobs[3].first_start_seconds, 1100);  // would have delayed the head
}

TEST(StreamSimulator, EasyNeverDelaysAReservationOnARandomStream) {
  Rng rng(11);
  StreamWorkload workload;
  workload.cluster = make_stream_cluster({{"V100", 16}, {"K80", 8}}, 4, 2);
  double arrival = 0;
  for (int i = 0; i < 300; ++i) {
    const int gangs[] = {1, 1, 2, 4, 8, 16};
    StreamJob j =
        gang_job("j" + std::to_string(i), gangs[rng.below(6)], rng.uniform(100, 20000), arrival);
    if (rng.uniform() < 0.5 && j.gang_size <= 8) j.steps_per_second["K80"] = 0.4;
    workload.jobs.push_back(j);
    arrival += rng.exponential(600);
  }
  const StreamReport report = run_policy(workload, "fifo", true);
  int reservations = 0;
  for (const auto& outcome : report.jobs) {
    ASSERT_GE(outcome.finish_seconds, 0) << outcome.name;
    if (outcome.reserved_start_seconds < 0) continue;
    ++reservations;
    EXPECT_LE(outcome.first_start_seconds, outcome.reserved_start_seconds + 1e-6) << outcome.name;
  }
  EXPECT_GT(reservations, 10);
  // Backfilling can only help the average wait of this stream versus strict FIFO.
  EXPECT_LT(report.average_wait_seconds, run_policy(workload, "fifo").average_wait_seconds);
}

TEST(StreamSimulator, GangsPreferOneNodeThenOneRack) {
  StreamWorkload workload;
  // 4 nodes of 4 V100s; nodes 0, 1 form rack 0 and nodes 2, 3 rack 1.
  workload.cluster = make_stream_cluster({{"V100", 16}}, 4, 2);
  workload.jobs = {gang_job("a", 3, 1000), gang_job("b", 3, 1000), gang_job("c", 3, 1000),
                   gang_job("d", 5, 1000, 10)};
  const StreamReport report = run_policy(workload, "fifo");
  // a, b and c each fit in one node, and never share one (3 + 3 > 4).
  for (int j = 0; j < 3; ++j) {
    ASSERT_EQ(report.jobs[j].placement_nodes.size(), 1u) << j;
    EXPECT_FALSE(report.jobs[j].spread_over_nodes);
  }
  EXPECT_NE(report.jobs[0].placement_nodes[0], report.jobs[1].placement_nodes[0]);
  EXPECT_NE(report.jobs[1].placement_nodes[0], report.jobs[2].placement_nodes[0]);
  // Free now: 1, 1, 1 and 4 devices. No node holds 5, rack 1 holds 5, rack 0 only
  // 2: d spans nodes of rack 1 only (taking the largest free nodes overall would
  // have crossed racks).
  const auto& d = report.jobs[3].placement_nodes;
  ASSERT_EQ(d.size(), 2u);
  EXPECT_TRUE(report.jobs[3].spread_over_nodes);
  for (int node : d) EXPECT_EQ(node / 2, 1) << "node " << node;
}

TEST(StreamSimulator, BadJobsAreRejectedAtSubmissionAndNeverBlockTheQueue) {
  StreamWorkload workload;
  workload.cluster = make_stream_cluster({{"V100", 4}, {"K80", 4}}, 4, 1);
  StreamJob huge = gang_job("huge", 100, 10);
  StreamJob unknown = gang_job("unknown", 1, 10);
  unknown.steps_per_second = {{"V1000", 3.0}};
  workload.jobs = {huge, unknown, gang_job("fine", 1, 10, 1)};
  for (const std::string policy : {"fifo", "las", "aware-las"}) {
    const StreamReport report = run_policy(workload, policy);
    EXPECT_EQ(report.rejected, 2u);
    EXPECT_TRUE(report.jobs[0].rejected);
    EXPECT_NE(report.jobs[0].rejection_reason.find("asks for 100 devices"), std::string::npos)
        << report.jobs[0].rejection_reason;
    EXPECT_NE(report.jobs[1].rejection_reason.find("unknown device type 'V1000'"),
              std::string::npos)
        << report.jobs[1].rejection_reason;
    EXPECT_NE(report.jobs[1].rejection_reason.find("V100"), std::string::npos);
    EXPECT_GE(report.jobs[2].finish_seconds, 0) << policy;
    EXPECT_EQ(report.finished_measured, 1u);
  }
}

TEST(StreamSimulator, RoundPoliciesFinishEveryJobAndRepeatExactly) {
  const auto table =
      load_gavel_throughputs(std::string(HETSCHED_DATA_DIR) + "/gavel/simulation_throughputs.json");
  StreamWorkload workload;
  workload.cluster = make_stream_cluster({{"V100", 8}, {"P100", 8}, {"K80", 8}}, 4, 2);
  workload.jobs = generate_gavel_jobs(table, GavelGeneratorParams{40, 2.0, true, 3});
  for (const auto& name : stream_policy_names()) {
    const StreamReport a = run_policy(workload, name);
    const StreamReport b = run_policy(workload, name);
    ASSERT_EQ(a.finished_measured, 40u) << name;
    for (std::size_t j = 0; j < a.jobs.size(); ++j) {
      EXPECT_EQ(a.jobs[j].finish_seconds, b.jobs[j].finish_seconds) << name;
      EXPECT_GE(a.jobs[j].first_start_seconds, a.jobs[j].arrival_seconds) << name;
    }
    for (double u : a.utilisation) {
      EXPECT_GE(u, 0.0) << name;
      EXPECT_LE(u, 1.0 + 1e-9) << name;
    }
    EXPECT_EQ(a.average_jct_seconds, b.average_jct_seconds);
  }
}

TEST(StreamSimulator, AwareAllocationShortensAverageJctOverAgnosticLas) {
  // A loaded 12-GPU cluster with Gavel's jobs: moving each job to the type where it
  // is relatively fastest should cut the average JCT (Gavel's central result).
  const auto table =
      load_gavel_throughputs(std::string(HETSCHED_DATA_DIR) + "/gavel/simulation_throughputs.json");
  StreamWorkload workload;
  workload.cluster = make_stream_cluster({{"V100", 4}, {"P100", 4}, {"K80", 4}}, 4, 2);
  workload.jobs = generate_gavel_jobs(table, GavelGeneratorParams{60, 1.0, false, 5});
  const StreamReport agnostic = run_policy(workload, "las");
  const StreamReport aware = run_policy(workload, "aware-las");
  EXPECT_LT(aware.average_jct_seconds, agnostic.average_jct_seconds);
}

}  // namespace
}  // namespace hetsched
