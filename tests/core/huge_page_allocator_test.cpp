// LargeVector and the huge-page mapping behind its large blocks, and reserve_touched,
// which writes a vector's room before a clock starts.
#include "hetsched/core/huge_page_allocator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hetsched/core/reserve_touched.hpp"

namespace hetsched {
namespace {

TEST(HugePageVector, KeepsValuesAcrossGrowthAndLargeBlocks) {
  LargeVector<std::uint64_t> values;
  const std::size_t n = 3 * kHugePageBytes / sizeof(std::uint64_t);  // grows past 2 MiB
  for (std::uint64_t i = 0; i < n; ++i) values.push_back(i * 2654435761u);
  ASSERT_EQ(values.size(), n);
  for (std::uint64_t i = 0; i < n; i += 4099) EXPECT_EQ(values[i], i * 2654435761u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(values.data()) % alignof(std::uint64_t), 0u);
  LargeVector<double> zeros(n, 0.0);
  EXPECT_EQ(std::count(zeros.begin(), zeros.end(), 0.0), static_cast<std::ptrdiff_t>(n));
  LargeVector<double> copy = zeros;
  copy.back() = 1;
  EXPECT_EQ(zeros.back(), 0.0);
}

// The mapping behind large LargeVector blocks (which sanitized builds, as the test suite
// is, leave to operator new): whole huge pages from a 2 MiB boundary, every byte usable.
TEST(HugePageVector, MappedBlocksStartOnAHugePageAndAreWritableToTheirEnd) {
  for (const std::size_t bytes : {kHugePageBytes, 3 * kHugePageBytes + 1}) {
    auto* block = static_cast<unsigned char*>(map_huge_pages(bytes));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block) % kHugePageBytes, 0u);
    // Rounded up to whole huge pages: the last byte of the last one is ours too.
    const std::size_t length = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    block[0] = 1;
    block[bytes - 1] = 2;
    EXPECT_EQ(block[0], 1);
    EXPECT_EQ(block[bytes - 1], 2);
    block[length - 1] = 3;
    EXPECT_EQ(block[length - 1], 3);
    unmap_huge_pages(block, bytes);
  }
}

TEST(ReserveTouched, GivesRoomAndKeepsTheContents) {
  std::vector<int> values{3, 1, 2};
  reserve_touched(values, 1000);
  EXPECT_GE(values.capacity(), 1000u);
  EXPECT_EQ(values, (std::vector<int>{3, 1, 2}));
  const int* const data = values.data();
  for (int i = 0; i < 997; ++i) values.push_back(i);  // no reallocation: the room is there
  EXPECT_EQ(values.data(), data);
  reserve_touched(values, 10);  // already larger: nothing changes
  EXPECT_EQ(values.size(), 1000u);
  EXPECT_EQ(values[0], 3);
}

}  // namespace
}  // namespace hetsched
