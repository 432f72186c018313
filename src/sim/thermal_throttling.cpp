#include "thermal_throttling.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "hetsched/sim/simulator.hpp"

namespace hetsched {

ThermalThrottling::ThermalThrottling(SimulationKernel kernel, std::uint32_t event_base)
    : kernel_(kernel), event_base_(event_base) {
  kernel_.report().thermal_modeled = true;
  kernel_.report().thermal_limit_celsius = kernel_.options().thermal.limit_celsius;
}

void ThermalThrottling::devices_added(DeviceId first) {
  for (DeviceId d = first; d < kernel_.cluster().device_count(); ++d) {
    const DeviceSpec& spec = kernel_.cluster().device(d).spec;
    models_.emplace_back(spec, kernel_.options().thermal);
    DeviceHeat& heat = heat_.emplace_back();
    heat.celsius_time = kernel_.now();
    heat.celsius = heat.peak_celsius = models_.back().steady_celsius(spec.idle_watts);
  }
}

void ThermalThrottling::run_starting() {
  if (!kernel_.options().record_schedule) return;
  for (DeviceId d = 0; d < heat_.size(); ++d)
    kernel_.report().temperatures.push_back(TemperatureSample{0.0, d, heat_[d].celsius});
}

void ThermalThrottling::advance_temperature(DeviceId d) {
  DeviceHeat& heat = heat_[d];
  if (kernel_.now() > heat.celsius_time) {
    // Under constant power the temperature is monotone, so the peak over the
    // interval is at one of its ends.
    heat.celsius = models_[d].temperature_after(heat.celsius, kernel_.watts(d),
                                                kernel_.now() - heat.celsius_time);
    heat.celsius_time = kernel_.now();
    if (kernel_.options().record_schedule)
      kernel_.report().temperatures.push_back(TemperatureSample{kernel_.now(), d, heat.celsius});
  }
  heat.peak_celsius = std::max(heat.peak_celsius, heat.celsius);
}

SimulationExtension::Start ThermalThrottling::start_pstate(TaskIndex /*task*/, DeviceId d,
                                                           std::uint8_t& pstate) {
  DeviceHeat& heat = heat_[d];
  advance_temperature(d);
  const ThermalOptions& options = kernel_.options().thermal;
  if (heat.celsius < options.limit_celsius - options.hysteresis_celsius) heat.throttle_level = 0;
  const std::size_t slowest = kernel_.cluster().device(d).spec.pstates.size() - 1;
  pstate = static_cast<std::uint8_t>(std::min<std::size_t>(pstate + heat.throttle_level, slowest));
  return Start::go;
}

void ThermalThrottling::task_started(TaskIndex /*task*/, DeviceId d) { schedule_limit_event(d); }

void ThermalThrottling::device_power_changing(DeviceId d) { advance_temperature(d); }

void ThermalThrottling::schedule_limit_event(DeviceId d) {
  DeviceHeat& heat = heat_[d];
  heat.limit_event_time = -1;
  if (!kernel_.busy(d)) return;
  const double limit = kernel_.options().thermal.limit_celsius;
  const ThermalModel& model = models_[d];
  // Below the limit: when it will be crossed. At it: step down again after a tenth
  // of the time constant while the current draw would still settle above it.
  const double wait =
      heat.celsius < limit ? model.seconds_to_reach(heat.celsius, kernel_.watts(d), limit)
      : model.steady_celsius(kernel_.watts(d)) > limit ? 0.1 * model.time_constant_seconds()
                                                       : std::numeric_limits<double>::infinity();
  if (!std::isfinite(wait) || kernel_.now() + wait >= kernel_.expected_finish(d)) return;
  heat.limit_event_time = kernel_.now() + std::max(wait, 0.0);
  kernel_.schedule(heat.limit_event_time, event_base_, d);
}

// The device reached its limit while running: like a GPU's clock slowdown, the
// running task continues one P-state lower; its remaining work takes longer.
void ThermalThrottling::event(const Event& e) {
  const DeviceId d = e.subject;
  DeviceHeat& heat = heat_[d];
  if (!kernel_.busy(d) || heat.limit_event_time != kernel_.now()) return;  // stale
  heat.limit_event_time = -1;
  const std::size_t slowest = kernel_.cluster().device(d).spec.pstates.size() - 1;
  advance_temperature(d);
  if (kernel_.running_pstate(d) >= slowest) return;  // nothing slower to go to
  heat.throttle_level =
      static_cast<std::uint8_t>(std::min<std::size_t>(heat.throttle_level + 1, slowest));
  ++heat.throttle_events;
  ++kernel_.report().thermal_throttle_events;
  kernel_.change_running_pstate(d, static_cast<std::uint8_t>(kernel_.running_pstate(d) + 1));
  schedule_limit_event(d);
}

void ThermalThrottling::complete_report(RunReport& report) {
  for (DeviceId d = 0; d < heat_.size() && d < report.devices.size(); ++d) {
    report.devices[d].peak_celsius = heat_[d].peak_celsius;
    report.devices[d].throttle_events = heat_[d].throttle_events;
  }
}

}  // namespace hetsched
