// DeviceQueue: the tasks placed on one simulated device, in the order it runs
// them — by planned start, then by order of placement. Online policies place
// tasks in non-decreasing order, which a plain FIFO serves in O(1); a planner's
// out-of-order placements go to a heap. The top is the earlier of the two heads.
#pragma once

#include <cstdint>
#include <memory_resource>
#include <queue>
#include <vector>

#include "hetsched/workload/task_graph.hpp"

namespace hetsched {

class DeviceQueue {
 public:
  // `memory`: where the entries live (the simulator gives every device's queue one
  // arena, so a million placements do not fault in pages vector by vector).
  explicit DeviceQueue(std::pmr::memory_resource* memory = std::pmr::get_default_resource())
      : fifo_(memory), heap_(std::greater<>{}, std::pmr::vector<Entry>(memory)) {}

  void push(double key, std::uint64_t sequence, TaskIndex task) {
    const Entry entry{key, sequence, task};
    if (fifo_head_ == fifo_.size() || !(entry < fifo_.back())) {
      if (fifo_head_ == fifo_.size()) fifo_.clear(), fifo_head_ = 0;
      fifo_.push_back(entry);
    } else {
      heap_.push(entry);
    }
  }
  bool empty() const { return fifo_head_ == fifo_.size() && heap_.empty(); }
  TaskIndex top() const { return from_fifo() ? fifo_[fifo_head_].task : heap_.top().task; }
  void pop() {
    if (from_fifo())
      ++fifo_head_;
    else
      heap_.pop();
  }

 private:
  struct Entry {
    double key;
    std::uint64_t sequence;
    TaskIndex task;
    bool operator<(const Entry& o) const {
      return key != o.key ? key < o.key : sequence < o.sequence;
    }
    bool operator>(const Entry& o) const { return o < *this; }
  };
  bool from_fifo() const {
    if (fifo_head_ == fifo_.size()) return false;
    return heap_.empty() || fifo_[fifo_head_] < heap_.top();
  }

  std::pmr::vector<Entry> fifo_;  // non-decreasing from fifo_head_
  std::size_t fifo_head_ = 0;
  std::priority_queue<Entry, std::pmr::vector<Entry>, std::greater<>> heap_;
};

}  // namespace hetsched
