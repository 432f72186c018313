// HugePageAllocator: a std::allocator replacement for large arrays read at random
// (a DAG's task x device cost matrix, a list scheduler's per-task placements). With
// 4 KiB pages every task's row of a 50 MB matrix sits on a page of its own, and
// reading rows in rank order misses the TLB on nearly every task; 2 MiB pages cut
// the number of pages 512-fold. Linux's transparent huge pages give them to a
// region that asks (madvise(MADV_HUGEPAGE)) when THP runs in `madvise` mode, as it
// usually does, or to every large region in `always` mode.
//
// Allocations of at least kHugePageMinimumBytes are rounded up to whole 2 MiB
// pages, aligned to 2 MiB and advised before they are first touched (so the page
// faults give huge pages straight away); smaller ones go to operator new. Whether
// the kernel grants huge pages changes only speed, never contents. On systems
// without madvise (not Linux) the advice is left out and the allocator behaves
// like std::allocator with a large alignment.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace hetsched {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
// From 1 MiB on, the memory wasted by rounding up (under one huge page) is at most
// as much as the array itself.
inline constexpr std::size_t kHugePageMinimumBytes = std::size_t{1} << 20;

template <typename T>
class HugePageAllocator {
 public:
  using value_type = T;

  HugePageAllocator() noexcept = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePageMinimumBytes) return static_cast<T*>(::operator new(bytes));
    const std::size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    void* memory = std::aligned_alloc(kHugePageBytes, rounded);
    if (memory == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    ::madvise(memory, rounded, MADV_HUGEPAGE);  // advice only: failure changes nothing
#endif
    return static_cast<T*>(memory);
  }

  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugePageMinimumBytes)
      ::operator delete(p);
    else
      std::free(p);
  }

  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace hetsched
