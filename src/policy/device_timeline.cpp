#include "hetsched/policy/device_timeline.hpp"

#include <algorithm>
#include <cassert>
#include <limits>

namespace hetsched {
namespace {
constexpr std::size_t kBlockCapacity = 16;
// A block splits in two when it reaches this many intervals.
constexpr std::size_t kBlockLimit = 2 * kBlockCapacity + 1;
constexpr double kNever = std::numeric_limits<double>::infinity();
}  // namespace

DeviceTimeline::DeviceTimeline(std::size_t device_count,
                               std::span<const double> device_free_seconds)
    : devices_(device_count),
      last_finish_(device_count, 0.0),
      probe_from_{std::vector<double>(device_count, -kNever),
                  std::vector<double>(device_count, -kNever)},
      probe_fits_at_most_{std::vector<double>(device_count, -1.0),
                          std::vector<double>(device_count, -1.0)} {
  for (std::size_t d = 0; d < device_count && d < device_free_seconds.size(); ++d)
    devices_[d].free_from = last_finish_[d] = device_free_seconds[d];
}

double DeviceTimeline::finish_before(const Lane& lane, std::size_t block) const {
  return block == 0 ? lane.free_from : lane.blocks[block - 1].intervals.back().finish;
}

void DeviceTimeline::refresh_gap(Lane& lane, std::size_t block) {
  if (block >= lane.blocks.size()) return;
  Block& b = lane.blocks[block];
  double previous = finish_before(lane, block);
  double longest = 0;
  for (const Interval& i : b.intervals) {
    longest = std::max(longest, i.start - previous);
    previous = i.finish;
  }
  b.longest_gap = longest;
  if (lane.tree.empty()) return;
  std::size_t node = lane.leaves + block;
  lane.tree[node] = longest;
  for (node /= 2; node >= 1; node /= 2)
    lane.tree[node] = std::max(lane.tree[2 * node], lane.tree[2 * node + 1]);
}

void DeviceTimeline::rebuild_tree(Lane& lane) {
  std::size_t leaves = 1;
  while (leaves < lane.blocks.size()) leaves *= 2;
  lane.leaves = leaves;
  lane.tree.assign(2 * leaves, -1.0);
  for (std::size_t i = 0; i < lane.blocks.size(); ++i)
    lane.tree[leaves + i] = lane.blocks[i].longest_gap;
  for (std::size_t node = leaves - 1; node >= 1; --node)
    lane.tree[node] = std::max(lane.tree[2 * node], lane.tree[2 * node + 1]);
}

std::size_t DeviceTimeline::first_block_with_gap(const Lane& lane, std::size_t from,
                                                 double duration) {
  const std::size_t count = lane.blocks.size();
  if (from >= count) return count;
  // Walk up from the leaf until a right sibling subtree holds a long enough gap,
  // then down to its leftmost such leaf.
  std::size_t node = lane.leaves + from;
  if (lane.tree[node] >= duration) return from;
  while (true) {
    while (node % 2 == 1) {  // a right child: go up until we are a left child
      node /= 2;
      if (node <= 1) return count;
    }
    ++node;  // the right sibling
    if (lane.tree[node] >= duration) break;
  }
  while (node < lane.leaves) node = lane.tree[2 * node] >= duration ? 2 * node : 2 * node + 1;
  return std::min(node - lane.leaves, count);
}

double DeviceTimeline::earliest_start_appending(DeviceId device, double ready_seconds) const {
  return std::max(ready_seconds, last_finish(device));
}

double DeviceTimeline::earliest_start(DeviceId device, double ready_seconds,
                                      double duration) const {
  const Lane& lane = devices_[device];
  const double ready = std::max(ready_seconds, lane.free_from);
  const double last = last_finish(device);
  // Nothing after `ready`, or no idle gap anywhere long enough: it goes at the end.
  if (ready >= last || lane.tree.empty() || lane.tree[1] < duration) return std::max(ready, last);
  // The first block holding an interval that finishes after `ready`.
  auto block_it = std::partition_point(lane.blocks.begin(), lane.blocks.end(), [&](const Block& b) {
    return b.intervals.back().finish <= ready;
  });
  std::size_t block = static_cast<std::size_t>(block_it - lane.blocks.begin());
  const std::vector<Interval>& first = block_it->intervals;
  std::size_t index = static_cast<std::size_t>(
      std::partition_point(first.begin(), first.end(),
                           [&](const Interval& i) { return i.finish <= ready; }) -
      first.begin());
  // The gap that contains or follows `ready`: it may start before ready.
  double previous = index == 0 ? finish_before(lane, block) : first[index - 1].finish;
  const double candidate = std::max(ready, previous);
  if (candidate + duration <= first[index].start) return candidate;
  // Later gaps of this block all begin after `ready` (none is long enough when the
  // block's longest gap is not).
  if (block_it->longest_gap >= duration) {
    previous = first[index].finish;
    for (std::size_t i = index + 1; i < first.size(); ++i) {
      if (previous + duration <= first[i].start) return previous;
      previous = first[i].finish;
    }
  }
  // Whole blocks whose longest gap is too short are skipped.
  block = first_block_with_gap(lane, block + 1, duration);
  if (block < lane.blocks.size()) {
    const Block& b = lane.blocks[block];
    previous = finish_before(lane, block);
    for (const Interval& i : b.intervals) {
      if (previous + duration <= i.start) return previous;
      previous = i.finish;
    }
  }
  return last_finish(device);
}

double DeviceTimeline::longest_gap_after(const Lane& lane, double time) const {
  auto block_it = std::partition_point(lane.blocks.begin(), lane.blocks.end(), [&](const Block& b) {
    return b.intervals.back().finish <= time;
  });
  if (block_it == lane.blocks.end()) return -1;
  const std::size_t block = static_cast<std::size_t>(block_it - lane.blocks.begin());
  const std::vector<Interval>& intervals = block_it->intervals;
  std::size_t index = static_cast<std::size_t>(
      std::partition_point(intervals.begin(), intervals.end(),
                           [&](const Interval& i) { return i.finish <= time; }) -
      intervals.begin());
  double previous = index == 0 ? finish_before(lane, block) : intervals[index - 1].finish;
  double longest = intervals[index].start - std::max(previous, time);
  for (std::size_t i = index + 1; i < intervals.size(); ++i)
    longest = std::max(longest, intervals[i].start - intervals[i - 1].finish);
  // Later blocks: a maximum over the tree's nodes covering [block + 1, leaves).
  for (std::size_t low = lane.leaves + block + 1, high = 2 * lane.leaves; low < high;
       low /= 2, high /= 2) {
    if (low & 1) longest = std::max(longest, lane.tree[low++]);
    if (high & 1) longest = std::max(longest, lane.tree[--high]);
  }
  return longest;
}

double DeviceTimeline::earliest_start_updating_probe(DeviceId device, double ready_seconds,
                                                     double duration) const {
  const double start = earliest_start(device, ready_seconds, duration);
  if (start == last_finish_[device] && ready_seconds < start)
    set_probe(device, ready_seconds,
              with_margin(longest_gap_after(devices_[device], ready_seconds), start,
                          devices_[device].free_from));
  return start;
}

void DeviceTimeline::set_probe(DeviceId device, double from, double fits_at_most) const {
  // A query the late probe could not answer because it came earlier moves the early
  // probe; one that came later, whose duration the late probe's bound did not
  // exclude, moves the late probe up (where the bound is tighter).
  const int which = from < probe_from_[1][device] ? 0 : 1;
  probe_from_[which][device] = from;
  probe_fits_at_most_[which][device] = fits_at_most;
}

void DeviceTimeline::insert(DeviceId device, double start, double finish) {
  Lane& lane = devices_[device];
  double& last = last_finish_[device];
  if (start >= last) {  // appended: the idle time [last, start) becomes a gap
    for (int k = 0; k < 2; ++k) {
      double& fits = probe_fits_at_most_[k][device];
      fits = std::max(
          fits, with_margin(start - std::max(last, probe_from_[k][device]), start, lane.free_from));
    }
    last = finish;
  }
  if (lane.blocks.empty()) {
    lane.blocks.emplace_back();
    lane.blocks.back().intervals.reserve(kBlockLimit);  // one allocation per block
    lane.blocks.back().intervals.push_back(Interval{start, finish});
    rebuild_tree(lane);
    refresh_gap(lane, 0);
    return;
  }
  // The block whose last interval finishes at or after this one's start; else the last.
  auto block_it = std::partition_point(lane.blocks.begin(), lane.blocks.end(), [&](const Block& b) {
    return b.intervals.back().finish <= start;
  });
  if (block_it == lane.blocks.end()) --block_it;
  // Zero-length intervals can share a start with a longer one: order by (start,
  // finish) so that finishes stay sorted too (the searches rely on it).
  std::vector<Interval>& intervals = block_it->intervals;
  auto at =
      std::upper_bound(intervals.begin(), intervals.end(), Interval{start, finish},
                       [](const Interval& a, const Interval& b) {
                         return a.start < b.start || (a.start == b.start && a.finish < b.finish);
                       });
  intervals.insert(at, Interval{start, finish});
  std::size_t block = static_cast<std::size_t>(block_it - lane.blocks.begin());
  if (intervals.size() >= kBlockLimit) {
    Block upper;
    upper.intervals.reserve(kBlockLimit);
    upper.intervals.assign(intervals.begin() + kBlockCapacity, intervals.end());
    intervals.resize(kBlockCapacity);
    lane.blocks.insert(lane.blocks.begin() + static_cast<std::ptrdiff_t>(block) + 1,
                       std::move(upper));
    rebuild_tree(lane);
  }
  refresh_gap(lane, block);
  refresh_gap(lane, block + 1);
  refresh_gap(lane, block + 2);
}

void DeviceTimeline::remove(DeviceId device, double start, double finish) {
  Lane& lane = devices_[device];
  for (std::size_t block = 0; block < lane.blocks.size(); ++block) {
    std::vector<Interval>& intervals = lane.blocks[block].intervals;
    if (intervals.back().finish < finish) continue;
    auto at = std::lower_bound(intervals.begin(), intervals.end(), start,
                               [](const Interval& i, double s) { return i.start < s; });
    while (at != intervals.end() && at->start == start && at->finish != finish) ++at;
    if (at == intervals.end() || at->start != start) continue;
    intervals.erase(at);
    for (int k = 0; k < 2; ++k)  // gaps merged: nothing known
      probe_from_[k][device] = probe_fits_at_most_[k][device] = kNever;
    if (intervals.empty()) {
      lane.blocks.erase(lane.blocks.begin() + static_cast<std::ptrdiff_t>(block));
      rebuild_tree(lane);
      refresh_gap(lane, block);
    } else {
      refresh_gap(lane, block);
      refresh_gap(lane, block + 1);
    }
    last_finish_[device] =
        lane.blocks.empty() ? lane.free_from : lane.blocks.back().intervals.back().finish;
    return;
  }
  assert(false && "DeviceTimeline::remove: no such interval");
}

}  // namespace hetsched
