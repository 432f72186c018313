// SpscRing: a bounded single-producer/single-consumer queue on a preallocated
// power-of-two ring (Lamport's queue with cached indices, as in Rigtorp's and
// Folly's SPSC queues). push and pop take no lock and allocate nothing; the
// release/acquire pair on the indices hands the slot's contents over.
#pragma once

#include <atomic>
#include <cstddef>
#include <vector>

namespace hetsched {

template <class T>
class SpscRing {
 public:
  explicit SpscRing(std::size_t min_capacity) {
    std::size_t capacity = 2;
    while (capacity < min_capacity) capacity <<= 1;
    slots_.resize(capacity);
    mask_ = capacity - 1;
  }

  std::size_t capacity() const { return slots_.size(); }

  // Producer side. False when full.
  bool push(const T& value) {
    const std::size_t tail = tail_.load(std::memory_order_relaxed);
    if (tail - producer_cached_head_ == slots_.size()) {
      producer_cached_head_ = head_.load(std::memory_order_acquire);
      if (tail - producer_cached_head_ == slots_.size()) return false;
    }
    slots_[tail & mask_] = value;
    tail_.store(tail + 1, std::memory_order_release);
    return true;
  }

  // Consumer side. False when empty.
  bool pop(T& value) {
    const std::size_t head = head_.load(std::memory_order_relaxed);
    if (head == consumer_cached_tail_) {
      consumer_cached_tail_ = tail_.load(std::memory_order_acquire);
      if (head == consumer_cached_tail_) return false;
    }
    value = slots_[head & mask_];
    head_.store(head + 1, std::memory_order_release);
    return true;
  }

  // Consumer side: the oldest value without removing it; null when empty. Valid until
  // the next pop.
  const T* peek() {
    const std::size_t head = head_.load(std::memory_order_relaxed);
    if (head == consumer_cached_tail_) {
      consumer_cached_tail_ = tail_.load(std::memory_order_acquire);
      if (head == consumer_cached_tail_) return nullptr;
    }
    return &slots_[head & mask_];
  }

  // Consumer side: how many values are waiting (at least; the producer may add more).
  std::size_t size_for_consumer() const {
    return tail_.load(std::memory_order_acquire) - head_.load(std::memory_order_relaxed);
  }

  // Either side: whether something is waiting (a snapshot).
  bool empty() const {
    return head_.load(std::memory_order_acquire) == tail_.load(std::memory_order_acquire);
  }

 private:
  std::vector<T> slots_;
  std::size_t mask_ = 0;
  alignas(64) std::atomic<std::size_t> head_{0};
  alignas(64) std::size_t consumer_cached_tail_ = 0;
  alignas(64) std::atomic<std::size_t> tail_{0};
  alignas(64) std::size_t producer_cached_head_ = 0;
};

}  // namespace hetsched
