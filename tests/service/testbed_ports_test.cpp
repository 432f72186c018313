// The testbed scripts' port bases (scripts/testbed/ports.sh), run by bash as the scripts
// run them: `auto` picks a base whose whole span nothing listens on, `up` records it and
// the other actions read it back, a number is kept, and anything else is refused.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "hetsched/service/process_runner.hpp"
#include "service_test_support.hpp"

namespace hetsched {
namespace {

// Runs `testbed_port_base ACTION DIR REQUESTED SPAN` in bash with ports.sh sourced.
ProcessResult port_base(const std::string& action, const std::string& dir,
                        const std::string& requested, int span) {
  ProcessRequest request;
  request.argv = {"bash",
                  "-c",
                  "source \"$0\" && testbed_port_base \"$1\" \"$2\" \"$3\" \"$4\"",
                  std::string(HETSCHED_SOURCE_DIR) + "/scripts/testbed/ports.sh",
                  action,
                  dir,
                  requested,
                  std::to_string(span)};
  request.timeout = std::chrono::seconds(20);
  return run_process(request);
}

TEST(TestbedPorts, AutoPicksAFreeSpanAndLaterActionsReadTheRecordedBase) {
  testing::TempDir dir;
  const ProcessResult picked = port_base("up", dir.path().string(), "auto", 13);
  ASSERT_TRUE(picked.succeeded()) << picked.standard_error;
  const int base = std::stoi(picked.standard_output);
  EXPECT_GE(base, 20000);
  EXPECT_LT(base + 13, 30000);
  // Nothing listens anywhere in the span: a socket binds to each of its ports (with
  // SO_REUSEADDR, as the daemons bind, so a closed connection's TIME_WAIT does not count).
  for (int port = base; port < base + 13; ++port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    const int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0) << port;
    ::close(fd);
  }
  // `up` records the base (the scripts write DIR/port); `down` then reads it back
  // whatever the environment asks for.
  std::ofstream(dir.file("port")) << base << "\n";
  const ProcessResult down = port_base("down", dir.path().string(), "28817", 13);
  ASSERT_TRUE(down.succeeded()) << down.standard_error;
  EXPECT_EQ(std::stoi(down.standard_output), base);
  // `up` picks afresh even when a base is recorded.
  const ProcessResult again = port_base("up", dir.path().string(), "31000", 13);
  EXPECT_EQ(std::stoi(again.standard_output), 31000);
}

TEST(TestbedPorts, ANumberIsKeptAndAnythingElseRefused) {
  testing::TempDir dir;
  const ProcessResult fixed = port_base("up", dir.path().string(), "28817", 4);
  ASSERT_TRUE(fixed.succeeded());
  EXPECT_EQ(std::stoi(fixed.standard_output), 28817);
  for (const char* bad : {"soon", "80", "65535", ""}) {
    const ProcessResult refused = port_base("up", dir.path().string(), bad, 4);
    EXPECT_FALSE(refused.succeeded()) << bad;
    EXPECT_NE(refused.standard_error.find("port base"), std::string::npos) << bad;
  }
}

}  // namespace
}  // namespace hetsched
