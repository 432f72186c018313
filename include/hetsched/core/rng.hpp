// Rng: the one seeded random generator every random choice goes through.
// xoshiro256** seeded by splitmix64, with distributions written out here so that
// the same seed gives the same numbers on every platform and standard library.
#pragma once

#include <cstdint>
#include <vector>

namespace hetsched {

class Rng {
 public:
  explicit Rng(std::uint64_t seed = 1);

  std::uint64_t next_u64();
  double uniform();                          // [0, 1)
  double uniform(double low, double high);   // [low, high)
  std::uint64_t below(std::uint64_t bound);  // [0, bound), unbiased; bound > 0
  double exponential(double mean);
  double normal(double mean, double stddev);
  double weibull(double scale, double shape);
  // Index drawn with probability proportional to weights[i] (weights >= 0, sum > 0).
  std::size_t weighted_index(const std::vector<double>& weights);
  // A generator for an independent stream, derived deterministically from this one.
  Rng split();

 private:
  std::uint64_t state_[4];
};

}  // namespace hetsched
