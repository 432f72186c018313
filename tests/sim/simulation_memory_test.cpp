// A simulation the machine cannot hold is refused before anything is allocated, with the
// size asked and the limit in one line.
#include "hetsched/sim/simulation_memory.hpp"

#include <gtest/gtest.h>

#include "hetsched/core/input_error.hpp"

namespace hetsched {
namespace {

std::string refusal(std::uint64_t tasks, std::uint64_t devices, std::uint64_t copies,
                    std::uint64_t available) {
  try {
    check_simulation_fits(tasks, devices, copies, available);
  } catch (const InputError& error) {
    return error.message();
  }
  return "";
}

TEST(SimulationMemory, ARunThatDoesNotFitIsRefusedWithTheSizeAndTheLimit) {
  EXPECT_EQ(simulation_memory_bytes(1000, 10),
            1000 * kSimulationBytesPerTask + 10 * kSimulationBytesPerDevice);
  constexpr std::uint64_t kEightGigabytes = 8'000'000'000;
  // 100 million tasks: 32 GB, more than 8.
  const std::string message = refusal(100'000'000, 1024, 1, kEightGigabytes);
  EXPECT_NE(message.find("about 32.0 GB for 100000000 tasks on 1024 devices"), std::string::npos)
      << message;
  EXPECT_NE(message.find("8.0 GB available"), std::string::npos) << message;
  // 10 million tasks fit once (3.2 GB), not under three policies at once (9.6 GB).
  EXPECT_EQ(refusal(10'000'000, 1024, 1, kEightGigabytes), "");
  EXPECT_NE(refusal(10'000'000, 1024, 3, kEightGigabytes).find("under 3 policies"),
            std::string::npos);
  // 100,000 devices alone ask for about 0.1 GB.
  EXPECT_NE(refusal(0, 100'000, 1, 50'000'000), "");
  EXPECT_EQ(refusal(0, 100'000, 1, 200'000'000), "");
  EXPECT_GT(available_memory_bytes(), 0u);
}

}  // namespace
}  // namespace hetsched
