// Failure prediction from telemetry: a Poisson CUSUM on correctable errors and an
// EWMA of the temperature residual (see the header for the formulas and sources).
#include "hetsched/fault/failure_predictor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "hetsched/core/input_error.hpp"

namespace hetsched {

void PredictorOptions::validate() const {
  if (!(ecc_reference_per_hour > 0) || !(ecc_shift_per_hour > ecc_reference_per_hour) ||
      std::isinf(ecc_shift_per_hour))
    throw InputError(
        fmt::format("predictor: the error rate to detect must be more than the healthy rate, and "
                    "both more than 0, got {} and {} per hour",
                    ecc_shift_per_hour, ecc_reference_per_hour));
  if (!(ecc_cusum_threshold > 0))
    throw InputError(
        fmt::format("predictor: CUSUM threshold must be more than 0, got {}", ecc_cusum_threshold));
  if (!(temperature_ewma_weight > 0 && temperature_ewma_weight <= 1))
    throw InputError(
        fmt::format("predictor: EWMA weight must be in (0, 1], got {}", temperature_ewma_weight));
  if (!(inspection_seconds >= 0))
    throw InputError(fmt::format("predictor: inspection time must be 0 seconds or more, got {}",
                                 inspection_seconds));
  telemetry.validate();
}

FailurePredictor::FailurePredictor(std::size_t devices, const PredictorOptions& options)
    : options_(options), cusum_(devices, 0.0), ewma_(devices, 0.0), seen_(devices, false) {
  const double mu0 = options.ecc_reference_per_hour, mu1 = options.ecc_shift_per_hour;
  reference_per_sample_ =
      (mu1 - mu0) / std::log(mu1 / mu0) * options.telemetry.sample_seconds / 3600.0;
}

bool FailurePredictor::observe(std::uint32_t device, const TelemetrySample& sample,
                               double expected_celsius) {
  double& s = cusum_[device];
  s = std::max(0.0, s + double(sample.correctable_errors) - reference_per_sample_);
  const double residual = sample.celsius - expected_celsius;
  double& e = ewma_[device];
  const double w = options_.temperature_ewma_weight;
  e = seen_[device] ? w * residual + (1 - w) * e : residual;
  seen_[device] = true;
  const bool errors = s >= options_.ecc_cusum_threshold;
  const bool heat = e >= options_.temperature_residual_celsius;
  return options_.require_both ? errors && heat : errors || heat;
}

void FailurePredictor::reset(std::uint32_t device) {
  cusum_[device] = 0;
  ewma_[device] = 0;
  seen_[device] = false;
}

}  // namespace hetsched
