// ThermalThrottling: the simulator's extension for device temperature. Each device has a
// first-order RC thermal model (energy/thermal_model.hpp) driven by the power it draws;
// while a task runs, the extension schedules the instant the device would cross its limit,
// and there the running task continues one P-state lower, as a GPU's clock slowdown does
// (the kernel re-times its remaining work). A device stays held down by the P-states it
// lost until it cools below the limit minus the hysteresis; the tasks it starts meanwhile
// start that many P-states lower. Temperatures are sampled at every change of power.
#pragma once

#include <cstdint>
#include <vector>

#include "hetsched/energy/thermal_model.hpp"
#include "hetsched/sim/simulation_extension.hpp"
#include "simulation_kernel.hpp"

namespace hetsched {

class ThermalThrottling final : public SimulationExtension {
 public:
  ThermalThrottling(SimulationKernel kernel, std::uint32_t event_base);

  void devices_added(DeviceId first) override;
  void run_starting() override;
  void event(const Event& event) override;  // a device reaches its limit
  Start start_pstate(TaskIndex task, DeviceId device, std::uint8_t& pstate) override;
  void task_started(TaskIndex task, DeviceId device) override;
  void device_power_changing(DeviceId device) override;
  void complete_report(RunReport& report) override;

 private:
  struct DeviceHeat {
    double celsius = 0;
    double celsius_time = 0;  // when celsius was last brought up to date
    double peak_celsius = 0;
    double limit_event_time = -1;     // the pending limit crossing, if any
    std::uint8_t throttle_level = 0;  // P-states the device is held down by heat
    std::uint32_t throttle_events = 0;
  };

  // Brings the device's temperature up to now (its draw was constant since).
  void advance_temperature(DeviceId device);
  // Schedules the next limit crossing of the device's running task, if before its end.
  void schedule_limit_event(DeviceId device);

  SimulationKernel kernel_;
  std::uint32_t event_base_;
  std::vector<ThermalModel> models_;  // per device
  std::vector<DeviceHeat> heat_;      // per device
};

}  // namespace hetsched
