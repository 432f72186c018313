// DeviceTimeline: the busy intervals of every device of a static plan, and the
// insertion rule of HEFT (Topcuoglu, Hariri, Wu 2002): a task may start in the
// first idle gap of a device that begins no earlier than its data-ready time and
// is long enough to hold it, else after the device's last task.
//
// Each device keeps its intervals in order, in blocks of 16 to 32. Every block
// remembers the longest idle gap inside it (counting the gap before its first
// interval), and a max-tree over the blocks finds the first later block with a
// gap long enough: finding the earliest start costs O(log n + block size) instead
// of a walk over every gap; inserting or removing an interval costs
// O(block size + log n), plus a rebuild of the tree (O(n / block size)) when a
// block splits or empties, which happens once per block size insertions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hetsched/cluster/cluster.hpp"

namespace hetsched {

class DeviceTimeline {
 public:
  // `device_free_seconds`: per device, the earliest time it may start planned work
  // (empty: every device is free from 0).
  DeviceTimeline(std::size_t device_count, std::span<const double> device_free_seconds = {});

  // Earliest start >= ready_seconds of an interval of `duration` on the device.
  double earliest_start(DeviceId device, double ready_seconds, double duration) const;
  // Earliest start >= ready_seconds after everything on the device (no insertion).
  double earliest_start_appending(DeviceId device, double ready_seconds) const;
  // Marks [start, finish) busy; it must not overlap an interval already there.
  void insert(DeviceId device, double start, double finish);
  // Removes the interval that starts at `start` and ends at `finish` (as inserted).
  void remove(DeviceId device, double start, double finish);
  // Finish of the device's last interval (or its free time when it has none).
  double last_finish(DeviceId device) const;
  std::size_t device_count() const { return devices_.size(); }

 private:
  struct Interval {
    double start, finish;
  };
  struct Block {
    std::vector<Interval> intervals;
    double longest_gap = 0;  // including the gap before intervals.front()
  };
  struct Lane {
    double free_from = 0;
    std::vector<Block> blocks;
    // Max-tree over blocks[i].longest_gap: leaves at [leaves + i], root at 1.
    std::size_t leaves = 0;
    std::vector<double> tree;
  };

  double finish_before(const Lane& lane, std::size_t block) const;
  void refresh_gap(Lane& lane, std::size_t block);
  static void rebuild_tree(Lane& lane);
  // First block index >= from whose longest gap is >= duration (blocks.size() if none).
  static std::size_t first_block_with_gap(const Lane& lane, std::size_t from, double duration);

  std::vector<Lane> devices_;
};

}  // namespace hetsched
