// The extender over HTTP: mounted on a cpp-httplib server under a prefix (as
// `hetsched serve` mounts it), and the `hetsched kube-extender` command run as a
// process, answering a recorded kube-scheduler request on loopback.
#include "hetsched/service/kube/kube_extender_http.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "../../support/cli_runner.hpp"
#include "hetsched/service/kube/kube_extender.hpp"
#include "kube_test_support.hpp"

extern char** environ;

namespace hetsched {
namespace {

using nlohmann::json;
using testing::kube_recording;
using testing::LoopbackServer;

TEST(KubeExtenderHttp, MountedUnderAPrefixServesTheVerbsAndHealth) {
  KubeExtender extender;
  LoopbackServer loopback;
  KubeExtenderHttp(extender, 32 * 1024).mount(loopback.server(), "/extender");
  loopback.start();
  httplib::Client client("127.0.0.1", loopback.port());

  auto filtered = client.Post("/extender/filter", kube_recording("filter_nodes_request.json"),
                              "application/json");
  ASSERT_TRUE(filtered);
  EXPECT_EQ(filtered->status, 200);
  EXPECT_EQ(filtered->get_header_value("Content-Type"), "application/json");
  const json result = json::parse(filtered->body);
  EXPECT_EQ(result["Nodes"]["items"].size(), 2u);

  auto prioritized = client.Post("/extender/prioritize",
                                 kube_recording("filter_nodes_request.json"), "application/json");
  ASSERT_TRUE(prioritized);
  EXPECT_EQ(prioritized->status, 200);
  EXPECT_EQ(json::parse(prioritized->body).size(), 4u);

  auto bound =
      client.Post("/extender/bind", kube_recording("bind_request.json"), "application/json");
  ASSERT_TRUE(bound);
  EXPECT_NE(json::parse(bound->body)["Error"].get<std::string>().find("left to kube-scheduler"),
            std::string::npos);

  auto health = client.Get("/extender/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(json::parse(health->body)["cached_nodes"], 4);

  auto garbage = client.Post("/extender/filter", "{\"Pod\": [", "application/json");
  ASSERT_TRUE(garbage);
  EXPECT_EQ(garbage->status, 400);
  EXPECT_FALSE(json::parse(garbage->body)["Error"].get<std::string>().empty());

  auto wrong_type = client.Post("/extender/filter", "Pod=x", "text/plain");
  ASSERT_TRUE(wrong_type);
  EXPECT_EQ(wrong_type->status, 415);

  const std::string huge = "{\"Pod\":\"" + std::string(40 * 1024, 'x') + "\"}";
  auto too_big = client.Post("/extender/filter", huge, "application/json");
  ASSERT_TRUE(too_big);
  EXPECT_EQ(too_big->status, 413);

  auto unmounted = client.Post("/filter", kube_recording("bind_request.json"), "application/json");
  ASSERT_TRUE(unmounted);
  EXPECT_EQ(unmounted->status, 404);
}

// Reads one line from fd within the deadline ("" when none came).
std::string read_line(int fd, std::chrono::milliseconds deadline) {
  std::string line;
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return "";
    pollfd waiting{fd, POLLIN, 0};
    if (::poll(&waiting, 1, static_cast<int>(left.count())) <= 0) return "";
    char c = 0;
    if (::read(fd, &c, 1) != 1) return "";
    if (c == '\n') return line;
    line += c;
  }
}

TEST(KubeExtenderCommand, ServesARecordedRequestAndStopsOnSigterm) {
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  const std::string nodes = std::string(HETSCHED_SOURCE_DIR) + "/tests/service/kube/nodes.json";
  std::vector<std::string> args{HETSCHED_CLI_PATH, "kube-extender", "--listen",
                                "127.0.0.1:0",     "--nodes",       nodes};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  ASSERT_EQ(posix_spawn(&pid, HETSCHED_CLI_PATH, &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);

  const std::string line = read_line(out[0], std::chrono::seconds(20));
  const std::string prefix = "hetsched kube-extender listening on http://127.0.0.1:";
  bool answered = false;
  if (line.starts_with(prefix)) {
    httplib::Client client("127.0.0.1", std::stoi(line.substr(prefix.size())));
    auto response = client.Post("/filter", kube_recording("filter_node_names_request.json"),
                                "application/json");
    if (response && response->status == 200) {
      const json result = json::parse(response->body);
      EXPECT_EQ(result["NodeNames"], (json{"gpu-h100-1", "gpu-a100-1"}));
      answered = true;
    }
  }
  ::kill(pid, SIGTERM);
  int status = -1;
  const bool ended = testing::wait_until([&] { return ::waitpid(pid, &status, WNOHANG) == pid; },
                                         std::chrono::seconds(20));
  if (!ended) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  ::close(out[0]);
  EXPECT_TRUE(line.starts_with(prefix)) << line;
  EXPECT_TRUE(answered);
  ASSERT_TRUE(ended) << "kube-extender did not stop on SIGTERM";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST(KubeExtenderCommand, BadOptionsExitWithStatusTwo) {
  auto result = testing::run_cli("kube-extender --listen nowhere");
  EXPECT_EQ(result.status, 2);
  EXPECT_NE(result.err.find("HOST:PORT"), std::string::npos) << result.err;
  result = testing::run_cli("kube-extender --listen 127.0.0.1:0 --nodes /nonexistent/nodes.json");
  EXPECT_EQ(result.status, 2);
  EXPECT_NE(result.err.find("/nonexistent/nodes.json"), std::string::npos) << result.err;
  result = testing::run_cli("kube-extender --listen 127.0.0.1:0 --kube-token-file /tmp/x");
  EXPECT_EQ(result.status, 2);
  result = testing::run_cli("kube-extender --listen 127.0.0.1:0 --kube-api ftp://x");
  EXPECT_EQ(result.status, 2);
  const std::string bad_nodes =
      std::string(HETSCHED_SOURCE_DIR) + "/tests/service/kube/bind_request.json";
  result = testing::run_cli("kube-extender --listen 127.0.0.1:0 --nodes " + bad_nodes);
  EXPECT_EQ(result.status, 2) << result.err;  // a BindingArgs is not a NodeList
  EXPECT_NE(result.err.find("NodeList.items"), std::string::npos) << result.err;
  // An unknown policy: one line naming the closest registry policies.
  result = testing::run_cli("kube-extender --listen 127.0.0.1:0 --policy greedy-ef");
  EXPECT_EQ(result.status, 2) << result.err;
  EXPECT_NE(result.err.find("greedy-eft"), std::string::npos) << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
}

}  // namespace
}  // namespace hetsched
