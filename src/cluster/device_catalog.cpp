// The catalog of real parts. Figures are dense (no sparsity) peak rates per chip
// from the vendors' public datasheets; matrix rates are tensor-core / MXU / AMX
// rates, vector rates the general-purpose units. Idle power, launch overhead,
// MTBF and price are not on datasheets: they are typical published figures
// (cloud list prices per device-hour, fleet failure studies) and any cluster file
// can override them.
#include "hetsched/cluster/device_catalog.hpp"

#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/units.hpp"

namespace hetsched {
namespace {

using units::gigabyte;
using units::teraflops;

// P-states at the given clock scales. Throughput scales with the clock; dynamic
// power with f·V², where voltage falls linearly to 60 % of nominal at zero clock.
std::vector<PState> dvfs_states(std::initializer_list<double> frequency_scales) {
  std::vector<PState> states;
  for (double f : frequency_scales) {
    const double voltage = 0.6 + 0.4 * f;
    states.push_back(PState{f, f, f * voltage * voltage});
  }
  return states;
}

struct Figures {
  const char* model;
  DeviceKind kind;
  std::array<double, kPrecisionCount> matrix_tflops;  // fp64, fp32, fp16/bf16, int8
  std::array<double, kPrecisionCount> vector_tflops;
  int compute_units;
  double memory_gb;
  double bandwidth_gb_per_s;
  double idle_watts;
  double peak_watts;
  double launch_overhead_us;
  double mtbf_hours;
  double price_per_hour;
};

DeviceSpec make_spec(const Figures& f) {
  DeviceSpec spec;
  spec.model = f.model;
  spec.kind = f.kind;
  for (std::size_t p = 0; p < kPrecisionCount; ++p) {
    spec.matrix_flops[p] = f.matrix_tflops[p] * teraflops;
    spec.vector_flops[p] = f.vector_tflops[p] * teraflops;
  }
  spec.compute_units = f.compute_units;
  spec.memory_bytes = f.memory_gb * gigabyte;
  spec.memory_bandwidth = f.bandwidth_gb_per_s * gigabyte;
  spec.idle_watts = f.idle_watts;
  spec.peak_watts = f.peak_watts;
  spec.launch_overhead_seconds = f.launch_overhead_us * units::microsecond;
  spec.mtbf_hours = f.mtbf_hours;
  spec.price_per_hour = f.price_per_hour;
  spec.pstates = dvfs_states({1.0, 0.85, 0.7, 0.55});
  return spec;
}

std::vector<DeviceSpec> build_catalog() {
  using K = DeviceKind;
  // clang-format off
  const Figures figures[] = {
    // model        kind    matrix fp64,fp32,fp16,int8     vector fp64,fp32,fp16,int8   units  GB   GB/s   idle peak  us   MTBF h   $/h
    {"K80",         K::gpu, {1.455, 4.365, 4.365, 0},      {1.455, 4.365, 4.365, 0},    13,  12,   240,   25, 150,  8, 100000, 0.135},
    {"P100",        K::gpu, {5.3, 10.6, 21.2, 0},          {5.3, 10.6, 21.2, 0},        56,  16,   732,   30, 300,  6, 100000, 0.43},
    {"V100",        K::gpu, {7.8, 15.7, 125, 62.8},        {7.8, 15.7, 31.4, 62.8},     80,  32,   900,   40, 300,  5, 100000, 0.74},
    {"T4",          K::gpu, {0.25, 8.1, 65, 130},          {0.25, 8.1, 16.2, 32.4},     40,  16,   320,   10,  70,  5, 100000, 0.35},
    {"L4",          K::gpu, {0.49, 30.3, 121, 242.5},      {0.49, 30.3, 30.3, 60.6},    58,  24,   300,   12,  72,  5, 100000, 0.71},
    {"A100-80GB",   K::gpu, {19.5, 19.5, 312, 624},        {9.7, 19.5, 78, 78},        108,  80,  2039,   55, 400,  5, 100000, 2.93},
    {"H100-SXM",    K::gpu, {67, 67, 989, 1979},           {34, 67, 134, 134},         132,  80,  3350,   70, 700,  4, 100000, 4.50},
    {"H200",        K::gpu, {67, 67, 989, 1979},           {34, 67, 134, 134},         132, 141,  4800,   70, 700,  4, 100000, 5.00},
    // TPUs have no fp64; fp32 matmul runs as several bf16 passes on the MXUs.
    {"TPU-v4",      K::tpu, {0, 45.8, 275, 275},           {0, 4.3, 4.3, 8.6},           2,  32,  1200,   90, 192, 10, 100000, 3.22},
    {"TPU-v5e",     K::tpu, {0, 32.8, 197, 394},           {0, 3.1, 3.1, 6.2},           1,  16,   819,   60, 200, 10, 100000, 1.20},
    {"TPU-v5p",     K::tpu, {0, 76.5, 459, 918},           {0, 7.2, 7.2, 14.4},          2,  95,  2765,  120, 450, 10, 100000, 4.20},
    // CPUs: AVX-512 FMA rates; Sapphire Rapids adds AMX for bf16 and int8 matrices.
    {"EPYC-9654",   K::cpu, {3.69, 7.37, 14.7, 29.5},      {3.69, 7.37, 14.7, 29.5},    96, 768,  460.8, 100, 360,  1, 200000, 1.50},
    {"Xeon-8480+",  K::cpu, {3.58, 7.17, 114.7, 229.4},    {3.58, 7.17, 14.3, 28.7},    56, 512,  307.2,  90, 350,  1, 200000, 1.40},
  };
  // clang-format on
  std::vector<DeviceSpec> catalog;
  for (const auto& f : figures) catalog.push_back(make_spec(f));
  return catalog;
}

}  // namespace

const std::vector<DeviceSpec>& device_catalog() {
  static const std::vector<DeviceSpec> catalog = build_catalog();
  return catalog;
}

const DeviceSpec* find_catalog_part(std::string_view model) {
  for (const auto& spec : device_catalog())
    if (equals_ignoring_case(spec.model, model)) return &spec;
  return nullptr;
}

std::vector<std::string> catalog_model_names() {
  std::vector<std::string> names;
  for (const auto& spec : device_catalog()) names.push_back(spec.model);
  return names;
}

}  // namespace hetsched
