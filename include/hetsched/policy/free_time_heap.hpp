// FreeTimeHeap: a binary min-heap of (predicted free time, index) entries, ties to the
// lower index, whose entries can be read at any position and given a new key in place
// (the entry moves up or down to where it belongs). An entry is found by its index: in a
// positions array the owner gives (indexed by the entries' indexes, shared by heaps whose
// indexes do not overlap), written as entries move, or, for a small heap kept without one,
// by a scan.
#pragma once

#include <cstdint>
#include <vector>

namespace hetsched {

struct FreeTimeEntry {
  double available;
  std::uint32_t index;
};

inline bool earlier(const FreeTimeEntry& a, const FreeTimeEntry& b) {
  return a.available < b.available || (a.available == b.available && a.index < b.index);
}

class FreeTimeHeap {
 public:
  FreeTimeHeap() = default;  // positions not kept
  // `positions` (indexed by entry index, long enough for every index pushed) must
  // outlive the heap.
  explicit FreeTimeHeap(std::vector<std::uint32_t>* positions) : positions_(positions) {}

  bool empty() const { return entries_.empty(); }
  std::uint32_t size() const { return static_cast<std::uint32_t>(entries_.size()); }
  const FreeTimeEntry& top() const { return entries_.front(); }
  const FreeTimeEntry& at(std::uint32_t position) const { return entries_[position]; }
  void clear() { entries_.clear(); }
  // Where the entry of `index` is; it must be in the heap.
  std::uint32_t position_of(std::uint32_t index) const {
    if (positions_ != nullptr) return (*positions_)[index];
    std::uint32_t position = 0;
    while (entries_[position].index != index) ++position;
    return position;
  }

  void push(FreeTimeEntry entry) {
    entries_.push_back(entry);
    sift_up(size() - 1, entry);
  }
  // The top once its key is current: keys are never above the current values (they are
  // raised lazily), so an out-of-date top is given its current value, `current(index)`, and
  // moved down until the top is current. The heap must not be empty.
  template <class Current>
  const FreeTimeEntry& current_top(Current&& current) {
    while (true) {
      const double now_key = current(entries_.front().index);
      if (now_key == entries_.front().available) return entries_.front();
      update(0, now_key);
    }
  }
  // Brings the key of the entry of `index` down to `available` if it is above (a value
  // that went down: the key must not stay above it).
  void lower(std::uint32_t index, double available) {
    const std::uint32_t position = position_of(index);
    if (available < entries_[position].available) update(position, available);
  }
  // Gives the entry at `position` a new key and moves it to its place.
  void update(std::uint32_t position, double available) {
    FreeTimeEntry entry = entries_[position];
    const bool up = available < entry.available;
    entry.available = available;
    if (up)
      sift_up(position, entry);
    else
      sift_down(position, entry);
  }

 private:
  void place(std::uint32_t position, const FreeTimeEntry& entry) {
    entries_[position] = entry;
    if (positions_ != nullptr) (*positions_)[entry.index] = position;
  }
  void sift_up(std::uint32_t position, const FreeTimeEntry& entry) {
    while (position > 0) {
      const std::uint32_t parent = (position - 1) / 2;
      if (!earlier(entry, entries_[parent])) break;
      place(position, entries_[parent]);
      position = parent;
    }
    place(position, entry);
  }
  void sift_down(std::uint32_t position, const FreeTimeEntry& entry) {
    const std::uint32_t n = size();
    while (true) {
      std::uint32_t child = 2 * position + 1;
      if (child >= n) break;
      if (child + 1 < n && earlier(entries_[child + 1], entries_[child])) ++child;
      if (!earlier(entries_[child], entry)) break;
      place(position, entries_[child]);
      position = child;
    }
    place(position, entry);
  }

  std::vector<FreeTimeEntry> entries_;
  std::vector<std::uint32_t>* positions_ = nullptr;
};

}  // namespace hetsched
