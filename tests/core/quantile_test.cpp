// nearest_rank_quantile on samples whose nearest-rank quantiles are known by hand.
#include "hetsched/core/quantile.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace hetsched {
namespace {

TEST(NearestRankQuantile, KnownRanks) {
  std::vector<double> four{4, 1, 3, 2};
  EXPECT_EQ(nearest_rank_quantile(four, 0.5), 2.0);   // ceil(2) = 2nd smallest
  EXPECT_EQ(nearest_rank_quantile(four, 0.51), 3.0);  // ceil(2.04) = 3rd
  EXPECT_EQ(nearest_rank_quantile(four, 0.0), 1.0);   // rank clamped to 1
  EXPECT_EQ(nearest_rank_quantile(four, 1.0), 4.0);
  std::vector<double> hundred(100);
  std::iota(hundred.rbegin(), hundred.rend(), 1.0);  // 100, 99, ..., 1
  EXPECT_EQ(nearest_rank_quantile(hundred, 0.99), 99.0);
  EXPECT_EQ(nearest_rank_quantile(hundred, 0.95), 95.0);
  std::vector<double> one{7};
  EXPECT_EQ(nearest_rank_quantile(one, 0.99), 7.0);
}

TEST(NearestRankQuantile, EmptySampleIsZero) {
  std::vector<double> none;
  EXPECT_EQ(nearest_rank_quantile(none, 0.5), 0.0);
}

}  // namespace
}  // namespace hetsched
