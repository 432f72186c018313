#include "hetsched/energy/thermal_model.hpp"

#include <algorithm>
#include <cmath>

namespace hetsched {

ThermalModel::ThermalModel(const DeviceSpec& spec, const ThermalOptions& options)
    : ambient_(options.ambient_celsius),
      resistance_(spec.peak_watts > 0
                      ? std::max(0.0, options.steady_celsius_at_peak - options.ambient_celsius) /
                            spec.peak_watts
                      : 0.0),
      time_constant_(std::max(1e-9, options.time_constant_seconds)) {}

double ThermalModel::temperature_after(double celsius, double watts, double seconds) const {
  const double steady = steady_celsius(watts);
  return steady + (celsius - steady) * std::exp(-seconds / time_constant_);
}

double ThermalModel::seconds_to_reach(double celsius, double watts, double target) const {
  if (celsius >= target) return 0;
  const double steady = steady_celsius(watts);
  if (steady <= target) return std::numeric_limits<double>::infinity();
  return time_constant_ * std::log((steady - celsius) / (steady - target));
}

}  // namespace hetsched
