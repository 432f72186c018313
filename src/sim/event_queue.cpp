#include "hetsched/sim/event_queue.hpp"

#include <algorithm>

namespace hetsched {

void EventQueue::schedule(double time, std::uint32_t kind, std::uint32_t subject,
                          std::uint32_t detail) {
  const Entry e{ordered_bits(time), next_sequence_++, kind, subject, detail};
  if (key(e) < last_) {
    // Before the last event taken out: every pending event is spread again from here.
    std::vector<Entry> pending;
    pending.reserve(size_);
    for (Bucket& bucket : buckets_) {
      for (std::size_t c = 0; c < bucket.chunks.size(); ++c) {
        const std::size_t first = std::size_t{bucket.chunks[c]} * kChunkEntries;
        const std::size_t count = c + 1 == bucket.chunks.size() ? bucket.fill : kChunkEntries;
        pending.insert(pending.end(), pool_.begin() + std::ptrdiff_t(first),
                       pool_.begin() + std::ptrdiff_t(first + count));
      }
      release(bucket);
    }
    in_use_ = 0;
    last_ = key(e);
    for (const Entry& p : pending) put(p);
  }
  put(e);
  ++size_;
  if (has_peeked_ && key(e) < key(peeked_)) peeked_ = e;
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

std::size_t EventQueue::lowest_bucket_in_use() const {
  const auto low_word = static_cast<std::uint64_t>(in_use_);
  return 1 + (low_word != 0 ? static_cast<std::size_t>(std::countr_zero(low_word))
                            : 64 + static_cast<std::size_t>(std::countr_zero(
                                       static_cast<std::uint64_t>(in_use_ >> 64))));
}

// Bucket 0's entry, else the least of the lowest bucket in use (every key there is below
// every key of the buckets above it).
const EventQueue::Entry& EventQueue::peek() const {
  if (has_peeked_) return peeked_;
  if (!buckets_[0].chunks.empty()) {
    peeked_ = pool_[std::size_t{buckets_[0].chunks.front()} * kChunkEntries];
  } else {
    const Bucket& bucket = buckets_[lowest_bucket_in_use()];
    const Entry* least = nullptr;
    for (std::size_t c = 0; c < bucket.chunks.size(); ++c) {
      const Entry* chunk = pool_.data() + std::size_t{bucket.chunks[c]} * kChunkEntries;
      const std::size_t count = c + 1 == bucket.chunks.size() ? bucket.fill : kChunkEntries;
      for (std::size_t i = 0; i < count; ++i)
        if (least == nullptr || key(chunk[i]) < key(*least)) least = &chunk[i];
    }
    peeked_ = *least;
  }
  has_peeked_ = true;
  return peeked_;
}

void EventQueue::settle() {
  if (!buckets_[0].chunks.empty()) return;
  const Key least = key(peek());
  const std::size_t b = lowest_bucket_in_use();
  Bucket& bucket = buckets_[b];
  const auto count_in = [&](std::size_t c) {
    return c + 1 == bucket.chunks.size() ? bucket.fill : kChunkEntries;
  };
  last_ = least;
  in_use_ &= ~(Key{1} << (b - 1));
  // Each to a lower bucket; put() may grow the pool, so entries are read by index.
  for (std::size_t c = 0; c < bucket.chunks.size(); ++c) {
    const std::size_t first = std::size_t{bucket.chunks[c]} * kChunkEntries;
    for (std::size_t i = 0; i < count_in(c); ++i) put(Entry(pool_[first + i]));
  }
  release(bucket);
}

Event EventQueue::pop() {
  settle();
  Bucket& next = buckets_[0];
  const Event out = event_of(pool_[std::size_t{next.chunks.front()} * kChunkEntries]);
  release(next);
  --size_;
  has_peeked_ = false;
  return out;
}

}  // namespace hetsched
