// An allocation the machine cannot hold is refused before it is made, with what asked for
// it, the size and the limit in one line.
#include "hetsched/core/available_memory.hpp"

#include <gtest/gtest.h>

#include <string>

#include "hetsched/core/input_error.hpp"

namespace hetsched {
namespace {

std::string memory_refusal(double bytes, std::uint64_t available) {
  try {
    check_memory_fits(bytes, "planning job 'wide' (100000 tasks on 100000 devices)", available);
  } catch (const InputError& error) {
    return error.message();
  }
  return "";
}

TEST(AvailableMemory, AnAllocationThatDoesNotFitIsRefusedWithWhatAskedTheSizeAndTheLimit) {
  constexpr std::uint64_t kEightGigabytes = 8'000'000'000;
  EXPECT_EQ(memory_refusal(8e9, kEightGigabytes), "");
  EXPECT_EQ(memory_refusal(80e9, kEightGigabytes),
            "planning job 'wide' (100000 tasks on 100000 devices) needs about 80.0 GB, and the "
            "machine has 8.0 GB available");
  EXPECT_GT(available_memory_bytes(), 0u);
}

}  // namespace
}  // namespace hetsched
