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

// The probes (known_start, finish_bounds, earliest_start_updating_probe) against
// the same brute force: whatever they claim to know must be the exact start, and
// the bound never above the true finish — with insertions into gaps, appends that
// open new gaps, and removals that merge gaps, and ready times going back and forth.
TEST(DeviceTimeline, ProbesNeverDisagreeWithTheGapSearch) {
  Rng rng(23);
  const double free_from[] = {2.0, 0.0, 50.0};
  DeviceTimeline timeline(3, free_from);
  std::vector<std::vector<std::pair<double, double>>> busy(3);
  int known = 0;
  for (int step = 0; step < 3000; ++step) {
    std::vector<double> ready(3), duration(3), bound(3);
    for (std::size_t d = 0; d < 3; ++d) {
      const double last = busy[d].empty() ? free_from[d] : busy[d].back().second;
      ready[d] = rng.uniform() < 0.5 ? rng.uniform(0, last + 5) : last - rng.uniform(0, 30);
      duration[d] = rng.uniform() < 0.05 ? 0.0 : rng.uniform(0, 6);
    }
    timeline.finish_bounds(ready, duration, bound);
    for (DeviceId d = 0; d < 3; ++d) {
      const double expected = brute_force_start(busy[d], free_from[d], ready[d], duration[d]);
      ASSERT_LE(bound[d], expected + duration[d]) << step;
      double start = -1;
      if (timeline.known_start(d, ready[d], duration[d], start)) {
        ++known;
        ASSERT_EQ(start, expected) << step;
        ASSERT_EQ(bound[d], expected + duration[d]) << step;
      }
      ASSERT_EQ(timeline.earliest_start_updating_probe(d, ready[d], duration[d]), expected) << step;
    }
    const DeviceId d = static_cast<DeviceId>(rng.below(3));
    auto& lane = busy[d];
    if (rng.uniform() < 0.1 && !lane.empty()) {
      const std::size_t i = rng.below(lane.size());
      timeline.remove(d, lane[i].first, lane[i].second);
      lane.erase(lane.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      const double start = brute_force_start(lane, free_from[d], ready[d], duration[d]);
      timeline.insert(d, start, start + duration[d]);
      lane.insert(std::upper_bound(lane.begin(), lane.end(), std::make_pair(start, 1e300)),
                  {start, start + duration[d]});
    }
  }
  EXPECT_GT(known, 3000);  // the probes do answer most queries
}

}  // namespace
}  // namespace hetsched
