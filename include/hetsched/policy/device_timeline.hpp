// DeviceTimeline: the busy intervals of every device of a static plan, and the
// insertion rule of HEFT (Topcuoglu, Hariri, Wu 2002): a task may start in the
// first idle gap of a device that begins no earlier than its data-ready time and
// is long enough to hold it, else after the device's last task.
//
// Each device keeps its intervals in order, in blocks of a few dozen. Every block
// remembers the longest idle gap inside it (counting the gap before its first
// interval), so a search skips whole blocks whose gaps are too short: finding the
// earliest start costs O(log n + block size + n / block size) instead of a walk
// over every gap, and inserting or removing an interval costs O(block size).
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
  };

  double finish_before(const Lane& lane, std::size_t block) const;
  void refresh_gap(Lane& lane, std::size_t block);

  std::vector<Lane> devices_;
};

}  // namespace hetsched
