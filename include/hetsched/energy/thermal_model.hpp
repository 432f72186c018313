// ThermalModel: a first-order RC model of one device's temperature. The device is
// a heat capacity C (J/K) joined to ambient air through a thermal resistance R
// (K/W): C·dT/dt = P − (T − T_ambient)/R. Under constant power P the temperature
// moves exponentially towards the steady value T_ambient + P·R with time constant
// τ = R·C, so between two power changes it is known in closed form, and so is the
// moment it crosses a limit. This is the standard lumped model of chip
// thermals (as in HotSpot's simplest form and GPU thermal-throttling studies).
// R is set from the temperature the device would settle at under its full board
// power, and C from the time constant.
#pragma once

#include <limits>

#include "hetsched/cluster/device_spec.hpp"

namespace hetsched {

struct ThermalOptions {
  bool enabled = false;
  double ambient_celsius = 25;
  double limit_celsius = 83;           // throttle above this (a typical GPU slowdown point)
  double steady_celsius_at_peak = 95;  // where full board power would settle without throttling
  double time_constant_seconds = 30;   // τ = R·C
  double hysteresis_celsius = 5;       // un-throttle below limit − hysteresis
};

class ThermalModel {
 public:
  ThermalModel() = default;
  ThermalModel(const DeviceSpec& spec, const ThermalOptions& options);

  double ambient_celsius() const { return ambient_; }
  double time_constant_seconds() const { return time_constant_; }
  double steady_celsius(double watts) const { return ambient_ + watts * resistance_; }
  // Temperature after `seconds` at constant `watts`, from `celsius`.
  double temperature_after(double celsius, double watts, double seconds) const;
  // Seconds at constant `watts` from `celsius` until `target` is reached; infinity
  // when it never is (already there counts as 0).
  double seconds_to_reach(double celsius, double watts, double target) const;

 private:
  double ambient_ = 25;
  double resistance_ = 0.2;  // K/W
  double time_constant_ = 30;
};

}  // namespace hetsched
