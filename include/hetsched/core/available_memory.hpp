// The memory the machine has free for a large allocation, so that one it cannot hold is
// refused with one line naming the size asked and the limit instead of being killed by the
// kernel.
#pragma once

#include <cstdint>
#include <string_view>

namespace hetsched {

// MemAvailable of /proc/meminfo (the physical memory where that cannot be read), capped by
// the process's address-space limit.
std::uint64_t available_memory_bytes();

// InputError "<what> needs about 31.4 GB, and the machine has 22.1 GB available" when `bytes`
// do not fit in `available`.
void check_memory_fits(double bytes, std::string_view what,
                       std::uint64_t available = available_memory_bytes());

}  // namespace hetsched
