// Telemetry of device health: temperature and correctable-error counts, with a
// degradation ramp before permanent failures and healthy bursts (see the header).
#include "hetsched/fault/telemetry_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "hetsched/core/input_error.hpp"

namespace hetsched {

void TelemetryOptions::validate() const {
  if (!(sample_seconds > 0))
    throw InputError(
        fmt::format("telemetry sample period must be more than 0 seconds, got {}", sample_seconds));
  if (!(precursor_fraction >= 0 && precursor_fraction <= 1))
    throw InputError(
        fmt::format("telemetry: precursor fraction must be in [0, 1], got {}", precursor_fraction));
  for (double v : {noise_celsius, ecc_per_hour, degradation_lead_seconds, degraded_ecc_per_hour,
                   degraded_extra_celsius, bursts_per_device_hour, burst_seconds,
                   burst_ecc_per_hour, burst_extra_celsius})
    if (!(v >= 0) || std::isinf(v))
      throw InputError(fmt::format(
          "telemetry rates, durations and temperatures must be finite and 0 or more, got {}", v));
}

std::uint32_t poisson_count(Rng& rng, double mean) {
  if (!(mean > 0)) return 0;
  if (mean > 64)
    return static_cast<std::uint32_t>(std::max(0.0, std::round(rng.normal(mean, std::sqrt(mean)))));
  // Arrivals of a unit-rate Poisson process within `mean`.
  std::uint32_t count = 0;
  for (double t = rng.exponential(1.0); t < mean; t += rng.exponential(1.0)) ++count;
  return count;
}

TelemetryModel::TelemetryModel(std::size_t devices, TelemetryOptions options, std::uint64_t seed)
    : options_(options), seed_(seed), burst_start_(devices, 0.0) {
  Rng root(seed ^ 0x74656c656d657472ULL);
  streams_.reserve(devices);
  for (std::size_t d = 0; d < devices; ++d) streams_.emplace_back(root.next_u64());
  for (std::size_t d = 0; d < devices; ++d)
    burst_start_[d] = options_.bursts_per_device_hour > 0
                          ? streams_[d].exponential(3600.0 / options_.bursts_per_device_hour)
                          : std::numeric_limits<double>::infinity();
}

TelemetrySample TelemetryModel::sample(std::uint32_t device, double now, double watts,
                                       double healthy_celsius, double next_crash_seconds) {
  const TelemetryOptions& o = options_;
  Rng& rng = streams_[device];
  const double from = now - o.sample_seconds;
  // Expected errors over [from, now]: the base rate, plus the degradation ramp
  // (integrated exactly: it is linear), plus the overlap with a burst.
  double errors = o.ecc_per_hour * o.sample_seconds / 3600.0;
  double extra_celsius = 0;
  const double lead = o.degradation_lead_seconds;
  // Whether this crash shows a precursor: a draw of its own, fixed by the seed, the
  // device and the crash time, so every sample before it agrees.
  bool precursor = false;
  if (lead > 0 && next_crash_seconds - now < lead) {
    Rng draw(seed_ ^ (0x9e3779b97f4a7c15ULL * (device + 1)) ^
             std::bit_cast<std::uint64_t>(next_crash_seconds));
    precursor = draw.uniform() < o.precursor_fraction;
  }
  if (precursor) {
    const auto ramp = [&](double t) {  // 0 before the lead, 1 at the crash
      return std::clamp(1.0 - (next_crash_seconds - t) / lead, 0.0, 1.0);
    };
    const double a = std::max(from, next_crash_seconds - lead), b = now;
    if (b > a) {
      const double mean_ramp = 0.5 * (ramp(a) + ramp(b));
      errors += (o.degraded_ecc_per_hour - o.ecc_per_hour) * mean_ramp * (b - a) / 3600.0;
    }
    extra_celsius += o.degraded_extra_celsius * ramp(now);
  }
  // Bursts: draw the next one once the current one has ended.
  while (burst_start_[device] + o.burst_seconds < from)
    burst_start_[device] += o.burst_seconds + rng.exponential(3600.0 / o.bursts_per_device_hour);
  const double start = burst_start_[device], end = start + o.burst_seconds;
  const double overlap = std::max(0.0, std::min(now, end) - std::max(from, start));
  errors += (o.burst_ecc_per_hour - o.ecc_per_hour) * overlap / 3600.0;
  if (now >= start && now <= end) extra_celsius += o.burst_extra_celsius;

  TelemetrySample s;
  s.watts = watts;
  s.celsius = healthy_celsius + extra_celsius + rng.normal(0.0, o.noise_celsius);
  s.correctable_errors = poisson_count(rng, errors);
  return s;
}

}  // namespace hetsched
