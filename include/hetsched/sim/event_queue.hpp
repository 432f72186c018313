// EventQueue: the discrete-event engine's agenda. Events are ordered by time, then
// by the order they were scheduled (a sequence number), so equal-time events run
// in a fixed order and every run with the same inputs is identical.
#pragma once

#include <cstdint>
#include <vector>

namespace hetsched {

struct Event {
  double time;
  std::uint64_t sequence;
  std::uint32_t kind;     // meaning defined by the simulator that schedules it
  std::uint32_t subject;  // a task, job, device or transfer index
};

class EventQueue {
 public:
  void schedule(double time, std::uint32_t kind, std::uint32_t subject) {
    heap_.push_back(Event{time, next_sequence_++, kind, subject});
    sift_up(heap_.size() - 1);
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  Event pop();
  void reserve(std::size_t n) { heap_.reserve(n); }

 private:
  static bool before(const Event& a, const Event& b) {
    return a.time < b.time || (a.time == b.time && a.sequence < b.sequence);
  }
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);

  std::vector<Event> heap_;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace hetsched
