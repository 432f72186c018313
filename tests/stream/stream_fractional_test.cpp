// Fractional GPUs (milli-GPU shares with memory isolation, MIG-like slices), CPU core
// sets, backfilling of idle devices in rounds, and the sequential service of a folded
// LP group: small cases whose answers are worked out by hand in the comments.
#include <gtest/gtest.h>

#include <string>

#include "cluster_benchmark.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/io/stream_workload_file.hpp"
#include "hetsched/stream/allocation_lp.hpp"
#include "hetsched/stream/stream_simulator.hpp"

namespace hetsched {
namespace {

// 1 step/s on a whole V100, `steps` steps.
StreamJob fractional_job(const std::string& name, double steps, int milli = 0, double arrival = 0) {
  StreamJob j;
  j.name = name;
  j.total_steps = steps;
  j.steps_per_second = {{"V100", 1.0}};
  j.gpu_milli = milli;
  j.arrival_seconds = arrival;
  return j;
}

StreamReport run_fractional(const StreamWorkload& workload, const std::string& policy_name,
                            bool backfill_idle = true) {
  StreamSimOptions options;
  options.backfill_idle_devices = backfill_idle;
  return simulate_stream(workload, policy_name, options);
}

TEST(StreamFractionalGpu, TwoHalvesShareOneDeviceAtHalfRate) {
  StreamWorkload workload;
  workload.cluster = make_stream_cluster({{"V100", 1}}, 1, 1);
  workload.jobs = {fractional_job("a", 100, 500), fractional_job("b", 100, 500),
                   fractional_job("c", 100, 600)};
  for (const char* policy : {"fifo", "las"}) {
    const StreamReport report = run_fractional(workload, policy);
    // a and b: 0.5 step/s each from t=0, done at 200 s; c (600 milli) does not fit
    // beside them and starts when they are gone at 0.6 step/s: at 200 s in queue
    // mode, at the next round (360 s) in round mode.
    const double c_start = std::string(policy) == "fifo" ? 200 : 360;
    EXPECT_DOUBLE_EQ(report.jobs[0].first_start_seconds, 0) << policy;
    EXPECT_DOUBLE_EQ(report.jobs[1].first_start_seconds, 0) << policy;
    EXPECT_NEAR(report.jobs[0].finish_seconds, 200, 1e-9) << policy;
    EXPECT_NEAR(report.jobs[1].finish_seconds, 200, 1e-9) << policy;
    EXPECT_NEAR(report.jobs[2].first_start_seconds, c_start, 1e-9) << policy;
    EXPECT_NEAR(report.jobs[2].finish_seconds, c_start + 100 / 0.6, 1e-6) << policy;
    EXPECT_EQ(report.jobs[0].shared_device, report.jobs[1].shared_device) << policy;
    EXPECT_DOUBLE_EQ(report.jobs[0].device_share, 0.5) << policy;
    // Device-seconds are charged by share: 0.5 x 200 s for each half job.
    EXPECT_NEAR(report.jobs[0].device_seconds, 100, 1e-9) << policy;
  }
}

TEST(StreamFractionalGpu, MemoryIsolationKeepsJobsApart) {
  StreamWorkload workload;
  workload.cluster = make_stream_cluster({{"V100", 1}}, 1, 1);
  const double memory = workload.cluster.types[0].memory_gb;
  ASSERT_GT(memory, 0);
  workload.jobs = {fractional_job("a", 100, 300), fractional_job("b", 100, 300)};
  workload.jobs[0].gpu_memory_gb = workload.jobs[1].gpu_memory_gb = 0.6 * memory;
  // Compute would fit (600 of 1000 milli) but memory does not: b waits for a,
  // which takes 100 / 0.3 s.
  StreamReport report = run_fractional(workload, "fifo");
  EXPECT_NEAR(report.jobs[1].first_start_seconds, 100 / 0.3, 1e-6);
  // With two devices each gets its own.
  workload.cluster = make_stream_cluster({{"V100", 2}}, 2, 1);
  report = run_fractional(workload, "fifo");
  EXPECT_DOUBLE_EQ(report.jobs[1].first_start_seconds, 0);
  EXPECT_NE(report.jobs[0].shared_device, report.jobs[1].shared_device);
}

TEST(StreamFractionalGpu, MigSlicesRoundUpToWholeSlices) {
  StreamWorkload workload;
  workload.cluster = make_stream_cluster({{"V100", 1}}, 1, 1);
  workload.cluster.types[0].mig_slices = 7;
  const double memory = workload.cluster.types[0].memory_gb;
  // 100 milli -> 1 slice of 7 (1/7 step/s): seven fit at once, the eighth waits.
  for (int i = 0; i < 8; ++i)
    workload.jobs.push_back(fractional_job("s" + std::to_string(i), 10, 100));
  StreamReport report = run_fractional(workload, "fifo");
  for (int i = 0; i < 7; ++i) {
    EXPECT_DOUBLE_EQ(report.jobs[i].first_start_seconds, 0);
    EXPECT_NEAR(report.jobs[i].finish_seconds, 70, 1e-9);
    EXPECT_NEAR(report.jobs[i].device_share, 1.0 / 7, 1e-12);
  }
  EXPECT_NEAR(report.jobs[7].first_start_seconds, 70, 1e-9);
  EXPECT_NEAR(report.jobs[7].finish_seconds, 140, 1e-9);
  // 200 milli -> ceil(1.4) = 2 slices; 100 milli but 3/7 of the memory -> 3 slices.
  workload.jobs = {fractional_job("two", 10, 200), fractional_job("memory", 10, 100)};
  workload.jobs[1].gpu_memory_gb = 2.5 * memory / 7;
  report = run_fractional(workload, "fifo");
  EXPECT_NEAR(report.jobs[0].device_share, 2.0 / 7, 1e-12);
  EXPECT_NEAR(report.jobs[0].finish_seconds, 35, 1e-9);
  EXPECT_NEAR(report.jobs[1].device_share, 3.0 / 7, 1e-12);
}

TEST(StreamCpuCores, AJobGetsItsOwnCoreSetOnTheNodeOfItsDevice) {
  StreamWorkload workload;
  workload.cluster = make_stream_cluster({{"V100", 2}}, 2, 1);
  workload.cluster.types[0].cpu_cores_per_node = 8;
  workload.jobs = {fractional_job("a", 100), fractional_job("b", 50)};
  workload.jobs[0].cpu_cores = 6;
  workload.jobs[1].cpu_cores = 4;
  for (const char* policy : {"fifo", "las"}) {
    // One node of 8 cores: a holds cores 0-5, so b waits for them although a
    // device is free (until a ends at 100 s in queue mode, the next round at 360 s
    // in round mode), then gets cores 0-3.
    const double b_start = std::string(policy) == "fifo" ? 100 : 360;
    StreamReport report = run_fractional(workload, policy);
    EXPECT_EQ(report.jobs[0].cpu_core_set, (std::vector<int>{0, 1, 2, 3, 4, 5})) << policy;
    EXPECT_NEAR(report.jobs[1].first_start_seconds, b_start, 1e-9) << policy;
    EXPECT_EQ(report.jobs[1].cpu_core_set, (std::vector<int>{0, 1, 2, 3})) << policy;
  }
  // Two nodes: b starts at once on the other node.
  workload.cluster = make_stream_cluster({{"V100", 4}}, 2, 1);
  workload.cluster.types[0].cpu_cores_per_node = 8;
  const StreamReport report = run_fractional(workload, "fifo");
  EXPECT_DOUBLE_EQ(report.jobs[1].first_start_seconds, 0);
  EXPECT_NE(report.jobs[0].placement_nodes, report.jobs[1].placement_nodes);
}

TEST(StreamFractionalGpu, ImpossibleRequestsAreRejectedWithAReasonAndNeverBlock) {
  StreamWorkload workload;
  workload.cluster = make_stream_cluster({{"V100", 4}}, 2, 1);
  workload.cluster.types[0].cpu_cores_per_node = 32;
  const double memory = workload.cluster.types[0].memory_gb;
  std::vector<StreamJob> bad{fractional_job("too-many-milli", 10, 1500),
                             fractional_job("fraction-gang", 10, 500), fractional_job("cores", 10),
                             fractional_job("memory", 10, 500),
                             fractional_job("cores-over-nodes", 10)};
  bad[1].gang_size = 2;
  bad[2].cpu_cores = 64;
  bad[3].gpu_memory_gb = memory * 2;
  bad[4].cpu_cores = 4;
  bad[4].gang_size = 4;  // 4 devices with cores on one node of 2 devices
  const std::vector<std::string> reason_has{"between 0 and 1000", "cannot have a gang of 2",
                                            "has 32 CPU cores", "GB of memory",
                                            "node of its devices"};
  workload.jobs = bad;
  workload.jobs.push_back(fractional_job("fine", 10, 250, 1));
  for (const char* policy : {"fifo", "aware-srpt"}) {
    const StreamReport report = run_fractional(workload, policy);
    EXPECT_EQ(report.rejected, bad.size()) << policy;
    for (std::size_t i = 0; i < bad.size(); ++i) {
      EXPECT_TRUE(report.jobs[i].rejected) << bad[i].name;
      EXPECT_NE(report.jobs[i].rejection_reason.find(reason_has[i]), std::string::npos)
          << report.jobs[i].rejection_reason;
    }
    EXPECT_FALSE(report.jobs.back().rejected);
    EXPECT_GT(report.jobs.back().finish_seconds, 0) << policy;
  }
}

TEST(StreamFractionalGpu, WorkloadFileCarriesSharesSlicesAndCores) {
  const std::string text = R"(kind: stream
cluster:
  devices: {V100: 2}
  devices_per_node: 2
  cpu_cores_per_node: 16
  mig_slices: 7
jobs:
  - {name: a, steps: 10, rates: {V100: 1}, gpu_milli: 300, gpu_memory_gb: 5, cpu_cores: 3}
)";
  const StreamWorkload w = parse_stream_workload(text, "w.yaml");
  EXPECT_EQ(w.cluster.types[0].cpu_cores_per_node, 16);
  EXPECT_EQ(w.cluster.types[0].mig_slices, 7);
  EXPECT_EQ(w.jobs[0].gpu_milli, 300);
  EXPECT_DOUBLE_EQ(w.jobs[0].gpu_memory_gb, 5);
  EXPECT_EQ(w.jobs[0].cpu_cores, 3);
  // 300 milli on 7 slices: ceil(2.1) = 3 slices, 3/7 step/s, 70/3 s.
  const StreamReport report = run_fractional(w, "fifo");
  EXPECT_NEAR(report.jobs[0].finish_seconds, 70.0 / 3, 1e-9);
  EXPECT_EQ(report.jobs[0].cpu_core_set, (std::vector<int>{0, 1, 2}));
  try {
    parse_stream_workload("kind: stream\ncluster:\n  devices: {V100: 4}\n  mig_slices: -1\n",
                          "w.yaml");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 4);
  }
}

// A round policy with a fixed allocation: every job wants the V100 only.
class V100OnlyPolicy final : public StreamPolicy {
 public:
  StreamPolicyMode mode() const override { return StreamPolicyMode::round; }
  AllocationResult allocate(const std::vector<StreamJobView>& jobs,
                            const StreamPolicyContext& context) override {
    AllocationResult result;
    result.fraction.assign(jobs.size(), std::vector<double>(context.capacity.size(), 0.0));
    for (auto& row : result.fraction) row[0] = 1.0;
    return result;
  }
};

TEST(StreamRounds, IdleDevicesGoToJobsLeftOut) {
  StreamWorkload workload;
  workload.cluster = make_stream_cluster({{"V100", 1}, {"K80", 1}}, 1, 1);
  workload.jobs = {fractional_job("a", 360), fractional_job("b", 360)};
  for (auto& j : workload.jobs) j.steps_per_second["K80"] = 0.5;
  V100OnlyPolicy policy;
  StreamSimOptions options;  // 360 s rounds, 30 s per migration
  options.backfill_idle_devices = false;
  StreamReport report = simulate_stream(workload, policy, options);
  // Without backfilling b waits for a's V100: 360 + 360.
  EXPECT_NEAR(report.jobs[1].first_start_seconds, 360, 1e-9);
  EXPECT_NEAR(report.jobs[1].finish_seconds, 720, 1e-9);
  options.backfill_idle_devices = true;
  report = simulate_stream(workload, policy, options);
  // With it b runs round 0 on the idle K80 (180 steps), then moves to the V100
  // (30 s migration) for the other 180: 360 + 30 + 180 = 570.
  EXPECT_NEAR(report.jobs[1].first_start_seconds, 0, 1e-9);
  EXPECT_NEAR(report.jobs[1].finish_seconds, 570, 1e-9);
  EXPECT_EQ(report.jobs[1].migrations, 1);
}

TEST(AllocationLp, FoldedGroupServedInOrderKeepsTotals) {
  // Three identical jobs, two V100s: folded, each gets 2/3 of a V100; served in
  // order, the two smallest keys get a whole V100 each and the third nothing.
  AllocationProblem problem;
  problem.capacity = {2};
  problem.price_per_hour = {1};
  for (double key : {3.0, 1.0, 2.0}) {
    AllocationJob job;
    job.rate = {1.0};
    job.order_key = key;
    problem.jobs.push_back(job);
  }
  AllocationResult shared = solve_allocation(problem, AllocationObjective::priority_throughput);
  for (const auto& row : shared.fraction) EXPECT_NEAR(row[0], 2.0 / 3, 1e-9);
  problem.serve_folded_in_order = true;
  const AllocationResult ordered =
      solve_allocation(problem, AllocationObjective::priority_throughput);
  EXPECT_NEAR(ordered.fraction[0][0], 0.0, 1e-9);
  EXPECT_NEAR(ordered.fraction[1][0], 1.0, 1e-9);
  EXPECT_NEAR(ordered.fraction[2][0], 1.0, 1e-9);
}

TEST(ClusterBenchSeeds, SpreadIsMeanSampleDeviationAndRange) {
  const SeedSpread spread = seed_spread({1.0, 2.0, 3.0});
  EXPECT_DOUBLE_EQ(spread.mean, 2.0);
  EXPECT_DOUBLE_EQ(spread.stddev, 1.0);  // sqrt((1 + 0 + 1) / (3 - 1))
  EXPECT_DOUBLE_EQ(spread.min, 1.0);
  EXPECT_DOUBLE_EQ(spread.max, 3.0);
  EXPECT_DOUBLE_EQ(seed_spread({4.0}).stddev, 0.0);
}

}  // namespace
}  // namespace hetsched
