// HugePageAllocator: an allocator for the big per-task arrays of a large run (a
// million tasks make arrays of megabytes). Blocks of 2 MiB and more are mapped on
// their own, aligned to 2 MiB and marked MADV_HUGEPAGE, so the kernel backs them
// with transparent huge pages where it allows them (the "madvise" setting): one
// page fault and one TLB entry per 2 MiB instead of 512 of each. Smaller blocks,
// other systems, and sanitizer builds (which must see every block) use operator new.
// Fresh pages cost a fault each on first touch, which on a virtual machine is
// several microseconds: for a million tasks that was a third of the simulator's time.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

// HETSCHED_SANITIZED: defined in a build under AddressSanitizer, ThreadSanitizer or
// MemorySanitizer, which must see every block through their own operator new (so huge
// pages, and the program's own operator new, are off there).
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define HETSCHED_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HETSCHED_SANITIZED 1
#endif

namespace hetsched {

// Bytes from which a block is mapped on its own (one huge page).
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

void* huge_page_allocate(std::size_t bytes, std::size_t alignment);
void huge_page_deallocate(void* block, std::size_t bytes, std::size_t alignment) noexcept;

// The mapping itself, used by huge_page_allocate for large blocks where huge pages are
// on (Linux, no sanitizer), and on its own by tests, which run sanitized: `bytes`
// rounded up to whole huge pages, starting on a 2 MiB boundary, advised MADV_HUGEPAGE.
// Throws std::bad_alloc when the system has no memory for it (or is not Linux).
void* map_huge_pages(std::size_t bytes);
void unmap_huge_pages(void* block, std::size_t bytes) noexcept;

// Advises huge pages for the whole 2 MiB pages inside [block, block + bytes), memory
// allocated elsewhere (a big std::string) and not yet touched. Advice only: a no-op
// where huge pages are off.
void advise_huge_pages(void* block, std::size_t bytes) noexcept;

template <class T>
struct HugePageAllocator {
  using value_type = T;

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(huge_page_allocate(n * sizeof(T), alignof(T)));
  }
  void deallocate(T* block, std::size_t n) noexcept {
    huge_page_deallocate(block, n * sizeof(T), alignof(T));
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

// A vector for arrays with an entry per task (or per event): large ones live on huge pages.
template <class T>
using LargeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace hetsched
