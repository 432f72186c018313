// reserve_touched: room for n elements in a vector, every byte of it written now.
// Code that runs against a clock (the local runtime's dispatcher and workers, a timed
// benchmark) must not pay for a vector's growth while it runs: a copy per doubling and
// a page fault for every fresh page, tens of microseconds apiece on a virtual machine.
// Calling this before the clock starts moves that cost out. The contents stay as they are.
#pragma once

#include <cstddef>

namespace hetsched {

template <class Vector>
void reserve_touched(Vector& v, std::size_t n) {
  const std::size_t size = v.size();
  if (n <= size) return;
  v.resize(n);  // value-initialises, so every page is written
  v.resize(size);
}

}  // namespace hetsched
