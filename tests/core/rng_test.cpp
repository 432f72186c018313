#include "hetsched/core/rng.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace hetsched {
namespace {

TEST(Rng, SameSeedSameStream) {
  Rng a(42), b(42), c(43);
  bool differs_from_other_seed = false;
  for (int i = 0; i < 1000; ++i) {
    const auto x = a.next_u64();
    EXPECT_EQ(x, b.next_u64());
    differs_from_other_seed |= x != c.next_u64();
  }
  EXPECT_TRUE(differs_from_other_seed);
}

TEST(Rng, UniformStaysInRangeWithTheRightMean) {
  Rng rng(7);
  double sum = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform(2.0, 4.0);
    ASSERT_GE(u, 2.0);
    ASSERT_LT(u, 4.0);
    sum += u;
  }
  EXPECT_NEAR(sum / n, 3.0, 0.01);
}

TEST(Rng, BelowIsUnbiasedOverSmallBounds) {
  Rng rng(9);
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < 30000; ++i) ++counts[rng.below(3)];
  for (int c : counts) EXPECT_NEAR(c, 10000, 400);
}

TEST(Rng, ExponentialHasTheRequestedMean) {
  Rng rng(11);
  double sum = 0;
  for (int i = 0; i < 100000; ++i) sum += rng.exponential(5.0);
  EXPECT_NEAR(sum / 100000, 5.0, 0.1);
}

TEST(Rng, WeightedIndexFollowsWeights) {
  Rng rng(3);
  std::vector<double> weights{0.7, 0.1, 0.15, 0.05};
  std::vector<int> counts(4, 0);
  for (int i = 0; i < 100000; ++i) ++counts[rng.weighted_index(weights)];
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(counts[i] / 100000.0, weights[i], 0.01);
}

}  // namespace
}  // namespace hetsched
