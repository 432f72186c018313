// EventQueue: the discrete-event engine's agenda. Events are ordered by time, then
// by the order they were scheduled (a sequence number), so equal-time events run
// in a fixed order and every run with the same inputs is identical.
//
// The agenda is a 4-ary heap. Each entry keeps its time as an unsigned integer
// that sorts like the double (the IEEE-754 total-order trick), so (time, sequence)
// compares as one 128-bit number: no data-dependent branches while sifting, which
// matters because which child wins is unpredictable.
#pragma once

#include <bit>
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
    heap_.push_back(Entry{ordered_bits(time), next_sequence_++, kind, subject});
    sift_up(heap_.size() - 1);
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  Event top() const { return event_of(heap_.front()); }
  Event pop();
  void reserve(std::size_t n) { heap_.reserve(n); }

 private:
  struct Entry {
    std::uint64_t time_bits;  // ordered_bits(time)
    std::uint64_t sequence;
    std::uint32_t kind;
    std::uint32_t subject;
  };
  // Maps a double to an unsigned integer in the same order: positive numbers get
  // their sign bit set, negative ones all bits flipped. -0 is taken as +0, as `<`
  // on doubles sees them equal.
  static std::uint64_t ordered_bits(double time) {
    const auto bits = std::bit_cast<std::uint64_t>(time + 0.0);
    const auto negative_mask = static_cast<std::uint64_t>(static_cast<std::int64_t>(bits) >> 63);
    return bits ^ (negative_mask | (std::uint64_t{1} << 63));
  }
  static double time_of(std::uint64_t time_bits) {
    const std::uint64_t mask = (time_bits >> 63) != 0 ? std::uint64_t{1} << 63 : ~std::uint64_t{0};
    return std::bit_cast<double>(time_bits ^ mask);
  }
  static Event event_of(const Entry& e) {
    return Event{time_of(e.time_bits), e.sequence, e.kind, e.subject};
  }
  static unsigned __int128 key(const Entry& e) {
    return (static_cast<unsigned __int128>(e.time_bits) << 64) | e.sequence;
  }
  static bool before(const Entry& a, const Entry& b) { return key(a) < key(b); }
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);

  std::vector<Entry> heap_;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace hetsched
