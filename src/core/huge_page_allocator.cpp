#include "hetsched/core/huge_page_allocator.hpp"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#if !defined(HETSCHED_SANITIZED)
#define HETSCHED_HUGE_PAGES 1
#endif
#endif

namespace hetsched {
namespace {

// Large blocks are mapped on their own where huge pages are on; sanitized builds keep
// every block in operator new, where the sanitizer sees it.
bool mapped_on_its_own(std::size_t bytes, std::size_t alignment) {
#ifdef HETSCHED_HUGE_PAGES
  return bytes >= kHugePageBytes && alignment <= kHugePageBytes;
#else
  (void)bytes;
  (void)alignment;
  return false;
#endif
}

std::size_t round_up_to_huge_page(std::size_t bytes) {
  return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
}

}  // namespace

void* map_huge_pages(std::size_t bytes) {
#if defined(__linux__)
  // Map one huge page more than needed, then give back the parts before the first
  // 2 MiB boundary and after the block, so the block starts on a huge page.
  const std::size_t length = round_up_to_huge_page(bytes);
  void* mapped = mmap(nullptr, length + kHugePageBytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) throw std::bad_alloc();
  const auto address = reinterpret_cast<std::uintptr_t>(mapped);
  const std::uintptr_t aligned = (address + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  if (aligned > address) munmap(mapped, aligned - address);
  const std::size_t tail = address + kHugePageBytes - aligned;
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + length), tail);
  void* block = reinterpret_cast<void*>(aligned);
  madvise(block, length, MADV_HUGEPAGE);  // advice only: without THP it stays small pages
  return block;
#else
  (void)bytes;
  throw std::bad_alloc();
#endif
}

void unmap_huge_pages(void* block, std::size_t bytes) noexcept {
#if defined(__linux__)
  munmap(block, round_up_to_huge_page(bytes));
#else
  (void)block;
  (void)bytes;
#endif
}

void advise_huge_pages(void* block, std::size_t bytes) noexcept {
#ifdef HETSCHED_HUGE_PAGES
  const auto address = reinterpret_cast<std::uintptr_t>(block);
  const std::uintptr_t first = (address + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  const std::uintptr_t last = (address + bytes) / kHugePageBytes * kHugePageBytes;
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)block;
  (void)bytes;
#endif
}

void* huge_page_allocate(std::size_t bytes, std::size_t alignment) {
  if (mapped_on_its_own(bytes, alignment)) return map_huge_pages(bytes);
  return ::operator new (bytes, std::align_val_t{alignment});
}

void huge_page_deallocate(void* block, std::size_t bytes, std::size_t alignment) noexcept {
  if (block == nullptr) return;
  if (mapped_on_its_own(bytes, alignment))
    unmap_huge_pages(block, bytes);
  else
    ::operator delete (block, std::align_val_t{alignment});
}

}  // namespace hetsched
