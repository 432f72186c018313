// PlannedQueue: one device's tasks placed by the policy and not yet handed to its
// worker, in planned order (smallest planned start first, ties in placement order).
//
// Online policies append (their planned start is "now", which never decreases) and
// static planners mostly place in start order too, so nearly every push lands at
// the back. Those go to a FIFO run (a vector with a moving head: O(1) push and pop,
// no allocation once grown); only out-of-order pushes go to a binary min-heap. The
// front is the smaller of the two fronts, so the order is exactly that of one heap,
// at a fraction of the cost per task (a heap of 100,000 tasks pays ~17 levels of
// sifting per pop). The latest-planned tasks (candidates for stealing) are the back
// of the run and the heap's leaves. Every body keeps its devices' queues in it: the
// simulator (its entries in one arena for all devices), the local runtime and the
// service.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory_resource>
#include <vector>

#include "hetsched/core/reserve_touched.hpp"
#include "hetsched/workload/task_graph.hpp"

namespace hetsched {

struct QueuedTask {
  double key = 0;  // planned start, s
  std::uint64_t sequence = 0;
  TaskIndex task = 0;
  bool operator>(const QueuedTask& o) const {
    return key != o.key ? key > o.key : sequence > o.sequence;
  }
};

class PlannedQueue {
 public:
  // `memory`: where the entries live (the simulator gives every device's queue one
  // arena, so a million placements do not fault in pages vector by vector).
  explicit PlannedQueue(std::pmr::memory_resource* memory = std::pmr::get_default_resource())
      : run_(memory), heap_(memory) {}

  bool empty() const { return head_ == run_.size() && heap_.empty(); }

  // Room for `count` in-order tasks, written now (see core/reserve_touched.hpp); a
  // queue that holds tasks is left as it is.
  void reserve_touched(std::size_t count) {
    if (!empty()) return;
    run_.clear();
    head_ = 0;
    hetsched::reserve_touched(run_, count);
  }
  std::size_t size() const { return run_.size() - head_ + heap_.size(); }

  void push(const QueuedTask& t) {
    if (head_ == run_.size() || !(run_.back() > t)) {
      if (head_ == run_.size() && head_ != 0) {
        run_.clear();
        head_ = 0;
      }
      run_.push_back(t);
    } else {
      heap_.push_back(t);
      std::push_heap(heap_.begin(), heap_.end(), std::greater<>{});
    }
  }

  // The next task in planned order; the queue must not be empty.
  const QueuedTask& front() const { return from_heap() ? heap_.front() : run_[head_]; }

  void pop_front() {
    if (from_heap()) {
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>{});
      heap_.pop_back();
      return;
    }
    if (++head_ == run_.size()) {
      run_.clear();
      head_ = 0;
    }
  }

  // Visits up to `limit` of the latest-planned tasks, latest first, until `visit`
  // returns true.
  template <class Visit>
  void visit_latest(std::size_t limit, Visit&& visit) const {
    std::size_t seen = 0;
    for (std::size_t i = run_.size(); i-- > head_ && seen < limit; ++seen)
      if (visit(run_[i])) return;
    for (std::size_t i = heap_.size(); i-- > 0 && seen < limit; ++seen)
      if (visit(heap_[i])) return;
  }

  // Visits every task, in no particular order, until `visit` returns true.
  template <class Visit>
  void visit_all(Visit&& visit) const {
    for (std::size_t i = head_; i < run_.size(); ++i)
      if (visit(run_[i])) return;
    for (const QueuedTask& t : heap_)
      if (visit(t)) return;
  }

  // Removes the task (rare: a steal or a relaxed order); false when absent.
  bool erase(TaskIndex task) {
    const auto in_run = std::find_if(run_.begin() + std::ptrdiff_t(head_), run_.end(),
                                     [&](const QueuedTask& t) { return t.task == task; });
    if (in_run != run_.end()) {
      run_.erase(in_run);
      return true;
    }
    const auto in_heap = std::find_if(heap_.begin(), heap_.end(),
                                      [&](const QueuedTask& t) { return t.task == task; });
    if (in_heap == heap_.end()) return false;
    heap_.erase(in_heap);
    std::make_heap(heap_.begin(), heap_.end(), std::greater<>{});
    return true;
  }

 private:
  bool from_heap() const {
    if (heap_.empty()) return false;
    return head_ == run_.size() || run_[head_] > heap_.front();
  }

  std::pmr::vector<QueuedTask> run_;  // non-decreasing from head_
  std::size_t head_ = 0;
  std::pmr::vector<QueuedTask> heap_;  // min-heap of the out-of-order pushes
};

}  // namespace hetsched
