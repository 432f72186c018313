#include "hetsched/core/closest_names.hpp"

#include <gtest/gtest.h>

namespace hetsched {
namespace {

TEST(ClosestNames, EditDistanceIsLevenshteinIgnoringCase) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("H100", "h100"), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(ClosestNames, NearestFirst) {
  const std::vector<std::string> valid{"greedy-eft", "round-robin", "random"};
  const auto nearest = closest_names("randm", valid, 2);
  ASSERT_EQ(nearest.size(), 2u);
  EXPECT_EQ(nearest[0], "random");
}

TEST(ClosestNames, MessageNamesTheWrongNameAndSuggestions) {
  const std::string message = unknown_name_message("policy", "gredy-eft", {"greedy-eft", "random"});
  EXPECT_NE(message.find("unknown policy 'gredy-eft'"), std::string::npos);
  EXPECT_NE(message.find("closest: greedy-eft"), std::string::npos);
}

}  // namespace
}  // namespace hetsched

namespace hetsched {
namespace {

TEST(ClosestNames, AShortenedNameFindsItsFullForm) {
  const auto nearest = closest_names("H10", {"K80", "P100", "V100", "H100-SXM", "H200"}, 2);
  ASSERT_EQ(nearest.size(), 2u);
  EXPECT_EQ(nearest[0], "H100-SXM");  // the full form, though K80 is fewer edits away
  EXPECT_EQ(closest_names("A100", {"V100", "A100-80GB"}, 1).front(), "A100-80GB");
}

TEST(ClosestNames, ThePartAUserMeantMayBeAnywhereInTheName) {
  // "v5e" is the end of "TPU-v5e"; whole-name distance would prefer the short "H20".
  const std::vector<std::string> parts{"H20", "V100", "TPU-v4", "TPU-v5e", "TPU-v5p"};
  EXPECT_EQ(closest_names("v5e", parts, 1).front(), "TPU-v5e");
  EXPECT_EQ(closest_names("V5E", parts, 1).front(), "TPU-v5e");
  EXPECT_EQ(closest_names("sxm", {"A100", "H100-SXM", "H100-PCIe"}, 1).front(), "H100-SXM");
}

}  // namespace
}  // namespace hetsched
