// The memory a simulation needs, estimated before anything is allocated, so that a run
// the machine cannot hold is refused with one line instead of being killed by the kernel.
// The figures per task and per device cover the workload's task and the simulator's state
// (task graph, scheduling loop, per-task run record, device queues and the policy's
// indexes), with headroom over what `bench sim` measured (peak resident memory of 1 and 4
// million tasks, of 1,024 and 100,000 devices: about 270 bytes a task, 650 a device).
#pragma once

#include <cstdint>

#include "hetsched/core/available_memory.hpp"

namespace hetsched {

inline constexpr std::uint64_t kSimulationBytesPerTask = 320;
inline constexpr std::uint64_t kSimulationBytesPerDevice = 1024;

std::uint64_t simulation_memory_bytes(std::uint64_t tasks, std::uint64_t devices);

// InputError ("... needs about 31.4 GB for 100000000 tasks on 1024 devices, and the
// machine has 22.1 GB available") when `copies` simulations of that size do not fit in
// `available` bytes.
void check_simulation_fits(std::uint64_t tasks, std::uint64_t devices, std::uint64_t copies = 1,
                           std::uint64_t available = available_memory_bytes());

}  // namespace hetsched
