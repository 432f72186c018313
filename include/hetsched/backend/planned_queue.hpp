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
// simulator, the local runtime and the service.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "hetsched/core/reserve_touched.hpp"
#include "hetsched/workload/task_graph.hpp"

namespace hetsched {

// 16 bytes: a million queued tasks are 16 MB.
struct QueuedTask {
  double key = 0;              // planned start, s
  std::uint32_t sequence = 0;  // the queue's own count of pushes: ties in push order
  TaskIndex task = 0;
  bool operator>(const QueuedTask& o) const {
    return key != o.key ? key > o.key : sequence > o.sequence;
  }
};

class PlannedQueue {
 public:
  // `sequence_limit`: when the count of pushes reaches it, the queued tasks are numbered
  // again from 0 in their order (once per four billion pushes by default; tests lower it,
  // below the number of tasks queued, to renumber at every push).
  explicit PlannedQueue(std::uint32_t sequence_limit = UINT32_MAX)
      : sequence_limit_(sequence_limit) {}

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

  // Queues `task` to start at `key`; among tasks with the same key, after those pushed
  // before it. Returns whether it is now the front (a task queued behind others changes
  // nothing the front waits for).
  bool push(double key, TaskIndex task) {
    if (next_sequence_ >= sequence_limit_) renumber();
    const QueuedTask t{key, next_sequence_++, task};
    if (head_ == run_.size() || !(run_.back() > t)) {
      const bool run_was_empty = head_ == run_.size();
      if (run_was_empty && head_ != 0) {
        run_.clear();
        head_ = 0;
      }
      run_.push_back(t);
      return run_was_empty && (heap_.empty() || heap_.front() > t);
    }
    heap_.push_back(t);
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>{});
    return heap_.front().sequence == t.sequence && run_[head_] > t;
  }

  // The next task in planned order; the queue must not be empty.
  const QueuedTask& front() const { return from_heap() ? heap_.front() : run_[head_]; }

  // Asks the processor for where the front is kept (a record of its own, apart from the
  // queue's): a simulator does, an event ahead.
  void prefetch_front() const {
    if (head_ < run_.size()) __builtin_prefetch(run_.data() + head_);
    if (!heap_.empty()) __builtin_prefetch(heap_.data());
  }

  // Asks the processor for where the next in-order push goes.
  void prefetch_back() const { __builtin_prefetch(run_.data() + run_.size()); }

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

  // Every queued task in planned order in the run, numbered 0, 1, …: the same order.
  void renumber() {
    run_.erase(run_.begin(), run_.begin() + std::ptrdiff_t(head_));
    head_ = 0;
    const auto earlier = [](const QueuedTask& a, const QueuedTask& b) { return b > a; };
    std::sort(heap_.begin(), heap_.end(), earlier);
    const auto middle = run_.insert(run_.end(), heap_.begin(), heap_.end());
    heap_.clear();
    std::inplace_merge(run_.begin(), middle, run_.end(), earlier);
    next_sequence_ = 0;
    for (QueuedTask& t : run_) t.sequence = next_sequence_++;
  }

  std::vector<QueuedTask> run_;  // non-decreasing from head_
  std::size_t head_ = 0;
  std::vector<QueuedTask> heap_;  // min-heap of the out-of-order pushes
  std::uint32_t next_sequence_ = 0;
  std::uint32_t sequence_limit_;
};

}  // namespace hetsched
