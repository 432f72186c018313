// Interval partitioning: intervals that belong to groups (transfers into one node, say) laid
// out on the fewest lanes per group in which no two overlap. In order of start (ties by
// index), each interval takes its group's lowest lane free at its start; a lane is free once
// its last interval finished. Timelines draw each lane as one row. With at most `max_lanes`
// lanes per group, an interval that finds them all busy shares the one that frees first (the
// rows then show overlaps instead of growing without bound).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace hetsched {

// The lane of each interval i (group[i] < groups, start[i] <= finish[i]).
std::vector<std::uint32_t> interval_lanes(std::span<const std::uint32_t> group,
                                          std::span<const double> start,
                                          std::span<const double> finish, std::size_t groups,
                                          std::uint32_t max_lanes = UINT32_MAX);

}  // namespace hetsched
