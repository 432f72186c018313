// DataRegistry: the data handles of a runtime DAG. A handle is one block of host
// memory (a matrix tile, a grid, a graph) with a version number that every write
// bumps. Device workers keep their own copies (OpenCL buffers) tagged with the
// version they hold, and move data explicitly: host → device when their copy is
// stale, device → host after a task writes. The host copy is always current once
// a task has finished (write-back), which keeps CPU workers free of device calls.
// Accesses never race: the DAG's edges order every writer against the readers
// and writers of the same handle (see RuntimeDag).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace hetsched {

using HandleId = std::uint32_t;

class DataRegistry {
 public:
  DataRegistry();
  // Unique per registry in the process, so device caches never mistake one for another.
  std::uint64_t serial() const { return serial_; }

  // A zero-filled, 64-byte aligned block of `bytes`; returns its handle.
  HandleId add(std::size_t bytes);

  std::size_t count() const { return blocks_.size(); }
  std::size_t bytes(HandleId h) const { return blocks_[h].bytes; }
  std::byte* data(HandleId h) { return blocks_[h].storage.get(); }
  const std::byte* data(HandleId h) const { return blocks_[h].storage.get(); }
  template <class T>
  std::span<T> view(HandleId h) {
    return {reinterpret_cast<T*>(data(h)), bytes(h) / sizeof(T)};
  }
  template <class T>
  std::span<const T> view(HandleId h) const {
    return {reinterpret_cast<const T*>(data(h)), bytes(h) / sizeof(T)};
  }
  std::uint64_t version(HandleId h) const { return blocks_[h].version; }
  // Called by the worker that wrote the handle, once its host copy is current.
  void bump_version(HandleId h) { ++blocks_[h].version; }

 private:
  struct AlignedDelete {
    void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t{64}); }
  };
  struct Block {
    std::size_t bytes = 0;
    std::unique_ptr<std::byte[], AlignedDelete> storage;
    std::uint64_t version = 1;
  };
  std::uint64_t serial_;
  std::vector<Block> blocks_;
};

}  // namespace hetsched
