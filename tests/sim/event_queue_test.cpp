// EventQueue, the simulator's agenda: events come out by time, then in the order they
// were scheduled, over times of every sign, -0 and +0 alike, and infinity, and after
// events scheduled before the last one taken out.
#include "hetsched/sim/event_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <set>
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

// The queue and a sorted set fed the same events: every answer of the queue is checked
// against the set's least (time, then scheduling order).
class CheckedAgenda {
 public:
  void schedule(double time, std::uint32_t subject) {
    queue_.schedule(time, 0, subject, 0, subject + 1);
    reference_.emplace(time, order_++, subject);
  }
  bool empty() const { return reference_.empty(); }
  std::size_t size() const { return reference_.size(); }
  std::size_t queue_size() const { return queue_.size(); }
  double least_time() const { return std::get<0>(*reference_.begin()); }
  double now() const { return now_; }  // the time of the last event popped
  // Whether the queue shows the least pending event.
  bool top_is_least() const {
    const Event e = queue_.top();
    return e.subject == std::get<2>(*reference_.begin()) && e.time == least_time();
  }
  // Whether the queue's event after the next is the second least pending (and that
  // there is none when fewer than two are pending), and carries what it was given.
  bool after_top_is_second() const {
    Event e{};
    if (!queue_.after_top(e)) return reference_.size() < 2;
    if (reference_.size() < 2) return false;
    const auto second = std::next(reference_.begin());
    return e.subject == std::get<2>(*second) && e.time == std::get<0>(*second) &&
           e.hint == std::get<2>(*second) + 1;
  }
  // Pops both; whether the queue gave the least pending event.
  bool pop_is_least() {
    const Event e = queue_.pop();
    const bool least = e.subject == std::get<2>(*reference_.begin()) && e.time == least_time();
    reference_.erase(reference_.begin());
    now_ = e.time;
    return least;
  }

 private:
  EventQueue queue_;
  std::set<std::tuple<double, std::uint64_t, std::uint32_t>> reference_;  // time, order, subject
  std::uint64_t order_ = 0;
  double now_ = 0;
};

TEST(EventQueueOrder, MatchesASortOfManyInterleavedSchedulesAndPops) {
  Rng rng(11);
  CheckedAgenda agenda;
  for (std::uint32_t step = 0; step < 20000; ++step) {
    if (agenda.empty() || rng.uniform(0.0, 1.0) < 0.55) {
      // Times from a small grid, so that many events share a time.
      agenda.schedule(agenda.now() + static_cast<double>(static_cast<int>(rng.uniform(0.0, 8.0))),
                      step);
    } else {
      ASSERT_TRUE(agenda.pop_is_least()) << "step " << step;
    }
  }
  EXPECT_EQ(agenda.queue_size(), agenda.size());
}

// A radix heap relies on nothing being scheduled before the event last taken out; one
// that is (rare, but allowed) still comes out first, and the rest in order after it.
TEST(EventQueueOrder, AnEventScheduledBeforeTheLastTakenOutComesNext) {
  Rng rng(5);
  CheckedAgenda agenda;
  for (std::uint32_t step = 0; step < 5000; ++step) {
    const bool earlier = step % 97 == 0 && step > 0;
    agenda.schedule(rng.uniform(0.0, 1000.0) - (earlier ? 2000.0 : 0.0), step);
    if (step % 3 == 0) {
      ASSERT_TRUE(agenda.pop_is_least()) << "step " << step;
    }
  }
  while (!agenda.empty()) {
    ASSERT_TRUE(agenda.top_is_least());
    ASSERT_TRUE(agenda.pop_is_least());
  }
  EXPECT_EQ(agenda.queue_size(), 0u);
}

// A simulator looks two events ahead (to ask for their records), then schedules events
// before them, and pops: after_top() answers the second least pending event every time,
// and top() the least after a pop that followed it.
TEST(EventQueueOrder, AfterTopSeesTheSecondLeastThroughSchedulesAndPops) {
  Rng rng(13);
  CheckedAgenda agenda;
  ASSERT_TRUE(agenda.after_top_is_second());  // none pending
  for (std::uint32_t step = 0; step < 6000; ++step) {
    if (!agenda.empty() && rng.uniform(0.0, 1.0) < 0.5) {
      ASSERT_TRUE(agenda.after_top_is_second()) << "step " << step;
    }
    const double draw = rng.uniform(0.0, 1.0);
    if (!agenda.empty() && draw < 0.25) {
      // Between now and the least pending event: it becomes the next, pushing the
      // second away.
      agenda.schedule(rng.uniform(agenda.now(), agenda.least_time()), step);
    } else if (agenda.empty() || draw < 0.6) {
      agenda.schedule(agenda.now() + rng.uniform(0.0, 100.0), step);
    } else {
      ASSERT_TRUE(agenda.pop_is_least()) << "step " << step;
      if (!agenda.empty()) {
        ASSERT_TRUE(agenda.top_is_least()) << "step " << step;
      }
    }
  }
  while (!agenda.empty()) {
    ASSERT_TRUE(agenda.after_top_is_second());
    ASSERT_TRUE(agenda.pop_is_least());
  }
  ASSERT_TRUE(agenda.after_top_is_second());
}

// A simulator looks at the next event, then schedules events before it (a decision after
// an instant): top() answers the least pending event every time, whichever came later.
TEST(EventQueueOrder, TopSeesEventsScheduledBeforeTheOneItShowed) {
  Rng rng(9);
  CheckedAgenda agenda;
  for (std::uint32_t step = 0; step < 4000; ++step) {
    if (!agenda.empty()) {
      ASSERT_TRUE(agenda.top_is_least()) << "step " << step;
      // Half the time, something between now and the event just shown.
      if (rng.uniform(0.0, 1.0) < 0.5) {
        agenda.schedule(rng.uniform(agenda.now(), agenda.least_time()), step);
        continue;
      }
    }
    if (agenda.empty() || rng.uniform(0.0, 1.0) < 0.5) {
      agenda.schedule(agenda.now() + rng.uniform(0.0, 100.0), step);
    } else {
      ASSERT_TRUE(agenda.pop_is_least()) << "step " << step;
    }
  }
  EXPECT_EQ(agenda.queue_size(), agenda.size());
}

}  // namespace
}  // namespace hetsched
