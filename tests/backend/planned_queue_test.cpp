#include "hetsched/backend/planned_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "hetsched/core/rng.hpp"

namespace hetsched {
namespace {

// The queue must hand tasks out exactly in (key, push order) order, like one heap, whatever
// mix of in-order and out-of-order pushes and pops it sees, and however often it numbers
// its tasks again (a limit of 7 pushes renumbers thousands of times, with tasks queued).
class PlannedQueueOrder : public testing::TestWithParam<std::uint32_t> {};

TEST_P(PlannedQueueOrder, PopsInPlannedOrderUnderMixedPushes) {
  Rng rng(7);
  PlannedQueue queue(GetParam());
  std::set<std::tuple<double, std::uint64_t, TaskIndex>> reference;
  std::uint64_t pushed = 0;
  double now = 0;
  for (int step = 0; step < 20000; ++step) {
    const double choice = rng.uniform();
    if (choice < 0.55) {
      // Mostly appends at "now" (online policies), sometimes an earlier planned start,
      // often the same key as an earlier push.
      now += rng.uniform() < 0.5 ? 0.0 : rng.uniform();
      const double key = rng.uniform() < 0.8 ? now : now - std::floor(rng.uniform() * 5);
      const auto task = static_cast<TaskIndex>(step);
      const bool at_front = queue.push(key, task);
      reference.emplace(key, pushed++, task);
      // push says whether the task is now the front, as the reference orders them.
      EXPECT_EQ(at_front, std::get<2>(*reference.begin()) == task) << "step " << step;
      // Once the count reaches the limit, the queued tasks are numbered from 0 again.
      std::uint32_t highest = 0;
      queue.visit_all([&](const QueuedTask& queued) {
        highest = std::max(highest, queued.sequence);
        return false;
      });
      EXPECT_LT(highest, std::max<std::uint64_t>(GetParam(), queue.size())) << "step " << step;
    } else if (!reference.empty()) {
      ASSERT_FALSE(queue.empty());
      const auto expected = *reference.begin();
      reference.erase(reference.begin());
      EXPECT_EQ(queue.front().task, std::get<2>(expected)) << "step " << step;
      queue.pop_front();
    }
    ASSERT_EQ(queue.size(), reference.size());
  }
}

INSTANTIATE_TEST_SUITE_P(SequenceLimits, PlannedQueueOrder,
                         testing::Values(UINT32_MAX, std::uint32_t{7}));

// Room written ahead (before a run's clock starts) leaves an empty queue empty, and a
// queue that already holds tasks untouched, in the same order.
TEST(PlannedQueueTest, ReservedRoomLeavesContentsAndOrderAlone) {
  PlannedQueue queue;
  queue.reserve_touched(1000);
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.size(), 0u);
  for (TaskIndex t = 0; t < 5; ++t) queue.push(double(t), t);
  queue.push(-1.0, 5);  // out of order: goes first
  queue.reserve_touched(100000);
  ASSERT_EQ(queue.size(), 6u);
  EXPECT_EQ(queue.front().task, 5u);
  queue.pop_front();
  for (TaskIndex t = 0; t < 5; ++t) {
    ASSERT_FALSE(queue.empty());
    EXPECT_EQ(queue.front().task, t);
    queue.pop_front();
  }
  EXPECT_TRUE(queue.empty());
}

TEST(PlannedQueueTest, LatestFirstVisitAndEraseKeepTheOrder) {
  PlannedQueue queue;
  for (TaskIndex t = 0; t < 10; ++t) queue.push(double(t), t);
  queue.push(2.5, 10);  // out of order: goes to the heap
  std::vector<TaskIndex> latest;
  queue.visit_latest(3, [&](const QueuedTask& p) {
    latest.push_back(p.task);
    return false;
  });
  EXPECT_EQ(latest, (std::vector<TaskIndex>{9, 8, 7}));
  EXPECT_TRUE(queue.erase(4));
  EXPECT_TRUE(queue.erase(10));
  EXPECT_FALSE(queue.erase(42));
  std::vector<TaskIndex> order;
  while (!queue.empty()) {
    order.push_back(queue.front().task);
    queue.pop_front();
  }
  EXPECT_EQ(order, (std::vector<TaskIndex>{0, 1, 2, 3, 5, 6, 7, 8, 9}));
}

}  // namespace
}  // namespace hetsched
