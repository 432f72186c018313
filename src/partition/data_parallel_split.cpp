#include "hetsched/partition/data_parallel_split.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace hetsched {
namespace {

constexpr double kNoFinish = std::numeric_limits<double>::infinity();

// Equal-finish split over the devices in `subset`; infinity when a part would fall
// below the minimum chunk (or below zero).
double equal_finish_time(const DataParallelSplitRequest& r, const std::vector<std::size_t>& subset,
                         std::vector<double>* items) {
  double inverse_sum = 0, startup_sum = 0;
  for (std::size_t i : subset) {
    inverse_sum += 1 / r.devices[i].seconds_per_item;
    startup_sum += r.devices[i].startup_seconds / r.devices[i].seconds_per_item;
  }
  const double finish = (r.total_items + startup_sum) / inverse_sum;
  for (std::size_t i : subset) {
    const double x = (finish - r.devices[i].startup_seconds) / r.devices[i].seconds_per_item;
    if (x < std::max(r.min_chunk_items, 0.0) || x <= 0) return kNoFinish;
    if (items) (*items)[i] = x;
  }
  return finish;
}

}  // namespace

DataParallelSplit split_data_parallel(const DataParallelSplitRequest& r) {
  DataParallelSplit out;
  const std::size_t n = r.devices.size();
  out.items.assign(n, 0.0);
  out.used.assign(n, false);
  out.finish_seconds.assign(n, 0.0);
  if (n == 0) {
    out.message = "the device set is empty: there is nothing to split the work over";
    return out;
  }
  if (!(r.total_items > 0)) {
    out.message = fmt::format("nothing to split: {} items", r.total_items);
    return out;
  }
  for (const SplitDevice& d : r.devices)
    if (!(d.seconds_per_item > 0) || !std::isfinite(d.seconds_per_item) || d.startup_seconds < 0) {
      out.message = fmt::format("device '{}' has no usable rate ({} s per item, {} s start-up)",
                                d.name, d.seconds_per_item, d.startup_seconds);
      return out;
    }
  if (r.min_chunk_items > r.total_items) {
    out.message = fmt::format("the minimum chunk of {} items exceeds the {} items to split",
                              r.min_chunk_items, r.total_items);
    return out;
  }
  std::vector<std::size_t> best_subset;
  double best = kNoFinish;
  auto consider = [&](const std::vector<std::size_t>& subset) {
    const double t = equal_finish_time(r, subset, nullptr);
    if (t < best) best = t, best_subset = subset;
  };
  if (n <= 16) {
    for (std::uint32_t mask = 1; mask < (1u << n); ++mask) {
      std::vector<std::size_t> subset;
      for (std::size_t i = 0; i < n; ++i)
        if (mask & (1u << i)) subset.push_back(i);
      consider(subset);
    }
  } else {
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return r.devices[a].startup_seconds < r.devices[b].startup_seconds;
    });
    std::vector<std::size_t> prefix;
    for (std::size_t i : order) {
      prefix.push_back(i);
      consider(prefix);
    }
  }
  if (best_subset.empty()) {
    out.message = "no device set can take a part of at least the minimum chunk";
    return out;
  }
  equal_finish_time(r, best_subset, &out.items);
  for (std::size_t i : best_subset) out.used[i] = true;
  if (r.integral_items) {
    double assigned = 0;
    for (std::size_t i : best_subset) assigned += out.items[i] = std::floor(out.items[i]);
    for (double left = std::round(r.total_items - assigned); left > 0; --left) {
      std::size_t pick = best_subset.front();
      double pick_finish = kNoFinish;
      for (std::size_t i : best_subset) {
        const double f =
            r.devices[i].startup_seconds + (out.items[i] + 1) * r.devices[i].seconds_per_item;
        if (f < pick_finish) pick_finish = f, pick = i;
      }
      out.items[pick] += 1;
    }
  }
  out.makespan_seconds = 0;
  for (std::size_t i : best_subset) {
    out.finish_seconds[i] =
        r.devices[i].startup_seconds + out.items[i] * r.devices[i].seconds_per_item;
    out.makespan_seconds = std::max(out.makespan_seconds, out.finish_seconds[i]);
  }
  double share = r.total_items / static_cast<double>(n);
  if (r.integral_items) share = std::ceil(share);
  for (const SplitDevice& d : r.devices)
    out.equal_split_makespan_seconds =
        std::max(out.equal_split_makespan_seconds, d.startup_seconds + share * d.seconds_per_item);
  out.feasible = true;
  return out;
}

}  // namespace hetsched
