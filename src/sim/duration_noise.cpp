#include "hetsched/sim/duration_noise.hpp"

#include <fmt/format.h>

#include <cmath>

#include "hetsched/core/rng.hpp"

namespace hetsched {

Status check_duration_noise(const DurationNoiseOptions& options) {
  if (!std::isfinite(options.sigma) || options.sigma < 0)
    return failure(
        fmt::format("duration noise sigma must be a finite number >= 0, got {}", options.sigma));
  if (!(options.straggler_probability >= 0 && options.straggler_probability <= 1))
    return failure(fmt::format("straggler probability must be in [0, 1], got {}",
                               options.straggler_probability));
  if (!std::isfinite(options.straggler_slowdown) || options.straggler_slowdown < 1)
    return failure(fmt::format("straggler slowdown must be a finite number >= 1, got {}",
                               options.straggler_slowdown));
  return {};
}

double DurationNoise::factor(TaskIndex task) const {
  if (!options_.enabled()) return 1;
  // A stream of its own per task: the seed and the index, mixed so that neighbouring
  // tasks and seeds draw unrelated numbers (Rng seeds itself through splitmix64).
  Rng rng(seed_ ^ (0x9E3779B97F4A7C15ull * (std::uint64_t{task} + 1)) ^ 0xD1B54A32D192ED03ull);
  const double sigma = options_.sigma;
  double f = std::exp(rng.normal(-sigma * sigma / 2, sigma));
  if (rng.uniform() < options_.straggler_probability) f *= options_.straggler_slowdown;
  return f;
}

}  // namespace hetsched
