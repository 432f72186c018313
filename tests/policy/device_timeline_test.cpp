// DeviceTimeline against a plain sorted list of intervals: the earliest start of
// a random interval (first idle gap at or after the ready time that fits it) must
// agree after every one of many random insertions and removals — enough to split
// blocks and to make the search skip whole blocks.
#include "hetsched/policy/device_timeline.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "hetsched/core/rng.hpp"

namespace hetsched {
namespace {

double brute_force_start(const std::vector<std::pair<double, double>>& busy, double free_from,
                         double ready, double duration) {
  double candidate = std::max(ready, free_from);
  for (const auto& [start, finish] : busy) {  // sorted by start
    if (candidate + duration <= start) return candidate;
    candidate = std::max(candidate, finish);
  }
  return candidate;
}

TEST(DeviceTimeline, MatchesABruteForceGapSearch) {
  Rng rng(11);
  const double free_from[] = {3.0, 0.0};
  DeviceTimeline timeline(2, free_from);
  std::vector<std::pair<double, double>> busy;  // device 0
  for (int step = 0; step < 1500; ++step) {
    const double ready = rng.uniform(0, 2000), duration = rng.uniform(0, 8);
    const double expected = brute_force_start(busy, 3.0, ready, duration);
    ASSERT_EQ(timeline.earliest_start(0, ready, duration), expected) << step;
    if (rng.uniform() < 0.15 && !busy.empty()) {
      const std::size_t i = rng.below(busy.size());
      timeline.remove(0, busy[i].first, busy[i].second);
      busy.erase(busy.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      timeline.insert(0, expected, expected + duration);
      busy.insert(std::upper_bound(busy.begin(), busy.end(), std::make_pair(expected, 1e300)),
                  {expected, expected + duration});
    }
    ASSERT_EQ(timeline.last_finish(0), busy.empty() ? 3.0 : busy.back().second);
  }
  EXPECT_EQ(timeline.earliest_start(1, 5.0, 1.0), 5.0);  // the other device stays empty
  EXPECT_EQ(timeline.earliest_start_appending(0, 0.0), busy.back().second);
}

}  // namespace
}  // namespace hetsched
