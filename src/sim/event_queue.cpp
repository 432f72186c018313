#include "hetsched/sim/event_queue.hpp"

#include <algorithm>

namespace hetsched {

void EventQueue::schedule(double time, std::uint32_t kind, std::uint32_t subject,
                          std::uint32_t detail, std::uint32_t hint) {
  const Entry e{ordered_bits(time), next_sequence_++, kind, subject, detail, hint};
  if (key(e) < last_) {
    // Before the last event taken out: every pending event is spread again from here.
    std::vector<Entry> pending;
    pending.reserve(size_);
    for (Bucket& bucket : buckets_) {
      for_each_entry(bucket, [&](const Entry& p) { pending.push_back(p); });
      release(bucket);
    }
    in_use_ = 0;
    last_ = key(e);
    for (const Entry& p : pending) put(p);
  }
  put(e);
  ++size_;
  if (!has_peeked_) return;
  if (key(e) < key(peeked_)) {
    second_ = peeked_;
    has_second_ = true;
    peeked_ = e;
  } else if (has_second_ && key(e) < key(second_)) {
    second_ = e;
  }
}

void EventQueue::put(const Entry& e) {
  const std::size_t b = bucket_of(key(e));
  Bucket& bucket = buckets_[b];
  if (bucket.chunks.empty() || bucket.fill == kChunkEntries) {
    if (free_chunks_.empty()) {
      free_chunks_.push_back(static_cast<std::uint32_t>(pool_.size() / kChunkEntries));
      pool_.resize(pool_.size() + kChunkEntries);
    }
    bucket.chunks.push_back(free_chunks_.back());
    free_chunks_.pop_back();
    bucket.fill = 0;
  }
  pool_[std::size_t{bucket.chunks.back()} * kChunkEntries + bucket.fill++] = e;
  if (b != 0) in_use_ |= Key{1} << (b - 1);
}

void EventQueue::release(Bucket& bucket) {
  free_chunks_.insert(free_chunks_.end(), bucket.chunks.begin(), bucket.chunks.end());
  bucket.chunks.clear();
  bucket.fill = 0;
}

std::size_t EventQueue::lowest_bucket(Key in_use) {
  const auto low_word = static_cast<std::uint64_t>(in_use);
  return 1 + (low_word != 0 ? static_cast<std::size_t>(std::countr_zero(low_word))
                            : 64 + static_cast<std::size_t>(
                                       std::countr_zero(static_cast<std::uint64_t>(in_use >> 64))));
}

// Bucket 0's entry (settled), else the least of the lowest bucket in use (every key
// there is below every key of the buckets above it); the second least of that bucket
// comes with it, where it holds another.
const EventQueue::Entry& EventQueue::peek() const {
  if (has_peeked_) return peeked_;
  const Bucket& holder =
      buckets_[0].chunks.empty() ? buckets_[lowest_bucket_in_use()] : buckets_[0];
  bool first = true;
  has_second_ = false;
  for_each_entry(holder, [&](const Entry& e) {
    if (first || key(e) < key(peeked_)) {
      if (!first) {
        second_ = peeked_;
        has_second_ = true;
      }
      peeked_ = e;
    } else if (!has_second_ || key(e) < key(second_)) {
      second_ = e;
      has_second_ = true;
    }
    first = false;
  });
  has_peeked_ = true;
  return peeked_;
}

// Where the next event's bucket holds no other, the second is the least of the lowest
// bucket above it that holds one (buckets hold ever larger keys from bucket 0 up).
bool EventQueue::after_top(Event& out) const {
  if (size_ < 2) return false;
  const Key next = key(peek());
  if (!has_second_) {
    const auto visit = [&](const Entry& e) {
      if (key(e) != next && (!has_second_ || key(e) < key(second_))) {
        second_ = e;
        has_second_ = true;
      }
    };
    for_each_entry(buckets_[0], visit);
    for (Key in_use = in_use_; !has_second_ && in_use != 0; in_use &= in_use - 1)
      for_each_entry(buckets_[lowest_bucket(in_use)], visit);
  }
  out = event_of(second_);
  return true;
}

void EventQueue::settle() {
  if (!buckets_[0].chunks.empty()) return;
  const Key least = key(peek());
  const std::size_t b = lowest_bucket_in_use();
  last_ = least;
  in_use_ &= ~(Key{1} << (b - 1));
  for_each_entry(buckets_[b], [&](const Entry& e) { put(e); });  // each to a lower bucket
  release(buckets_[b]);
}

Event EventQueue::pop() {
  settle();
  const Event out = event_of(peek());
  release(buckets_[0]);
  --size_;
  has_peeked_ = has_second_ = false;
  return out;
}

}  // namespace hetsched
