#include "hetsched/sim/event_queue.hpp"

#include <algorithm>
#include <utility>

namespace hetsched {

Event EventQueue::pop() {
  Event out = heap_.front();
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0);
  return out;
}

// A 4-ary heap: half the depth of a binary heap and the four children of a node
// share a cache line or two, which matters once millions of events are pending.
void EventQueue::sift_up(std::size_t i) {
  const Event moving = heap_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / 4;
    if (!before(moving, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = moving;
}

void EventQueue::sift_down(std::size_t i) {
  const Event moving = heap_[i];
  const std::size_t n = heap_.size();
  const Event* const h = heap_.data();
  while (true) {
    const std::size_t first = 4 * i + 1;
    std::size_t child;
    if (first + 3 < n) {
      // All four children: a small tournament (keys are unique, so the winner is
      // the same whichever way the pairs are drawn).
      const std::size_t left = before(h[first + 1], h[first]) ? first + 1 : first;
      const std::size_t right = before(h[first + 3], h[first + 2]) ? first + 3 : first + 2;
      child = before(h[right], h[left]) ? right : left;
    } else {
      if (first >= n) break;
      child = first;
      for (std::size_t c = first + 1; c < n; ++c)
        if (before(h[c], h[child])) child = c;
    }
    if (!before(h[child], moving)) break;
    heap_[i] = h[child];
    i = child;
  }
  heap_[i] = moving;
}

}  // namespace hetsched
