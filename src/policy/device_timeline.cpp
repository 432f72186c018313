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
    : lane_of_(device_count, kNoLane),
      last_finish_(device_count, 0.0),
      probe_from_{std::vector<double>(device_count, -kNever),
                  std::vector<double>(device_count, -kNever)},
      probe_fits_at_most_{std::vector<double>(device_count, -1.0),
                          std::vector<double>(device_count, -1.0)} {
  for (std::size_t d = 0; d < device_count && d < device_free_seconds.size(); ++d)
    last_finish_[d] = device_free_seconds[d];
}

double DeviceTimeline::finish_before(const Lane& lane, std::size_t block) {
  return block == 0 ? lane.free_from : lane.block_end[block - 1];
}

std::size_t DeviceTimeline::first_block_ending_after(const Lane& lane, double time) {
  return static_cast<std::size_t>(
      std::upper_bound(lane.block_end.begin(), lane.block_end.end(), time) -
      lane.block_end.begin());
}

void DeviceTimeline::set_block_gap(Lane& lane, std::size_t block, double longest) {
  lane.blocks[block].longest_gap = longest;
  if (lane.tree.empty()) return;
  std::size_t node = lane.leaves + block;
  lane.tree[node] = longest;
  for (node /= 2; node >= 1; node /= 2)
    lane.tree[node] = std::max(lane.tree[2 * node], lane.tree[2 * node + 1]);
}

void DeviceTimeline::refresh_gap(Lane& lane, std::size_t block) {
  if (block >= lane.blocks.size()) return;
  const Block& b = lane.blocks[block];
  double previous = finish_before(lane, block);
  double longest = 0;
  for (const Interval& i : b.intervals) {
    longest = std::max(longest, i.start - previous);
    previous = i.finish;
  }
  lane.block_end[block] = previous;
  set_block_gap(lane, block, longest);
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

bool DeviceTimeline::search_last_block(const Lane& lane, double ready, double duration,
                                       LastBlockSearch& result) {
  const std::size_t count = lane.blocks.size();
  if (count == 0 || (count > 1 && ready < lane.block_end[count - 2])) return false;
  const std::vector<Interval>& tail = lane.blocks.back().intervals;
  const Interval* const end = tail.data() + tail.size();
  // The first interval that finishes after `ready` (there is one: ready < last), by
  // a binary search whose steps are conditional moves, not branches.
  const Interval* at = tail.data();
  for (std::size_t n = tail.size(); n > 1;) {
    const std::size_t half = n / 2;
    at = at[half - 1].finish <= ready ? at + half : at;
    n -= half;
  }
  if (at->finish <= ready) ++at;
  double previous = at == tail.data() ? finish_before(lane, count - 1) : at[-1].finish;
  // The gap that contains or follows `ready`, then each later gap of the block.
  const double candidate = std::max(ready, previous);
  result.fits_in_gap = true;
  result.start = candidate;
  if (candidate + duration <= at->start) return true;
  double longest = at->start - candidate;
  previous = at->finish;
  for (const Interval* i = at + 1; i != end; ++i) {
    if (previous + duration <= i->start) {
      result.start = previous;
      return true;
    }
    longest = std::max(longest, i->start - previous);
    previous = i->finish;
  }
  // No later block: longest_gap_after's range over the max-tree's empty leaves (-1)
  // adds nothing else.
  result.fits_in_gap = false;
  result.start = previous;  // the lane's last finish
  result.longest_gap_after_ready = count < lane.leaves ? std::max(longest, -1.0) : longest;
  return true;
}

double DeviceTimeline::earliest_start_appending(DeviceId device, double ready_seconds) const {
  return std::max(ready_seconds, last_finish(device));
}

double DeviceTimeline::earliest_start(DeviceId device, double ready_seconds,
                                      double duration) const {
  const Lane& lane = lane_of(device);
  const double ready = std::max(ready_seconds, free_from(device));
  const double last = last_finish(device);
  // Nothing after `ready`, or no idle gap anywhere long enough: it goes at the end.
  if (ready >= last || lane.tree.empty() || lane.tree[1] < duration) return std::max(ready, last);
  if (LastBlockSearch in_last; search_last_block(lane, ready, duration, in_last))
    return in_last.start;
  // The first block holding an interval that finishes after `ready` (there is one:
  // ready < last).
  std::size_t block = first_block_ending_after(lane, ready);
  const Block& first_block = lane.blocks[block];
  const std::vector<Interval>& first = first_block.intervals;
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
  if (first_block.longest_gap >= duration) {
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
  const std::size_t block = first_block_ending_after(lane, time);
  if (block == lane.blocks.size()) return -1;
  const std::vector<Interval>& intervals = lane.blocks[block].intervals;
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
  // In a list schedule the ready time nearly always falls in the device's last
  // block: then one scan of that block gives both the start and, when the task goes
  // after the last interval, the longest gap after ready_seconds for the probe.
  const Lane& lane = lane_of(device);
  const double lane_free_from = free_from(device);
  if (LastBlockSearch in_last; ready_seconds >= lane_free_from &&
                               ready_seconds < last_finish_[device] &&
                               search_last_block(lane, ready_seconds, duration, in_last)) {
    if (!in_last.fits_in_gap)
      set_probe(device, ready_seconds,
                with_margin(in_last.longest_gap_after_ready, in_last.start, lane_free_from));
    else if (in_last.start == last_finish_[device])  // an empty task at the very end
      set_probe(device, ready_seconds,
                with_margin(longest_gap_after(lane, ready_seconds), in_last.start, lane_free_from));
    return in_last.start;
  }
  const double start = earliest_start(device, ready_seconds, duration);
  if (start == last_finish_[device] && ready_seconds < start)
    set_probe(device, ready_seconds,
              with_margin(longest_gap_after(lane, ready_seconds), start, lane_free_from));
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
  double& last = last_finish_[device];
  if (lane_of_[device] == kNoLane) {  // its first interval: free until its last finish
    lane_of_[device] = static_cast<std::uint32_t>(lanes_.size());
    lanes_.emplace_back().free_from = last;
  }
  Lane& lane = lanes_[lane_of_[device]];
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
    lane.block_end.push_back(finish);
    rebuild_tree(lane);
    refresh_gap(lane, 0);
    return;
  }
  // After the last interval of the lane, with room in the last block: the one new
  // gap [previous end, start) may raise the block's longest gap, nothing else changes.
  const std::size_t last_block = lane.blocks.size() - 1;
  std::vector<Interval>& tail = lane.blocks[last_block].intervals;
  if (start >= lane.block_end[last_block] && tail.size() + 1 < kBlockLimit) {
    const double gap = start - lane.block_end[last_block];
    tail.push_back(Interval{start, finish});
    lane.block_end[last_block] = finish;
    if (gap > lane.blocks[last_block].longest_gap) set_block_gap(lane, last_block, gap);
    return;
  }
  // The block whose last interval finishes after this one's start; else the last.
  const std::size_t block = std::min(first_block_ending_after(lane, start), last_block);
  // Zero-length intervals can share a start with a longer one: order by (start,
  // finish) so that finishes stay sorted too (the searches rely on it).
  std::vector<Interval>& intervals = lane.blocks[block].intervals;
  auto at =
      std::upper_bound(intervals.begin(), intervals.end(), Interval{start, finish},
                       [](const Interval& a, const Interval& b) {
                         return a.start < b.start || (a.start == b.start && a.finish < b.finish);
                       });
  // A new last interval of the block moves the gap before the next block's first one.
  const bool new_block_end = at == intervals.end();
  intervals.insert(at, Interval{start, finish});
  std::size_t next = block + 1;
  if (intervals.size() >= kBlockLimit) {
    Block upper;
    upper.intervals.reserve(kBlockLimit);
    upper.intervals.assign(intervals.begin() + kBlockCapacity, intervals.end());
    intervals.resize(kBlockCapacity);
    lane.blocks.insert(lane.blocks.begin() + static_cast<std::ptrdiff_t>(block) + 1,
                       std::move(upper));
    lane.block_end.insert(lane.block_end.begin() + static_cast<std::ptrdiff_t>(block) + 1, 0.0);
    rebuild_tree(lane);  // refresh_gap below sets both blocks' ends
    refresh_gap(lane, block);
    next = block + 2;
    refresh_gap(lane, block + 1);
  } else {
    refresh_gap(lane, block);
  }
  if (new_block_end) refresh_gap(lane, next);
}

void DeviceTimeline::remove(DeviceId device, double start, double finish) {
  if (lane_of_[device] == kNoLane) {
    assert(false && "DeviceTimeline::remove: no such interval");
    return;
  }
  Lane& lane = lanes_[lane_of_[device]];
  for (std::size_t block = static_cast<std::size_t>(
           std::lower_bound(lane.block_end.begin(), lane.block_end.end(), finish) -
           lane.block_end.begin());
       block < lane.blocks.size(); ++block) {
    std::vector<Interval>& intervals = lane.blocks[block].intervals;
    auto at = std::lower_bound(intervals.begin(), intervals.end(), start,
                               [](const Interval& i, double s) { return i.start < s; });
    while (at != intervals.end() && at->start == start && at->finish != finish) ++at;
    if (at == intervals.end() || at->start != start) continue;
    intervals.erase(at);
    for (int k = 0; k < 2; ++k)  // gaps merged: nothing known
      probe_from_[k][device] = probe_fits_at_most_[k][device] = kNever;
    if (intervals.empty()) {
      lane.blocks.erase(lane.blocks.begin() + static_cast<std::ptrdiff_t>(block));
      lane.block_end.erase(lane.block_end.begin() + static_cast<std::ptrdiff_t>(block));
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
