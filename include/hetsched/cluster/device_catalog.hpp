// The built-in catalog of real parts with their public datasheet figures.
// A cluster file names a part ("H100-SXM") and may override any figure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hetsched/cluster/device_spec.hpp"

namespace hetsched {

const std::vector<DeviceSpec>& device_catalog();
// The part whose model name matches (case-insensitive), or nullptr.
const DeviceSpec* find_catalog_part(std::string_view model);
std::vector<std::string> catalog_model_names();

}  // namespace hetsched
