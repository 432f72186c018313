// hetsched's own operator new: a block of 2 MiB or more is advised onto transparent huge
// pages before anything touches it, wherever the kernel gives them on advice (the
// "madvise" setting), as HugePageAllocator does for the arrays it holds. A fresh 4 KiB page
// costs a fault on first touch, several microseconds on a virtual machine; a huge page
// costs one fault per 2 MiB. This reaches the big blocks of code that is not ours: reading
// a big input file, simdjson's index of its structure is four bytes per structural
// character, written once. Smaller blocks (and the heap they come from) keep 4 KiB pages:
// advising the heap too made the simulator slower, the kernel clearing whole huge pages
// of which a run touched little. Sanitized builds, whose own operator new must see every
// block, keep the default.
#include <cstdlib>
#include <new>

#include "hetsched/core/huge_page_allocator.hpp"

#if !defined(HETSCHED_SANITIZED)
namespace {

void* allocate_block(std::size_t bytes) noexcept {
  void* block = std::malloc(bytes == 0 ? 1 : bytes);
  if (block != nullptr && bytes >= hetsched::kHugePageBytes)
    hetsched::advise_huge_pages(block, bytes);
  return block;
}

void* allocate_or_throw(std::size_t bytes) {
  for (;;) {
    if (void* block = allocate_block(bytes)) return block;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

}  // namespace

void* operator new(std::size_t bytes) { return allocate_or_throw(bytes); }
void* operator new[](std::size_t bytes) { return allocate_or_throw(bytes); }
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  return allocate_block(bytes);
}
void* operator new[](std::size_t bytes, const std::nothrow_t&) noexcept {
  return allocate_block(bytes);
}
void operator delete(void* block) noexcept { std::free(block); }
void operator delete[](void* block) noexcept { std::free(block); }
void operator delete(void* block, std::size_t) noexcept { std::free(block); }
void operator delete[](void* block, std::size_t) noexcept { std::free(block); }
void operator delete(void* block, const std::nothrow_t&) noexcept { std::free(block); }
void operator delete[](void* block, const std::nothrow_t&) noexcept { std::free(block); }
#endif
