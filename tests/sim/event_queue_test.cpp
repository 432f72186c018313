// EventQueue, the simulator's agenda: events come out by time, then in the order they
// were scheduled, over times of every sign, -0 and +0 alike, and infinity, and after
// events scheduled before the last one taken out.
#include "hetsched/sim/event_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include "hetsched/core/rng.hpp"

namespace hetsched {
namespace {

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

// A radix heap relies on nothing being scheduled before the event last taken out; one
// that is (rare, but allowed) still comes out first, and the rest in order after it.
TEST(EventQueueOrder, AnEventScheduledBeforeTheLastTakenOutComesNext) {
  Rng rng(5);
  EventQueue queue;
  std::vector<std::tuple<double, std::uint64_t, std::uint32_t>> pending;  // time, order, subject
  std::uint64_t order = 0;
  for (std::uint32_t step = 0; step < 5000; ++step) {
    const bool earlier = step % 97 == 0 && step > 0;
    const double time = rng.uniform(0.0, 1000.0) - (earlier ? 2000.0 : 0.0);
    queue.schedule(time, 0, step);
    pending.emplace_back(time, order++, step);
    if (step % 3 == 0) {
      const auto first = std::min_element(pending.begin(), pending.end());
      const Event e = queue.pop();
      ASSERT_EQ(e.subject, std::get<2>(*first)) << "step " << step;
      pending.erase(first);
    }
  }
  std::sort(pending.begin(), pending.end());
  for (const auto& [time, order_scheduled, subject] : pending) {
    ASSERT_EQ(queue.top().subject, subject);
    EXPECT_EQ(queue.pop().time, time);
  }
  EXPECT_TRUE(queue.empty());
}

// A simulator looks at the next event, then schedules events before it (a decision after
// an instant): top() answers the least pending event every time, whichever came later.
TEST(EventQueueOrder, TopSeesEventsScheduledBeforeTheOneItShowed) {
  Rng rng(9);
  EventQueue queue;
  std::vector<std::tuple<double, std::uint64_t, std::uint32_t>> pending;  // time, order, subject
  std::uint64_t order = 0;
  double now = 0;
  for (std::uint32_t step = 0; step < 4000; ++step) {
    if (!pending.empty()) {
      const auto first = std::min_element(pending.begin(), pending.end());
      ASSERT_EQ(queue.top().subject, std::get<2>(*first)) << "step " << step;
      // Half the time, something between now and the event just shown.
      if (rng.uniform(0.0, 1.0) < 0.5) {
        const double time = rng.uniform(now, std::get<0>(*first));
        queue.schedule(time, 0, step);
        pending.emplace_back(time, order++, step);
        continue;
      }
    }
    if (pending.empty() || rng.uniform(0.0, 1.0) < 0.5) {
      const double time = now + rng.uniform(0.0, 100.0);
      queue.schedule(time, 0, step);
      pending.emplace_back(time, order++, step);
    } else {
      const auto first = std::min_element(pending.begin(), pending.end());
      const Event e = queue.pop();
      ASSERT_EQ(e.subject, std::get<2>(*first)) << "step " << step;
      now = e.time;
      pending.erase(first);
    }
  }
  EXPECT_EQ(queue.size(), pending.size());
}

}  // namespace
}  // namespace hetsched
