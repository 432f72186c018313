#include "interval_lanes.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <utility>

namespace hetsched {

std::vector<std::uint32_t> interval_lanes(std::span<const std::uint32_t> group,
                                          std::span<const double> start,
                                          std::span<const double> finish, std::size_t groups,
                                          std::uint32_t max_lanes) {
  std::vector<std::size_t> order(group.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return start[a] < start[b]; });
  using Busy = std::pair<double, std::uint32_t>;  // (finish, lane), earliest finish on top
  struct GroupLanes {
    std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> free;
    std::uint32_t count = 0;
  };
  std::vector<GroupLanes> lanes_of(groups);
  std::vector<std::uint32_t> lanes(group.size(), 0);
  for (std::size_t i : order) {
    GroupLanes& g = lanes_of[group[i]];
    while (!g.busy.empty() && g.busy.top().first <= start[i]) {
      g.free.push(g.busy.top().second);
      g.busy.pop();
    }
    std::uint32_t lane = g.count;
    if (g.free.empty() && g.count >= std::max<std::uint32_t>(max_lanes, 1)) {
      lane = g.busy.top().second;  // all taken: share the lane that frees first
      g.busy.pop();
    } else if (g.free.empty()) {
      ++g.count;
    } else {
      lane = g.free.top();
      g.free.pop();
    }
    g.busy.emplace(finish[i], lane);
    lanes[i] = lane;
  }
  return lanes;
}

}  // namespace hetsched
