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
// block splits or empties, which happens once per block size insertions. The
// blocks' end times sit in one contiguous array per device, so the binary search
// for a time's block reads that array, not each block's intervals; an interval
// appended after the device's last one costs O(1) (plus the tree path when it opens
// the block's longest gap), and an insertion rescans only its own block, and the
// next one only when the block's last finish moved. A list scheduler's ready times
// nearly always fall in a device's last block; such a search reads that block alone.
//
// List schedulers ask every device for its earliest start, and on a crowded
// schedule most of those searches only prove that no gap after the ready time is
// long enough, so the task would go after the device's last task. A per-device
// probe answers that in O(1) without touching the blocks: a time T and a bound H
// on the length of every gap that ends after T (only its part after T counts).
// A query with ready >= T and a duration longer than H cannot fit in any gap, so
// its start is the device's last finish. Inserting a task only splits gaps, and
// appending one after the last task adds one gap that raises H, so the bound stays
// valid in O(1) per insertion; a search that ends after the last task re-centres
// the probe at its ready time with the exact longest gap there (O(log n + block
// size), the cost the search already had). Removing a task voids the probe until
// the next such search. Each device has two probes, an early and a late one, as
// ready times go back and forth (set_probe says which one moves).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
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
  // The earliest start when it is known without a gap search — the device is idle
  // from ready_seconds on, or the probe shows that no gap after ready_seconds can
  // hold `duration` — else false. Equal to earliest_start whenever it returns true.
  bool known_start(DeviceId device, double ready_seconds, double duration, double& start) const {
    const double last = last_finish_[device];
    if (ready_seconds >= last) {
      start = ready_seconds;
      return true;
    }
    if ((ready_seconds >= probe_from_[0][device] && duration > probe_fits_at_most_[0][device]) ||
        (ready_seconds >= probe_from_[1][device] && duration > probe_fits_at_most_[1][device])) {
      start = last;
      return true;
    }
    return false;
  }
  // For every device d, a lower bound on the finish of an interval of durations[d]
  // that may start at ready[d]: exact where known_start knows the start, else
  // ready[d] + durations[d]. One pass over contiguous arrays with quiet comparisons,
  // which the compiler turns into vector code without branches.
  void finish_bounds(std::span<const double> ready, std::span<const double> durations,
                     std::span<double> bounds) const {
    const double* last = last_finish_.data();
    const double* from_early = probe_from_[0].data();
    const double* fits_early = probe_fits_at_most_[0].data();
    const double* from_late = probe_from_[1].data();
    const double* fits_late = probe_fits_at_most_[1].data();
    const double* r = ready.data();
    const double* w = durations.data();
    double* bound = bounds.data();
    const std::size_t count = bounds.size();
    for (std::size_t d = 0; d < count; ++d) {
      const double ready_at = r[d], run = w[d], lane_last = last[d];  // all loaded: no branch
      const bool fits_in_no_gap =
          (std::isgreaterequal(ready_at, from_early[d]) & std::isgreater(run, fits_early[d])) |
          (std::isgreaterequal(ready_at, from_late[d]) & std::isgreater(run, fits_late[d]));
      bound[d] = std::max(ready_at, fits_in_no_gap ? lane_last : ready_at) + run;
    }
  }
  // earliest_start, and when the task would go after the device's last interval,
  // re-centres the device's probe at ready_seconds (see known_start).
  double earliest_start_updating_probe(DeviceId device, double ready_seconds,
                                       double duration) const;
  // Finish of the device's last interval (or its free time when it has none).
  double last_finish(DeviceId device) const { return last_finish_[device]; }
  std::size_t device_count() const { return lane_of_.size(); }

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
    // block_end[i] = blocks[i].intervals.back().finish, contiguous, so that the
    // binary searches over blocks read one small array instead of following each
    // block's pointer to its intervals.
    std::vector<double> block_end;
    // Max-tree over blocks[i].longest_gap: leaves at [leaves + i], root at 1.
    std::size_t leaves = 0;
    std::vector<double> tree;
  };

  // The probe of each device (see the top of this file): a time T and a length
  // that no gap ending after T exceeds after T, plus a margin (1e-12 of the times
  // involved) so that rounding in the search's `gap start + duration <= gap end`
  // never disagrees with the bound — borderline cases go to the search.
  // `gap` plus the margin for a gap that ends at `gap_end`:
  static double with_margin(double gap, double gap_end, double free_from) {
    return gap + 1e-12 * (std::abs(gap) + std::abs(gap_end) + std::abs(free_from));
  }

  // Re-centres the early probe at `from` when it is before the late one's time,
  // else the late one.
  void set_probe(DeviceId device, double from, double fits_at_most) const;
  static double finish_before(const Lane& lane, std::size_t block);
  // earliest_start for a `ready` from the start of the lane's last block up to its
  // last finish (exclusive), from that block alone; false, touching nothing, for an
  // earlier ready.
  struct LastBlockSearch {
    double start = 0;
    bool fits_in_gap = false;
    // When no gap fits: the longest gap after `ready`, as longest_gap_after.
    double longest_gap_after_ready = 0;
  };
  static bool search_last_block(const Lane& lane, double ready, double duration,
                                LastBlockSearch& result);
  // The first block with an interval that finishes after `time` (blocks.size() if none).
  static std::size_t first_block_ending_after(const Lane& lane, double time);
  // Sets a block's longest gap and the max-tree above it.
  static void set_block_gap(Lane& lane, std::size_t block, double longest);
  // Length of the longest gap after `time` (the part of it after `time`; -1 when none).
  double longest_gap_after(const Lane& lane, double time) const;
  void refresh_gap(Lane& lane, std::size_t block);
  static void rebuild_tree(Lane& lane);
  // First block index >= from whose longest gap is >= duration (blocks.size() if none).
  static std::size_t first_block_with_gap(const Lane& lane, std::size_t from, double duration);

  // A device's lane exists from its first interval on (a plan for a few tasks on a
  // large cluster touches few devices); until then its free time is its last finish.
  static constexpr std::uint32_t kNoLane = ~std::uint32_t{0};
  const Lane& lane_of(DeviceId device) const {
    static const Lane kEmpty;
    const std::uint32_t lane = lane_of_[device];
    return lane == kNoLane ? kEmpty : lanes_[lane];
  }
  double free_from(DeviceId device) const {
    const std::uint32_t lane = lane_of_[device];
    return lane == kNoLane ? last_finish_[device] : lanes_[lane].free_from;
  }
  std::vector<std::uint32_t> lane_of_;  // per device: index into lanes_, or kNoLane
  std::vector<Lane> lanes_;
  std::vector<double> last_finish_;  // per device, contiguous for the O(1) checks
  // Two probes per device, an early and a late one (queries come in with ready
  // times that go back and forth), contiguous per device for the branch-free
  // checks; a cache of facts about gaps.
  mutable std::array<std::vector<double>, 2> probe_from_, probe_fits_at_most_;
};

}  // namespace hetsched
