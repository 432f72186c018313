// The q-quantile of a sample by the nearest-rank rule: the smallest value with at least
// q·n values at or below it (the ceil(q·n)-th smallest, rank clamped to 1..n), so p50 of
// {1, 2, 3, 4} is 2 and p99 of 100 values is the 99th smallest. One rule for every
// report (latency, job completion, wait, prediction error). Selection, not a sort:
// O(n) on average; the values are reordered. An empty sample gives 0.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>

namespace hetsched {

inline double nearest_rank_quantile(std::span<double> values, double q) {
  if (values.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  const std::size_t k = std::clamp<std::size_t>(rank, 1, values.size()) - 1;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

}  // namespace hetsched
