// EventQueue: the discrete-event engine's agenda. Events are ordered by time, then
// by the order they were scheduled (a sequence number), so equal-time events run
// in a fixed order and every run with the same inputs is identical.
//
// Each event's (time, sequence) is one 128-bit key: the time as an unsigned integer
// that sorts like the double (the IEEE-754 total-order trick) above the sequence. Keys
// are unique, and a simulation never schedules before the event it last took out, so
// the agenda is a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan 1990): bucket b holds
// the events whose key first differs from the last key taken out at bit b - 1 (bucket 0:
// equal to it). Scheduling appends to a bucket; taking out the next event, when bucket
// 0 is empty, finds the lowest bucket in use, makes its least key the last one and
// spreads that bucket's events over the lower buckets. An event moves down at most 128
// times and in practice a few, and every move is a sequential read and an append,
// where a binary heap of hundreds of thousands of pending events sifts through a chain
// of cache misses on every operation. The buckets share one pool of fixed-size chunks,
// so the agenda's memory follows the events pending, not each bucket's peak. An event
// scheduled before the last one taken out (allowed, if rare) re-spreads every pending
// event from its key.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <vector>

namespace hetsched {

struct Event {
  double time;
  std::uint64_t sequence;
  std::uint32_t kind;     // meaning defined by the simulator that schedules it
  std::uint32_t subject;  // a task, job, device or transfer index
  std::uint32_t detail;   // a second index, where the scheduler gives one
  // A third index the event's handler is likely to read, which the scheduler may ask
  // the processor for ahead of time (the simulator: the task a device should start
  // next); kNoHint when none.
  std::uint32_t hint;
  static constexpr std::uint32_t kNoHint = UINT32_MAX;
};

class EventQueue {
 public:
  void schedule(double time, std::uint32_t kind, std::uint32_t subject, std::uint32_t detail = 0,
                std::uint32_t hint = Event::kNoHint);
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // The next event; the queue must not be empty.
  Event top() const { return event_of(peek()); }
  // The event after the next one, as things stand (an event scheduled before it takes
  // its place), so that a simulator can ask for what it reads two events ahead; false
  // when fewer than two are pending.
  bool after_top(Event& out) const;
  Event pop();

 private:
  using Key = unsigned __int128;
  struct Entry {
    std::uint64_t time_bits;  // ordered_bits(time)
    std::uint64_t sequence;
    std::uint32_t kind;
    std::uint32_t subject;
    std::uint32_t detail;
    std::uint32_t hint;
  };
  static constexpr std::size_t kBuckets = 129;
  // Buckets are lists of chunks of one pool, which an emptied bucket gives back: the
  // agenda holds its pending events and at most a partly filled chunk per bucket.
  static constexpr std::size_t kChunkEntries = 256;
  struct Bucket {
    std::vector<std::uint32_t> chunks;  // indices into the pool, in filling order
    std::uint32_t fill = 0;             // entries in the last chunk
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
    return Event{time_of(e.time_bits), e.sequence, e.kind, e.subject, e.detail, e.hint};
  }
  static Key key(const Entry& e) { return (static_cast<Key>(e.time_bits) << 64) | e.sequence; }
  // The bucket of a key relative to the last key taken out: one past the highest bit
  // where they differ.
  std::size_t bucket_of(Key k) const {
    const Key differ = k ^ last_;
    const auto high = static_cast<std::uint64_t>(differ >> 64);
    const auto low = static_cast<std::uint64_t>(differ);
    return high != 0 ? 128 - static_cast<std::size_t>(std::countl_zero(high))
                     : 64 - static_cast<std::size_t>(std::countl_zero(low));
  }
  void put(const Entry& e);
  // Calls visit(entry) for each of the bucket's entries, a copy read by index, so that
  // visit may put() into other buckets (which can grow the pool).
  template <class Visit>
  void for_each_entry(const Bucket& bucket, Visit&& visit) const {
    for (std::size_t c = 0; c < bucket.chunks.size(); ++c) {
      const std::size_t first = std::size_t{bucket.chunks[c]} * kChunkEntries;
      const std::size_t count = c + 1 == bucket.chunks.size() ? bucket.fill : kChunkEntries;
      for (std::size_t i = 0; i < count; ++i) visit(Entry(pool_[first + i]));
    }
  }
  // Gives the bucket's chunks back to the pool.
  void release(Bucket& bucket);
  // The least pending entry, found without taking it out: the last key taken out stays
  // as it is, so events scheduled before the next one (a simulator decides after
  // looking at it) need no re-spreading.
  const Entry& peek() const;
  // The lowest bucket whose bit is set in `in_use` (which must not be 0).
  static std::size_t lowest_bucket(Key in_use);
  // The queue must hold an event outside bucket 0.
  std::size_t lowest_bucket_in_use() const { return lowest_bucket(in_use_); }
  // Brings the least pending key into bucket 0 (alone there, as keys are unique).
  void settle();

  std::array<Bucket, kBuckets> buckets_;
  std::vector<Entry> pool_;  // chunks of kChunkEntries
  std::vector<std::uint32_t> free_chunks_;
  Key in_use_ = 0;  // bit b - 1 set: bucket b may hold events
  Key last_ = 0;    // the last key taken out (settled), or below every key
  // What top() and after_top() found, until the next pop (an earlier event scheduled
  // takes its place).
  mutable Entry peeked_{};
  mutable bool has_peeked_ = false;
  mutable Entry second_{};
  mutable bool has_second_ = false;
  std::size_t size_ = 0;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace hetsched
