// PowerCapping: the simulator's extension for power caps, cluster-wide and per node. Every
// device draws its idle power all the time; a task may start only if the cluster's draw
// and its node's stay within their caps — at its planned P-state, else at the fastest
// slower one that fits (the task slows down), else it waits at the head of its device's
// queue until a finish frees power. A task that cannot fit even at its slowest P-state
// while nothing else runs can never start: it is dropped and the report says why. A cap
// below the idle power of the devices it covers is bad input.
#pragma once

#include <cstdint>
#include <vector>

#include "hetsched/sim/simulation_extension.hpp"
#include "simulation_kernel.hpp"

namespace hetsched {

class PowerCapping final : public SimulationExtension {
 public:
  // Throws InputError when a cap is below the idle power it covers.
  PowerCapping(SimulationKernel kernel, std::uint32_t event_base);

  void devices_added(DeviceId first) override;
  void event(const Event& /*event*/) override {}  // it has none of its own
  Start start_pstate(TaskIndex task, DeviceId device, std::uint8_t& pstate) override;
  void task_started(TaskIndex task, DeviceId device) override;
  void task_finished(TaskIndex task, DeviceId device) override;

 private:
  SimulationKernel kernel_;
  std::vector<std::uint8_t> waiting_;  // per device: its head waits for power
};

}  // namespace hetsched
