#include "hetsched/cluster/device_spec.hpp"

#include <algorithm>
#include <cctype>

namespace hetsched {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

const std::vector<std::string>& device_kind_names() {
  static const std::vector<std::string> names{"cpu", "gpu", "tpu"};
  return names;
}

const std::vector<std::string>& precision_names() {
  static const std::vector<std::string> names{"fp64", "fp32", "fp16", "int8"};
  return names;
}

std::string_view to_string(DeviceKind kind) {
  return device_kind_names()[static_cast<std::size_t>(kind)];
}

std::string_view to_string(Precision precision) {
  return precision_names()[static_cast<std::size_t>(precision)];
}

std::optional<DeviceKind> parse_device_kind(std::string_view text) {
  const std::string key = lower(text);
  const auto& names = device_kind_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == key) return static_cast<DeviceKind>(i);
  return std::nullopt;
}

std::optional<Precision> parse_precision(std::string_view text) {
  const std::string key = lower(text);
  if (key == "bf16") return Precision::fp16;
  const auto& names = precision_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == key) return static_cast<Precision>(i);
  return std::nullopt;
}

}  // namespace hetsched
