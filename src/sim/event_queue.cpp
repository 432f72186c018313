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
    for (auto& bucket : buckets_) {
      pending.insert(pending.end(), bucket.begin(), bucket.end());
      bucket.clear();
    }
    in_use_ = 0;
    last_ = key(e);
    for (const Entry& p : pending) put(p);
  }
  put(e);
  ++size_;
}

void EventQueue::settle() const {
  if (!buckets_[0].empty()) return;
  const auto low_word = static_cast<std::uint64_t>(in_use_);
  const std::size_t b = 1 + (low_word != 0 ? static_cast<std::size_t>(std::countr_zero(low_word))
                                           : 64 + static_cast<std::size_t>(std::countr_zero(
                                                      static_cast<std::uint64_t>(in_use_ >> 64))));
  std::vector<Entry>& bucket = buckets_[b];
  last_ = key(*std::min_element(bucket.begin(), bucket.end(),
                                [](const Entry& x, const Entry& y) { return key(x) < key(y); }));
  in_use_ &= ~(Key{1} << (b - 1));
  for (const Entry& e : bucket) put(e);  // each to a lower bucket
  bucket.clear();
}

Event EventQueue::pop() {
  settle();
  const Event out = event_of(buckets_[0].back());
  buckets_[0].pop_back();
  --size_;
  return out;
}

}  // namespace hetsched
