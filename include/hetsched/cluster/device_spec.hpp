// DeviceSpec: the figures of one part (a CPU socket, a GPU, a TPU chip) as its
// datasheet gives them, plus the P-states the simulator and energy rules use.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetsched {

enum class DeviceKind : std::uint8_t { cpu, gpu, tpu };
inline constexpr std::size_t kDeviceKindCount = 3;

// Numeric precision of a task's arithmetic. fp16 stands for bf16/fp16 alike.
enum class Precision : std::uint8_t { fp64, fp32, fp16, int8 };
inline constexpr std::size_t kPrecisionCount = 4;

std::string_view to_string(DeviceKind kind);
std::string_view to_string(Precision precision);
std::optional<DeviceKind> parse_device_kind(std::string_view text);
std::optional<Precision> parse_precision(std::string_view text);  // accepts bf16 as fp16
const std::vector<std::string>& device_kind_names();
const std::vector<std::string>& precision_names();

// A dynamic voltage and frequency scaling state. P-state 0 is the fastest.
struct PState {
  double frequency_scale = 1.0;  // clock relative to nominal
  double speed_scale = 1.0;      // compute throughput relative to nominal
  double power_scale = 1.0;      // dynamic power relative to nominal (~ f·V²)
  bool operator==(const PState&) const = default;
};

struct DeviceSpec {
  std::string model;
  DeviceKind kind = DeviceKind::gpu;
  // Dense peak rate in flop/s (int8: op/s) on matrix units (tensor cores, MXUs, AMX),
  // used by matmul-like kernels; 0 means the precision is not supported.
  std::array<double, kPrecisionCount> matrix_flops{};
  // Peak rate on the general-purpose vector units, used by every other kernel.
  std::array<double, kPrecisionCount> vector_flops{};
  int compute_units = 1;        // cores, SMs or TensorCores
  double memory_bytes = 0;      // device memory (host DRAM for a CPU socket)
  double memory_bandwidth = 0;  // bytes/s
  double idle_watts = 0;
  double peak_watts = 0;  // board power / TDP at full load
  std::vector<PState> pstates = std::vector<PState>(1);  // nominal only
  double launch_overhead_seconds = 0;
  double mtbf_hours = 0;      // mean time between failures of one device
  double price_per_hour = 0;  // on-demand price of the device, in USD

  bool operator==(const DeviceSpec&) const = default;

  bool supports(Precision p) const {
    return matrix_flops[static_cast<std::size_t>(p)] > 0 ||
           vector_flops[static_cast<std::size_t>(p)] > 0;
  }
};

}  // namespace hetsched
