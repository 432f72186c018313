// The one gang placement rule of the simulator and the service: best fit on one node,
// then the tightest rack, then anywhere — and one-node mode refuses to spread.
#include "hetsched/stream/gang_placement.hpp"

#include <gtest/gtest.h>

namespace hetsched {
namespace {

TEST(GangPlacement, TheFullestNodeThatFitsTakesTheWholeGang) {
  const GangNodeRoom rooms[] = {{0, 0, 8}, {1, 0, 4}, {2, 1, 5}, {3, 1, 4}};
  const auto placed = place_gang(rooms, 4, GangSpread::one_node);
  ASSERT_TRUE(placed);
  EXPECT_EQ(*placed, (GangPlacement{{1, 4}}));  // 4 free fits exactly; ties to the first
  EXPECT_EQ(*place_gang(rooms, 5, GangSpread::racks_then_anywhere), (GangPlacement{{2, 5}}));
}

TEST(GangPlacement, OneNodeModeRefusesWhatOnlyFitsSpread) {
  const GangNodeRoom rooms[] = {{0, 0, 3}, {1, 0, 3}};
  EXPECT_FALSE(place_gang(rooms, 4, GangSpread::one_node));
  EXPECT_FALSE(place_gang(rooms, 7, GangSpread::racks_then_anywhere));  // 6 free in all
  EXPECT_FALSE(place_gang(rooms, 0, GangSpread::racks_then_anywhere));
}

TEST(GangPlacement, SpreadPrefersTheTightestRackThenTheMostFreeNodes) {
  // Rack 0 holds 6 free, rack 1 holds 5: a gang of 5 fits both, rack 1 is tighter.
  const GangNodeRoom rooms[] = {{0, 0, 3}, {1, 0, 3}, {2, 1, 2}, {3, 1, 3}};
  EXPECT_EQ(*place_gang(rooms, 5, GangSpread::racks_then_anywhere),
            (GangPlacement{{3, 3}, {2, 2}}));
  // No rack fits 7: every node, the most free first (ties in candidate order).
  EXPECT_EQ(*place_gang(rooms, 7, GangSpread::racks_then_anywhere),
            (GangPlacement{{0, 3}, {1, 3}, {3, 1}}));
}

}  // namespace
}  // namespace hetsched
