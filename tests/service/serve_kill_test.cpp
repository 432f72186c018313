// `hetsched serve` as a child process: kill -9 at a point the seeded Rng draws, during
// submissions from several client threads; after the restart every acknowledged job is
// there and runs to completion. Also: bad flags are one line and exit status 2.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "../support/cli_runner.hpp"
#include "service_benchmark.hpp"
#include "service_test_support.hpp"
#include "support/serve_process.hpp"

namespace hetsched {
namespace {

using testing::eventually;
using testing::TempDir;

TEST(ServeProcess, KillNineDuringSubmissionsLosesNoAcknowledgedJob) {
  TempDir dir;
  const std::string token = "kill-test-token-0123456789";
  {
    std::FILE* f = std::fopen(dir.file("token").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fprintf(f, "%s\n", token.c_str());
    std::fclose(f);
  }
  RestartDeployment deployment(HETSCHED_CLI_PATH,
                               {"--state", "sqlite:" + dir.file("state.db"), "--engine", "sim",
                                "--token-file", dir.file("token"), "--time-scale", "1000000"},
                               token);
  Rng rng(2026);
  const AckedLossResult result = measure_acked_loss(deployment, 150, 4, rng);
  EXPECT_EQ(result.acknowledged, 150u);  // every submission was retried until accepted
  EXPECT_GT(result.killed_after, 0u);
  EXPECT_EQ(result.lost, 0u);
  const std::set<std::uint64_t> acknowledged(result.acknowledged_ids.begin(),
                                             result.acknowledged_ids.end());
  // Every acknowledged job completes after the restart.
  const std::string address = deployment.addresses().at(0);
  std::size_t completed = 0;
  HttpAnswer last;
  ASSERT_TRUE(eventually([&] {
    const HttpAnswer answer = http_call(address, "GET", "/v1/jobs", token);
    last = answer;
    if (answer.status != 200) return false;
    completed = 0;
    const nlohmann::json listing = nlohmann::json::parse(answer.body);
    for (const auto& job : listing.at("jobs"))
      if (acknowledged.count(job.at("id").get<std::uint64_t>()) && job.at("state") == "completed")
        ++completed;
    return completed == acknowledged.size();
  })) << completed
      << " of " << acknowledged.size() << " completed; " << address << " answered " << last.status
      << ": " << last.body.substr(0, 300);
}

TEST(ServeProcess, SigtermEndsTheServerWithinItsLimitWhileAClientUploadsForever) {
  TempDir dir;
  ServeProcess serve(HETSCHED_CLI_PATH,
                     {"--state", "sqlite:" + dir.file("state.db"), "--engine", "sim"});
  // A client that announces a megabyte and sends it a byte every 100 ms (hours to finish).
  const int port = std::stoi(serve.address().substr(serve.address().rfind(':') + 1));
  const int socket_fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(socket_fd, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<std::uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(socket_fd, reinterpret_cast<const sockaddr*>(&to), sizeof to), 0);
  const std::string head =
      "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer x\r\n"
      "Content-Length: 1000000\r\n\r\n";
  ASSERT_EQ(::send(socket_fd, head.data(), head.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(head.size()));
  std::atomic<bool> uploading{true};
  std::thread slow_client([&] {
    while (uploading && ::send(socket_fd, "#", 1, MSG_NOSIGNAL) == 1)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the client's pace
  });
  ASSERT_EQ(::kill(serve.pid(), SIGTERM), 0);
  int status = 0;
  const bool ended = eventually([&] { return ::waitpid(serve.pid(), &status, WNOHANG) > 0; },
                                std::chrono::seconds(10));
  uploading = false;
  slow_client.join();
  ::close(socket_fd);
  ASSERT_TRUE(ended) << "still running 10 s after SIGTERM";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  serve.forget();  // reaped here
}

TEST(ServeProcess, BadFlagsAreOneLineAndExitStatusTwo) {
  for (const char* flags :
       {"--state etcdd://127.0.0.1:2379", "--engine slurmm", "--listen nonsense",
        "--policy hefty --state sqlite:/tmp/hetsched-x/s.db", "--time-scale -1",
        "--time-scale maximum", "--engine slurm --time-scale max"}) {
    const auto r = testing::run_cli(std::string("serve ") + flags);
    EXPECT_EQ(r.status, 2) << flags << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << flags << ": " << r.err;
  }
}

}  // namespace
}  // namespace hetsched
