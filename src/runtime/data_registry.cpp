#include "hetsched/runtime/data_registry.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>

namespace hetsched {

DataRegistry::DataRegistry() {
  static std::atomic<std::uint64_t> next_serial{1};
  serial_ = next_serial.fetch_add(1);
}

HandleId DataRegistry::add(std::size_t bytes) {
  const std::size_t rounded = std::max<std::size_t>(64, (bytes + 63) / 64 * 64);
  Block block;
  block.bytes = bytes;
  block.storage.reset(static_cast<std::byte*>(::operator new[](rounded, std::align_val_t{64})));
  std::memset(block.storage.get(), 0, rounded);
  blocks_.push_back(std::move(block));
  return static_cast<HandleId>(blocks_.size() - 1);
}

}  // namespace hetsched
