// GavelThroughputTable: Gavel's measured training throughputs (OSDI 2020,
// `simulation_throughputs.json`): steps per second of each (model, scale factor)
// job type on each GPU type, alone, spread over several servers
// ("<gpu>_unconsolidated"), and co-located in pairs on one GPU (space sharing).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace hetsched {

struct GavelJobType {
  std::string model;  // e.g. "ResNet-50 (batch size 64)"
  int scale_factor = 1;
  // Steps per second per device type (index into GavelThroughputTable::device_types);
  // 0 when not measured.
  std::vector<double> alone;
  std::vector<double> unconsolidated;  // gang spread over servers; 0 when not measured
};

struct GavelThroughputTable {
  std::vector<std::string> device_types;  // catalog names: "K80", "P100", "V100"
  std::vector<GavelJobType> job_types;    // sorted by (model, scale factor)
  // (job type a, job type b, device type) -> (steps/s of a, steps/s of b) when a and b
  // share one device.
  std::map<std::tuple<std::size_t, std::size_t, std::size_t>, std::pair<double, double>> colocated;

  std::optional<std::size_t> find(const std::string& model, int scale_factor) const;
  std::optional<std::size_t> device_index(const std::string& name) const;  // case-insensitive
  std::vector<std::string> models() const;  // distinct model names, sorted
  // Models measured at this scale factor (scale > 1: the distributed ones).
  std::vector<std::string> models_with_scale(int scale_factor) const;
  std::optional<std::pair<double, double>> colocated_rates(std::size_t a, std::size_t b,
                                                           std::size_t device) const;
};

// Reads the JSON file; throws InputError naming the file and the offending key.
GavelThroughputTable load_gavel_throughputs(const std::string& path);

}  // namespace hetsched
