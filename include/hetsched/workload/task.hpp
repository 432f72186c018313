// Task: one unit of work of a job — what it computes (kernel class, FLOPs,
// bytes, precision), how much memory it needs and which device kinds may run it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/cluster/device_spec.hpp"

namespace hetsched {

enum class KernelClass : std::uint8_t {
  dense_matmul,
  convolution,
  attention,
  elementwise,  // memory-bound streaming
  reduction,
  sparse,
  branchy,  // control-heavy, irregular
  io,
};
inline constexpr std::size_t kKernelClassCount = 8;

std::string_view to_string(KernelClass kernel);
std::optional<KernelClass> parse_kernel_class(std::string_view text);
const std::vector<std::string>& kernel_class_names();

// A set of device kinds, one bit per kind.
class DeviceKindSet {
 public:
  static DeviceKindSet all() { return DeviceKindSet((1u << kDeviceKindCount) - 1); }
  static DeviceKindSet none() { return DeviceKindSet(0); }
  bool contains(DeviceKind kind) const { return bits_ & bit(kind); }
  void insert(DeviceKind kind) { bits_ |= bit(kind); }
  void erase(DeviceKind kind) { bits_ &= ~bit(kind); }
  bool empty() const { return bits_ == 0; }
  std::uint8_t bits() const { return bits_; }
  bool operator==(const DeviceKindSet&) const = default;

 private:
  explicit DeviceKindSet(std::uint8_t bits) : bits_(bits) {}
  static std::uint8_t bit(DeviceKind kind) {
    return static_cast<std::uint8_t>(1u << static_cast<unsigned>(kind));
  }
  std::uint8_t bits_;
};

struct Task {
  std::string name;
  KernelClass kernel = KernelClass::elementwise;
  Precision precision = Precision::fp32;
  // Beside the other one-byte fields, so that a task takes 96 bytes, not 104.
  DeviceKindSet allowed_kinds = DeviceKindSet::all();
  double flops = 0;         // arithmetic work (int8: operations)
  double bytes = 0;         // device-memory traffic
  double memory_bytes = 0;  // footprint that must fit the device's memory
  double input_bytes = 0;   // external input read from the job's data node
  // Measured or published seconds per device, when the input gives them (a cost
  // matrix); empty means "ask the performance model".
  std::vector<double> cost_seconds;
};

}  // namespace hetsched
