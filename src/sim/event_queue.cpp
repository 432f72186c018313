#include "hetsched/sim/event_queue.hpp"

#include <algorithm>
#include <utility>

namespace hetsched {

Event EventQueue::pop() {
  const Event out = event_of(heap_.front());
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0);
  return out;
}

// A 4-ary heap: half the depth of a binary heap and the four children of a node
// share a cache line or two, which matters once millions of events are pending.
void EventQueue::sift_up(std::size_t i) {
  const Entry moving = heap_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / 4;
    if (!before(moving, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = moving;
}

void EventQueue::sift_down(std::size_t i) {
  const Entry moving = heap_[i];
  const unsigned __int128 moving_key = key(moving);
  const std::size_t n = heap_.size();
  Entry* const h = heap_.data();
  while (true) {
    const std::size_t first = 4 * i + 1;
    std::size_t child;
    unsigned __int128 child_key;
    if (first + 3 < n) {
      // All four children: a small tournament (keys are unique, so the winner is
      // the same whichever way the pairs are drawn), written as selects.
      const unsigned __int128 k0 = key(h[first]), k1 = key(h[first + 1]), k2 = key(h[first + 2]),
                              k3 = key(h[first + 3]);
      const bool right_of_first = k1 < k0, right_of_second = k3 < k2;
      const std::size_t left = first + right_of_first, right = first + 2 + right_of_second;
      const unsigned __int128 left_key = right_of_first ? k1 : k0;
      const unsigned __int128 right_key = right_of_second ? k3 : k2;
      const bool right_wins = right_key < left_key;
      child = right_wins ? right : left;
      child_key = right_wins ? right_key : left_key;
    } else {
      if (first >= n) break;
      child = first;
      child_key = key(h[first]);
      for (std::size_t c = first + 1; c < n; ++c) {
        const unsigned __int128 k = key(h[c]);
        if (k < child_key) child = c, child_key = k;
      }
    }
    if (!(child_key < moving_key)) break;
    h[i] = h[child];
    i = child;
  }
  h[i] = moving;
}

}  // namespace hetsched
