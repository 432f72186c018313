// A hand-computed run: a diamond DAG A → {B, C} → D on one GPU (d0) and one CPU
// (d1) of one node whose link moves 1 GB/s with no latency, under greedy-eft.
//
// Costs (explicit, seconds): A 2|4, B 3|6, C 4|4.5, D 2|3.5 (d0|d1).
// Edges: A→B 1 GB, A→C 2 GB, B→D 1 GB, C→D 1 GB.
//   t=0    A ready. EFT d0 = 2, d1 = 4 → d0; runs 0–2.
//   t=2    B ready: d0 = 2+3 = 5, d1 = (2+1)+6 = 9 → d0, runs 2–5 (input local).
//          C ready: d0 = 5+4 = 9, d1 = (2+2)+4.5 = 8.5 → d1; A→C moves 2 s, C runs 4–8.5.
//   t=8.5  D ready: d0 = max(5, 8.5+1)+2 = 11.5, d1 = max(8.5, 5+1)+3.5 = 12 → d0;
//          C→D moves 8.5–9.5, D runs 9.5–11.5.
// Makespan 11.5 s; two transfers, 3 GB, 3 s.
// Energy: d0 busy 7 s at 10 + 100×0.95 = 105 W = 735 J, idle 4.5 s × 10 W = 45 J;
//         d1 busy 4.5 s at 5 + 40×0.9 = 41 W = 184.5 J, idle 7 s × 5 W = 35 J; total 999.5 J.
// Cost: (3.6 + 0.36) $/h × 11.5 s = 0.01265 $.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include "hetsched/core/huge_page_allocator.hpp"
#include "hetsched/core/rng.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/policy/policy_registry.hpp"
#include "hetsched/sim/event_queue.hpp"
#include "hetsched/sim/simulator.hpp"

namespace hetsched {
namespace {

DeviceSpec simple_spec(const char* model, DeviceKind kind, double idle, double peak, double price) {
  DeviceSpec s;
  s.model = model;
  s.kind = kind;
  s.matrix_flops = {1e12, 1e12, 1e12, 1e12};
  s.vector_flops = s.matrix_flops;
  s.memory_bytes = 1e10;
  s.memory_bandwidth = 1e11;
  s.idle_watts = idle;
  s.peak_watts = peak;
  s.price_per_hour = price;
  return s;
}

Task costed(const char* name, double gpu, double cpu) {
  Task t;
  t.name = name;
  t.kernel = KernelClass::dense_matmul;
  t.cost_seconds = {gpu, cpu};
  return t;
}

TEST(GoldenSimulation, DiamondOnGpuAndCpuMatchesHandComputation) {
  Cluster cluster;
  Node node;
  node.name = "n0";
  node.link = IntraNodeLink{"pcie", 1e9, 0.0};
  cluster.add_node(node, {simple_spec("gpu", DeviceKind::gpu, 10, 110, 3.6),
                          simple_spec("cpu", DeviceKind::cpu, 5, 45, 0.36)});
  Workload workload;
  Job job;
  job.name = "diamond";
  job.tasks = {costed("A", 2, 4), costed("B", 3, 6), costed("C", 4, 4.5), costed("D", 2, 3.5)};
  job.edges = {{0, 1, 1e9}, {0, 2, 2e9}, {1, 3, 1e9}, {2, 3, 1e9}};
  workload.jobs.push_back(job);

  const RooflineModel perf(cluster);
  auto policy = make_policy("greedy-eft", {});
  Simulator sim(cluster, workload, perf, *policy);
  const SimReport r = sim.run();

  ASSERT_EQ(r.tasks_completed, 4u);
  EXPECT_DOUBLE_EQ(r.makespan_seconds, 11.5);
  const double expected_start[] = {0, 2, 4, 9.5}, expected_finish[] = {2, 5, 8.5, 11.5};
  const DeviceId expected_device[] = {0, 0, 1, 0};
  ASSERT_EQ(r.schedule.size(), 4u);
  for (const TaskRecord& t : r.schedule) {
    SCOPED_TRACE(t.task);
    EXPECT_EQ(t.device, expected_device[t.task]);
    EXPECT_DOUBLE_EQ(t.start_seconds, expected_start[t.task]);
    EXPECT_DOUBLE_EQ(t.finish_seconds, expected_finish[t.task]);
  }
  EXPECT_EQ(r.transfer_count, 2u);
  EXPECT_DOUBLE_EQ(r.transfer_bytes, 3e9);
  EXPECT_DOUBLE_EQ(r.transfer_seconds, 3.0);
  EXPECT_NEAR(r.energy_joules, 999.5, 1e-9);
  EXPECT_NEAR(r.devices[0].idle_joules, 45, 1e-9);
  EXPECT_NEAR(r.devices[1].busy_joules, 184.5, 1e-9);
  EXPECT_NEAR(r.cost_usd, 3.96 * 11.5 / 3600, 1e-12);
  EXPECT_DOUBLE_EQ(r.utilization_by_kind[static_cast<int>(DeviceKind::gpu)], 7 / 11.5);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_DOUBLE_EQ(r.jobs[0].completion_seconds, 11.5);
  EXPECT_DOUBLE_EQ(r.jobs[0].waiting_seconds(), 0);
}

TEST(GoldenSimulation, NicContentionSerializesTransfersBetweenNodes) {
  // Two nodes of two devices each, 1 GB/s NICs, no latency. p1 and p2 run on the two
  // devices of node a and both finish at t=1; each sends 1 GB to its consumer on node
  // b. Node a's NIC carries one transfer at a time: arrivals at 2 and 3, not both at 2.
  Cluster cluster;
  for (const char* name : {"a", "b"}) {
    Node node;
    node.name = name;
    node.nic_bandwidth = 1e9;
    cluster.add_node(node, {simple_spec("gpu", DeviceKind::gpu, 1, 2, 0),
                            simple_spec("gpu", DeviceKind::gpu, 1, 2, 0)});
  }
  cluster.network().latency_seconds = 0;
  const auto task = [](const char* name, std::vector<double> costs) {
    Task t;
    t.name = name;
    t.cost_seconds = std::move(costs);
    return t;
  };
  Workload workload;
  Job job;
  job.name = "j";
  job.tasks = {task("p1", {1, 1, 100, 100}), task("p2", {1, 1, 100, 100}),
               task("c1", {100, 100, 1, 1}), task("c2", {100, 100, 1, 1})};
  job.edges = {{0, 2, 1e9}, {1, 3, 1e9}};
  workload.jobs.push_back(job);
  const RooflineModel perf(cluster);
  auto policy = make_policy("greedy-eft", {});
  Simulator sim(cluster, workload, perf, *policy);
  const SimReport r = sim.run();
  ASSERT_EQ(r.tasks_completed, 4u);
  EXPECT_DOUBLE_EQ(r.makespan_seconds, 4.0);
  ASSERT_EQ(r.transfers.size(), 2u);
  EXPECT_DOUBLE_EQ(r.transfers[0].start_seconds, 1.0);
  EXPECT_DOUBLE_EQ(r.transfers[0].finish_seconds, 2.0);
  EXPECT_DOUBLE_EQ(r.transfers[1].start_seconds, 2.0);
  EXPECT_DOUBLE_EQ(r.transfers[1].finish_seconds, 3.0);
}

// The engine's parts: the agenda's order (time, then scheduling order) over times of
// every sign, and the huge-page vectors the simulator keeps its per-task arrays in.

TEST(EventQueueOrder, PopsByTimeThenSchedulingOrderOverSignsAndZeros) {
  const std::vector<double> times = {3.5,
                                     -2.0,
                                     0.0,
                                     -0.0,
                                     1e-300,
                                     -1e-300,
                                     3.5,
                                     1e300,
                                     0.0,
                                     -2.0,
                                     std::numeric_limits<double>::infinity()};
  EventQueue queue;
  for (std::uint32_t i = 0; i < times.size(); ++i) queue.schedule(times[i], 7, i);
  // Expected: stable sort by time, with -0 and +0 equal (as `<` on doubles has it).
  std::vector<std::uint32_t> expected(times.size());
  for (std::uint32_t i = 0; i < expected.size(); ++i) expected[i] = i;
  std::stable_sort(expected.begin(), expected.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return times[a] < times[b]; });
  for (const std::uint32_t subject : expected) {
    ASSERT_FALSE(queue.empty());
    const Event e = queue.pop();
    EXPECT_EQ(e.subject, subject);
    EXPECT_EQ(e.kind, 7u);
    EXPECT_EQ(e.time, times[subject]);
  }
  EXPECT_TRUE(queue.empty());
}

TEST(EventQueueOrder, MatchesASortOfManyInterleavedSchedulesAndPops) {
  Rng rng(11);
  EventQueue queue;
  std::vector<std::tuple<double, std::uint64_t, std::uint32_t>> pending;  // time, order, subject
  std::uint64_t order = 0;
  double now = 0;
  for (std::uint32_t step = 0; step < 20000; ++step) {
    if (pending.empty() || rng.uniform(0.0, 1.0) < 0.55) {
      // Times from a small grid, so that many events share a time.
      const double time = now + static_cast<double>(static_cast<int>(rng.uniform(0.0, 8.0)));
      queue.schedule(time, 0, step);
      pending.emplace_back(time, order++, step);
    } else {
      const auto first = std::min_element(pending.begin(), pending.end());
      const Event e = queue.pop();
      ASSERT_EQ(e.subject, std::get<2>(*first));
      ASSERT_EQ(e.time, std::get<0>(*first));
      now = e.time;
      pending.erase(first);
    }
  }
  EXPECT_EQ(queue.size(), pending.size());
}

TEST(HugePageVector, KeepsValuesAcrossGrowthAndLargeBlocks) {
  LargeVector<std::uint64_t> values;
  const std::size_t n = 3 * kHugePageBytes / sizeof(std::uint64_t);  // grows past 2 MiB
  for (std::uint64_t i = 0; i < n; ++i) values.push_back(i * 2654435761u);
  ASSERT_EQ(values.size(), n);
  for (std::uint64_t i = 0; i < n; i += 4099) EXPECT_EQ(values[i], i * 2654435761u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(values.data()) % alignof(std::uint64_t), 0u);
  LargeVector<double> zeros(n, 0.0);
  EXPECT_EQ(std::count(zeros.begin(), zeros.end(), 0.0), static_cast<std::ptrdiff_t>(n));
  LargeVector<double> copy = zeros;
  copy.back() = 1;
  EXPECT_EQ(zeros.back(), 0.0);
}

// The mapping behind large LargeVector blocks (which sanitized builds, as the test suite
// is, leave to operator new): whole huge pages from a 2 MiB boundary, every byte usable.
TEST(HugePageVector, MappedBlocksStartOnAHugePageAndAreWritableToTheirEnd) {
  for (const std::size_t bytes : {kHugePageBytes, 3 * kHugePageBytes + 1}) {
    auto* block = static_cast<unsigned char*>(map_huge_pages(bytes));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block) % kHugePageBytes, 0u);
    // Rounded up to whole huge pages: the last byte of the last one is ours too.
    const std::size_t length = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    block[0] = 1;
    block[bytes - 1] = 2;
    EXPECT_EQ(block[0], 1);
    EXPECT_EQ(block[bytes - 1], 2);
    block[length - 1] = 3;
    EXPECT_EQ(block[length - 1], 3);
    unmap_huge_pages(block, bytes);
  }
}

}  // namespace
}  // namespace hetsched
