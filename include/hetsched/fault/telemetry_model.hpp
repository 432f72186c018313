// TelemetryModel: what a device's health sensors report in the simulator — its
// temperature and its count of correctable (ECC) memory errors — sampled every
// `sample_seconds`, as a fleet monitor reads nvidia-smi / DCGM or EDAC counters.
//
// The signals follow the field studies of GPU and DRAM failures (Schroeder,
// Pinheiro & Weber, SIGMETRICS 2009: correctable errors are the strongest
// predictor of uncorrectable ones and of replacements; Ostrouchov et al., SC 2020:
// GPU failures in Titan cluster around hot, worn devices):
//  - temperature: the steady temperature of the device's first-order thermal model
//    (ambient + power · R, see energy/thermal_model.hpp) at the power it draws at
//    the sample, plus Gaussian sensor noise;
//  - correctable errors: a Poisson count per sample at a healthy base rate.
// A device that will fail permanently degrades first: during the
// `degradation_lead_seconds` before its crash its error rate rises linearly from
// the base rate to `degraded_ecc_per_hour` and its temperature by up to
// `degraded_extra_celsius` (worn thermal paste, a failing fan, a leaking memory
// cell) — for a share `precursor_fraction` of the crashes, drawn per crash; the
// others come without warning. Healthy devices are not silent either: error bursts (a Poisson process of
// `bursts_per_device_hour`) raise both signals for `burst_seconds` and look like
// degradation — the source of false alarms, at a rate the user sets.
//
// The model is told when the device will crash (the simulator's ground truth) so
// that it can produce the symptoms; the predictor (failure_predictor.hpp) reads
// only the samples. Seeded: one random stream per device, split from the run's seed.
#pragma once

#include <cstdint>
#include <vector>

#include "hetsched/core/rng.hpp"

namespace hetsched {

struct TelemetryOptions {
  double sample_seconds = 60;
  double noise_celsius = 0.5;  // sensor noise, standard deviation
  double ecc_per_hour = 1;     // healthy correctable-error rate
  double degradation_lead_seconds = 1800;
  // Share of crashes that degrade visibly first; the others strike without warning
  // (field studies find a precursor before most failures, not all).
  double precursor_fraction = 0.7;
  double degraded_ecc_per_hour = 60;     // error rate reached at the crash
  double degraded_extra_celsius = 6;     // extra heat reached at the crash
  double bursts_per_device_hour = 0.01;  // healthy bursts (false alarms)
  double burst_seconds = 900;
  double burst_ecc_per_hour = 40;
  double burst_extra_celsius = 4;

  // Throws InputError on a sample period of 0 or less or a negative value.
  void validate() const;
};

struct TelemetrySample {
  double celsius = 0;
  double watts = 0;                      // the power the device reported with the sample
  std::uint32_t correctable_errors = 0;  // since the previous sample
};

class TelemetryModel {
 public:
  TelemetryModel(std::size_t devices, TelemetryOptions options, std::uint64_t seed);

  const TelemetryOptions& options() const { return options_; }
  // The sample of `device` at `now` (covering the last sample period) while it draws
  // `watts` and its thermal model puts it at `healthy_celsius`; `next_crash_seconds`
  // is when it will crash (infinity: not scheduled).
  TelemetrySample sample(std::uint32_t device, double now, double watts, double healthy_celsius,
                         double next_crash_seconds);

 private:
  TelemetryOptions options_;
  std::uint64_t seed_ = 0;
  std::vector<Rng> streams_;
  std::vector<double> burst_start_;  // per device: the current or next burst
};

// A Poisson-distributed count with the given mean, drawn from `rng`.
std::uint32_t poisson_count(Rng& rng, double mean);

}  // namespace hetsched
