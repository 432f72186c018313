// FailurePredictor: raises an alarm on a device from its telemetry alone — two
// classic change detectors, one per signal, that must agree (or either, if set):
//  - correctable errors: a one-sided Poisson CUSUM (Page 1954; Lucas, Technometrics
//    1985). With in-control rate μ0 (`ecc_reference_per_hour`) and the rate to
//    detect μ1 (`ecc_shift_per_hour`), per sample S ← max(0, S + x − k) with
//    k = (μ1 − μ0)/ln(μ1/μ0) (per sample period); alarm when S ≥ h
//    (`ecc_cusum_threshold`, in errors).
//  - temperature: an EWMA (Roberts 1959) of the residual, the reported
//    temperature minus what the thermal model expects at the reported power — so
//    load changes do not look like a trend; alarm when it exceeds
//    `temperature_residual_celsius`.
// The predictor is never told when devices fail; the simulator scores its alarms
// afterwards (precision, recall, lead time).
#pragma once

#include <cstdint>
#include <vector>

#include "hetsched/fault/telemetry_model.hpp"

namespace hetsched {

struct PredictorOptions {
  bool enabled = false;
  double ecc_reference_per_hour = 1;  // μ0: the healthy rate
  double ecc_shift_per_hour = 20;     // μ1: the rate to detect
  double ecc_cusum_threshold = 4;     // h, in errors
  double temperature_ewma_weight = 0.3;
  double temperature_residual_celsius = 1.5;
  bool require_both = true;  // false: either detector alarms
  // A drained device stays out until this long after its last alarming sample
  // (an inspection; a truly failing device keeps alarming until it fails).
  double inspection_seconds = 600;
  TelemetryOptions telemetry;

  // Throws InputError on rates that are not 0 < μ0 < μ1, a threshold or weight out
  // of range, or bad telemetry options.
  void validate() const;
};

class FailurePredictor {
 public:
  FailurePredictor(std::size_t devices, const PredictorOptions& options);

  // Reads one sample of `device` (period `sample_seconds`, expected healthy
  // temperature `expected_celsius`); true when the detectors say it is failing.
  bool observe(std::uint32_t device, const TelemetrySample& sample, double expected_celsius);
  // Forgets a device's history (a repaired or replaced device).
  void reset(std::uint32_t device);
  double ecc_statistic(std::uint32_t device) const { return cusum_[device]; }
  double temperature_statistic(std::uint32_t device) const { return ewma_[device]; }

 private:
  PredictorOptions options_;
  double reference_per_sample_ = 0;
  std::vector<double> cusum_, ewma_;
  std::vector<bool> seen_;
};

}  // namespace hetsched
