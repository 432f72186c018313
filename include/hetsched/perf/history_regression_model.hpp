// HistoryRegressionModel: a performance model learned from measurements, after
// StarPU's history-based and non-linear regression models (Augonnet et al.,
// "StarPU: a unified platform for task scheduling on heterogeneous multicore
// architectures", 2011). For each (kernel, device model) it keeps
//  - a history table keyed by the task's data size (bytes), holding the count,
//    mean and variance of measured seconds (Welford's online update), used as is
//    when the size has been seen;
//  - a regression t(n) = a·nᵇ + c over the table's mean times, for unseen sizes:
//    for each c on a grid below the smallest time, log(t − c) = log a + b·log n is
//    fitted by least squares (Eigen), and the (a, b, c) with the smallest relative
//    squared error wins.
// Kernels are told apart by the task name's prefix (the runtime's kernel names,
// e.g. "gemm_nt_2_1_0" → gemm_nt), else by the task's kernel class. Predictions for
// pairs never measured come from a fallback model (the roofline model).
// The model is saved to and loaded from a JSON file stamped with a format version
// and the machine's device models; a corrupt or stale file is rejected with an
// InputError that says to run `hetsched calibrate`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hetsched/perf/perf_model.hpp"

namespace hetsched {

struct PowerLawFit {
  double a = 0, b = 0, c = 0;
  double evaluate(double n) const;
};

// The a·nᵇ + c fit of (size, seconds) points; nullopt with fewer than two distinct sizes.
std::optional<PowerLawFit> fit_power_law(const std::vector<std::pair<double, double>>& points);

class HistoryRegressionModel final : public PerfModel {
 public:
  static constexpr int kFormatVersion = 1;

  // `fallback` answers for (kernel, device) pairs without measurements; it must outlive this.
  HistoryRegressionModel(const Cluster& cluster, const PerfModel& fallback);

  std::string_view name() const override { return "history-regression"; }

  // Adds one measurement (online update); the pair's regression is refitted.
  void record(const Task& task, const Device& device, double seconds);
  void record(const std::string& kernel, const std::string& device_model, double size_bytes,
              double seconds);

  // The kernel name a task is known by.
  static std::string kernel_key(const Task& task);

  // History only (nullopt when the size was never measured) and regression only.
  std::optional<double> history_seconds(const std::string& kernel, const std::string& device_model,
                                        double size_bytes) const;
  std::optional<double> regression_seconds(const std::string& kernel,
                                           const std::string& device_model,
                                           double size_bytes) const;
  std::size_t entry_count() const { return entries_.size(); }
  std::size_t sample_count() const;

  // Saves to `path`, stamped with the machine fingerprint.
  void save(const std::string& path, const std::string& machine_fingerprint) const;
  // Loads `path` into this model (replacing what it held). Throws InputError, naming
  // the file and suggesting recalibration, when the file is missing, corrupt, of
  // another format version or made on a machine lacking one of this machine's device
  // models (fingerprints are device models joined by ';').
  void load(const std::string& path, const std::string& machine_fingerprint);

 protected:
  double predict_seconds(const Task& task, const Device& device, std::size_t pstate) const override;

 private:
  struct Sample {
    std::uint64_t count = 0;
    double mean = 0;
    double m2 = 0;  // sum of squared deviations (Welford)
  };
  struct Entry {
    std::map<double, Sample> history;  // by size in bytes
    std::optional<PowerLawFit> regression;
  };
  void refit(Entry& entry);

  const PerfModel& fallback_;
  std::map<std::pair<std::string, std::string>, Entry> entries_;  // (kernel, device model)
};

}  // namespace hetsched
