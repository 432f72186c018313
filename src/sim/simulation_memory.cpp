#include "hetsched/sim/simulation_memory.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hetsched/core/input_error.hpp"

namespace hetsched {

std::uint64_t simulation_memory_bytes(std::uint64_t tasks, std::uint64_t devices) {
  return tasks * kSimulationBytesPerTask + devices * kSimulationBytesPerDevice;
}

void check_simulation_fits(std::uint64_t tasks, std::uint64_t devices, std::uint64_t copies,
                           std::uint64_t available) {
  const double needed = static_cast<double>(simulation_memory_bytes(tasks, devices)) *
                        static_cast<double>(std::max<std::uint64_t>(copies, 1));
  if (needed <= static_cast<double>(available)) return;
  throw InputError(fmt::format(
      "the simulation needs about {:.1f} GB for {} tasks on {} devices{}, and the machine has "
      "{:.1f} GB available (about {} bytes a task and {} a device)",
      needed / 1e9, tasks, devices, copies > 1 ? fmt::format(" under {} policies", copies) : "",
      static_cast<double>(available) / 1e9, kSimulationBytesPerTask, kSimulationBytesPerDevice));
}

}  // namespace hetsched
