// The job-stream core's placement rules beside its default: best fit and
// fragmentation-aware (FGD) over whole and shared devices, CPU and memory asked of a node
// (CPU pods with a gang of 0), and the queue order without head-of-line blocking.
#include <gtest/gtest.h>

#include "hetsched/stream/gpu_fragmentation.hpp"
#include "hetsched/stream/stream_scheduler.hpp"

namespace hetsched {
namespace {

// Node 0 with two T4s, node 1 with one; CPU 4,000 and 8,000 milli-cores.
StreamResources two_nodes() {
  StreamResources resources;
  StreamDeviceType t4;
  t4.model = "T4";
  t4.count = 3;
  t4.devices_per_node = 2;
  resources.types.push_back(t4);
  resources.nodes.push_back(StreamNode{0, 0, 2, 0, 0, "a", 4000, 65536});
  resources.nodes.push_back(StreamNode{0, 0, 1, 0, 1, "b", 8000, 65536});
  return resources;
}

StreamJob pod(const std::string& name, int gang, int milli, double cpu) {
  StreamJob job;
  job.name = name;
  job.gang_size = gang;
  job.gpu_milli = milli;
  job.cpu_milli = cpu;
  job.total_steps = 100;
  job.steps_per_second = {{"T4", 1.0}};
  return job;
}

TEST(GpuFragmentation, CountsTheFreeCapacityEachRequestCannotUse) {
  const GpuFragmentation measure({{1, 1000, 0.5}, {1, 600, 0.5}});
  // A whole GPU fits (the 500 left on the partly used GPU is lost to it); a 0.6 share
  // fits the free GPU, and cannot use the 500.
  EXPECT_DOUBLE_EQ(measure(std::vector<int>{1000, 500, 0}), 0.5 * 500 + 0.5 * 500);
  // No GPU entirely free, none with 600: all of it is fragmented for both.
  EXPECT_DOUBLE_EQ(measure(std::vector<int>{400, 500}), 900);
  EXPECT_DOUBLE_EQ(measure(std::vector<int>{}), 0);
  // Two whole GPUs at once: one free GPU is not enough.
  const GpuFragmentation pairs({{2, 1000, 1.0}});
  EXPECT_DOUBLE_EQ(pairs(std::vector<int>{1000, 300}), 1300);
  EXPECT_DOUBLE_EQ(pairs(std::vector<int>{1000, 1000, 300}), 300);
  // The mix of a list of requests: each counted once, in (gpus, milli) order.
  const std::vector<std::pair<int, int>> requests{{1, 500}, {1, 1000}, {1, 500}, {2, 1000}};
  const auto mix = GpuFragmentation::of_requests(requests).mix();
  ASSERT_EQ(mix.size(), 3u);
  EXPECT_EQ(mix[0].milli, 500);
  EXPECT_DOUBLE_EQ(mix[0].popularity, 0.5);
  EXPECT_EQ(mix[2].gpus, 2);
}

TEST(StreamDevicePlacement, FragmentationAwareFillsTheHalfUsedGpuBestFitTheSmallNode) {
  // Node a has a GPU half taken; a new half-GPU job. Best fit: node b, left with 500
  // free (node a would keep 1000). FGD with whole-GPU requests expected: on node b it
  // would leave no whole GPU (+500 fragmented); on a's half-used GPU it removes the
  // 500 that no whole GPU can use (-500).
  for (const DevicePlacement rule :
       {DevicePlacement::best_fit, DevicePlacement::fragmentation_aware}) {
    StreamSchedulerOptions options;
    options.device_placement = rule;
    options.request_mix = {{1, 1000, 1.0}};
    const auto fifo = make_stream_policy("fifo");
    StreamScheduler scheduler(two_nodes(), *fifo, options);
    const std::size_t seed = scheduler.submit(pod("seed", 1, 500, 0), 0);
    ASSERT_TRUE(scheduler.adopt(seed, StreamPlacement{0, {{0, 0}}, 0, {}}, 0, 0));
    const GpuCapacity before = scheduler.gpu_capacity();
    EXPECT_DOUBLE_EQ(before.free_milli, 2500);
    EXPECT_DOUBLE_EQ(before.fragmented_milli, 500);
    scheduler.submit(pod("half", 1, 500, 0), 0);
    const std::vector<StreamStart> starts = scheduler.schedule(0);
    ASSERT_EQ(starts.size(), 1u);
    if (rule == DevicePlacement::best_fit) {
      EXPECT_EQ(starts[0].placement.nodes, (GangPlacement{{1, 0}}));
      EXPECT_DOUBLE_EQ(scheduler.gpu_capacity().fragmented_milli, 1000);
    } else {
      EXPECT_EQ(starts[0].placement.nodes, (GangPlacement{{0, 0}}));
      EXPECT_EQ(starts[0].placement.shared_device, 0);
      EXPECT_DOUBLE_EQ(scheduler.gpu_capacity().fragmented_milli, 0);
    }
  }
}

TEST(StreamDevicePlacement, WithoutAnExpectedMixFragmentationIsMeasuredForTheJobsSubmitted) {
  // Only half-GPU jobs so far: a GPU with 500 free serves them as well as a free one, so
  // nothing is fragmented, every choice scores the same, and the tie goes to the node
  // with the least free GPU capacity, b.
  StreamSchedulerOptions options;
  options.device_placement = DevicePlacement::fragmentation_aware;
  const auto fifo = make_stream_policy("fifo");
  StreamScheduler scheduler(two_nodes(), *fifo, options);
  const std::size_t seed = scheduler.submit(pod("seed", 1, 500, 0), 0);
  ASSERT_TRUE(scheduler.adopt(seed, StreamPlacement{0, {{0, 0}}, 0, {}}, 0, 0));
  EXPECT_DOUBLE_EQ(scheduler.gpu_capacity().fragmented_milli, 0);
  scheduler.submit(pod("half", 1, 500, 0), 0);
  const std::vector<StreamStart> starts = scheduler.schedule(0);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].placement.nodes, (GangPlacement{{1, 0}}));
  // A whole-GPU job joins the mix (a third of it): node a's 500 and node b's 500 are
  // now fragmented for it, and node a's free GPU is not.
  scheduler.submit(pod("whole", 1, 0, 0), 1);
  EXPECT_NEAR(scheduler.gpu_capacity().fragmented_milli, (500.0 + 500.0) / 3, 1e-9);
}

TEST(StreamDevicePlacement, CpuAndMemoryOfANodeAreHeldAndCpuPodsTakeNoDevice) {
  StreamSchedulerOptions options;
  options.device_placement = DevicePlacement::best_fit;
  options.strict_order = false;
  const auto fifo = make_stream_policy("fifo");
  StreamScheduler scheduler(two_nodes(), *fifo, options);
  // More CPU than any node has: refused with the reason.
  const std::size_t huge = scheduler.submit(pod("huge", 0, 0, 9000), 0);
  EXPECT_EQ(scheduler.job(huge).state, StreamJobState::rejected);
  EXPECT_NE(scheduler.job(huge).rejection_reason.find("8000 milli-CPU"), std::string::npos);
  // A gang of 0 asking for nothing is no job.
  EXPECT_EQ(scheduler.job(scheduler.submit(pod("empty", 0, 0, 0), 0)).state,
            StreamJobState::rejected);
  // 6,000 fits node b only; 3,000 then fits node a only; a second 3,000 waits.
  const std::size_t big = scheduler.submit(pod("big", 0, 0, 6000), 0);
  const std::size_t small = scheduler.submit(pod("small", 0, 0, 3000), 0);
  const std::size_t late = scheduler.submit(pod("late", 0, 0, 3000), 0);
  const std::vector<StreamStart> starts = scheduler.schedule(0);
  ASSERT_EQ(starts.size(), 2u);
  EXPECT_EQ(starts[0].job, big);
  EXPECT_EQ(starts[0].placement.nodes, (GangPlacement{{1, 0}}));
  EXPECT_EQ(starts[1].job, small);
  EXPECT_EQ(starts[1].placement.nodes, (GangPlacement{{0, 0}}));
  EXPECT_DOUBLE_EQ(scheduler.gpu_capacity().free_milli, 3000) << "CPU pods take no GPU";
  // A whole GPU with 1,000 milli-CPU: node b, left with no GPU free (best fit).
  const std::size_t gpu = scheduler.submit(pod("gpu", 1, 0, 1000), 1);
  const std::vector<StreamStart> more = scheduler.schedule(1);
  ASSERT_EQ(more.size(), 1u);
  EXPECT_EQ(more[0].job, gpu);
  EXPECT_EQ(more[0].placement.nodes, (GangPlacement{{1, 1}}));
  EXPECT_EQ(scheduler.job(late).state, StreamJobState::waiting);
  scheduler.withdraw(big, 2);
  const std::vector<StreamStart> after = scheduler.schedule(2);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].job, late);
  EXPECT_EQ(after[0].placement.nodes, (GangPlacement{{1, 0}}));
}

TEST(StreamDevicePlacement, WithoutStrictOrderAJobThatFitsPassesOneThatDoesNot) {
  for (const bool strict : {true, false}) {
    StreamSchedulerOptions options;
    options.strict_order = strict;
    const auto fifo = make_stream_policy("fifo");
    StreamScheduler scheduler(two_nodes(), *fifo, options);
    scheduler.submit(pod("two", 2, 0, 0), 0);
    scheduler.schedule(0);
    scheduler.submit(pod("blocked", 2, 0, 0), 1);  // the other node has one GPU
    const std::size_t one = scheduler.submit(pod("one", 1, 0, 0), 2);
    const std::vector<StreamStart> starts = scheduler.schedule(2);
    if (strict) {
      EXPECT_TRUE(starts.empty());
    } else {
      ASSERT_EQ(starts.size(), 1u);
      EXPECT_EQ(starts[0].job, one);
    }
  }
}

}  // namespace
}  // namespace hetsched
