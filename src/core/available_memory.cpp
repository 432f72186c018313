#include "hetsched/core/available_memory.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>

#include "hetsched/core/input_error.hpp"

namespace hetsched {

std::uint64_t available_memory_bytes() {
  // Lines are "Name:   value [kB]"; some have no unit, so they are read whole.
  std::uint64_t available = 0;
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);)
    if (line.starts_with("MemAvailable:")) {
      available = std::strtoull(line.c_str() + 13, nullptr, 10) * 1024;
      break;
    }
  if (available == 0) {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    available = pages > 0 && page > 0
                    ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
                    : std::numeric_limits<std::uint64_t>::max();
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    available = std::min<std::uint64_t>(available, limit.rlim_cur);
  return available;
}

void check_memory_fits(double bytes, std::string_view what, std::uint64_t available) {
  if (bytes <= static_cast<double>(available)) return;
  throw InputError(fmt::format("{} needs about {:.1f} GB, and the machine has {:.1f} GB available",
                               what, bytes / 1e9, static_cast<double>(available) / 1e9));
}

}  // namespace hetsched
